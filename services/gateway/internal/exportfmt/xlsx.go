package exportfmt

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"
)

// ErrTooManyRowsForExcel is returned by Row once a sheet would pass Excel's
// 1,048,576 rows (the header row included).
var ErrTooManyRowsForExcel = errors.New("exportfmt: more rows than an Excel sheet may hold")

// excelDigits is how many significant digits Excel keeps in a number; a
// Decimal or Integer with more is written as text so no digit is lost.
const excelDigits = 15

// xlsxTimeFormat shows Time cells as the other formats write them.
const xlsxTimeFormat = "yyyy-mm-dd hh:mm:ss"

// xlsxEncoder writes one sheet with excelize's StreamWriter, which keeps the
// sheet's XML in a temporary file (past 16 MiB) rather than in memory; Close
// zips the workbook straight into the io.Writer.
//
// Cells:
//   - Text is an inline string, written as is: a spreadsheet never reads an
//     XLSX string cell as a formula, so no guard is needed. Excel holds at
//     most 32,767 characters in a cell; excelize cuts longer text there.
//   - Decimal is a number cell when it is a plain decimal (isDecimal) of at
//     most 15 significant digits: every such decimal survives float64 and
//     excelize writes the shortest digits that read back as the same float,
//     so the cell holds exactly the given digits. Its number format shows as
//     many decimals as the text had, so "150.00" displays (and reads back
//     formatted) as 150.00. Anything else is written as text, unchanged.
//   - Integer is a number cell up to 15 digits, text beyond (Excel would
//     round a longer one).
//   - Time is a date-time number (Excel's serial day) of the wall clock in
//     Options.Location, whole seconds, formatted yyyy-mm-dd hh:mm:ss, so it
//     sorts and filters as a date and reads back as the same text the CSV
//     holds. The zero time is an empty cell.
type xlsxEncoder struct {
	dst     io.Writer
	file    *excelize.File
	sheet   *excelize.StreamWriter
	loc     *time.Location
	maxRows int // sheet rows, the header included

	header   []string // held until the first row, which sets the widths
	started  bool
	sheetRow int // the last sheet row written

	headStyle int
	timeStyle int
	decStyles map[int]int // decimal places → style
	vals      []any
	shape
}

func newXLSX(w io.Writer, opts Options, maxRows int) (*xlsxEncoder, error) {
	f := excelize.NewFile()
	name := sheetName(opts.Title)
	if err := f.SetSheetName("Sheet1", name); err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("exportfmt: name sheet %q: %w", name, err)
	}
	e := &xlsxEncoder{dst: w, file: f, loc: opts.location(), maxRows: maxRows, decStyles: map[int]int{}}
	err := f.SetDocProps(&excelize.DocProperties{Title: opts.Title, Creator: "Paygate"})
	if err == nil {
		e.headStyle, err = f.NewStyle(&excelize.Style{Font: &excelize.Font{Bold: true}})
	}
	if err == nil {
		format := xlsxTimeFormat
		e.timeStyle, err = f.NewStyle(&excelize.Style{CustomNumFmt: &format})
	}
	if err == nil {
		e.sheet, err = f.NewStreamWriter(name)
	}
	if err != nil {
		_ = f.Close()
		return nil, fmt.Errorf("exportfmt: start workbook: %w", err)
	}
	return e, nil
}

// Header keeps the names until the first row: column widths must be set
// before any row, and the first row tells which columns hold times and
// numbers.
func (e *xlsxEncoder) Header(names []string) error {
	if err := e.checkHeader(names); err != nil {
		return err
	}
	e.header = append([]string(nil), names...)
	return nil
}

// Row writes one sheet row; past the sheet's last row it returns
// ErrTooManyRowsForExcel.
func (e *xlsxEncoder) Row(cells []Cell) error {
	if err := e.checkRow(cells); err != nil {
		return err
	}
	if !e.started {
		if err := e.start(cells); err != nil {
			return err
		}
	}
	if e.sheetRow >= e.maxRows {
		return ErrTooManyRowsForExcel
	}
	vals := e.vals[:0]
	for i, c := range cells {
		v, err := e.value(c)
		if err != nil {
			return fmt.Errorf("exportfmt: row %d cell %d: %w", e.rows+1, i+1, err)
		}
		vals = append(vals, v)
	}
	e.vals = vals
	e.sheetRow++
	if err := e.sheet.SetRow("A"+strconv.Itoa(e.sheetRow), vals); err != nil {
		return fmt.Errorf("exportfmt: write sheet row %d: %w", e.sheetRow, err)
	}
	e.rows++
	return nil
}

func (e *xlsxEncoder) value(c Cell) (any, error) {
	switch c.Kind {
	case Text:
		return c.Text, nil
	case Decimal:
		if !isDecimal(c.Text) || significantDigits(c.Text) > excelDigits {
			return c.Text, nil
		}
		f, err := strconv.ParseFloat(c.Text, 64)
		if err != nil {
			return c.Text, nil
		}
		if f == 0 {
			f = 0 // no "-0"
		}
		style, err := e.decimalStyle(decimalPlaces(c.Text))
		if err != nil {
			return nil, err
		}
		return excelize.Cell{StyleID: style, Value: f}, nil
	case Integer:
		if c.Int >= 1e15 || c.Int <= -1e15 {
			return strconv.FormatInt(c.Int, 10), nil
		}
		return c.Int, nil
	case Time:
		if c.Time.IsZero() {
			return nil, nil
		}
		return excelize.Cell{StyleID: e.timeStyle, Value: c.Time.In(e.loc).Truncate(time.Second)}, nil
	}
	return nil, fmt.Errorf("unknown kind %d", c.Kind)
}

// decimalStyle is the number format showing places decimals ("0.00").
func (e *xlsxEncoder) decimalStyle(places int) (int, error) {
	if s, ok := e.decStyles[places]; ok {
		return s, nil
	}
	format := "0"
	if places > 0 {
		format += "." + strings.Repeat("0", places)
	}
	s, err := e.file.NewStyle(&excelize.Style{CustomNumFmt: &format})
	if err != nil {
		return 0, fmt.Errorf("number format %s: %w", format, err)
	}
	e.decStyles[places] = s
	return s, nil
}

// start sizes the columns from the header and the first row (nil when
// there is none), freezes the header and writes it.
func (e *xlsxEncoder) start(first []Cell) error {
	e.started = true
	cols := max(len(e.header), len(first))
	for i := range cols {
		width := 12.0
		if i < len(e.header) {
			width = max(width, float64(utf8.RuneCountInString(e.header[i])+3))
		}
		if i < len(first) {
			switch first[i].Kind {
			case Time:
				width = max(width, 20)
			case Text:
				width = max(width, min(float64(utf8.RuneCountInString(first[i].Text)+3), 40))
			}
		}
		if err := e.sheet.SetColWidth(i+1, i+1, min(width, 60)); err != nil {
			return fmt.Errorf("exportfmt: column %d width: %w", i+1, err)
		}
	}
	if e.header == nil {
		return nil
	}
	if err := e.sheet.SetPanes(&excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return fmt.Errorf("exportfmt: freeze header: %w", err)
	}
	vals := make([]any, len(e.header))
	for i, n := range e.header {
		vals[i] = excelize.Cell{StyleID: e.headStyle, Value: n}
	}
	e.sheetRow++
	if err := e.sheet.SetRow("A1", vals); err != nil {
		return fmt.Errorf("exportfmt: write header: %w", err)
	}
	return nil
}

// Close ends the sheet and writes the workbook to the io.Writer; a second
// Close does nothing. The excelize file's temporary files are removed
// either way.
func (e *xlsxEncoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	defer func() { _ = e.file.Close() }()
	if !e.started {
		if err := e.start(nil); err != nil {
			return err
		}
	}
	if err := e.sheet.Flush(); err != nil {
		return fmt.Errorf("exportfmt: end sheet: %w", err)
	}
	// excelize's Write builds the whole zip in a bytes.Buffer; its zip
	// writer hook lets the archive go to the destination instead, through a
	// buffer, and leaves that bytes.Buffer empty. (Write also patches the
	// in-memory zip for entries over 4 GiB, which a capped sheet of export
	// rows does not reach; archive/zip writes zip64 records itself.)
	bw := bufio.NewWriterSize(e.dst, 64<<10)
	e.file.SetZipWriter(func(io.Writer) excelize.ZipWriter {
		zw := zip.NewWriter(bw)
		zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			return flate.NewWriter(out, flate.BestSpeed)
		})
		return zw
	})
	if err := e.file.Write(io.Discard); err != nil {
		return fmt.Errorf("exportfmt: write workbook: %w", err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("exportfmt: write workbook: %w", err)
	}
	return nil
}

// sheetName turns a title into a name Excel accepts: none of : \ / ? * [ ]
// or control characters (each becomes "-"), no apostrophe or space at
// either end, at most 31 UTF-16 units, not empty and not "History" (which
// Excel keeps for itself); "Export" stands in for a name left empty.
func sheetName(title string) string {
	b := make([]rune, 0, len(title))
	units := 0
	for _, r := range title {
		if r == utf8.RuneError {
			continue
		}
		if strings.ContainsRune(`:\/?*[]`, r) || unicode.IsControl(r) {
			r = '-'
		}
		n := utf16.RuneLen(r)
		if units+n > 31 {
			break
		}
		units += n
		b = append(b, r)
	}
	name := strings.Trim(string(b), "' ")
	if name == "" || strings.EqualFold(name, "History") {
		return "Export"
	}
	return name
}

// significantDigits counts the digits of a plain decimal that carry value:
// leading and trailing zeros do not.
func significantDigits(s string) int {
	s = strings.TrimPrefix(s, "-")
	whole, frac, _ := strings.Cut(s, ".")
	digits := strings.Trim(whole+frac, "0")
	return len(digits)
}

// decimalPlaces is the number of digits after the dot of a plain decimal.
func decimalPlaces(s string) int {
	if _, frac, ok := strings.Cut(s, "."); ok {
		return len(frac)
	}
	return 0
}
