package exportfmt

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

func TestXLSXRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 20, 30, 5, 999_000_000, time.UTC)
	tests := []struct {
		name     string
		cell     Cell
		want     string            // the formatted value excelize reads back
		wantRaw  string            // the stored value, when it differs
		wantType excelize.CellType // a number cell has no type: CellTypeUnset
	}{
		{"text", Cell{Kind: Text, Text: "hello, \"world\"\nline 2"}, "hello, \"world\"\nline 2", "", excelize.CellTypeInlineString},
		{"unicode", Cell{Kind: Text, Text: "Café – 日本語 🙂"}, "Café – 日本語 🙂", "", excelize.CellTypeInlineString},
		{"formula-looking text stays text", Cell{Kind: Text, Text: "=1+1"}, "=1+1", "", excelize.CellTypeInlineString},
		{"markup", Cell{Kind: Text, Text: "<b>&amp;</b>"}, "<b>&amp;</b>", "", excelize.CellTypeInlineString},
		{"surrounding spaces", Cell{Kind: Text, Text: "  padded  "}, "  padded  ", "", excelize.CellTypeInlineString},
		{"decimal", Cell{Kind: Decimal, Text: "150.00"}, "150.00", "150", excelize.CellTypeUnset},
		{"decimal one place", Cell{Kind: Decimal, Text: "150.10"}, "150.10", "150.1", excelize.CellTypeUnset},
		{"negative decimal", Cell{Kind: Decimal, Text: "-5.00"}, "-5.00", "-5", excelize.CellTypeUnset},
		{"tenth", Cell{Kind: Decimal, Text: "0.1"}, "0.1", "", excelize.CellTypeUnset},
		{"whole decimal", Cell{Kind: Decimal, Text: "1500"}, "1500", "", excelize.CellTypeUnset},
		{"fifteen digits", Cell{Kind: Decimal, Text: "9999999999999.99"}, "9999999999999.99", "", excelize.CellTypeUnset},
		{"fifteen digits small", Cell{Kind: Decimal, Text: "0.123456789012345"}, "0.123456789012345", "", excelize.CellTypeUnset},
		{"sixteen digits is text", Cell{Kind: Decimal, Text: "99999999999999.99"}, "99999999999999.99", "", excelize.CellTypeInlineString},
		{"long decimal is text", Cell{Kind: Decimal, Text: "123456789012345678901234.000000001"}, "123456789012345678901234.000000001", "", excelize.CellTypeInlineString},
		{"bad decimal is text", Cell{Kind: Decimal, Text: "1e3"}, "1e3", "", excelize.CellTypeInlineString},
		{"integer", Cell{Kind: Integer, Int: -42}, "-42", "", excelize.CellTypeUnset},
		{"fifteen digit integer", Cell{Kind: Integer, Int: 999_999_999_999_999}, "999999999999999", "", excelize.CellTypeUnset},
		{"big integer is text", Cell{Kind: Integer, Int: 9223372036854775807}, "9223372036854775807", "", excelize.CellTypeInlineString},
		{"time", Cell{Kind: Time, Time: at}, "2025-03-02 04:30:05", "", excelize.CellTypeUnset},
		{"zero time", Cell{Kind: Time}, "", "", excelize.CellTypeUnset},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			enc, err := New(Excel, &buf, Options{Location: manila, Title: "Transactions"})
			if err != nil {
				t.Fatal(err)
			}
			mustDo(t, enc.Header([]string{"before", "value", "after"}))
			mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "x"}, tt.cell, {Kind: Integer, Int: 1}}))
			mustDo(t, enc.Close())

			f := openXLSX(t, buf.Bytes())
			rows, err := f.GetRows("Transactions")
			mustDo(t, err)
			want := [][]string{{"before", "value", "after"}, {"x", tt.want, "1"}}
			if !equalRecords(rows, want) {
				t.Fatalf("read back %q, want %q", rows, want)
			}
			typ, err := f.GetCellType("Transactions", "B2")
			mustDo(t, err)
			if typ != tt.wantType {
				t.Errorf("cell type %v, want %v", typ, tt.wantType)
			}
			raw, err := f.GetCellValue("Transactions", "B2", excelize.Options{RawCellValue: true})
			mustDo(t, err)
			wantRaw := tt.wantRaw
			if wantRaw == "" {
				wantRaw = tt.want
			}
			if tt.cell.Kind == Time && !tt.cell.Time.IsZero() {
				return // stored as a serial day, checked by TestXLSXTimes
			}
			if raw != wantRaw {
				t.Errorf("stored value %q, want %q", raw, wantRaw)
			}
		})
	}
}

func TestXLSXHeaderIsBoldAndFrozen(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc, err := New(Excel, &buf, Options{Title: "Transactions"})
	mustDo(t, err)
	mustDo(t, enc.Header([]string{"Id", "Created"}))
	mustDo(t, enc.Row([]Cell{{Kind: Integer, Int: 1}, {Kind: Time, Time: time.Now()}}))
	mustDo(t, enc.Close())
	f := openXLSX(t, buf.Bytes())
	for _, ref := range []string{"A1", "B1"} {
		id, err := f.GetCellStyle("Transactions", ref)
		mustDo(t, err)
		st, err := f.GetStyle(id)
		mustDo(t, err)
		if st.Font == nil || !st.Font.Bold {
			t.Errorf("%s is not bold", ref)
		}
	}
	id, err := f.GetCellStyle("Transactions", "A2")
	mustDo(t, err)
	if st, err := f.GetStyle(id); err != nil || st.Font != nil && st.Font.Bold {
		t.Errorf("a data cell is bold (%v)", err)
	}
	panes, err := f.GetPanes("Transactions")
	mustDo(t, err)
	if !panes.Freeze || panes.YSplit != 1 {
		t.Errorf("header not frozen: %+v", panes)
	}
	w, err := f.GetColWidth("Transactions", "B")
	mustDo(t, err)
	if w < 19 {
		t.Errorf("time column %v wide, too narrow for its text", w)
	}
}

// TestXLSXTimes checks that serial days read back as the very second
// written, across many instants and a zone with a half-hour offset.
func TestXLSXTimes(t *testing.T) {
	t.Parallel()
	loc := time.FixedZone("IST", 5*60*60+30*60)
	rng := rand.New(rand.NewPCG(1, 2))
	from := time.Date(1990, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	to := time.Date(2099, 12, 31, 0, 0, 0, 0, time.UTC).Unix()
	times := make([]time.Time, 2000)
	for i := range times {
		times[i] = time.Unix(from+rng.Int64N(to-from), rng.Int64N(1e9))
	}
	times[0] = time.Date(2025, 12, 31, 23, 59, 59, 999_999_999, loc)
	times[1] = time.Date(2024, 2, 29, 0, 0, 0, 0, loc)

	var buf bytes.Buffer
	enc, err := New(Excel, &buf, Options{Location: loc})
	mustDo(t, err)
	mustDo(t, enc.Header([]string{"at"}))
	for _, at := range times {
		mustDo(t, enc.Row([]Cell{{Kind: Time, Time: at}}))
	}
	mustDo(t, enc.Close())
	rows, err := openXLSX(t, buf.Bytes()).GetRows("Export")
	mustDo(t, err)
	if len(rows) != len(times)+1 {
		t.Fatalf("%d rows, want %d", len(rows), len(times)+1)
	}
	for i, at := range times {
		if want := at.In(loc).Format(timeLayout); rows[i+1][0] != want {
			t.Errorf("%v read back %q, want %q", at, rows[i+1][0], want)
		}
	}
}

func TestXLSXDecimalsExact(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	var values []string
	for range 3000 {
		whole := rng.Int64N(1e13)
		v := strconv.FormatInt(whole, 10) + "." + strconv.FormatInt(100+rng.Int64N(100), 10)[1:]
		if rng.IntN(2) == 0 {
			v = "-" + v
		}
		values = append(values, v)
	}
	var buf bytes.Buffer
	enc, err := New(Excel, &buf, Options{})
	mustDo(t, err)
	for _, v := range values {
		mustDo(t, enc.Row([]Cell{{Kind: Decimal, Text: v}}))
	}
	mustDo(t, enc.Close())
	f := openXLSX(t, buf.Bytes())
	rows, err := f.GetRows("Export")
	mustDo(t, err)
	for i, v := range values {
		if rows[i][0] != v {
			t.Errorf("%s read back %q", v, rows[i][0])
		}
	}
}

func TestXLSXRowLimit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		header bool
		fits   int
	}{
		{"with header", true, 2},
		{"without header", false, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			enc, err := newXLSX(&buf, Options{}, 3)
			mustDo(t, err)
			if tt.header {
				mustDo(t, enc.Header([]string{"n"}))
			}
			for i := range tt.fits {
				mustDo(t, enc.Row([]Cell{{Kind: Integer, Int: int64(i)}}))
			}
			if err := enc.Row([]Cell{{Kind: Integer, Int: 99}}); !errors.Is(err, ErrTooManyRowsForExcel) {
				t.Fatalf("row past the limit: %v, want ErrTooManyRowsForExcel", err)
			}
			mustDo(t, enc.Close())
			rows, err := openXLSX(t, buf.Bytes()).GetRows("Export")
			mustDo(t, err)
			if len(rows) != 3 {
				t.Fatalf("%d sheet rows, want 3", len(rows))
			}
		})
	}
}

func TestXLSXHeaderOnly(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc, err := New(Excel, &buf, Options{Title: "Empty"})
	mustDo(t, err)
	mustDo(t, enc.Header([]string{"a", "b"}))
	mustDo(t, enc.Close())
	mustDo(t, enc.Close())
	rows, err := openXLSX(t, buf.Bytes()).GetRows("Empty")
	mustDo(t, err)
	if !equalRecords(rows, [][]string{{"a", "b"}}) {
		t.Fatalf("read back %q", rows)
	}
}

func TestXLSXStreamsAtClose(t *testing.T) {
	t.Parallel()
	var w countingWriter
	enc, err := New(Excel, &w, Options{})
	mustDo(t, err)
	for i := range 1000 {
		mustDo(t, enc.Row([]Cell{{Kind: Integer, Int: int64(i)}}))
	}
	mustDo(t, enc.Close())
	if w.n == 0 {
		t.Fatal("nothing written")
	}
}

func TestXLSXCallOrder(t *testing.T) {
	t.Parallel()
	testCallOrder(t, Excel)
}

func TestSheetName(t *testing.T) {
	t.Parallel()
	for title, want := range map[string]string{
		"Transactions":            "Transactions",
		"":                        "Export",
		"  ":                      "Export",
		"history":                 "Export",
		"Transactions 2025/03/01": "Transactions 2025-03-01",
		`a:b\c?d*e[f]g`:           "a-b-c-d-e-f-g",
		"'quoted'":                "quoted",
		"A title that is far longer than 31 characters": "A title that is far longer than",
		"line\nbreak":           "line-break",
		strings.Repeat("🙂", 20): strings.Repeat("🙂", 15),
	} {
		if got := sheetName(title); got != want {
			t.Errorf("sheetName(%q) = %q, want %q", title, got, want)
		}
	}
}

func openXLSX(t *testing.T, b []byte) *excelize.File {
	t.Helper()
	f, err := excelize.OpenReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("open workbook: %v", err)
	}
	t.Cleanup(func() { _ = f.Close() })
	return f
}

func TestXLSXWriteError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk full")
	enc, err := New(Excel, failingWriter{boom}, Options{})
	mustDo(t, err)
	mustDo(t, enc.Header([]string{"a"}))
	mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "x"}}))
	if err := enc.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close error %v, want %v", err, boom)
	}
}

func TestXLSXRaggedRowsWithoutHeader(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc, err := New(Excel, &buf, Options{})
	mustDo(t, err)
	mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "a"}}))
	mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "b"}, {Kind: Integer, Int: 2}}))
	mustDo(t, enc.Close())
	rows, err := openXLSX(t, buf.Bytes()).GetRows("Export")
	mustDo(t, err)
	if want := [][]string{{"a"}, {"b", "2"}}; !equalRecords(rows, want) {
		t.Fatalf("read back %q, want %q", rows, want)
	}
}

// TestXLSXTextXMLCannotCarry checks text XML 1.0 has no room for: control
// characters become U+FFFD, invalid UTF-8 too, a carriage return survives,
// and a cell is cut at Excel's 32,767 characters.
func TestXLSXTextXMLCannotCarry(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", xlsxMaxChars+10)
	tests := []struct{ in, want string }{
		{"a\x00b\x1fc", "a\uFFFDb\uFFFDc"},
		{"bad \xff byte", "bad \uFFFD byte"},
		{"line\r\nbreak\ttab", "line\r\nbreak\ttab"},
		{" \u00a0nbsp\u00a0 ", " \u00a0nbsp\u00a0 "},
		{long, long[:xlsxMaxChars*len("é")]},
	}
	var buf bytes.Buffer
	enc, err := New(Excel, &buf, Options{Title: `Q3 <"&'> report`})
	mustDo(t, err)
	for _, tt := range tests {
		mustDo(t, enc.Row([]Cell{{Kind: Text, Text: tt.in}}))
	}
	mustDo(t, enc.Close())
	f := openXLSX(t, buf.Bytes())
	if name := f.GetSheetName(0); name != `Q3 <"&'> report` {
		t.Errorf("sheet name %q", name)
	}
	props, err := f.GetDocProps()
	mustDo(t, err)
	if props.Title != `Q3 <"&'> report` || props.Creator != "Paygate" {
		t.Errorf("document properties %+v", props)
	}
	rows, err := f.GetRows(f.GetSheetName(0))
	mustDo(t, err)
	for i, tt := range tests {
		if rows[i][0] != tt.want {
			t.Errorf("%.20q read back %.20q (%d bytes), want %.20q (%d bytes)", tt.in, rows[i][0], len(rows[i][0]), tt.want, len(tt.want))
		}
	}
}

// TestXLSXTimeBefore1900 checks a time Excel's calendar gets wrong is text.
func TestXLSXTimeBefore1900(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc, err := New(Excel, &buf, Options{})
	mustDo(t, err)
	at := time.Date(1900, 2, 28, 12, 0, 0, 0, time.UTC)
	mustDo(t, enc.Row([]Cell{{Kind: Time, Time: at}, {Kind: Time, Time: at.AddDate(0, 0, 1)}}))
	mustDo(t, enc.Close())
	f := openXLSX(t, buf.Bytes())
	rows, err := f.GetRows("Export")
	mustDo(t, err)
	if want := []string{"1900-02-28 12:00:00", "1900-03-01 12:00:00"}; !equalRecords(rows, [][]string{want}) {
		t.Fatalf("read back %q, want %q", rows, want)
	}
	if typ, _ := f.GetCellType("Export", "A1"); typ != excelize.CellTypeInlineString {
		t.Errorf("1900-02-28 is a %v cell, want text", typ)
	}
	if typ, _ := f.GetCellType("Export", "B1"); typ != excelize.CellTypeUnset {
		t.Errorf("1900-03-01 is a %v cell, want a number", typ)
	}
}

// TestXLSXFlatMemory writes enough rows to pass the sheet buffer many
// times over and checks that the bytes reach the writer as rows come, not
// at Close.
func TestXLSXFlatMemory(t *testing.T) {
	t.Parallel()
	var w countingWriter
	enc, err := New(Excel, &w, Options{})
	mustDo(t, err)
	mustDo(t, enc.Header([]string{"id", "text"}))
	for i := range 20_000 {
		mustDo(t, enc.Row([]Cell{{Kind: Integer, Int: int64(i)}, {Kind: Text, Text: strconv.Itoa(i * 7919)}}))
	}
	if w.n < 64<<10 {
		t.Fatalf("%d bytes written before Close: the sheet is held in memory", w.n)
	}
	mustDo(t, enc.Close())
}
