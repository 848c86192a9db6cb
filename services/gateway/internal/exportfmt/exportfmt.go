// Package exportfmt writes export rows as CSV, Excel (XLSX) or PDF, one row
// at a time, straight into an io.Writer: nothing holds the whole file in
// memory (PDF, which must, is capped at MaxPDFRows).
package exportfmt

import (
	"errors"
	"io"
	"time"
)

// Format is an export file type (spec 02 §3 File: 0 CSV, 1 Excel, 2 PDF).
type Format int32

// The formats.
const (
	CSV   Format = 0
	Excel Format = 1
	PDF   Format = 2
)

// MaxPDFRows is the most data rows a PDF may hold; an export above it is
// refused before anything is written (ErrTooManyRowsForPDF).
const MaxPDFRows = 50_000

// ErrTooManyRowsForPDF is returned by Row once a PDF would pass MaxPDFRows.
var ErrTooManyRowsForPDF = errors.New("exportfmt: more rows than a PDF may hold")

// Kind says how a cell's value is written.
type Kind uint8

// The kinds of cell.
const (
	// Text is written as is (CSV escapes formula starts).
	Text Kind = iota
	// Decimal is an exact decimal string such as "150.00" (a number cell in
	// Excel, the digits unchanged in CSV and PDF).
	Decimal
	// Integer is a whole number (Int).
	Integer
	// Time is an instant (Time), written in the encoder's time zone as
	// "2006-01-02 15:04:05"; the zero time is an empty cell.
	Time
)

// Cell is one value of a row.
type Cell struct {
	Kind Kind
	Text string // Text and Decimal
	Int  int64  // Integer
	Time time.Time
}

// Options configure an encoder.
type Options struct {
	// Location is the time zone times are written in (UTC when nil).
	Location *time.Location
	// Title heads a PDF's first page and names the Excel sheet.
	Title string
}

// Encoder writes one file: the header once, then rows, then Close, which
// flushes everything to the io.Writer (it does not close that).
type Encoder interface {
	Header(names []string) error
	Row(cells []Cell) error
	Close() error
}

// ContentType and Extension of each format.
func (f Format) ContentType() string {
	switch f {
	case Excel:
		return "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
	case PDF:
		return "application/pdf"
	default:
		return "text/csv; charset=utf-8"
	}
}

// Extension is the file name extension, without the dot.
func (f Format) Extension() string {
	switch f {
	case Excel:
		return "xlsx"
	case PDF:
		return "pdf"
	default:
		return "csv"
	}
}

// Known reports whether f is one of the three formats.
func (f Format) Known() bool { return f == CSV || f == Excel || f == PDF }

// New returns an encoder of format f writing to w.
func New(f Format, w io.Writer, opts Options) (Encoder, error) {
	return newEncoder(f, w, opts)
}
