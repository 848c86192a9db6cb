package postgres_test

import (
	"io/fs"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/aggregator/internal/postgres"
	"github.com/paygate/paygate/services/internal/bus"
)

// TestOutboxMigrationHoldsBus checks that the aggregator's outbox is the one
// the relay expects.
func TestOutboxMigrationHoldsBus(t *testing.T) {
	t.Parallel()
	b, err := fs.ReadFile(postgres.Migrations, "0010_outbox.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), bus.OutboxDDL) {
		t.Errorf("0010_outbox.up.sql does not contain bus.OutboxDDL verbatim:\n%s", b)
	}
}
