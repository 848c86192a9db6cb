package exportfmt

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// manila is a fixed +08:00 zone, so the tests need no tzdata.
var manila = time.FixedZone("PHT", 8*60*60)

func TestCSVRoundTrip(t *testing.T) {
	t.Parallel()
	at := time.Date(2025, 3, 1, 20, 30, 5, 0, time.UTC)
	tests := []struct {
		name string
		cell Cell
		want string // what encoding/csv reads back
	}{
		{"plain", Cell{Kind: Text, Text: "hello"}, "hello"},
		{"empty", Cell{Kind: Text}, ""},
		{"comma", Cell{Kind: Text, Text: "a,b"}, "a,b"},
		{"quotes", Cell{Kind: Text, Text: `say "hi"`}, `say "hi"`},
		{"only a quote", Cell{Kind: Text, Text: `"`}, `"`},
		{"newline", Cell{Kind: Text, Text: "line1\nline2"}, "line1\nline2"},
		{"lone CR inside", Cell{Kind: Text, Text: "a\rb"}, "a\rb"},
		// encoding/csv's Reader turns every CRLF it reads into LF, inside
		// quoted fields too; the file itself holds the CRLF.
		{"CRLF inside", Cell{Kind: Text, Text: "a\r\nb"}, "a\nb"},
		{"unicode", Cell{Kind: Text, Text: "Café – 日本語 🙂"}, "Café – 日本語 🙂"},
		{"leading space", Cell{Kind: Text, Text: " x "}, " x "},
		{"equals", Cell{Kind: Text, Text: "=1+1"}, "'=1+1"},
		{"plus", Cell{Kind: Text, Text: "+63 917"}, "'+63 917"},
		{"minus", Cell{Kind: Text, Text: "-5.00"}, "'-5.00"},
		{"at", Cell{Kind: Text, Text: "@SUM(A1:A9)"}, "'@SUM(A1:A9)"},
		{"tab", Cell{Kind: Text, Text: "\t=1"}, "'\t=1"},
		{"CR", Cell{Kind: Text, Text: "\r=1"}, "'\r=1"},
		{"formula with quotes and comma", Cell{Kind: Text, Text: `=HYPERLINK("http://x.test","y")`}, `'=HYPERLINK("http://x.test","y")`},
		{"equals later is fine", Cell{Kind: Text, Text: "a=b"}, "a=b"},
		{"decimal", Cell{Kind: Decimal, Text: "150.00"}, "150.00"},
		{"negative decimal", Cell{Kind: Decimal, Text: "-5.00"}, "-5.00"},
		{"whole decimal", Cell{Kind: Decimal, Text: "-7"}, "-7"},
		{"long decimal", Cell{Kind: Decimal, Text: "123456789012345678901234.000000001"}, "123456789012345678901234.000000001"},
		{"decimal with exponent is text", Cell{Kind: Decimal, Text: "-5e3"}, "'-5e3"},
		{"decimal formula is text", Cell{Kind: Decimal, Text: "=1+1"}, "'=1+1"},
		{"decimal trailing dot is text", Cell{Kind: Decimal, Text: "-5."}, "'-5."},
		{"decimal plus is text", Cell{Kind: Decimal, Text: "+5"}, "'+5"},
		{"empty decimal", Cell{Kind: Decimal}, ""},
		{"integer", Cell{Kind: Integer, Int: -42}, "-42"},
		{"big integer", Cell{Kind: Integer, Int: 9223372036854775807}, "9223372036854775807"},
		{"time in location", Cell{Kind: Time, Time: at}, "2025-03-02 04:30:05"},
		{"zero time", Cell{Kind: Time}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var buf bytes.Buffer
			enc, err := New(CSV, &buf, Options{Location: manila})
			if err != nil {
				t.Fatal(err)
			}
			mustDo(t, enc.Header([]string{"before", "value", "after"}))
			mustDo(t, enc.Row([]Cell{{Kind: Text, Text: "x"}, tt.cell, {Kind: Integer, Int: 1}}))
			mustDo(t, enc.Close())

			got := readCSV(t, buf.Bytes())
			want := [][]string{{"before", "value", "after"}, {"x", tt.want, "1"}}
			if !equalRecords(got, want) {
				t.Fatalf("read back %q, want %q (file %q)", got, want, buf.String())
			}
		})
	}
}

func TestCSVBytes(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	enc, err := New(CSV, &buf, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, enc.Header([]string{"id", "=name", "amount", "at"}))
	mustDo(t, enc.Row([]Cell{
		{Kind: Integer, Int: 7},
		{Kind: Text, Text: "a \"b\"\nc"},
		{Kind: Decimal, Text: "-0.10"},
		{Kind: Time, Time: time.Date(2025, 1, 2, 3, 4, 5, 6, time.UTC)},
	}))
	mustDo(t, enc.Row([]Cell{{Kind: Integer}, {Kind: Text}, {Kind: Decimal, Text: "1"}, {Kind: Time}}))
	mustDo(t, enc.Close())
	want := "\xEF\xBB\xBF" + "id,'=name,amount,at\r\n" +
		"7,\"a \"\"b\"\"\nc\",-0.10,2025-01-02 03:04:05\r\n" +
		"0,,1,\r\n"
	if got := buf.String(); got != want {
		t.Fatalf("file\n%q\nwant\n%q", got, want)
	}
}

func TestCSVStreams(t *testing.T) {
	t.Parallel()
	var w countingWriter
	enc, err := New(CSV, &w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, enc.Header([]string{"a", "b"}))
	for i := range 10_000 {
		mustDo(t, enc.Row([]Cell{{Kind: Integer, Int: int64(i)}, {Kind: Text, Text: "some text in a row"}}))
	}
	before := w.n
	if before == 0 {
		t.Fatal("nothing reached the writer before Close: the encoder accumulates")
	}
	mustDo(t, enc.Close())
	if w.n-before > 64<<10 {
		t.Fatalf("Close wrote %d bytes; more than one buffer was held back", w.n-before)
	}
}

func TestCSVWriteError(t *testing.T) {
	t.Parallel()
	boom := errors.New("disk full")
	enc, err := New(CSV, failingWriter{boom}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	mustDo(t, enc.Header([]string{"a"}))
	var rowErr error
	for i := 0; rowErr == nil && i < 100_000; i++ {
		rowErr = enc.Row([]Cell{{Kind: Text, Text: "0123456789"}})
	}
	if !errors.Is(rowErr, boom) {
		t.Fatalf("Row error %v, want %v", rowErr, boom)
	}
	if err := enc.Close(); !errors.Is(err, boom) {
		t.Fatalf("Close error %v, want %v", err, boom)
	}
}

func TestCSVCallOrder(t *testing.T) {
	t.Parallel()
	testCallOrder(t, CSV)
}

// testCallOrder checks the sequence rules every encoder keeps.
func testCallOrder(t *testing.T, f Format) {
	t.Helper()
	row := []Cell{{Kind: Text, Text: "a"}, {Kind: Text, Text: "b"}}
	tests := []struct {
		name string
		run  func(*testing.T, Encoder) error
	}{
		{"header twice", func(t *testing.T, e Encoder) error {
			mustDo(t, e.Header([]string{"a", "b"}))
			return e.Header([]string{"a", "b"})
		}},
		{"header after row", func(t *testing.T, e Encoder) error {
			mustDo(t, e.Row(row))
			return e.Header([]string{"a", "b"})
		}},
		{"empty header", func(t *testing.T, e Encoder) error { return e.Header(nil) }},
		{"row narrower than header", func(t *testing.T, e Encoder) error {
			mustDo(t, e.Header([]string{"a", "b"}))
			return e.Row(row[:1])
		}},
		{"unknown kind", func(t *testing.T, e Encoder) error {
			mustDo(t, e.Header([]string{"a", "b"}))
			return e.Row([]Cell{{Kind: 99}, {}})
		}},
		{"row after close", func(t *testing.T, e Encoder) error {
			mustDo(t, e.Header([]string{"a", "b"}))
			mustDo(t, e.Close())
			return e.Row(row)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			enc, err := New(f, io.Discard, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if err := tt.run(t, enc); err == nil {
				t.Fatal("no error")
			}
		})
	}
}

func TestNewRefusesUnknownFormat(t *testing.T) {
	t.Parallel()
	if _, err := New(Format(9), io.Discard, Options{}); err == nil {
		t.Fatal("format 9 accepted")
	}
	if _, err := New(CSV, nil, Options{}); err == nil {
		t.Fatal("nil writer accepted")
	}
}

func TestIsDecimal(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]bool{
		"0": true, "150.00": true, "-5.00": true, "-0": true, "007.5": true,
		"": false, "-": false, ".5": false, "5.": false, "+5": false, "1e3": false,
		"1,000.00": false, " 1": false, "1 ": false, "1.2.3": false, "--1": false, "=1": false,
	} {
		if got := isDecimal(s); got != want {
			t.Errorf("isDecimal(%q) = %v, want %v", s, got, want)
		}
	}
}

func readCSV(t *testing.T, b []byte) [][]string {
	t.Helper()
	rest, ok := bytes.CutPrefix(b, []byte("\xEF\xBB\xBF"))
	if !ok {
		t.Fatalf("no BOM at the start: %q", b[:min(len(b), 8)])
	}
	r := csv.NewReader(bytes.NewReader(rest))
	r.FieldsPerRecord = -1
	recs, err := r.ReadAll()
	if err != nil {
		t.Fatalf("parse csv: %v\n%s", err, b)
	}
	if !bytes.HasSuffix(rest, []byte("\r\n")) {
		t.Fatal("last record not ended by CRLF")
	}
	return recs
}

func equalRecords(a, b [][]string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if strings.Join(a[i], "\x00") != strings.Join(b[i], "\x00") || len(a[i]) != len(b[i]) {
			return false
		}
	}
	return true
}

func mustDo(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

type countingWriter struct{ n int }

func (w *countingWriter) Write(p []byte) (int, error) {
	w.n += len(p)
	return len(p), nil
}

type failingWriter struct{ err error }

func (w failingWriter) Write([]byte) (int, error) { return 0, w.err }

func TestAppendTime(t *testing.T) {
	t.Parallel()
	for _, at := range []time.Time{
		time.Date(2025, 3, 1, 20, 30, 5, 999_999_999, time.UTC),
		time.Date(1, 1, 1, 0, 0, 1, 0, time.UTC),
		time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Date(-5, 6, 7, 8, 9, 10, 0, time.UTC),
		time.Date(2024, 2, 29, 9, 8, 7, 0, manila),
	} {
		if got, want := string(appendTime(nil, at)), at.Format(timeLayout); got != want {
			t.Errorf("appendTime(%v) = %q, want %q", at, got, want)
		}
	}
}
