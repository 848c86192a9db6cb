package exportfmt

import (
	"testing"

	"github.com/pdfcpu/pdfcpu/pkg/api"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	// pdfcpu reads and writes a configuration under the user's home unless
	// told not to.
	api.DisableConfigDir()
	goleak.VerifyTestMain(m)
}
