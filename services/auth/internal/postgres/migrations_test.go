package postgres

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/bus"
)

func TestMigrationsCreateTheOutbox(t *testing.T) {
	t.Parallel()
	up, err := fs.ReadFile(Migrations(), "0001_init.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(up), bus.OutboxDDL) {
		t.Fatal("the first migration does not contain bus.OutboxDDL verbatim")
	}
}
