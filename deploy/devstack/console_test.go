package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestConsoleHandler(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"shell/dist/index.html":                     "<html>shell</html>",
		"shell/dist/assets/main.123.js":             "main",
		"shell/dist/docs/index.html":                "<html>docs</html>",
		"remotes/security/dist/remoteEntry.js":      "entry",
		"remotes/security/dist/assets/chunk.abc.js": "chunk",
		"remotes/providers/src/index.ts":            "not built",
		"secret.txt":                                "outside",
	})
	remotes := findRemotes(root)
	if len(remotes) != 1 || remotes["security"] == "" {
		t.Fatalf("findRemotes = %v, want only security", remotes)
	}
	h, err := newConsoleHandler(filepath.Join(root, "shell", "dist"), remotes, newConsoleConfig(remotes))
	if err != nil {
		t.Fatal(err)
	}

	const immutable = "public, max-age=31536000, immutable"
	tests := []struct {
		method, path string
		status       int
		body         string // a substring
		cache        string // Cache-Control of a 200
	}{
		{"GET", "/", 200, "shell", "no-cache"},
		{"GET", "/assets/main.123.js", 200, "main", immutable},
		{"GET", "/transactions", 200, "shell", "no-cache"},
		{"GET", "/transactions/42/logs", 200, "shell", "no-cache"},
		{"GET", "/login?redirect=%2Fproviders", 200, "shell", "no-cache"},
		{"GET", "/docs/", 200, "docs", "no-cache"},
		{"GET", "/config.json", 200, "gatewayUrl", "no-cache"},
		{"GET", "/missing.js", 404, "", ""},
		{"GET", "/assets/missing.js", 404, "", ""},
		{"GET", "/remotes/security/remoteEntry.js", 200, "entry", "no-cache"},
		{"GET", "/remotes/security/assets/chunk.abc.js", 200, "chunk", immutable},
		{"GET", "/remotes/security/nope.js", 404, "", ""},
		{"GET", "/remotes/security/some/route", 404, "", ""},
		{"GET", "/remotes/providers/remoteEntry.js", 404, "", ""},
		{"GET", "/../secret.txt", 404, "", ""},
		{"GET", "/remotes/security/../../../secret.txt", 404, "", ""},
		{"HEAD", "/", 200, "", "no-cache"},
		{"POST", "/", 405, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.path, func(t *testing.T) {
			t.Parallel()
			rec := httptest.NewRecorder()
			req := httptest.NewRequest(tt.method, "http://localhost:8080/", nil)
			req.URL.Path, req.URL.RawQuery, _ = strings.Cut(tt.path, "?")
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status = %d, want %d (body %q)", rec.Code, tt.status, rec.Body.String())
			}
			if !strings.Contains(rec.Body.String(), tt.body) {
				t.Errorf("body = %q, want it to contain %q", rec.Body.String(), tt.body)
			}
			if got := rec.Header().Get("Cache-Control"); tt.status == 200 && got != tt.cache {
				t.Errorf("Cache-Control = %q, want %q", got, tt.cache)
			}
			// Every response, errors included, carries the security headers.
			checkSecurityHeaders(t, rec.Header())
		})
	}
}

// checkSecurityHeaders fails unless hdr has the console's security headers with the local
// services as the only origins the page may connect to.
func checkSecurityHeaders(t *testing.T, hdr http.Header) {
	t.Helper()
	want := map[string]string{
		"X-Content-Type-Options": "nosniff",
		"Referrer-Policy":        "no-referrer",
		"X-Frame-Options":        "DENY",
	}
	for k, v := range want {
		if got := hdr.Get(k); got != v {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	csp := parseCSP(hdr.Get("Content-Security-Policy"))
	wantCSP := map[string]string{
		"default-src":     "'self'",
		"script-src":      "'self'",
		"connect-src":     "'self' http://localhost:8081 http://localhost:8082 http://localhost:8083 http://localhost:8084",
		"frame-ancestors": "'none'",
		"object-src":      "'none'",
	}
	for k, v := range wantCSP {
		if csp[k] != v {
			t.Errorf("CSP %s = %q, want %q (policy %q)", k, csp[k], v, hdr.Get("Content-Security-Policy"))
		}
	}
}

// parseCSP splits a policy into directive → value.
func parseCSP(policy string) map[string]string {
	out := map[string]string{}
	for _, d := range strings.Split(policy, ";") {
		name, value, _ := strings.Cut(strings.TrimSpace(d), " ")
		if name != "" {
			out[name] = strings.TrimSpace(value)
		}
	}
	return out
}

func TestConsoleCSPFollowsConfig(t *testing.T) {
	t.Parallel()
	cfg := consoleConfig{
		AuthURL:       "https://auth.pay.example",
		GatewayURL:    "https://api.pay.example/gateway/",
		CallbacksURL:  "https://api.pay.example/callbacks/", // the same origin once
		AggregatorURL: "",                                   // not configured: nothing added
		Remotes: map[string]string{
			"transactions": "/remotes/transactions/remoteEntry.js",
			"files":        "https://cdn.pay.example:8443/files/remoteEntry.js",
		},
	}
	csp := parseCSP(consoleCSP(cfg))
	if got, want := csp["connect-src"], "'self' https://auth.pay.example https://api.pay.example"; got != want {
		t.Errorf("connect-src = %q, want %q", got, want)
	}
	if got, want := csp["script-src"], "'self' https://cdn.pay.example:8443"; got != want {
		t.Errorf("script-src = %q, want %q", got, want)
	}
	if strings.Contains(csp["script-src"], "unsafe") {
		t.Errorf("script-src allows unsafe sources: %q", csp["script-src"])
	}
}

func TestConsoleEncodingNegotiation(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeFiles(t, root, map[string]string{
		"index.html":            "<html>plain</html>",
		"index.html.br":         "BROTLI-HTML",
		"index.html.gz":         "GZIP-HTML",
		"assets/app.1a2b.js":    "plain js",
		"assets/app.1a2b.js.br": "BROTLI-JS",
		"assets/app.1a2b.js.gz": "GZIP-JS",
		"assets/only-gz.js":     "plain only-gz",
		"assets/only-gz.js.gz":  "GZIP-ONLY",
		"assets/style.css":      "body{}",
	})
	h, err := newConsoleHandler(root, nil, newConsoleConfig(nil))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, accept string
		encoding     string // Content-Encoding, "" for none
		body         string
		contentType  string
	}{
		{"/assets/app.1a2b.js", "", "", "plain js", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "gzip", "gzip", "GZIP-JS", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "br", "br", "BROTLI-JS", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "gzip, deflate, br, zstd", "br", "BROTLI-JS", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "br;q=0.5, gzip", "gzip", "GZIP-JS", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "BR;Q=0.9, GZIP;q=0.8", "br", "BROTLI-JS", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "br;q=0, gzip;q=0", "", "plain js", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "deflate, identity", "", "plain js", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "*", "br", "BROTLI-JS", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "*;q=0, gzip", "gzip", "GZIP-JS", "text/javascript; charset=utf-8"},
		{"/assets/app.1a2b.js", "x-gzip", "gzip", "GZIP-JS", "text/javascript; charset=utf-8"},
		{"/assets/only-gz.js", "br, gzip", "gzip", "GZIP-ONLY", "text/javascript; charset=utf-8"},
		{"/assets/only-gz.js", "br", "", "plain only-gz", "text/javascript; charset=utf-8"},
		{"/assets/style.css", "br, gzip", "", "body{}", "text/css; charset=utf-8"},
		// The shell's routes get the compressed index.html too.
		{"/transactions", "br, gzip", "br", "BROTLI-HTML", "text/html; charset=utf-8"},
		{"/", "gzip", "gzip", "GZIP-HTML", "text/html; charset=utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.path+" "+tt.accept, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest("GET", tt.path, nil)
			if tt.accept != "" {
				req.Header.Set("Accept-Encoding", tt.accept)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d", rec.Code)
			}
			hdr := rec.Header()
			if got := hdr.Get("Content-Encoding"); got != tt.encoding {
				t.Errorf("Content-Encoding = %q, want %q", got, tt.encoding)
			}
			if rec.Body.String() != tt.body {
				t.Errorf("body = %q, want %q", rec.Body.String(), tt.body)
			}
			if got := hdr.Get("Content-Type"); got != tt.contentType {
				t.Errorf("Content-Type = %q, want %q", got, tt.contentType)
			}
			// net/http leaves out Content-Length of an encoded body (the response is chunked).
			if got := hdr.Get("Content-Length"); tt.encoding == "" && got != strconv.Itoa(len(tt.body)) {
				t.Errorf("Content-Length = %q, want %d", got, len(tt.body))
			}
			if got := hdr.Values("Vary"); len(got) != 1 || got[0] != "Accept-Encoding" {
				t.Errorf("Vary = %q, want Accept-Encoding", got)
			}
		})
	}
}

func TestAcceptedEncodings(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"":                         "",
		"identity":                 "",
		"gzip":                     "gzip",
		"gzip, deflate, br":        "br,gzip",
		"gzip;q=1.0, br;q=0.4":     "gzip,br",
		"br;q=0":                   "",
		"*;q=0.1, br;q=0":          "gzip",
		"gzip;q=bogus, br":         "br",
		" GZip ; q=0.5 , Br;q=0.5": "br,gzip",
	}
	for header, want := range tests {
		if got := strings.Join(acceptedEncodings(header), ","); got != want {
			t.Errorf("acceptedEncodings(%q) = %q, want %q", header, got, want)
		}
	}
}

func TestConsoleConfigJSON(t *testing.T) {
	t.Parallel()
	h, err := newConsoleHandler(t.TempDir(), map[string]string{"transactions": "x"}, newConsoleConfig(map[string]string{"transactions": "x"}))
	if err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/config.json", nil))
	if rec.Code != http.StatusOK || rec.Header().Get("Content-Type") != "application/json" {
		t.Fatalf("status %d, content type %q", rec.Code, rec.Header().Get("Content-Type"))
	}
	var got map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"authUrl":       "http://localhost:8081",
		"gatewayUrl":    "http://localhost:8082",
		"callbacksUrl":  "http://localhost:8083",
		"aggregatorUrl": "http://localhost:8084",
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s = %v, want %s", k, got[k], v)
		}
	}
	remotes, _ := got["remotes"].(map[string]any)
	if remotes["transactions"] != "/remotes/transactions/remoteEntry.js" {
		t.Errorf("remotes = %v", got["remotes"])
	}

	// With no shell build, every console page explains what to do.
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/login", nil))
	if rec.Code != http.StatusServiceUnavailable || !strings.Contains(rec.Body.String(), "npm run build") {
		t.Errorf("unbuilt console: status %d body %q", rec.Code, rec.Body.String())
	}
	checkSecurityHeaders(t, rec.Header())
}

func TestSelectServices(t *testing.T) {
	t.Parallel()
	bin := t.TempDir()
	writeFiles(t, bin, map[string]string{"gateway": "", "auth": ""})

	names := func(ss []service) string { return strings.Join(serviceNames(ss), ",") }
	got, err := selectServices("", bin)
	if err != nil || names(got) != "auth,gateway" {
		t.Errorf("default = %q, %v; want auth,gateway in start order", names(got), err)
	}
	got, err = selectServices("gateway, auth", bin)
	if err != nil || names(got) != "auth,gateway" {
		t.Errorf("named = %q, %v; want auth,gateway in start order", names(got), err)
	}
	if _, err := selectServices("auth,callbacks", bin); err == nil {
		t.Error("a named service without a binary: want an error")
	}
	if _, err := selectServices("billing", bin); err == nil {
		t.Error("an unknown service: want an error")
	}
	if _, err := selectServices("", t.TempDir()); err == nil {
		t.Error("no binaries at all: want an error")
	}
}

func TestServiceEnv(t *testing.T) {
	t.Parallel()
	env := serviceEnv(knownServices[1], "127.0.0.1", "postgres://db", "redis://r", "nats://n", "http://localhost:8080")
	want := []string{
		"PAYGATE_HTTP_ADDR=127.0.0.1:8082",
		"PAYGATE_GRPC_ADDR=127.0.0.1:9082",
		"PAYGATE_DATABASE_URL=postgres://db",
		"PAYGATE_DEMO=true",
		"PAYGATE_JWKS_URL=http://127.0.0.1:8081/.well-known/jwks.json",
		"PAYGATE_AUTH_GRPC_URL=127.0.0.1:9081",
		"PAYGATE_CONSOLE_ORIGINS=http://localhost:8080",
	}
	joined := "\n" + strings.Join(env, "\n") + "\n"
	for _, w := range want {
		if !strings.Contains(joined, "\n"+w+"\n") {
			t.Errorf("env lacks %s:%s", w, joined)
		}
	}
}
