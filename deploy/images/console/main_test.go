package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"
)

func testHandler(t *testing.T) *handler {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config.json")
	err := os.WriteFile(cfg, []byte(`{"authUrl":"http://auth.example:8081","gatewayUrl":"http://gw.example","remotes":{"files":"https://cdn.example/remotes/files/remoteEntry.js","security":"/remotes/security/remoteEntry.js"}}`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	files := fstest.MapFS{
		"index.html":                         {Data: []byte("<html>shell</html>")},
		"assets/app.1234.js":                 {Data: []byte("plain")},
		"assets/app.1234.js.br":              {Data: []byte("brotli")},
		"remotes/security/remoteEntry.js":    {Data: []byte("entry")},
		"remotes/security/remoteEntry.js.gz": {Data: []byte("gzipped")},
	}
	h, err := newHandler(files, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

func TestHandler(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	tests := []struct {
		name, path, accept string
		status             int
		body, encoding     string
		cache              string
	}{
		{"root is the shell", "/", "", 200, "<html>shell</html>", "", "no-cache"},
		{"a router path is the shell", "/transactions/42", "", 200, "<html>shell</html>", "", "no-cache"},
		{"a missing file is 404", "/missing.js", "", 404, "", "", "no-cache"},
		{"a missing remote file is 404", "/remotes/files/x", "", 404, "", "", "no-cache"},
		{"hashed assets are immutable, brotli when accepted", "/assets/app.1234.js", "gzip, br", 200, "brotli", "br", "public, max-age=31536000, immutable"},
		{"plain without Accept-Encoding", "/assets/app.1234.js", "", 200, "plain", "", "public, max-age=31536000, immutable"},
		{"br;q=0 is refused", "/assets/app.1234.js", "br;q=0", 200, "plain", "", "public, max-age=31536000, immutable"},
		{"gzip for a remote entry", "/remotes/security/remoteEntry.js", "gzip", 200, "gzipped", "gzip", "no-cache"},
		{"health", "/healthz", "", 200, "ok\n", "", "no-store"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodGet, tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Encoding", tt.accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d", rec.Code, tt.status)
			}
			if tt.body != "" && rec.Body.String() != tt.body {
				t.Errorf("body %q, want %q", rec.Body.String(), tt.body)
			}
			if got := rec.Header().Get("Content-Encoding"); got != tt.encoding {
				t.Errorf("Content-Encoding %q, want %q", got, tt.encoding)
			}
			if got := rec.Header().Get("Cache-Control"); got != tt.cache {
				t.Errorf("Cache-Control %q, want %q", got, tt.cache)
			}
			if rec.Header().Get("X-Frame-Options") != "DENY" {
				t.Error("no X-Frame-Options")
			}
		})
	}
}

func TestPolicyNamesTheConfiguredOrigins(t *testing.T) {
	t.Parallel()
	csp := testHandler(t).csp
	for _, want := range []string{
		"script-src 'self' https://cdn.example;",
		"connect-src 'self' http://auth.example:8081 http://gw.example;",
		"frame-ancestors 'none'",
	} {
		if !strings.Contains(csp, want) {
			t.Errorf("policy %q lacks %q", csp, want)
		}
	}
}

func TestConfigIsServedAsMounted(t *testing.T) {
	t.Parallel()
	h := testHandler(t)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/config.json", nil))
	if rec.Code != 200 || !strings.Contains(rec.Body.String(), "gw.example") || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("config.json: %d %q %q", rec.Code, rec.Header().Get("Content-Type"), rec.Body.String())
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/", nil))
	if rec.Code != http.StatusMethodNotAllowed {
		t.Fatalf("POST: %d", rec.Code)
	}
}
