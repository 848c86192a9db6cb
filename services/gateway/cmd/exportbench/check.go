package main

import (
	"fmt"

	"github.com/xuri/excelize/v2"
)

// checkXLSX reads the worker's Excel file back with excelize's row
// iterator: the header's first cell, every row as wide as the header, and
// as many data rows as were written.
func checkXLSX(path string, rows int64, header []string) error {
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
