package exportfmt

import (
	"errors"
	"fmt"
	"io"
	"time"
)

// timeLayout is how every format writes a Time cell.
const timeLayout = "2006-01-02 15:04:05"

// errClosed is returned by an encoder used after Close.
var errClosed = errors.New("exportfmt: encoder is closed")

// newEncoder picks the encoder of format f.
func newEncoder(f Format, w io.Writer, opts Options) (Encoder, error) {
	if w == nil {
		return nil, errors.New("exportfmt: nil writer")
	}
	switch f {
	case CSV:
		return newCSV(w, opts), nil
	case Excel:
		return newXLSX(w, opts, xlsxMaxRows)
	case PDF:
		return newPDF(w, opts, MaxPDFRows)
	default:
		return nil, fmt.Errorf("exportfmt: unknown format %d", f)
	}
}

// location is the time zone opts asks for, UTC when none.
func (o Options) location() *time.Location {
	if o.Location == nil {
		return time.UTC
	}
	return o.Location
}

// shape keeps the order every encoder enforces: at most one header, before
// any row; rows as wide as the header when there is one; nothing after Close.
type shape struct {
	cols   int // width of the header, 0 when none was written
	rows   int
	header bool
	closed bool
}

func (s *shape) checkHeader(names []string) error {
	switch {
	case s.closed:
		return errClosed
	case s.header:
		return errors.New("exportfmt: header written twice")
	case s.rows > 0:
		return errors.New("exportfmt: header after rows")
	case len(names) == 0:
		return errors.New("exportfmt: header without columns")
	}
	s.header, s.cols = true, len(names)
	return nil
}

func (s *shape) checkRow(cells []Cell) error {
	if s.closed {
		return errClosed
	}
	if s.header && len(cells) != s.cols {
		return fmt.Errorf("exportfmt: row %d has %d cells, the header %d", s.rows+1, len(cells), s.cols)
	}
	return nil
}

// isDecimal reports whether s is a plain decimal: an optional minus sign,
// digits, and optionally a dot followed by digits ("-5.00", "150", "0.5").
// Nothing else counts (no plus sign, exponent, spaces or thousands
// separators), so a Decimal cell that is not one is written as Text.
func isDecimal(s string) bool {
	if s != "" && s[0] == '-' {
		s = s[1:]
	}
	digits := 0
	for digits < len(s) && s[digits] >= '0' && s[digits] <= '9' {
		digits++
	}
	if digits == 0 {
		return false
	}
	if digits == len(s) {
		return true
	}
	frac := s[digits:]
	if frac[0] != '.' || len(frac) == 1 {
		return false
	}
	for i := 1; i < len(frac); i++ {
		if frac[i] < '0' || frac[i] > '9' {
			return false
		}
	}
	return true
}
