package exportfmt

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu"
	"github.com/pdfcpu/pdfcpu/pkg/pdfcpu/model"
	"github.com/signintech/gopdf"
	"golang.org/x/image/font"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// Page geometry and type, in points (A4 landscape is 842 × 595).
const (
	pdfMargin    = 28.0
	pdfFontSize  = 7.0
	pdfTitleSize = 13.0
	pdfRowHeight = 11.0
	pdfPad       = 2.5  // space left and right of a cell's text
	pdfMinColumn = 24.0 // narrowest column when the page has room for it
	pdfFooter    = 16.0 // room kept at the bottom for the page number
	pdfSample    = 200  // rows held back to size the columns
	ellipsis     = "…"
	// pdfChunkPages is how many pages gopdf holds at a time (≈ 460 rows):
	// at 40, the garbage of the pages' objects raised a 43 k-row export's
	// peak RSS to 170–183 MiB at GOGC=400; at 10 the merge sets the peak.
	pdfChunkPages = 10
)

// pdfEncoder lays rows out as a table on A4 landscape pages with gopdf: the
// title on the first page, the header row (bold, shaded) on every page, the
// page number at the foot of each. Columns share the page width according
// to how wide their header and the first rows are; a text too long for its
// column is cut with an ellipsis. Decimal and Integer columns (by the first
// row's cells) are right-aligned. Texts are single lines: control
// characters become spaces, and a character the Go fonts lack prints as
// "?" (the CSV and Excel files carry every character).
//
// gopdf keeps every cell's text object until it writes its document
// (about 5 KiB of live heap per row), so the encoder gives it pdfChunkPages
// pages at a time: a full chunk is written out as a document of its own,
// a few KiB a page, and Close merges the chunks into one document with
// pdfcpu. The PDF is still held whole until Close (as compressed page
// streams), which is why it holds at most MaxPDFRows rows.
type pdfEncoder struct {
	dst     io.Writer
	pdf     *gopdf.GoPdf // the current chunk
	chunks  [][]byte     // the chunks written so far
	inChunk int          // pages in the current chunk
	loc     *time.Location
	title   string
	maxRows int

	regular, bold *metrics

	header  []string
	aligns  []int     // gopdf.Left or gopdf.Right per column
	widths  []float64 // column widths, set by layout
	pending [][]string
	laidOut bool
	page    int
	y       float64 // top of the next row on the page
	shape

	restoreGC func() // gives back the GC percent tighterGC lowered
}

var pageSize = gopdf.PageSizeA4Landscape

func newPDF(w io.Writer, opts Options, maxRows int) (*pdfEncoder, error) {
	regular, err := newMetrics(goregular.TTF)
	if err != nil {
		return nil, err
	}
	bold, err := newMetrics(gobold.TTF)
	if err != nil {
		return nil, err
	}
	e := &pdfEncoder{dst: w, loc: opts.location(), title: opts.Title, maxRows: maxRows, regular: regular, bold: bold}
	if e.pdf, err = e.newDocument(); err != nil {
		return nil, err
	}
	// Close gives the GC percent back; so does the collector when an
	// encoder is dropped unclosed (a failed export).
	e.restoreGC = tighterGC()
	runtime.AddCleanup(e, func(restore func()) { restore() }, e.restoreGC)
	return e, nil
}

// newDocument starts a chunk: a gopdf document with the fonts. (The
// document's properties are set when the chunks are joined: gopdf writes
// them straight into its trailer, where PDF readers such as pdfcpu do not
// look for them.)
func (e *pdfEncoder) newDocument() (*gopdf.GoPdf, error) {
	pdf := &gopdf.GoPdf{}
	pdf.Start(gopdf.Config{PageSize: *pageSize, Unit: gopdf.UnitPT})
	if err := pdf.AddTTFFontData("regular", goregular.TTF); err != nil {
		return nil, fmt.Errorf("exportfmt: load pdf font: %w", err)
	}
	if err := pdf.AddTTFFontData("bold", gobold.TTF); err != nil {
		return nil, fmt.Errorf("exportfmt: load pdf font: %w", err)
	}
	return pdf, nil
}

// endChunk writes the current chunk out as a document of its own.
func (e *pdfEncoder) endChunk() error {
	var buf bytes.Buffer
	if _, err := e.pdf.WriteTo(&buf); err != nil {
		return fmt.Errorf("exportfmt: write pdf pages: %w", err)
	}
	e.chunks = append(e.chunks, buf.Bytes())
	e.pdf, e.inChunk = nil, 0
	return nil
}

// Header keeps the names for every page's header row.
func (e *pdfEncoder) Header(names []string) error {
	if err := e.checkHeader(names); err != nil {
		return err
	}
	e.header = append([]string(nil), names...)
	return nil
}

// Row adds a table row; past MaxPDFRows rows it returns
// ErrTooManyRowsForPDF.
func (e *pdfEncoder) Row(cells []Cell) error {
	if err := e.checkRow(cells); err != nil {
		return err
	}
	if e.rows >= e.maxRows {
		return ErrTooManyRowsForPDF
	}
	texts := make([]string, len(cells))
	for i, c := range cells {
		switch c.Kind {
		case Text, Decimal:
			texts[i] = c.Text
		case Integer:
			texts[i] = strconv.FormatInt(c.Int, 10)
		case Time:
			if !c.Time.IsZero() {
				texts[i] = string(appendTime(nil, c.Time.In(e.loc)))
			}
		default:
			return fmt.Errorf("exportfmt: row %d cell %d: unknown kind %d", e.rows+1, i+1, c.Kind)
		}
	}
	// Numbers align right, by the first row that reaches the column.
	for i := len(e.aligns); i < len(cells); i++ {
		align := gopdf.Left
		if cells[i].Kind == Decimal || cells[i].Kind == Integer {
			align = gopdf.Right
		}
		e.aligns = append(e.aligns, align)
	}
	e.rows++
	if e.laidOut {
		return e.drawRow(texts)
	}
	e.pending = append(e.pending, texts)
	if len(e.pending) < pdfSample {
		return nil
	}
	return e.flushPending()
}

// flushPending sizes the columns from the rows held back and draws them.
func (e *pdfEncoder) flushPending() error {
	e.layout()
	e.laidOut = true
	if err := e.newPage(); err != nil {
		return err
	}
	for _, texts := range e.pending {
		if err := e.drawRow(texts); err != nil {
			return err
		}
	}
	e.pending = nil
	return nil
}

// layout shares the usable width among the columns. Each wants its natural
// width (its widest text so far plus padding). When they all fit, each is
// widened in proportion; when they do not, the narrow ones keep their
// natural width and the wide ones split what is left equally.
func (e *pdfEncoder) layout() {
	// Without a header rows may differ in width; the widest held back
	// sets the columns, and cells past them in later rows are not shown.
	cols := len(e.header)
	for _, row := range e.pending {
		cols = max(cols, len(row))
	}
	natural := make([]float64, cols)
	for i := range natural {
		w := 0.0
		if i < len(e.header) {
			w = e.bold.width(e.header[i], pdfFontSize)
		}
		for _, row := range e.pending {
			if i < len(row) {
				w = max(w, e.regular.width(row[i], pdfFontSize))
			}
		}
		natural[i] = max(w+2*pdfPad, pdfMinColumn)
	}
	usable := pageSize.W - 2*pdfMargin
	e.widths = fitColumns(natural, usable)
}

func fitColumns(natural []float64, usable float64) []float64 {
	widths := make([]float64, len(natural))
	total := 0.0
	for _, w := range natural {
		total += w
	}
	if total == 0 {
		return widths
	}
	if total <= usable {
		for i, w := range natural {
			widths[i] = w * usable / total
		}
		return widths
	}
	order := make([]int, len(natural))
	for i := range order {
		order[i] = i
	}
	// Narrowest first; few columns, so insertion sort is plenty.
	for i := 1; i < len(order); i++ {
		for j := i; j > 0 && natural[order[j]] < natural[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	remaining := usable
	for k, i := range order {
		share := remaining / float64(len(order)-k)
		if natural[i] <= share {
			widths[i] = natural[i]
			remaining -= natural[i]
			continue
		}
		for _, j := range order[k:] {
			widths[j] = share
		}
		break
	}
	return widths
}

// newPage starts a page: the title on the first, the header row, the
// page number at the foot.
func (e *pdfEncoder) newPage() error {
	if e.inChunk == pdfChunkPages {
		if err := e.endChunk(); err != nil {
			return err
		}
		pdf, err := e.newDocument()
		if err != nil {
			return err
		}
		e.pdf = pdf
	}
	e.pdf.AddPage()
	e.page++
	e.inChunk++
	e.y = pdfMargin
	if e.page == 1 && strings.TrimSpace(e.title) != "" {
		if err := e.pdf.SetFont("bold", "", pdfTitleSize); err != nil {
			return fmt.Errorf("exportfmt: pdf font: %w", err)
		}
		usable := pageSize.W - 2*pdfMargin
		e.pdf.SetXY(pdfMargin, e.y)
		title := e.bold.fit(e.title, usable, pdfTitleSize)
		if err := e.pdf.CellWithOption(&gopdf.Rect{W: usable, H: 18}, title, gopdf.CellOption{Align: gopdf.Left | gopdf.Middle}); err != nil {
			return fmt.Errorf("exportfmt: pdf title: %w", err)
		}
		e.y += 24
	}
	if err := e.pdf.SetFont("regular", "", pdfFontSize); err != nil {
		return fmt.Errorf("exportfmt: pdf font: %w", err)
	}
	footer := "Page " + strconv.Itoa(e.page)
	e.pdf.SetXY(pdfMargin, pageSize.H-pdfMargin-pdfRowHeight)
	if err := e.pdf.CellWithOption(&gopdf.Rect{W: pageSize.W - 2*pdfMargin, H: pdfRowHeight}, footer, gopdf.CellOption{Align: gopdf.Center | gopdf.Middle}); err != nil {
		return fmt.Errorf("exportfmt: pdf page number: %w", err)
	}
	if len(e.header) == 0 {
		return nil
	}
	tableW := 0.0
	for _, w := range e.widths {
		tableW += w
	}
	e.pdf.SetFillColor(228, 231, 235)
	e.pdf.RectFromUpperLeftWithStyle(pdfMargin, e.y, tableW, pdfRowHeight+2, "F")
	e.pdf.SetFillColor(0, 0, 0)
	if err := e.pdf.SetFont("bold", "", pdfFontSize); err != nil {
		return fmt.Errorf("exportfmt: pdf font: %w", err)
	}
	if err := e.drawCells(e.header, e.bold, pdfRowHeight+2); err != nil {
		return err
	}
	return e.pdf.SetFont("regular", "", pdfFontSize)
}

// drawRow draws one row, starting a page when this one is full.
func (e *pdfEncoder) drawRow(texts []string) error {
	if e.y+pdfRowHeight > pageSize.H-pdfMargin-pdfFooter {
		if err := e.newPage(); err != nil {
			return err
		}
	}
	return e.drawCells(texts, e.regular, pdfRowHeight)
}

func (e *pdfEncoder) drawCells(texts []string, m *metrics, height float64) error {
	x := pdfMargin
	for i, w := range e.widths {
		if i < len(texts) && texts[i] != "" {
			align := gopdf.Left
			if i < len(e.aligns) {
				align = e.aligns[i]
			}
			text := m.fit(texts[i], w-2*pdfPad, pdfFontSize)
			if text != "" {
				e.pdf.SetXY(x+pdfPad, e.y)
				rect := &gopdf.Rect{W: w - 2*pdfPad, H: height}
				if err := e.pdf.CellWithOption(rect, text, gopdf.CellOption{Align: align | gopdf.Middle}); err != nil {
					return fmt.Errorf("exportfmt: pdf cell: %w", err)
				}
			}
		}
		x += w
	}
	e.y += height
	return nil
}

// Close lays out what is still held back and writes the document; a second
// Close does nothing.
func (e *pdfEncoder) Close() error {
	if e.closed {
		return nil
	}
	e.closed = true
	defer e.restoreGC()
	if !e.laidOut {
		if err := e.flushPending(); err != nil {
			return err
		}
	}
	// The writer's first error is kept here: it is the cause of any error
	// the join then reports.
	sw := &stickyWriter{w: bufio.NewWriterSize(e.dst, 64<<10)}
	if e.pdf != nil {
		if err := e.endChunk(); err != nil {
			return err
		}
	}
	err := joinPDF(e.chunks, sw, map[string]string{"Title": e.title, "Creator": "Paygate"})
	e.chunks = nil
	if err != nil && sw.err == nil {
		return err
	}
	if sw.err == nil {
		sw.err = sw.w.Flush()
	}
	if sw.err != nil {
		return fmt.Errorf("exportfmt: write pdf: %w", sw.err)
	}
	return nil
}

// joinPDF joins the chunks' pages, in order, into one document with the
// given properties (Title, Creator…) and writes it to w. One chunk goes
// through it too, so every file is written the same way.
func joinPDF(chunks [][]byte, w io.Writer, properties map[string]string) (err error) {
	defer func() {
		// pdfcpu reports some malformed input by panicking; the chunks are
		// ours, so a panic here is a defect, reported as an error.
		if r := recover(); r != nil {
			err = fmt.Errorf("exportfmt: join pdf pages: %v", r)
		}
	}()
	conf := model.NewDefaultConfiguration()
	conf.Cmd = model.MERGECREATE
	conf.ValidationMode = model.ValidationRelaxed
	conf.CreateBookmarks = false
	conf.OptimizeBeforeWriting = false
	dst, err := api.ReadAndValidate(bytes.NewReader(chunks[0]), conf)
	if err != nil {
		return fmt.Errorf("exportfmt: read pdf pages: %w", err)
	}
	dst.EnsureVersionForWriting()
	for i := 1; i < len(chunks); i++ {
		src, err := api.ReadAndValidate(bytes.NewReader(chunks[i]), conf)
		if err != nil {
			return fmt.Errorf("exportfmt: read pdf pages: %w", err)
		}
		chunks[i] = nil // the pages are in src now
		if err := pdfcpu.MergeXRefTables(strconv.Itoa(i), src, dst, false, false); err != nil {
			return fmt.Errorf("exportfmt: join pdf pages: %w", err)
		}
	}
	if err := pdfcpu.PropertiesAdd(dst, properties); err != nil {
		return fmt.Errorf("exportfmt: set pdf properties: %w", err)
	}
	if err := api.WriteContext(dst, w); err != nil {
		return fmt.Errorf("exportfmt: write pdf: %w", err)
	}
	return nil
}

// Laying out pages makes garbage fast over a small live heap (about 15 MB
// at any size): under the gateway's GOGC of 400 (server.DefaultGCPercent)
// the heap grew to five times that between collections, which set a PDF
// export's peak memory. While any PDF is being written the collector works
// at GOGC 100 at most.
var (
	gcMu     sync.Mutex
	gcWriter int // PDFs being written
	gcSaved  int // the GC percent before the first of them
)

// tighterGC lowers the GC percent to 100 (it never raises it, nor turns on
// a collector that is off) until the last PDF being written calls the
// function it returns, once.
func tighterGC() (restore func()) {
	gcMu.Lock()
	defer gcMu.Unlock()
	if gcWriter == 0 {
		gcSaved = debug.SetGCPercent(100)
		if gcSaved <= 100 {
			debug.SetGCPercent(gcSaved)
		}
	}
	gcWriter++
	return sync.OnceFunc(func() {
		gcMu.Lock()
		defer gcMu.Unlock()
		if gcWriter--; gcWriter == 0 {
			debug.SetGCPercent(gcSaved)
		}
	})
}

// stickyWriter keeps the first error of w and writes nothing after it.
type stickyWriter struct {
	w   *bufio.Writer
	err error
}

// Write passes p on until the first error.
func (s *stickyWriter) Write(p []byte) (int, error) {
	if s.err != nil {
		return 0, s.err
	}
	n, err := s.w.Write(p)
	s.err = err
	return n, err
}

// metrics measures text in one font, caching each rune's advance (in
// points at size 1) and whether the font has it.
type metrics struct {
	font  *sfnt.Font
	buf   sfnt.Buffer
	upem  float64
	ascii [128]float64
	other map[rune]float64 // -1: the font lacks the rune
}

func newMetrics(ttf []byte) (*metrics, error) {
	f, err := sfnt.Parse(ttf)
	if err != nil {
		return nil, fmt.Errorf("exportfmt: parse font: %w", err)
	}
	m := &metrics{font: f, upem: float64(f.UnitsPerEm()), other: map[rune]float64{}}
	for r := range rune(len(m.ascii)) {
		m.ascii[r] = m.lookup(r)
	}
	return m, nil
}

// lookup is a rune's advance at size 1, or -1 when the font lacks it.
func (m *metrics) lookup(r rune) float64 {
	g, err := m.font.GlyphIndex(&m.buf, r)
	if err != nil || g == 0 {
		return -1
	}
	adv, err := m.font.GlyphAdvance(&m.buf, g, fixed.Int26_6(m.upem*64), font.HintingNone)
	if err != nil {
		return -1
	}
	return float64(adv) / 64 / m.upem
}

func (m *metrics) advance(r rune) float64 {
	if r >= 0 && r < rune(len(m.ascii)) {
		return m.ascii[r]
	}
	a, ok := m.other[r]
	if !ok {
		a = m.lookup(r)
		m.other[r] = a
	}
	return a
}

// printable maps a rune to what a cell shows: spaces for control
// characters, "?" for a rune the font lacks.
func (m *metrics) printable(r rune) (rune, float64) {
	if unicode.IsControl(r) || r == utf8.RuneError {
		r = ' '
	}
	if a := m.advance(r); a >= 0 {
		return r, a
	}
	return '?', m.advance('?')
}

func (m *metrics) width(s string, size float64) float64 {
	w := 0.0
	for _, r := range s {
		_, a := m.printable(r)
		w += a
	}
	return w * size
}

// fit returns s as it prints in a cell avail points wide: unprintable
// runes replaced, and cut with an ellipsis when too long.
func (m *metrics) fit(s string, avail, size float64) string {
	limit := avail / size
	total, clean := 0.0, true
	for _, r := range s {
		p, a := m.printable(r)
		total += a
		clean = clean && p == r
	}
	if total <= limit && clean {
		return s
	}
	room := limit
	if total > limit {
		room -= m.advance('…')
		if room < 0 {
			return ""
		}
	}
	var b strings.Builder
	w := 0.0
	for _, r := range s {
		p, a := m.printable(r)
		if w+a > room {
			break
		}
		w += a
		b.WriteRune(p)
	}
	if total > limit {
		b.WriteString(ellipsis)
	}
	return b.String()
}
