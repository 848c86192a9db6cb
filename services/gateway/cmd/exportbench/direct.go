package main

import (
	"archive/zip"
	"bufio"
	"compress/flate"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/xuri/excelize/v2"

	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// caseDirectXLSX is not a ceiling of today's encoder but a measure of the
// design change it would take to go faster: the same rows and cells
// written as SpreadsheetML by hand, the sheet streamed straight into its
// zip entry (no StreamWriter, no temporary file), at the encoder's
// compression level. The parent reads the file back with excelize
// afterwards (checkDirect), so the number is that of a file a spreadsheet
// reader opens.
const caseDirectXLSX = "direct-xlsx"

// The parts of a minimal workbook: one sheet, four cell formats (0 plain,
// 1 date-time, 2 amount 0.00, 3 bold header).
const (
	directContentTypes = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/><Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/><Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/></Types>`
	directRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="xl/workbook.xml"/></Relationships>`
	directWorkbook = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="Transactions" sheetId="1" r:id="rId1"/></sheets></workbook>`
	directWorkbookRels = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`
	directStyles = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<styleSheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><numFmts count="2"><numFmt numFmtId="164" formatCode="yyyy-mm-dd hh:mm:ss"/><numFmt numFmtId="165" formatCode="0.00"/></numFmts><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font><font><b/><sz val="11"/><name val="Calibri"/></font></fonts><fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills><borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders><cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs><cellXfs count="4"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/><xf numFmtId="164" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="165" fontId="0" fillId="0" borderId="0" xfId="0" applyNumberFormat="1"/><xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs></styleSheet>`
	directSheetStart = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>`
	directSheetEnd = `</sheetData></worksheet>`
)

// sheetRow appends one row of cells to b. Each cell carries its reference,
// as excelize writes them.
type sheetRow struct {
	b    []byte
	row  []byte // the row number's digits
	col  int
	cols []string // column letters
}

func (s *sheetRow) start(n int64) {
	s.row = strconv.AppendInt(s.row[:0], n, 10)
	s.col = 0
	s.b = append(s.b, `<row r="`...)
	s.b = append(s.b, s.row...)
	s.b = append(s.b, `">`...)
}

func (s *sheetRow) ref(style string) {
	s.b = append(s.b, `<c r="`...)
	s.b = append(s.b, s.cols[s.col]...)
	s.b = append(s.b, s.row...)
	s.b = append(s.b, '"')
	s.b = append(s.b, style...)
	s.col++
}

func (s *sheetRow) text(v string, style string) {
	if v == "" {
		s.col++
		return
	}
	s.ref(style)
	s.b = append(s.b, ` t="inlineStr"><is><t xml:space="preserve">`...)
	s.b = appendXMLText(s.b, v)
	s.b = append(s.b, `</t></is></c>`...)
}

func (s *sheetRow) number(v []byte, style string) {
	s.ref(style)
	s.b = append(s.b, `><v>`...)
	s.b = append(s.b, v...)
	s.b = append(s.b, `</v></c>`...)
}

var scratch [32]byte

func (s *sheetRow) int(v int64) { s.number(strconv.AppendInt(scratch[:0], v, 10), "") }

func (s *sheetRow) float(v float64, style string) {
	s.number(strconv.AppendFloat(scratch[:0], v, 'f', -1, 64), style)
}

// excelEpoch is day 0 of Excel's 1900 date system as Unix seconds
// (1899-12-30, which absorbs Excel's 1900 leap-year bug for later dates).
const excelEpoch = -2209161600

func (s *sheetRow) time(t time.Time) {
	_, offset := t.Zone()
	s.float(float64(t.Unix()+int64(offset)-excelEpoch)/86400, ` s="1"`)
}

func (s *sheetRow) end() { s.b = append(s.b, `</row>`...) }

// appendXMLText escapes element text: &, < and > as entities, and the
// control characters XML 1.0 cannot hold are dropped.
func appendXMLText(b []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case c == '&':
			b = append(b, "&amp;"...)
		case c == '<':
			b = append(b, "&lt;"...)
		case c == '>':
			b = append(b, "&gt;"...)
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r':
		case c < utf8.RuneSelf:
			b = append(b, c)
		default:
			r, size := utf8.DecodeRuneInString(v[i:])
			if r == utf8.RuneError && size == 1 {
				b = append(b, "\uFFFD"...)
			} else {
				b = append(b, v[i:i+size]...)
			}
			i += size - 1
		}
	}
	return b
}

func prepareDirectXLSX(ctx context.Context, c config, w window) (func() (result, error), error) {
	loc, err := time.LoadLocation(c.tz)
	if err != nil {
		return nil, err
	}
	q, err := ceilingQuery(w)
	if err != nil {
		return nil, err
	}
	ti, _ := export.TypeOf(export.TypeTransactions)
	cols := make([]string, len(ti.Columns))
	for i := range cols {
		cols[i], _ = excelize.ColumnNumberToName(i + 1)
	}
	return func() (result, error) {
		start := time.Now()
		conn, err := connect(ctx, c)
		if err != nil {
			return result{}, err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		sink, err := newFileSink(c.dir, fmt.Sprintf("direct-%d.xlsx", os.Getpid()))
		if err != nil {
			return result{}, err
		}
		path := sink.f.Name()
		zw := zip.NewWriter(sink)
		zw.RegisterCompressor(zip.Deflate, func(out io.Writer) (io.WriteCloser, error) {
			return flate.NewWriter(out, flate.BestSpeed)
		})
		part := func(name, body string) error {
			pw, err := zw.Create(name)
			if err == nil {
				_, err = io.WriteString(pw, body)
			}
			return err
		}
		for _, p := range [][2]string{{"[Content_Types].xml", directContentTypes}, {"_rels/.rels", directRels},
			{"xl/workbook.xml", directWorkbook}, {"xl/_rels/workbook.xml.rels", directWorkbookRels},
			{"xl/styles.xml", directStyles}} {
			if err := part(p[0], p[1]); err != nil {
				return result{}, err
			}
		}
		pw, err := zw.Create("xl/worksheets/sheet1.xml")
		if err != nil {
			return result{}, err
		}
		sheet := bufio.NewWriterSize(pw, 64<<10)
		_, _ = sheet.WriteString(directSheetStart)
		s := &sheetRow{cols: cols, b: make([]byte, 0, 8<<10)}
		s.start(1)
		for _, col := range ti.Columns {
			s.text(col.Name, ` s="3"`)
		}
		s.end()
		amount := func(v float64) { s.float(v, ` s="2"`) }
		n, err := readBare(ctx, conn, q, func(r *bareRow) error {
			s.start(r.n + 1)
			s.int(r.id)
			s.text(r.ref, "")
			s.text(r.merchantName, "")
			s.text(r.providerName, "")
			s.text(r.typeName(), "")
			amount(r.amount)
			s.text(r.currency, "")
			s.text(payment.Status(r.status).String(), "")
			s.text(r.callbacks, "")
			s.time(r.created.In(loc))
			s.time(r.updated.In(loc))
			s.text(r.nonce, "")
			s.text(r.mcid, "")
			if r.ptid != nil {
				s.text(*r.ptid, "")
			} else {
				s.col++
			}
			s.text(r.payType, "")
			s.text(r.statusMsg, "")
			s.text(r.errMsg, "")
			s.text(r.pmv, "")
			s.text(r.ip, "")
			amount(r.dest)
			s.text(r.destCurrency, "")
			if r.fee != nil {
				amount(*r.fee)
			} else {
				s.col++
			}
			s.text(r.feeCurrency, "")
			s.int(int64(r.polls))
			s.end()
			if len(s.b) >= 32<<10 {
				if _, err := sheet.Write(s.b); err != nil {
					return err
				}
				s.b = s.b[:0]
			}
			return nil
		})
		if err != nil {
			return result{}, err
		}
		_, _ = sheet.Write(s.b)
		_, _ = sheet.WriteString(directSheetEnd)
		if err := sheet.Flush(); err != nil {
			return result{}, err
		}
		if err := zw.Close(); err != nil {
			return result{}, err
		}
		size, err := sink.closeKeep()
		if err != nil {
			return result{}, err
		}
		// The parent reads the file back (checkDirect) once this process
		// has ended, so that the reading is not in this one's peak RSS.
		return result{Rows: n, Bytes: size, Seconds: time.Since(start).Seconds(), Path: path}, nil
	}, nil
}

// checkDirect reads the prototype's file back with excelize's row iterator:
// the header's first cell, every row as wide as the header, and as many
// data rows as were written.
func checkDirect(path string, rows int64, header []string) error {
	f, err := excelize.OpenFile(path)
	if err != nil {
		return fmt.Errorf("read back %s: %w", path, err)
	}
	defer f.Close()
	it, err := f.Rows("Transactions")
	if err != nil {
		return err
	}
	defer it.Close()
	var n int64
	for it.Next() {
		n++
		if n > 2 && n < rows {
			continue
		}
		cells, err := it.Columns()
		if err != nil {
			return err
		}
		if n == 1 && (len(cells) != len(header) || cells[0] != header[0]) {
			return fmt.Errorf("read back header %q", cells)
		}
		if n > 1 && (len(cells) != len(header) || cells[0] == "") {
			return fmt.Errorf("read back row %d: %q", n, cells)
		}
	}
	if n != rows+1 {
		return fmt.Errorf("read back %d sheet rows, wrote %d and a header", n, rows)
	}
	return it.Error()
}
