// Package pdftext reads back the text of the PDFs exportfmt writes, for
// tests: it validates a document with pdfcpu and returns each page's text
// runs grouped into lines. It understands only what gopdf writes (one glyph
// per ToUnicode range, "x y TD", "/F Tf", "[<hex>] TJ"), which is enough to
// count and compare an export's rows; it is not a general PDF reader.
package pdftext

import (
	"bytes"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
)

// Pages validates the document and returns each page's lines (runs at one
// height, left to right), top to bottom.
func Pages(b []byte) ([][][]string, error) {
	ctx, err := api.ReadContext(bytes.NewReader(b), model.NewDefaultConfiguration())
	if err != nil {
		return nil, fmt.Errorf("read pdf: %w", err)
	}
	if err := api.ValidateContext(ctx); err != nil {
		return nil, fmt.Errorf("validate pdf: %w", err)
	}
	pages := make([][][]string, ctx.PageCount)
	for n := 1; n <= ctx.PageCount; n++ {
		d, _, inherited, err := ctx.PageDict(n, true)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		fonts, err := glyphTables(ctx, inherited.Resources)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		content, err := ctx.PageContent(d, n)
		if err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
		if pages[n-1], err = lines(content, fonts); err != nil {
			return nil, fmt.Errorf("page %d: %w", n, err)
		}
	}
	return pages, nil
}

var bfrange = regexp.MustCompile(`<([0-9A-F]{4})><([0-9A-F]{4})><([0-9A-F]{4,})>`)

// glyphTables maps each font resource name to its glyph → text table, read
// from the font's ToUnicode CMap.
func glyphTables(ctx *model.Context, res types.Dict) (map[string]map[string]string, error) {
	fontDict, err := ctx.DereferenceDict(res["Font"])
	if err != nil {
		return nil, err
	}
	fonts := map[string]map[string]string{}
	for name, ref := range fontDict {
		fd, err := ctx.DereferenceDict(ref)
		if err != nil {
			return nil, err
		}
		sd, _, err := ctx.DereferenceStreamDict(*fd.IndirectRefEntry("ToUnicode"))
		if err != nil {
			return nil, err
		}
		if err := sd.Decode(); err != nil {
			return nil, err
		}
		glyphs := map[string]string{}
		for _, m := range bfrange.FindAllStringSubmatch(string(sd.Content), -1) {
			if m[1] != m[2] {
				return nil, fmt.Errorf("font %s: ranges of more than one glyph are not read here", name)
			}
			r, err := strconv.ParseUint(m[3], 16, 32)
			if err != nil {
				return nil, err
			}
			glyphs[m[1]] = string(rune(r))
		}
		fonts[name] = glyphs
	}
	return fonts, nil
}

// lines reads gopdf's text runs and groups them into lines by height.
func lines(content []byte, fonts map[string]map[string]string) ([][]string, error) {
	type run struct {
		x, y float64
		text string
	}
	var runs []run
	var x, y float64
	font := ""
	for line := range strings.SplitSeq(string(content), "\n") {
		f := strings.Fields(line)
		switch {
		case len(f) == 3 && f[2] == "TD":
			x, _ = strconv.ParseFloat(f[0], 64)
			y, _ = strconv.ParseFloat(f[1], 64)
		case len(f) >= 3 && f[2] == "Tf":
			font = strings.TrimPrefix(f[0], "/")
		case strings.HasSuffix(line, "] TJ"):
			hex := strings.TrimSuffix(strings.TrimPrefix(line, "[<"), ">] TJ")
			glyphs, ok := fonts[font]
			if !ok {
				return nil, fmt.Errorf("text in unknown font %q", font)
			}
			var s strings.Builder
			for i := 0; i+4 <= len(hex); i += 4 {
				r, ok := glyphs[hex[i:i+4]]
				if !ok {
					return nil, fmt.Errorf("glyph %s has no text in font %s", hex[i:i+4], font)
				}
				s.WriteString(r)
			}
			runs = append(runs, run{x, y, s.String()})
		}
	}
	slices.SortStableFunc(runs, func(a, b run) int {
		if d := math.Round(b.y) - math.Round(a.y); d != 0 {
			return int(d)
		}
		return int(math.Round(a.x - b.x))
	})
	var out [][]string
	last := math.NaN()
	for _, r := range runs {
		if math.Round(r.y) != last {
			out = append(out, nil)
			last = math.Round(r.y)
		}
		out[len(out)-1] = append(out[len(out)-1], r.text)
	}
	return out, nil
}
