package exportfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/exportfmt/pdftext"
	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"golang.org/x/image/font/gofont/goregular"
)

func TestPDFTable(t *testing.T) {
	t.Parallel()
	// 44 rows on the first page (the title takes room), 46 after; 3,000
	// rows take 66 pages, chunks of gopdf pages (pdfChunkPages) joined.
	for rows, wantPages := range map[int]int{120: 3, 3000: 66} {
		t.Run(strconv.Itoa(rows), func(t *testing.T) {
			t.Parallel()
			testPDFTable(t, rows, wantPages)
		})
	}
}

func testPDFTable(t *testing.T, rows, wantPages int) {
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
	if len(pages) != wantPages {
		t.Fatalf("%d pages, want %d", len(pages), wantPages)
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
	// The document's properties survive the join of chunks.
	info, err := api.PDFInfo(bytes.NewReader(buf.Bytes()), "export.pdf", nil, false, model.NewDefaultConfiguration())
	mustDo(t, err)
	if info.Title != "Transactions – March" || info.Creator != "Paygate" {
		t.Errorf("title %q, creator %q; want the export's title and Paygate", info.Title, info.Creator)
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
		{44 + 46*(pdfChunkPages-1), pdfChunkPages},         // one chunk, full
		{44 + 46*(pdfChunkPages-1) + 1, pdfChunkPages + 1}, // a second chunk
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

// extractPDF checks the document and returns each page's text as lines.
func extractPDF(t *testing.T, b []byte) [][][]string {
	t.Helper()
	pages, err := pdftext.Pages(b)
	mustDo(t, err)
	return pages
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

// gcPercent reads the GC percent (by setting it and back).
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestPDFWritesUnderGOGC100 is not parallel: it reads the process's GC
// percent, which every PDF encoder lowers while it lives.
func TestPDFWritesUnderGOGC100(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(400))
	enc, err := New(PDF, io.Discard, Options{Title: "GC"})
	mustDo(t, err)
	if p := gcPercent(); p != 100 {
		t.Fatalf("GC percent %d while a PDF is written, want 100", p)
	}
	mustDo(t, enc.Header([]string{"a"}))
	mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "x"}}))
	mustDo(t, enc.Close())
	if p := gcPercent(); p != 400 {
		t.Fatalf("GC percent %d after Close, want 400 back", p)
	}

	// An encoder dropped without Close (a failed export) gives it back too.
	func() {
		_, err := New(PDF, io.Discard, Options{})
		mustDo(t, err)
	}()
	for i := 0; i < 50 && gcPercent() != 400; i++ {
		runtime.GC()
		time.Sleep(10 * time.Millisecond)
	}
	if p := gcPercent(); p != 400 {
		t.Fatalf("GC percent %d after a dropped encoder was collected, want 400 back", p)
	}

	// A lower percent is left as it is.
	debug.SetGCPercent(50)
	enc, err = New(PDF, io.Discard, Options{})
	mustDo(t, err)
	if p := gcPercent(); p != 50 {
		t.Fatalf("GC percent %d while a PDF is written under GOGC 50, want 50", p)
	}
	mustDo(t, enc.Close())
}
