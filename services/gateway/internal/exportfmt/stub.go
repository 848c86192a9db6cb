package exportfmt

import (
	"fmt"
	"io"
)

// newEncoder is replaced by the real encoders (csv.go, xlsx.go, pdf.go).
func newEncoder(f Format, _ io.Writer, _ Options) (Encoder, error) {
	return nil, fmt.Errorf("exportfmt: format %d is not built yet", f)
}
