package exportfmt

import (
	"bytes"
	"errors"
	"testing"
	"time"
)

func TestFormulaStartsIsTheGuard(t *testing.T) {
	t.Parallel()
	for b := range 256 {
		if got, want := bytes.IndexByte([]byte(FormulaStarts), byte(b)) >= 0, formulaStart(byte(b)); got != want {
			t.Errorf("byte %#x: in FormulaStarts %v, guarded %v", b, got, want)
		}
	}
}

// copyOutput is what COPY … WITH (FORMAT csv) writes for the rows of
// copyCells under copyColumns (NULL for a NULL, "" for an empty string).
const copyOutput = "1,plain,,2025-03-01 20:30:05.123456+08,4,1.50\n" +
	"2,\"a,b\",=x,,-2,-0.50\n" +
	"3,\"line\nbreak\",\"say \"\"hi\"\"\",2025-03-01 20:30:05+08,7,\n" +
	"4,\"lone\rcr\",\"\n\",0001-01-01 08:04:00+08:04,4,10.00\n" +
	"5,\"\"\"\n\"\"\",\"\",1999-12-31 23:59:59-05:30,-2,\n" +
	"6,\"\rx\",\ty,2025-03-01 20:30:05.5-04,4,0.00\n" +
	"7,\"\"\"\",@a,2025-03-01 20:30:05+08,4,0.00\n"

var copyColumns = []CopyColumn{{Kind: CopyAsIs}, {Kind: CopyText}, {Kind: CopyText}, {Kind: CopyTime},
	{Kind: CopyMapped, Map: func(raw string) string {
		switch raw {
		case "4":
			return "Success"
		case "-2":
			return "PSP, Error"
		}
		return "-Status " + raw
	}}, {Kind: CopyAsIs}}

func copyTime(s string) time.Time {
	t, err := time.ParseInLocation(timeLayout, s, time.UTC)
	if err != nil {
		panic(err)
	}
	return t
}

var copyCells = [][]Cell{
	{{Kind: Integer, Int: 1}, {Kind: Text, Text: "plain"}, {Kind: Text}, {Kind: Time, Time: copyTime("2025-03-01 20:30:05")},
		{Kind: Text, Text: "Success"}, {Kind: Decimal, Text: "1.50"}},
	{{Kind: Integer, Int: 2}, {Kind: Text, Text: "a,b"}, {Kind: Text, Text: "=x"}, {Kind: Time},
		{Kind: Text, Text: "PSP, Error"}, {Kind: Decimal, Text: "-0.50"}},
	{{Kind: Integer, Int: 3}, {Kind: Text, Text: "line\nbreak"}, {Kind: Text, Text: `say "hi"`}, {Kind: Time, Time: copyTime("2025-03-01 20:30:05")},
		{Kind: Text, Text: "-Status 7"}, {Kind: Text}},
	{{Kind: Integer, Int: 4}, {Kind: Text, Text: "lone\rcr"}, {Kind: Text, Text: "\n"}, {Kind: Time, Time: copyTime("0001-01-01 08:04:00")},
		{Kind: Text, Text: "Success"}, {Kind: Decimal, Text: "10.00"}},
	{{Kind: Integer, Int: 5}, {Kind: Text, Text: "\"\n\""}, {Kind: Text}, {Kind: Time, Time: copyTime("1999-12-31 23:59:59")},
		{Kind: Text, Text: "PSP, Error"}, {Kind: Text}},
	{{Kind: Integer, Int: 6}, {Kind: Text, Text: "\rx"}, {Kind: Text, Text: "\ty"}, {Kind: Time, Time: copyTime("2025-03-01 20:30:05")},
		{Kind: Text, Text: "Success"}, {Kind: Decimal, Text: "0.00"}},
	{{Kind: Integer, Int: 7}, {Kind: Text, Text: `"`}, {Kind: Text, Text: "@a"}, {Kind: Time, Time: copyTime("2025-03-01 20:30:05")},
		{Kind: Text, Text: "Success"}, {Kind: Decimal, Text: "0.00"}},
}

// TestCSVCopyEqualsTheEncoder passes COPY's output in pieces cut at every
// byte (and in one piece) and wants the encoder's file of the same cells.
func TestCSVCopyEqualsTheEncoder(t *testing.T) {
	t.Parallel()
	names := []string{"ID", "=Name", "a,b", "Time", "Status", "Amount"}
	var want bytes.Buffer
	enc := newCSV(&want, Options{})
	if err := enc.Header(names); err != nil {
		t.Fatal(err)
	}
	for _, r := range copyCells {
		if err := enc.Row(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := enc.Close(); err != nil {
		t.Fatal(err)
	}
	for cut := 0; cut <= len(copyOutput); cut++ {
		var got bytes.Buffer
		rows := 0
		c := NewCSVCopy(&got, names, func(n int) error { rows += n; return nil })
		c.Columns(copyColumns)
		for _, piece := range []string{copyOutput[:cut], copyOutput[cut:]} {
			if piece == "" {
				continue
			}
			if n, err := c.Write([]byte(piece)); err != nil || n != len(piece) {
				t.Fatalf("cut %d: Write: %d, %v", cut, n, err)
			}
		}
		if err := c.Close(); err != nil {
			t.Fatalf("cut %d: Close: %v", cut, err)
		}
		if !bytes.Equal(got.Bytes(), want.Bytes()) {
			t.Fatalf("cut %d:\n got %q\nwant %q", cut, got.Bytes(), want.Bytes())
		}
		if c.Rows() != 7 || rows != 7 {
			t.Fatalf("cut %d: Rows %d, counted %d, want 7", cut, c.Rows(), rows)
		}
	}
}

func TestCSVCopyEmptyTruncatedAndStopped(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	c := NewCSVCopy(&b, []string{"A", "B"}, nil)
	if c.Started() || b.Len() != 0 {
		t.Fatal("wrote before the first record")
	}
	if err := c.Close(); err != nil || b.String() != bom+"A,B\r\n" {
		t.Fatalf("Close: %v, %q", err, b.String())
	}

	c = NewCSVCopy(&b, []string{"A", "B"}, nil)
	c.Columns([]CopyColumn{{}, {Kind: CopyText}})
	if _, err := c.Write([]byte("1,\"open\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); !errors.Is(err, ErrCopyTruncated) {
		t.Fatalf("Close inside a quoted field: %v", err)
	}

	stop := errors.New("stop")
	c = NewCSVCopy(&b, []string{"A"}, func(int) error { return stop })
	c.Columns([]CopyColumn{{}})
	if _, err := c.Write([]byte("1\n")); !errors.Is(err, stop) {
		t.Fatalf("Write: %v, want onRows's error", err)
	}

	failing := errors.New("disk full")
	c = NewCSVCopy(failWriter{failing}, []string{"A"}, nil)
	c.Columns([]CopyColumn{{}})
	_, _ = c.Write([]byte("1\n"))
	if err := c.Close(); err == nil || !errors.Is(c.DestinationErr(), failing) {
		t.Fatalf("Close: %v; DestinationErr %v", err, c.DestinationErr())
	}
}

type failWriter struct{ err error }

func (f failWriter) Write([]byte) (int, error) { return 0, f.err }
