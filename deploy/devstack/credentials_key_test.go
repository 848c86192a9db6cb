package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLocalCredentialsKeys(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "data")
	first, err := localCredentialsKeys(dir)
	if err != nil || !strings.HasPrefix(first, "local-1:") || len(first) < 40 {
		t.Fatalf("first = %q, %v", first, err)
	}
	again, err := localCredentialsKeys(dir)
	if err != nil || again != first {
		t.Errorf("second run = %q, %v; want the same key", again, err)
	}
	info, err := os.Stat(filepath.Join(dir, "credentials-keys"))
	if err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("key file mode = %v, %v", info, err)
	}
}
