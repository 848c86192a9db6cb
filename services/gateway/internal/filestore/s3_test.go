package filestore

import (
	"bytes"
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/johannesboyne/gofakes3"
	"github.com/johannesboyne/gofakes3/backend/s3mem"
	"github.com/minio/minio-go/v7"
)

// fakeS3 is an in-process S3 server (gofakes3, in memory) over HTTPS.
type fakeS3 struct {
	url       string
	transport *http.Transport
	buckets   atomic.Int64
}

func newFakeS3(t *testing.T) *fakeS3 {
	t.Helper()
	// Over TLS, as minio-go signs each part's payload whole there; over
	// plain HTTP it sends parts aws-chunked (streaming signatures), which
	// gofakes3 decodes for a single PUT but not for an UploadPart, and it
	// would store the chunk framing as data.
	srv := httptest.NewTLSServer(gofakes3.New(s3mem.New()).Server())
	tr := srv.Client().Transport.(*http.Transport)
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		srv.Close()
	})
	return &fakeS3{url: srv.URL, transport: tr}
}

// config is a store on a bucket of its own, made on first use.
func (f *fakeS3) config() S3Config {
	return S3Config{
		Endpoint:     f.url,
		Bucket:       fmt.Sprintf("bucket-%d", f.buckets.Add(1)),
		Region:       "us-east-1",
		AccessKey:    "test-access",
		SecretKey:    "test-secret",
		Prefix:       "paygate",
		CreateBucket: true,
		PartSize:     minPartSize, // several parts for the large file
		Transport:    f.transport,
	}
}

func (f *fakeS3) store(t *testing.T) *S3 {
	t.Helper()
	s, err := NewS3(t.Context(), f.config())
	mustDo(t, err)
	return s
}

func TestS3(t *testing.T) {
	t.Parallel()
	f := newFakeS3(t)
	testStore(t, func(t *testing.T) Store { return f.store(t) })
}

func TestS3AbortAfterPartsLeavesNothing(t *testing.T) {
	t.Parallel()
	s := newFakeS3(t).store(t)
	ctx := t.Context()
	w, err := s.Create(ctx, "exports/1/big.csv")
	mustDo(t, err)
	chunk := make([]byte, 1<<20)
	_, _ = rand.Read(chunk)
	for range 12 { // two parts go up before the abort
		_, err := w.Write(chunk)
		mustDo(t, err)
	}
	if n := countUploads(t, s); n != 1 {
		t.Fatalf("%d uploads in progress, want 1", n)
	}
	w.Abort()
	assertMissing(t, s, "exports/1/big.csv")
	if n := countUploads(t, s); n != 0 {
		t.Fatalf("%d uploads left after Abort, want 0", n)
	}
}

func TestS3KeysUnderPrefix(t *testing.T) {
	t.Parallel()
	s := newFakeS3(t).store(t)
	put(t, s, "exports/1/f.csv", "x")
	var keys []string
	for obj := range s.client.ListObjects(t.Context(), s.bucket, minio.ListObjectsOptions{Recursive: true}) {
		mustDo(t, obj.Err)
		keys = append(keys, obj.Key)
	}
	if len(keys) != 1 || keys[0] != "paygate/exports/1/f.csv" {
		t.Fatalf("bucket holds %q", keys)
	}
}

func TestS3SweepTemp(t *testing.T) {
	t.Parallel()
	s := newFakeS3(t).store(t)
	ctx := t.Context()
	core := minio.Core{Client: s.client}
	if _, err := core.NewMultipartUpload(ctx, s.bucket, s.prefix+"exports/1/crashed.csv", minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}
	n, err := s.SweepTemp(ctx, time.Hour)
	mustDo(t, err)
	if n != 0 {
		t.Fatalf("swept %d fresh uploads", n)
	}
	n, err = s.SweepTemp(ctx, -time.Minute)
	mustDo(t, err)
	if n != 1 || countUploads(t, s) != 0 {
		t.Fatalf("swept %d uploads, %d left; want 1 and 0", n, countUploads(t, s))
	}
}

func TestNewS3(t *testing.T) {
	t.Parallel()
	f := newFakeS3(t)
	tests := []struct {
		name    string
		edit    func(*S3Config)
		wantErr string
	}{
		{"missing bucket not created", func(c *S3Config) { c.CreateBucket = false }, "does not exist"},
		{"no endpoint", func(c *S3Config) { c.Endpoint = "" }, "needs an endpoint"},
		{"no bucket", func(c *S3Config) { c.Bucket = "" }, "needs an endpoint and a bucket"},
		{"bad scheme", func(c *S3Config) { c.Endpoint = "ftp://host" }, "neither"},
		{"tiny parts", func(c *S3Config) { c.PartSize = 1 << 20 }, "part size"},
		{"host and port", func(c *S3Config) { c.Endpoint, c.UseSSL = strings.TrimPrefix(c.Endpoint, "https://"), true }, ""},
		{"created then found", func(c *S3Config) {}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := f.config()
			tt.edit(&cfg)
			_, err := NewS3(t.Context(), cfg)
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatal(err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
			}
			if tt.wantErr == "" {
				cfg.CreateBucket = false // now it exists
				_, err := NewS3(t.Context(), cfg)
				mustDo(t, err)
			}
		})
	}
}

func TestS3WriteAfterFailedUpload(t *testing.T) {
	t.Parallel()
	s := newFakeS3(t).store(t)
	ctx, cancel := context.WithCancel(t.Context())
	w, err := s.Create(ctx, "exports/1/f.csv")
	mustDo(t, err)
	defer w.Abort()
	cancel()
	chunk := bytes.Repeat([]byte("x"), 1<<20)
	var werr error
	for i := 0; werr == nil && i < 64; i++ {
		_, werr = w.Write(chunk)
	}
	if werr == nil {
		t.Fatal("writes kept succeeding after the upload's context ended")
	}
	if err := w.Commit(t.Context()); err == nil {
		t.Fatal("commit of a failed upload succeeded")
	}
	assertMissing(t, s, "exports/1/f.csv")
}

func countUploads(t *testing.T, s *S3) int {
	t.Helper()
	n := 0
	for up := range s.client.ListIncompleteUploads(t.Context(), s.bucket, "", true) {
		if up.Err != nil {
			t.Fatal(up.Err)
		}
		n++
	}
	return n
}
