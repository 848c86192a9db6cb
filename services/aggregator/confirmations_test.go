package main

import (
	"os"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/stepup"
)

// TestConfirmationsMigration: the aggregator creates used_confirmations with
// the text stepup documents.
func TestConfirmationsMigration(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("internal/postgres/migrations/0012_used_confirmations.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), stepup.Table) {
		t.Error("0012_used_confirmations.up.sql does not hold stepup.Table")
	}
}
