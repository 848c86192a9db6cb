package exportfmt

import (
	"encoding/csv"
	"fmt"
	"io"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/xuri/excelize/v2"
)

// benchRows is the size of one benchmarked export.
const benchRows = 100_000

var benchHeader = []string{
	"Id", "Reference Id", "Provider Tid", "Merchant Client Id", "Nonce", "Amount",
	"Currency", "Type", "Status", "Merchant", "Provider", "Created (UTC)",
}

// benchSample is a thousand distinct transaction-like rows the benchmarks
// cycle through, so generating them costs nothing in the loop.
func benchSample() [][]Cell {
	statuses := []string{"Success", "Pending", "Cancelled", "PSP Error"}
	merchants := []string{"Acme Retail", "Globex Gaming", "Initech Café", "Umbrella, Inc."}
	rows := make([][]Cell, 1000)
	start := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	for i := range rows {
		id := int64(1_000_000 + i)
		rows[i] = []Cell{
			{Kind: Integer, Int: id},
			{Kind: Text, Text: fmt.Sprintf("TX-%08X-%04d", id*2654435761%0xFFFFFFFF, i)},
			{Kind: Text, Text: "PSP" + strconv.FormatInt(id*7919, 10)},
			{Kind: Text, Text: "client-" + strconv.Itoa(i%97)},
			{Kind: Text, Text: "test_" + strconv.FormatInt(1740787200000+id, 10)},
			{Kind: Decimal, Text: strconv.Itoa(100+i*37%100000) + "." + fmt.Sprintf("%02d", i%100)},
			{Kind: Text, Text: []string{"PHP", "USD"}[i%2]},
			{Kind: Text, Text: []string{"Deposit", "Withdrawal"}[i%2]},
			{Kind: Text, Text: statuses[i%len(statuses)]},
			{Kind: Text, Text: merchants[i%len(merchants)]},
			{Kind: Text, Text: "GCash Provider " + strconv.Itoa(i%5)},
			{Kind: Time, Time: start.Add(time.Duration(i) * 37 * time.Second)},
		}
	}
	return rows
}

func benchEncoder(b *testing.B, f Format, rows int) {
	sample := benchSample()
	var w countingWriter
	var heap uint64
	for b.Loop() {
		w.n = 0
		enc, err := New(f, &w, Options{Title: "Transactions", Location: manila})
		if err != nil {
			b.Fatal(err)
		}
		if err := enc.Header(benchHeader); err != nil {
			b.Fatal(err)
		}
		for i := range rows {
			if err := enc.Row(sample[i%len(sample)]); err != nil {
				b.Fatal(err)
			}
		}
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		heap = max(heap, ms.HeapInuse)
		if err := enc.Close(); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, rows, w.n)
	b.ReportMetric(float64(heap)/(1<<20), "heap-MiB-before-close")
}

func reportRows(b *testing.B, rows, size int) {
	b.ReportMetric(float64(rows*b.N)/b.Elapsed().Seconds(), "rows/s")
	b.ReportMetric(float64(size), "file-bytes")
}

// BenchmarkCSV writes 100k rows of 12 transaction columns.
func BenchmarkCSV(b *testing.B) { benchEncoder(b, CSV, benchRows) }

// BenchmarkXLSX writes 100k rows of 12 transaction columns.
func BenchmarkXLSX(b *testing.B) { benchEncoder(b, Excel, benchRows) }

// BenchmarkPDF writes the largest PDF allowed, MaxPDFRows rows of the same
// columns; its heap figure is what holding the document costs.
func BenchmarkPDF(b *testing.B) { benchEncoder(b, PDF, MaxPDFRows) }

// BenchmarkBareCSV is the ceiling for BenchmarkCSV: encoding/csv writing
// the same rows already turned into strings.
func BenchmarkBareCSV(b *testing.B) {
	sample := benchSample()
	strs := make([][]string, len(sample))
	for i, row := range sample {
		for _, c := range row {
			switch c.Kind {
			case Integer:
				strs[i] = append(strs[i], strconv.FormatInt(c.Int, 10))
			case Time:
				strs[i] = append(strs[i], c.Time.In(manila).Format(timeLayout))
			default:
				strs[i] = append(strs[i], c.Text)
			}
		}
	}
	var w countingWriter
	for b.Loop() {
		w.n = 0
		cw := csv.NewWriter(&w)
		cw.UseCRLF = true
		if err := cw.Write(benchHeader); err != nil {
			b.Fatal(err)
		}
		for i := range benchRows {
			if err := cw.Write(strs[i%len(strs)]); err != nil {
				b.Fatal(err)
			}
		}
		cw.Flush()
		if err := cw.Error(); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, benchRows, w.n)
}

// BenchmarkBareExcelizeStreamWriter is the ceiling for BenchmarkXLSX:
// excelize's StreamWriter writing the same values (numbers as float64 and
// int64, times as time.Time) with no exportfmt layer, saved with Write.
func BenchmarkBareExcelizeStreamWriter(b *testing.B) {
	sample := benchSample()
	vals := make([][]any, len(sample))
	for i, row := range sample {
		for _, c := range row {
			switch c.Kind {
			case Integer:
				vals[i] = append(vals[i], c.Int)
			case Decimal:
				f, err := strconv.ParseFloat(c.Text, 64)
				if err != nil {
					b.Fatal(err)
				}
				vals[i] = append(vals[i], f)
			case Time:
				vals[i] = append(vals[i], c.Time.In(manila))
			default:
				vals[i] = append(vals[i], c.Text)
			}
		}
	}
	head := make([]any, len(benchHeader))
	for i, h := range benchHeader {
		head[i] = h
	}
	var w countingWriter
	for b.Loop() {
		w.n = 0
		f := excelize.NewFile()
		sw, err := f.NewStreamWriter("Sheet1")
		if err != nil {
			b.Fatal(err)
		}
		if err := sw.SetRow("A1", head); err != nil {
			b.Fatal(err)
		}
		for i := range benchRows {
			if err := sw.SetRow("A"+strconv.Itoa(i+2), vals[i%len(vals)]); err != nil {
				b.Fatal(err)
			}
		}
		if err := sw.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Write(&w); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	reportRows(b, benchRows, w.n)
}

var _ io.Writer = (*countingWriter)(nil)
