package main

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
)

// TestTamperedProofIsRefused: a proof whose digest is not the action's is
// not valid (exit 1), against a real database.
func TestTamperedProofIsRefused(t *testing.T) {
	url := os.Getenv("PAYGATE_TEST_DATABASE_URL")
	if url == "" {
		url = "postgres://postgres@127.0.0.1:5432/test?sslmode=disable"
	}
	proof := `{"kind":"webauthn","role":"actor","userId":1,"username":"admin","action":"{\"action\":\"fee.update\"}","digest":"00"}`
	var out bytes.Buffer
	code, err := run(context.Background(), []string{"-database-url", url, "-demo"}, func(string) string { return "" }, strings.NewReader(proof), &out)
	if err != nil || code != 1 || !strings.Contains(out.String(), "not valid") {
		t.Fatalf("code %d, err %v, output %q", code, err, out.String())
	}
}
