package exportfmt

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// bom starts every CSV file: without it Excel reads UTF-8 as the system's
// legacy code page and garbles every non-ASCII name.
const bom = "\uFEFF"

// csvEncoder writes RFC 4180 CSV: fields separated by commas, records ended
// by CRLF, a field quoted when it holds a comma, a quote, CR or LF, and its
// quotes doubled. It is written here rather than with encoding/csv because
// that package's Writer, in CRLF mode, silently drops a lone CR inside a
// field, which would also strip the CR a formula guard protects.
//
// Rows go through a buffer straight to the io.Writer: memory stays flat
// whatever the row count.
type csvEncoder struct {
	w    *bufio.Writer
	loc  *time.Location
	line []byte // the record being built, reused across rows
	shape
}

func newCSV(w io.Writer, opts Options) *csvEncoder {
	bw := bufio.NewWriterSize(w, 64<<10)
	// A bufio.Writer keeps its first error and returns it from every later
	// Write and Flush, so this one is checked there.
	_, _ = bw.WriteString(bom)
	return &csvEncoder{w: bw, loc: opts.location(), line: make([]byte, 0, 512)}
}

// Header writes the column names, guarded like Text cells (they are the
// operator's own words).
func (e *csvEncoder) Header(names []string) error {
	if err := e.checkHeader(names); err != nil {
		return err
	}
	b := e.line[:0]
	for i, n := range names {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendCSVText(b, n)
	}
	return e.flushLine(b)
}

// Row writes one record. A Decimal cell is written unquoted and unguarded,
// so "-5.00" stays a negative number for a spreadsheet, but only when it is
// a plain decimal (see isDecimal); any other Decimal text is written as a
// guarded Text cell, so the Decimal kind cannot smuggle a formula in.
func (e *csvEncoder) Row(cells []Cell) error {
	if err := e.checkRow(cells); err != nil {
		return err
	}
	b := e.line[:0]
	for i, c := range cells {
		if i > 0 {
			b = append(b, ',')
		}
		switch c.Kind {
		case Text:
			b = appendCSVText(b, c.Text)
		case Decimal:
			if isDecimal(c.Text) {
				b = append(b, c.Text...)
			} else {
				b = appendCSVText(b, c.Text)
			}
		case Integer:
			b = strconv.AppendInt(b, c.Int, 10)
		case Time:
			if !c.Time.IsZero() {
				b = appendTime(b, c.Time.In(e.loc))
			}
		default:
			return fmt.Errorf("exportfmt: row %d cell %d: unknown kind %d", e.rows+1, i+1, c.Kind)
		}
	}
	e.rows++
	return e.flushLine(b)
}

func (e *csvEncoder) flushLine(b []byte) error {
	b = append(b, '\r', '\n')
	e.line = b
	if _, err := e.w.Write(b); err != nil {
		return fmt.Errorf("exportfmt: write csv: %w", err)
	}
	return nil
}

// Close flushes what is buffered; a second Close does nothing.
func (e *csvEncoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if err := e.w.Flush(); err != nil {
		return fmt.Errorf("exportfmt: flush csv: %w", err)
	}
	return nil
}

// formulaStart reports whether a spreadsheet would read a text starting with
// b as a formula (or, for tab and CR, could be tricked into one once the
// cell is trimmed): the characters OWASP's CSV-injection advice names.
func formulaStart(b byte) bool {
	switch b {
	case '=', '+', '-', '@', '\t', '\r':
		return true
	}
	return false
}

// appendCSVText appends s as one CSV field: a leading single quote when it
// starts like a formula, then quoted if it needs to be.
func appendCSVText(b []byte, s string) []byte {
	guard := s != "" && formulaStart(s[0])
	if !needsQuotes(s) {
		if guard {
			b = append(b, '\'')
		}
		return append(b, s...)
	}
	b = append(b, '"')
	if guard {
		b = append(b, '\'')
	}
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			break
		}
		b = append(b, s[:i+1]...)
		b = append(b, '"')
		s = s[i+1:]
	}
	b = append(b, s...)
	return append(b, '"')
}

// needsQuotes reports whether a field holds a comma, a quote, CR or LF.
func needsQuotes(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\r', '\n':
			return true
		}
	}
	return false
}

// appendTime appends t as timeLayout does ("2006-01-02 15:04:05"), without
// parsing the layout on every cell. Years outside 0–9999 fall back to
// AppendFormat.
func appendTime(b []byte, t time.Time) []byte {
	year, month, day := t.Date()
	if year < 0 || year > 9999 {
		return t.AppendFormat(b, timeLayout)
	}
	hour, minute, sec := t.Clock()
	b = append(b, byte('0'+year/1000), byte('0'+year/100%10), byte('0'+year/10%10), byte('0'+year%10), '-')
	b = append2(b, int(month), '-')
	b = append2(b, day, ' ')
	b = append2(b, hour, ':')
	b = append2(b, minute, ':')
	return append(b, byte('0'+sec/10), byte('0'+sec%10))
}

func append2(b []byte, n int, sep byte) []byte {
	return append(b, byte('0'+n/10), byte('0'+n%10), sep)
}
