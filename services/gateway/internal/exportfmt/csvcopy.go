package exportfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// FormulaStarts are the first bytes after which a CSV Text cell is guarded
// with a leading single quote (formulaStart): a store that formats cells
// itself (CSVCopy) guards the same ones.
const FormulaStarts = "=+-@\t\r"

// CSVCopy writes a CSV file whose records a database formatted: the output
// of Postgres's COPY … TO STDOUT WITH (FORMAT csv) over one already
// formatted column per cell. It writes the BOM and the header as the CSV
// encoder does, then passes the records through, ending each with CRLF
// instead of COPY's LF (an LF inside a quoted field stays as it is).
//
// COPY quotes a field for the same reasons this package does (a comma, a
// quote, CR or LF, quotes doubled), and it writes NULL as nothing and an
// empty string as "": so the store selects NULL for an empty cell, does
// the formula guard (FormulaStarts) itself, and formats every value as the
// encoder would. With one column COPY also quotes a lone \. field: use
// the encoder for a one-column file.
//
// Nothing is written until the first record or Close, so a caller may give
// up on it (and use the encoder) before the store wrote anything.
type CSVCopy struct {
	dst     io.Writer
	enc     *csvEncoder
	names   []string
	started bool
	quoted  bool // inside a quoted field
	mid     bool // inside a record
	rows    int64
	onRows  func(n int) error
	werr    error // the destination's error
}

// NewCSVCopy returns a CSVCopy writing to w, with the header names.
// onRows, when not nil, is called after each Write with the records it
// ended; its error stops the copy (Write returns it).
func NewCSVCopy(w io.Writer, names []string, onRows func(n int) error) *CSVCopy {
	return &CSVCopy{dst: w, names: names, onRows: onRows}
}

func (c *CSVCopy) start() error {
	if c.started {
		return nil
	}
	c.started = true
	c.enc = newCSV(errWriter{c}, Options{})
	return c.enc.Header(c.names)
}

// errWriter keeps the destination's error apart from the others.
type errWriter struct{ c *CSVCopy }

func (e errWriter) Write(p []byte) (int, error) {
	n, err := e.c.dst.Write(p)
	if err != nil && e.c.werr == nil {
		e.c.werr = err
	}
	return n, err
}

var crlf = []byte("\r\n")

// Write takes COPY's output, in pieces of any size.
func (c *CSVCopy) Write(p []byte) (int, error) {
	if err := c.start(); err != nil {
		return 0, err
	}
	n := len(p)
	rows := 0
	w := c.enc.w
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			c.quoted = c.quoted != (bytes.Count(p, quote)&1 == 1)
			c.mid = true
			if _, err := w.Write(p); err != nil {
				return 0, fmt.Errorf("exportfmt: write csv: %w", err)
			}
			break
		}
		seg := p[:i]
		if c.quoted != (bytes.Count(seg, quote)&1 == 1) {
			// An LF inside a quoted field.
			c.quoted, c.mid = true, true
			if _, err := w.Write(p[:i+1]); err != nil {
				return 0, fmt.Errorf("exportfmt: write csv: %w", err)
			}
			p = p[i+1:]
			continue
		}
		if _, err := w.Write(seg); err != nil {
			return 0, fmt.Errorf("exportfmt: write csv: %w", err)
		}
		if _, err := w.Write(crlf); err != nil {
			return 0, fmt.Errorf("exportfmt: write csv: %w", err)
		}
		c.quoted, c.mid = false, false
		rows++
		p = p[i+1:]
	}
	c.rows += int64(rows)
	if c.onRows != nil && rows > 0 {
		if err := c.onRows(rows); err != nil {
			return 0, err
		}
	}
	return n, nil
}

var quote = []byte{'"'}

// Started reports whether anything was written (a record came).
func (c *CSVCopy) Started() bool { return c.started }

// Rows is how many records were written.
func (c *CSVCopy) Rows() int64 { return c.rows }

// DestinationErr is the first error of the io.Writer given to NewCSVCopy
// (the file store), nil when it had none.
func (c *CSVCopy) DestinationErr() error { return c.werr }

// ErrCopyTruncated is Close's error when the copy ended inside a record.
var ErrCopyTruncated = errors.New("exportfmt: the copied rows end inside a record")

// Close writes the header if no record came, and flushes.
func (c *CSVCopy) Close() error {
	if err := c.start(); err != nil {
		return err
	}
	if c.mid {
		return ErrCopyTruncated
	}
	return c.enc.Close()
}
