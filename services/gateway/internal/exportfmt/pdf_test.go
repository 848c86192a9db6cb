package exportfmt

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/types"
	"golang.org/x/image/font/gofont/goregular"
)

func TestPDFTable(t *testing.T) {
	t.Parallel()
	const rows = 120
	at := time.Date(2025, 3, 1, 20, 30, 5, 0, time.UTC)
	var buf bytes.Buffer
	enc, err := New(PDF, &buf, Options{Title: "Transactions – March", Location: manila})
	mustDo(t, err)
	header := []string{"Id", "Reference", "Amount", "Created"}
	mustDo(t, enc.Header(header))
	var want [][]string
	for i := range rows {
		amount := fmt.Sprintf("%d.%02d", i*13, i%100)
		if i%3 == 0 {
			amount = "-" + amount
		}
		mustDo(t, enc.Row([]Cell{
			{Kind: Integer, Int: int64(1000 + i)},
			{Kind: Text, Text: fmt.Sprintf("ref-%05d, Café", i)},
			{Kind: Decimal, Text: amount},
			{Kind: Time, Time: at.Add(time.Duration(i) * time.Minute)},
		}))
		want = append(want, []string{
			strconv.Itoa(1000 + i), fmt.Sprintf("ref-%05d, Café", i), amount,
			at.Add(time.Duration(i) * time.Minute).In(manila).Format(timeLayout),
		})
	}
	mustDo(t, enc.Close())

	pages := extractPDF(t, buf.Bytes())
	if len(pages) != 3 { // 44 rows on the first page (the title takes room), 46 after
		t.Fatalf("%d pages, want 3", len(pages))
	}
	var got [][]string
	for n, lines := range pages {
		if n == 0 {
			if title := strings.Join(lines[0], " "); title != "Transactions – March" {
				t.Fatalf("first line %q, want the title", title)
			}
			lines = lines[1:]
		}
		if !slices.Equal(lines[0], header) {
			t.Errorf("page %d starts with %q, want the header", n+1, lines[0])
		}
		last := lines[len(lines)-1]
		if footer := strings.Join(last, " "); footer != "Page "+strconv.Itoa(n+1) {
			t.Errorf("page %d ends with %q", n+1, footer)
		}
		got = append(got, lines[1:len(lines)-1]...)
	}
	if len(got) != rows {
		t.Fatalf("%d data rows, want %d", len(got), rows)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Fatalf("row %d reads %q, want %q", i+1, got[i], want[i])
		}
	}
}

func TestPDFPagesGrowWithRows(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rows, pages int
	}{
		{0, 1},
		{1, 1},
		{44, 1},
		{45, 2},
		{90, 2},
		{91, 3},
		{500, 11},
	}
	for _, tt := range tests {
		t.Run(strconv.Itoa(tt.rows), func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			enc, err := New(PDF, &buf, Options{Title: "Export"})
			mustDo(t, err)
			mustDo(t, enc.Header([]string{"n", "name"}))
			for i := range tt.rows {
				mustDo(t, enc.Row([]Cell{{Kind: Integer, Int: int64(i)}, {Kind: Text, Text: "row"}}))
			}
			mustDo(t, enc.Close())
			pages := extractPDF(t, buf.Bytes())
			if len(pages) != tt.pages {
				t.Fatalf("%d pages, want %d", len(pages), tt.pages)
			}
			data := 0
			for _, lines := range pages {
				for _, l := range lines {
					if len(l) == 2 && l[1] == "row" {
						data++
					}
				}
			}
			if data != tt.rows {
				t.Fatalf("%d data rows, want %d", data, tt.rows)
			}
		})
	}
}

func TestPDFCellText(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a very long merchant name ", 20)
	tests := []struct {
		name string
		in   string
		want func(string) bool
	}{
		{"fits", "Acme Retail", func(s string) bool { return s == "Acme Retail" }},
		{"accents", "Café Ñandú", func(s string) bool { return s == "Café Ñandú" }},
		{"too long is cut", long, func(s string) bool {
			return strings.HasSuffix(s, "…") && strings.HasPrefix(long, strings.TrimSuffix(s, "…")) && len(s) < len(long)
		}},
		{"line breaks become spaces", "a\nb\tc", func(s string) bool { return s == "a b c" }},
		{"missing glyphs become ?", "日本", func(s string) bool { return s == "??" }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			enc, err := New(PDF, &buf, Options{})
			mustDo(t, err)
			cols := make([]string, 8)
			row := make([]Cell, 8)
			for i := range cols {
				cols[i] = "c" + strconv.Itoa(i)
				row[i] = Cell{Kind: Text, Text: "x"}
			}
			row[3].Text = tt.in
			mustDo(t, enc.Header(cols))
			mustDo(t, enc.Row(row))
			mustDo(t, enc.Close())
			lines := extractPDF(t, buf.Bytes())[0]
			if len(lines) != 3 || len(lines[1]) != 8 {
				t.Fatalf("page reads %q", lines)
			}
			if got := lines[1][3]; !tt.want(got) {
				t.Fatalf("cell reads %q", got)
			}
		})
	}
}

func TestPDFRowLimit(t *testing.T) {
	t.Parallel()
	enc, err := New(PDF, &bytes.Buffer{}, Options{})
	mustDo(t, err)
	if got := enc.(*pdfEncoder).maxRows; got != MaxPDFRows {
		t.Fatalf("limit %d, want MaxPDFRows", got)
	}
	var buf bytes.Buffer
	small, err := newPDF(&buf, Options{}, 3)
	mustDo(t, err)
	mustDo(t, small.Header([]string{"n"}))
	for i := range 3 {
		mustDo(t, small.Row([]Cell{{Kind: Integer, Int: int64(i)}}))
	}
	if err := small.Row([]Cell{{Kind: Integer, Int: 3}}); !errors.Is(err, ErrTooManyRowsForPDF) {
		t.Fatalf("row past the limit: %v, want ErrTooManyRowsForPDF", err)
	}
	mustDo(t, small.Close())
	if lines := extractPDF(t, buf.Bytes())[0]; len(lines) != 5 {
		t.Fatalf("page reads %q, want header, 3 rows, page number", lines)
	}
}

func TestPDFWriteError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk full")
	enc, err := New(PDF, failingWriter{boom}, Options{})
	mustDo(t, err)
	mustDo(t, enc.Header([]string{"a"}))
	mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "x"}}))
	if err := enc.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close error %v, want %v", err, boom)
	}
}

func TestPDFCallOrder(t *testing.T) {
	t.Parallel()
	testCallOrder(t, PDF)
}

func TestFitColumns(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		natural []float64
		usable  float64
		want    []float64
	}{
		{"room to spare widens in proportion", []float64{10, 30}, 80, []float64{20, 60}},
		{"narrow keep theirs, wide share the rest", []float64{10, 500, 20, 400}, 130, []float64{10, 50, 20, 50}},
		{"all too wide share equally", []float64{100, 200}, 90, []float64{45, 45}},
		{"none", nil, 100, []float64{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := fitColumns(tt.natural, tt.usable)
			if len(got) != len(tt.want) {
				t.Fatalf("got %v, want %v", got, tt.want)
			}
			for i := range got {
				if math.Abs(got[i]-tt.want[i]) > 1e-9 {
					t.Fatalf("got %v, want %v", got, tt.want)
				}
			}
		})
	}
}

func TestMetricsFit(t *testing.T) {
	t.Parallel()
	m, err := newMetrics(goregular.TTF)
	mustDo(t, err)
	if m.advance('…') <= 0 || m.advance('?') <= 0 {
		t.Fatal("the font lacks the ellipsis or the question mark")
	}
	s := strings.Repeat("W", 50)
	for _, avail := range []float64{0, 3, 10, 50, 100} {
		got := m.fit(s, avail, 7)
		if w := m.width(got, 7); w > avail+1e-9 {
			t.Errorf("fit to %v gives %q, %v wide", avail, got, w)
		}
	}
}

// extractPDF checks the document with pdfcpu and returns each page's text
// as lines (runs at one height, left to right), top to bottom.
func extractPDF(t *testing.T, b []byte) [][][]string {
	t.Helper()
	conf := model.NewDefaultConfiguration()
	ctx, err := api.ReadContext(bytes.NewReader(b), conf)
	if err != nil {
		t.Fatalf("read pdf: %v", err)
	}
	if err := api.ValidateContext(ctx); err != nil {
		t.Fatalf("validate pdf: %v", err)
	}
	pages := make([][][]string, ctx.PageCount)
	for n := 1; n <= ctx.PageCount; n++ {
		d, _, inherited, err := ctx.PageDict(n, true)
		mustDo(t, err)
		fonts := pdfFonts(t, ctx, inherited.Resources)
		content, err := ctx.PageContent(d, n)
		mustDo(t, err)
		pages[n-1] = pdfLines(t, content, fonts)
	}
	return pages
}

// pdfFonts maps each font resource name to its glyph → text table, read
// from the font's ToUnicode CMap.
func pdfFonts(t *testing.T, ctx *model.Context, res types.Dict) map[string]map[string]string {
	t.Helper()
	fontDict, err := ctx.DereferenceDict(res["Font"])
	mustDo(t, err)
	fonts := map[string]map[string]string{}
	bfrange := regexp.MustCompile(`<([0-9A-F]{4})><([0-9A-F]{4})><([0-9A-F]{4,})>`)
	for name, ref := range fontDict {
		fd, err := ctx.DereferenceDict(ref)
		mustDo(t, err)
		sd, _, err := ctx.DereferenceStreamDict(*fd.IndirectRefEntry("ToUnicode"))
		mustDo(t, err)
		mustDo(t, sd.Decode())
		glyphs := map[string]string{}
		for _, m := range bfrange.FindAllStringSubmatch(string(sd.Content), -1) {
			if m[1] != m[2] {
				t.Fatalf("font %s: ranges of more than one glyph are not read here", name)
			}
			r, err := strconv.ParseUint(m[3], 16, 32)
			mustDo(t, err)
			glyphs[m[1]] = string(rune(r))
		}
		fonts[name] = glyphs
	}
	return fonts
}

// pdfLines reads gopdf's text runs ("x y TD", "/F1 7 Tf", "[<…>] TJ") and
// groups them into lines by height.
func pdfLines(t *testing.T, content []byte, fonts map[string]map[string]string) [][]string {
	t.Helper()
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
				t.Fatalf("text in unknown font %q", font)
			}
			var s strings.Builder
			for i := 0; i+4 <= len(hex); i += 4 {
				r, ok := glyphs[hex[i:i+4]]
				if !ok {
					t.Fatalf("glyph %s has no text in font %s", hex[i:i+4], font)
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
	var lines [][]string
	last := math.NaN()
	for _, r := range runs {
		if math.Round(r.y) != last {
			lines = append(lines, nil)
			last = math.Round(r.y)
		}
		lines[len(lines)-1] = append(lines[len(lines)-1], r.text)
	}
	return lines
}

func TestPDFRaggedRowsWithoutHeader(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc, err := New(PDF, &buf, Options{})
	mustDo(t, err)
	mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "a"}}))
	mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "b"}, {Kind: Integer, Int: 2}, {Kind: Text, Text: "c"}}))
	mustDo(t, enc.Row(nil))
	mustDo(t, enc.Close())
	lines := extractPDF(t, buf.Bytes())[0]
	want := [][]string{{"a"}, {"b", "2", "c"}, {"Page 1"}}
	if !equalRecords(lines, want) {
		t.Fatalf("page reads %q, want %q", lines, want)
	}
}
