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
)

// ErrTooManyRowsForExcel is returned by Row once a sheet would pass Excel's
// 1,048,576 rows (the header row included).
var ErrTooManyRowsForExcel = errors.New("exportfmt: more rows than an Excel sheet may hold")

// Excel's limits.
const (
	// excelDigits is how many significant digits Excel keeps in a number; a
	// Decimal or Integer with more is written as text so no digit is lost.
	excelDigits = 15
	// xlsxMaxRows is the most rows a sheet holds.
	xlsxMaxRows = 1 << 20
	// xlsxMaxCols is the most columns a sheet holds.
	xlsxMaxCols = 1 << 14
	// xlsxMaxChars is the most characters a cell holds; longer text is cut.
	xlsxMaxChars = 32767
)

// xlsxTimeFormat shows Time cells as the other formats write them.
const xlsxTimeFormat = "yyyy-mm-dd hh:mm:ss"

// The cell formats of styles.xml (cellXfs), by index. The decimal formats
// follow from xfFirstDecimal on, one per number of decimal places met, in
// the order they were met.
const (
	xfPlain        = 0
	xfHeader       = 1 // bold
	xfTime         = 2 // yyyy-mm-dd hh:mm:ss
	xfFirstDecimal = 3
)

// xlsxFlushAt is how many bytes of sheet XML are gathered before they go
// to the zip entry.
const xlsxFlushAt = 32 << 10

// xlsxEncoder writes a workbook of one sheet as SpreadsheetML, straight
// into the io.Writer as rows come: the sheet's XML goes through deflate
// into its zip entry, and the small parts that depend on what the rows held
// (the cell formats) are written after it, at Close. Memory stays flat at
// any size (a few tens of KiB of buffers); nothing goes to a temporary
// file. (excelize's StreamWriter, used before, kept the sheet in memory up
// to 16 MiB, then in a temporary file zipped at Close, and peaked at
// 150–184 MiB of RSS; excelize still reads the files back in the tests.)
//
// Cells:
//   - Text is an inline string, written as is: a spreadsheet never reads an
//     XLSX string cell as a formula, so no guard is needed. Excel holds at
//     most 32,767 characters in a cell; longer text is cut there. Characters
//     XML cannot carry (control characters other than tab, line feed and
//     carriage return) become U+FFFD.
//   - Decimal is a number cell when it is a plain decimal (isDecimal) of at
//     most 15 significant digits: every such decimal survives float64, and
//     the cell holds the shortest digits that read back as the same float,
//     so exactly the given value. Its number format shows as many decimals
//     as the text had, so "150.00" displays (and reads back formatted) as
//     150.00. Anything else is written as text, unchanged.
//   - Integer is a number cell up to 15 digits, text beyond (Excel would
//     round a longer one).
//   - Time is a date-time number (Excel's serial day) of the wall clock in
//     Options.Location, whole seconds, formatted yyyy-mm-dd hh:mm:ss, so it
//     sorts and filters as a date and reads back as the same text the CSV
//     holds. The zero time is an empty cell; a time before 1900-03-01
//     (where Excel's calendar is wrong) is written as that text.
type xlsxEncoder struct {
	out     *bufio.Writer // to the destination
	zip     *zip.Writer
	sheet   io.Writer // the sheet's zip entry, once started
	buf     []byte    // sheet XML not yet written to sheet
	name    string    // the sheet's name
	title   string
	loc     *time.Location
	maxRows int // sheet rows, the header included

	header    []string // held until the first row, which sets the widths
	started   bool
	sheetRow  int    // the last sheet row written
	rowDigits []byte // sheetRow's digits, for cell references
	colNames  []string
	decPlaces []int // the decimal formats' places, from xfFirstDecimal on
	err       error // the first failed write: every later call returns it
	shape
}

func newXLSX(w io.Writer, opts Options, maxRows int) (*xlsxEncoder, error) {
	out := bufio.NewWriterSize(w, 64<<10)
	zw := zip.NewWriter(out)
	zw.RegisterCompressor(zip.Deflate, func(dst io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(dst, flate.BestSpeed)
	})
	return &xlsxEncoder{out: out, zip: zw, name: sheetName(opts.Title), title: opts.Title, loc: opts.location(),
		maxRows: maxRows, buf: make([]byte, 0, xlsxFlushAt+4<<10)}, nil
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
	if e.err != nil {
		return e.err
	}
	if len(cells) > xlsxMaxCols {
		return fmt.Errorf("exportfmt: row %d has %d cells, more than an Excel sheet's %d columns", e.rows+1, len(cells), xlsxMaxCols)
	}
	if !e.started {
		if err := e.start(cells); err != nil {
			return err
		}
	}
	if e.sheetRow >= e.maxRows {
		return ErrTooManyRowsForExcel
	}
	mark := len(e.buf)
	e.beginRow()
	for i, c := range cells {
		var err error
		if e.buf, err = e.appendCell(e.buf, i, c); err != nil {
			e.buf = e.buf[:mark]
			e.sheetRow--
			return fmt.Errorf("exportfmt: row %d cell %d: %w", e.rows+1, i+1, err)
		}
	}
	e.buf = append(e.buf, "</row>"...)
	e.rows++
	if len(e.buf) >= xlsxFlushAt {
		return e.flushSheet()
	}
	return nil
}

// beginRow opens the next sheet row.
func (e *xlsxEncoder) beginRow() {
	e.sheetRow++
	e.rowDigits = strconv.AppendInt(e.rowDigits[:0], int64(e.sheetRow), 10)
	e.buf = append(e.buf, `<row r="`...)
	e.buf = append(e.buf, e.rowDigits...)
	e.buf = append(e.buf, `">`...)
}

// appendCell appends the XML of cell c of column i (0-based) of the current
// row; an empty Time writes nothing.
func (e *xlsxEncoder) appendCell(b []byte, i int, c Cell) ([]byte, error) {
	switch c.Kind {
	case Text:
		return e.appendText(b, i, c.Text, xfPlain), nil
	case Decimal:
		if !isDecimal(c.Text) || significantDigits(c.Text) > excelDigits {
			return e.appendText(b, i, c.Text, xfPlain), nil
		}
		f, err := strconv.ParseFloat(c.Text, 64)
		if err != nil {
			return e.appendText(b, i, c.Text, xfPlain), nil
		}
		if f == 0 {
			f = 0 // no "-0"
		}
		b = e.openCell(b, i, e.decimalXF(decimalPlaces(c.Text)))
		b = strconv.AppendFloat(append(b, `><v>`...), f, 'f', -1, 64)
		return append(b, `</v></c>`...), nil
	case Integer:
		if c.Int >= 1e15 || c.Int <= -1e15 {
			return e.appendText(b, i, strconv.FormatInt(c.Int, 10), xfPlain), nil
		}
		b = e.openCell(b, i, xfPlain)
		b = strconv.AppendInt(append(b, `><v>`...), c.Int, 10)
		return append(b, `</v></c>`...), nil
	case Time:
		if c.Time.IsZero() {
			return b, nil
		}
		wall := c.Time.In(e.loc).Truncate(time.Second)
		serial, ok := excelSerial(wall)
		if !ok {
			return e.appendText(b, i, wall.Format(timeLayout), xfPlain), nil
		}
		b = e.openCell(b, i, xfTime)
		b = strconv.AppendFloat(append(b, `><v>`...), serial, 'f', -1, 64)
		return append(b, `</v></c>`...), nil
	}
	return b, fmt.Errorf("unknown kind %d", c.Kind)
}

// openCell appends `<c r="B7"` and its format, leaving the tag open.
func (e *xlsxEncoder) openCell(b []byte, i, xf int) []byte {
	b = append(b, `<c r="`...)
	b = append(b, e.column(i)...)
	b = append(b, e.rowDigits...)
	b = append(b, '"')
	if xf != xfPlain {
		b = append(b, ` s="`...)
		b = strconv.AppendInt(b, int64(xf), 10)
		b = append(b, '"')
	}
	return b
}

// appendText appends an inline string cell.
func (e *xlsxEncoder) appendText(b []byte, i int, s string, xf int) []byte {
	b = append(e.openCell(b, i, xf), ` t="inlineStr"><is><t`...)
	if s != "" && (isXMLSpace(s[0]) || isXMLSpace(s[len(s)-1])) {
		b = append(b, ` xml:space="preserve"`...)
	}
	b = appendXMLText(append(b, '>'), s, xlsxMaxChars)
	return append(b, `</t></is></c>`...)
}

// column is the letters of column i (0-based): A … Z, AA, ….
func (e *xlsxEncoder) column(i int) string {
	for len(e.colNames) <= i {
		e.colNames = append(e.colNames, columnName(len(e.colNames)+1))
	}
	return e.colNames[i]
}

// decimalXF is the cell format showing places decimals ("0.00").
func (e *xlsxEncoder) decimalXF(places int) int {
	for k, p := range e.decPlaces {
		if p == places {
			return xfFirstDecimal + k
		}
	}
	e.decPlaces = append(e.decPlaces, places)
	return xfFirstDecimal + len(e.decPlaces) - 1
}

// start opens the sheet: the frozen header, the column widths (from the
// header and the first row, nil when there is none), then the header row.
func (e *xlsxEncoder) start(first []Cell) error {
	e.started = true
	sheet, err := e.zip.Create("xl/worksheets/sheet1.xml")
	if err != nil {
		return e.fail(err)
	}
	e.sheet = sheet
	b := append(e.buf, xmlDecl+`<worksheet xmlns="`+nsMain+`" xmlns:r="`+nsRels+`"><sheetViews><sheetView tabSelected="1" workbookViewId="0">`...)
	if e.header != nil {
		b = append(b, `<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/>`...)
	}
	b = append(b, `</sheetView></sheetViews><sheetFormatPr defaultRowHeight="15"/>`...)
	if cols := max(len(e.header), len(first)); cols > 0 {
		b = append(b, `<cols>`...)
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
			col := int64(i + 1)
			b = strconv.AppendInt(append(b, `<col min="`...), col, 10)
			b = strconv.AppendInt(append(b, `" max="`...), col, 10)
			b = strconv.AppendFloat(append(b, `" width="`...), min(width, 60), 'f', -1, 64)
			b = append(b, `" customWidth="1"/>`...)
		}
		b = append(b, `</cols>`...)
	}
	e.buf = append(b, `<sheetData>`...)
	if e.header != nil {
		e.beginRow()
		for i, n := range e.header {
			e.buf = e.appendText(e.buf, i, n, xfHeader)
		}
		e.buf = append(e.buf, "</row>"...)
	}
	return nil
}

// flushSheet moves the gathered XML into the sheet's zip entry.
func (e *xlsxEncoder) flushSheet() error {
	if _, err := e.sheet.Write(e.buf); err != nil {
		return e.fail(err)
	}
	e.buf = e.buf[:0]
	return nil
}

// fail keeps the first write error.
func (e *xlsxEncoder) fail(err error) error {
	if e.err == nil {
		e.err = fmt.Errorf("exportfmt: write workbook: %w", err)
	}
	return e.err
}

// Close ends the sheet, writes the workbook's other parts and the zip's
// directory, and flushes everything to the io.Writer; a second Close does
// nothing.
func (e *xlsxEncoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	if e.err != nil {
		return e.err
	}
	if !e.started {
		if err := e.start(nil); err != nil {
			return err
		}
	}
	e.buf = append(e.buf, `</sheetData></worksheet>`...)
	if err := e.flushSheet(); err != nil {
		return err
	}
	for _, p := range e.parts() {
		w, err := e.zip.Create(p.name)
		if err == nil {
			_, err = w.Write(p.body)
		}
		if err != nil {
			return e.fail(err)
		}
	}
	if err := e.zip.Close(); err != nil {
		return e.fail(err)
	}
	if err := e.out.Flush(); err != nil {
		return e.fail(err)
	}
	return nil
}

// The XML namespaces and relationship types of a workbook.
const (
	xmlDecl     = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n"
	nsMain      = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRels      = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsPkgRels   = "http://schemas.openxmlformats.org/package/2006/relationships"
	relDocument = nsRels + "/officeDocument"
	contentMain = "application/vnd.openxmlformats-officedocument.spreadsheetml"
)

type xlsxPart struct {
	name string
	body []byte
}

// parts are the workbook's parts besides the sheet.
func (e *xlsxEncoder) parts() []xlsxPart {
	types := xmlDecl + `<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
		`<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>` +
		`<Default Extension="xml" ContentType="application/xml"/>` +
		`<Override PartName="/xl/workbook.xml" ContentType="` + contentMain + `.sheet.main+xml"/>` +
		`<Override PartName="/xl/worksheets/sheet1.xml" ContentType="` + contentMain + `.worksheet+xml"/>` +
		`<Override PartName="/xl/styles.xml" ContentType="` + contentMain + `.styles+xml"/>` +
		`<Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/>` +
		`<Override PartName="/docProps/app.xml" ContentType="application/vnd.openxmlformats-officedocument.extended-properties+xml"/>` +
		`</Types>`
	rels := xmlDecl + `<Relationships xmlns="` + nsPkgRels + `">` +
		`<Relationship Id="rId1" Type="` + relDocument + `" Target="xl/workbook.xml"/>` +
		`<Relationship Id="rId2" Type="` + nsPkgRels + `/metadata/core-properties" Target="docProps/core.xml"/>` +
		`<Relationship Id="rId3" Type="` + nsRels + `/extended-properties" Target="docProps/app.xml"/>` +
		`</Relationships>`
	core := appendXMLText([]byte(xmlDecl+`<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" `+
		`xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>`), e.title, -1)
	core = append(core, `</dc:title><dc:creator>Paygate</dc:creator></cp:coreProperties>`...)
	app := xmlDecl + `<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties"><Application>Paygate</Application></Properties>`
	workbook := appendXMLText([]byte(xmlDecl+`<workbook xmlns="`+nsMain+`" xmlns:r="`+nsRels+`">`+
		`<bookViews><workbookView/></bookViews><sheets><sheet name="`), e.name, -1)
	workbook = append(workbook, `" sheetId="1" r:id="rId1"/></sheets></workbook>`...)
	workbookRels := xmlDecl + `<Relationships xmlns="` + nsPkgRels + `">` +
		`<Relationship Id="rId1" Type="` + nsRels + `/worksheet" Target="worksheets/sheet1.xml"/>` +
		`<Relationship Id="rId2" Type="` + nsRels + `/styles" Target="styles.xml"/>` +
		`</Relationships>`
	return []xlsxPart{
		{"xl/styles.xml", e.styles()},
		{"xl/workbook.xml", workbook},
		{"xl/_rels/workbook.xml.rels", []byte(workbookRels)},
		{"docProps/core.xml", core},
		{"docProps/app.xml", []byte(app)},
		{"_rels/.rels", []byte(rels)},
		{"[Content_Types].xml", []byte(types)},
	}
}

// styles is styles.xml: two fonts (regular, bold), the time format and one
// number format per decimal places met, and the cell formats xf* name.
func (e *xlsxEncoder) styles() []byte {
	const firstCustom = 164 // number formats below are Excel's own
	b := append([]byte(xmlDecl), `<styleSheet xmlns="`+nsMain+`"><numFmts count="`...)
	b = strconv.AppendInt(b, int64(1+len(e.decPlaces)), 10)
	b = strconv.AppendInt(append(b, `"><numFmt numFmtId="`...), firstCustom, 10)
	b = append(b, `" formatCode="`+xlsxTimeFormat+`"/>`...)
	for k, p := range e.decPlaces {
		code := "0"
		if p > 0 {
			code += "." + strings.Repeat("0", p)
		}
		b = strconv.AppendInt(append(b, `<numFmt numFmtId="`...), int64(firstCustom+1+k), 10)
		b = append(append(append(b, `" formatCode="`...), code...), `"/>`...)
	}
	b = append(b, `</numFmts>`+
		`<fonts count="2"><font><sz val="11"/><name val="Calibri"/><family val="2"/></font><font><b/><sz val="11"/><name val="Calibri"/><family val="2"/></font></fonts>`+
		`<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>`+
		`<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>`+
		`<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="`...)
	b = strconv.AppendInt(b, int64(xfFirstDecimal+len(e.decPlaces)), 10)
	b = append(b, `"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>`+
		`<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/>`+
		`<xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`...)
	for k := range e.decPlaces {
		b = strconv.AppendInt(append(b, `<xf numFmtId="`...), int64(firstCustom+1+k), 10)
		b = append(b, `" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/>`...)
	}
	return append(b, `</cellXfs><cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>`...)
}

// excelEpoch is 1899-12-30, Excel's serial day 0 (in the 1900 date system,
// from 1900-03-01 on, where its calendar agrees with the real one).
var (
	excelEpoch     = time.Date(1899, 12, 30, 0, 0, 0, 0, time.UTC).Unix()
	excelFirstTrue = time.Date(1900, 3, 1, 0, 0, 0, 0, time.UTC).Unix()
)

// excelSerial is the serial day of wall's date and clock (its zone's
// offset taken away), false before 1900-03-01.
func excelSerial(wall time.Time) (float64, bool) {
	y, mo, d := wall.Date()
	h, mi, s := wall.Clock()
	secs := time.Date(y, mo, d, h, mi, s, 0, time.UTC).Unix()
	if secs < excelFirstTrue {
		return 0, false
	}
	return float64(secs-excelEpoch) / 86400, true
}

// columnName is the letters of column n (1-based).
func columnName(n int) string {
	var b [4]byte
	i := len(b)
	for n > 0 {
		n--
		i--
		b[i] = byte('A' + n%26)
		n /= 26
	}
	return string(b[i:])
}

func isXMLSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// appendXMLText appends s escaped for XML text or an attribute value, at
// most limit characters of it (no limit when negative). A character XML
// 1.0 cannot carry, and a byte that is not UTF-8, becomes U+FFFD; a
// carriage return is written as a reference so that it survives a
// reader's line-end normalisation.
func appendXMLText(b []byte, s string, limit int) []byte {
	n := 0
	for i := 0; i < len(s); {
		if limit >= 0 && n == limit {
			break
		}
		n++
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case c == '&':
				b = append(b, "&amp;"...)
			case c == '<':
				b = append(b, "&lt;"...)
			case c == '>':
				b = append(b, "&gt;"...)
			case c == '"':
				b = append(b, "&quot;"...)
			case c == '\r':
				b = append(b, "&#13;"...)
			case c == '\t' || c == '\n' || c >= 0x20:
				b = append(b, c)
			default:
				b = append(b, "\uFFFD"...)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r == 0xFFFE || r == 0xFFFF {
			b = append(b, "\uFFFD"...)
		} else {
			b = append(b, s[i:i+size]...)
		}
		i += size
	}
	return b
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
