package exportfmt

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

// FormulaStarts are the first bytes after which a CSV Text cell is guarded
// with a leading single quote (formulaStart).
const FormulaStarts = "=+-@\t\r"

// CopyKind says how CSVCopy rewrites one field of COPY's output into the
// cell the CSV encoder writes.
type CopyKind uint8

// The kinds of copied field.
const (
	// CopyAsIs is a number (an Integer cell, or a Decimal cell from a
	// numeric with two places), or NULL for an empty cell: written as
	// COPY wrote it.
	CopyAsIs CopyKind = iota
	// CopyText is a Text cell from a text value: COPY's "" (an empty
	// string) is written as nothing, and a value starting like a formula
	// gets the guard's single quote (inside COPY's quotes, if any).
	CopyText
	// CopyTime is a Time cell from a timestamptz that COPY wrote under
	// DateStyle ISO in the export's zone ("2006-01-02 15:04:05.999999+08"):
	// written without the fraction and the offset; NULL (the zero time) is
	// written as nothing.
	CopyTime
	// CopyMapped is a Text cell that Map makes from the field's text (a
	// status or type code): written as the encoder writes that text.
	CopyMapped
)

// CopyColumn is how one field of each record is rewritten.
type CopyColumn struct {
	Kind CopyKind
	// Map gives a CopyMapped field's cell text from the text COPY wrote
	// (its results are kept: it sees each distinct text once).
	Map func(raw string) string
}

// CSVCopy writes a CSV file whose records come from Postgres: the output
// of COPY … TO STDOUT WITH (FORMAT csv), one field per cell, rewritten
// field by field (CopyColumn) into what the CSV encoder writes for the
// same cells. Postgres quotes a field for the same reasons this package
// does (a comma, a quote, CR or LF; quotes doubled), so a field keeps its
// quoting; CSVCopy adds the formula guard, writes COPY's "" (an empty
// string) as nothing, cuts times to the second, maps codes to names, and
// ends each record with CRLF instead of LF. It writes the BOM and the
// header as the encoder does.
//
// With one column COPY also quotes a lone \. field: use the encoder for a
// one-column file.
//
// Nothing is written until the first record or Close, so a caller may give
// up on it (and use the encoder) before the store wrote anything.
type CSVCopy struct {
	dst     io.Writer
	enc     *csvEncoder
	names   []string
	cols    []CopyColumn
	mapped  []map[string][]byte // per column, CopyMapped's encoded cells
	started bool
	pending []byte // the start of a record whose end has not come
	out     []byte
	rows    int64
	onRows  func(n int) error
	werr    error // the destination's error
}

// NewCSVCopy returns a CSVCopy writing to w, with the header names.
// onRows, when not nil, is called after each Write with the records it
// ended; its error stops the copy (Write returns it). Columns must be set
// before the first Write.
func NewCSVCopy(w io.Writer, names []string, onRows func(n int) error) *CSVCopy {
	return &CSVCopy{dst: w, names: names, onRows: onRows}
}

// Columns sets how each field of a record is rewritten, in order.
func (c *CSVCopy) Columns(cols []CopyColumn) {
	c.cols = cols
	c.mapped = make([]map[string][]byte, len(cols))
	for i, col := range cols {
		if col.Kind == CopyMapped {
			c.mapped[i] = map[string][]byte{}
		}
	}
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

// Write takes COPY's output, in pieces of any size.
func (c *CSVCopy) Write(p []byte) (int, error) {
	if len(c.cols) == 0 {
		return 0, errors.New("exportfmt: CSVCopy's columns are not set")
	}
	if err := c.start(); err != nil {
		return 0, err
	}
	data := p
	if len(c.pending) > 0 {
		c.pending = append(c.pending, p...)
		data = c.pending
	}
	out := c.out[:0]
	rows := 0
	for len(data) > 0 {
		var n int
		var err error
		if out, n, err = c.record(out, data); err != nil {
			return 0, err
		}
		if n == 0 {
			break
		}
		data, rows = data[n:], rows+1
	}
	c.pending = append(c.pending[:0], data...)
	c.out = out
	if _, err := c.enc.w.Write(out); err != nil {
		return 0, fmt.Errorf("exportfmt: write csv: %w", err)
	}
	c.rows += int64(rows)
	if c.onRows != nil && rows > 0 {
		if err := c.onRows(rows); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// record rewrites the record at the start of data onto dst; n is the
// bytes it took (its LF included), 0 when data does not hold all of it.
func (c *CSVCopy) record(dst, data []byte) (_ []byte, n int, _ error) {
	start, pos := len(dst), 0
	for col := 0; ; col++ {
		if col == len(c.cols) {
			return dst[:start], 0, fmt.Errorf("exportfmt: copied record %d has more than %d fields", c.rows+1, len(c.cols))
		}
		quoted := pos < len(data) && data[pos] == '"'
		end := pos
		if quoted {
			end++
			for {
				k := bytes.IndexByte(data[end:], '"')
				if k < 0 {
					return dst[:start], 0, nil
				}
				end += k + 1
				if end < len(data) && data[end] == '"' {
					end++ // a doubled quote
					continue
				}
				break
			}
		} else {
			for end < len(data) && data[end] != ',' && data[end] != '\n' {
				end++
			}
		}
		if end >= len(data) {
			return dst[:start], 0, nil // the record goes on in the next piece
		}
		var err error
		if dst, err = c.field(dst, col, data[pos:end], quoted); err != nil {
			return dst[:start], 0, err
		}
		switch data[end] {
		case ',':
			dst = append(dst, ',')
			pos = end + 1
		case '\n':
			if col != len(c.cols)-1 {
				return dst[:start], 0, fmt.Errorf("exportfmt: copied record %d has %d fields, not %d", c.rows+1, col+1, len(c.cols))
			}
			return append(dst, '\r', '\n'), end + 1, nil
		default:
			return dst[:start], 0, fmt.Errorf("exportfmt: copied record %d: %q after a quoted field", c.rows+1, data[end])
		}
	}
}

// field appends one field's cell.
func (c *CSVCopy) field(dst []byte, col int, f []byte, quoted bool) ([]byte, error) {
	switch c.cols[col].Kind {
	case CopyText:
		switch {
		case quoted && len(f) == 2: // "": an empty string
			return dst, nil
		case quoted && formulaStart(f[1]):
			dst = append(dst, '"', '\'')
			return append(dst, f[1:]...), nil
		case !quoted && len(f) > 0 && formulaStart(f[0]):
			dst = append(dst, '\'')
		}
		return append(dst, f...), nil
	case CopyTime:
		if len(f) == 0 {
			return dst, nil
		}
		// "2006-01-02 15:04:05" and whatever follows (fraction, offset).
		sp := bytes.IndexByte(f, ' ')
		if quoted || sp < 4 || len(f) < sp+9 || f[sp+3] != ':' || f[sp+6] != ':' {
			return dst, fmt.Errorf("exportfmt: copied record %d: %q is not an ISO time", c.rows+1, f)
		}
		return append(dst, f[:sp+9]...), nil
	case CopyMapped:
		cell, ok := c.mapped[col][string(f)]
		if !ok {
			if quoted {
				return dst, fmt.Errorf("exportfmt: copied record %d: a quoted code %q", c.rows+1, f)
			}
			cell = appendCSVText(nil, c.cols[col].Map(string(f)))
			c.mapped[col][string(f)] = cell
		}
		return append(dst, cell...), nil
	}
	return append(dst, f...), nil
}

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
	if len(c.pending) > 0 {
		return ErrCopyTruncated
	}
	return c.enc.Close()
}
