package filestore

import (
	"testing"
)

func TestFromConfig(t *testing.T) {
	t.Parallel()
	f := newFakeS3(t)
	dir := t.TempDir()
	tests := []struct {
		name string
		cfg  Config
		want string // "local", "s3" or "" for an error
	}{
		{"local", Config{Dir: dir}, "local"},
		{"s3 wins over a directory", Config{Dir: dir, S3: f.config()}, "s3"},
		{"nothing set", Config{}, ""},
		{"s3 without a bucket", Config{S3: S3Config{Endpoint: f.url}}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s, err := FromConfig(t.Context(), tt.cfg)
			var got string
			switch s.(type) {
			case *Local:
				got = "local"
			case *S3:
				got = "s3"
			}
			if got != tt.want || (tt.want == "") != (err != nil) || err != nil && s != nil {
				t.Fatalf("got %q, error %v; want %q", got, err, tt.want)
			}
		})
	}
}
