package server

import (
	"os"
	"path/filepath"
	"testing"
)

func TestGCSettings(t *testing.T) {
	dir := t.TempDir()
	limited := filepath.Join(dir, "limited")
	if err := os.WriteFile(limited, []byte("536870912\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	unlimited := filepath.Join(dir, "unlimited")
	if err := os.WriteFile(unlimited, []byte("max\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	for _, tc := range []struct {
		name        string
		env         map[string]string
		memoryMax   string
		wantPercent int
		wantLimit   int64
	}{
		{"defaults in a container with a limit", nil, limited, DefaultGCPercent, 456340275},
		{"no limit", nil, unlimited, DefaultGCPercent, 0},
		{"no cgroup file", nil, filepath.Join(dir, "absent"), DefaultGCPercent, 0},
		{"GOGC set", map[string]string{"GOGC": "100"}, limited, 0, 456340275},
		{"GOMEMLIMIT set", map[string]string{"GOMEMLIMIT": "1GiB"}, limited, DefaultGCPercent, 0},
		{"both set", map[string]string{"GOGC": "off", "GOMEMLIMIT": "1GiB"}, limited, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			percent, limit := gcSettings(env(tc.env), tc.memoryMax)
			if percent != tc.wantPercent || limit != tc.wantLimit {
				t.Fatalf("gcSettings = %d, %d; want %d, %d", percent, limit, tc.wantPercent, tc.wantLimit)
			}
		})
	}
}
