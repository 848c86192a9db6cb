package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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
		"shell/dist/index.html":                "<html>shell</html>",
		"shell/dist/main.123.js":               "main",
		"shell/dist/docs/index.html":           "<html>docs</html>",
		"remotes/security/dist/remoteEntry.js": "entry",
		"remotes/security/dist/chunk.abc.js":   "chunk",
		"remotes/providers/src/index.ts":       "not built",
		"secret.txt":                           "outside",
	})
	remotes := findRemotes(root)
	if len(remotes) != 1 || remotes["security"] == "" {
		t.Fatalf("findRemotes = %v, want only security", remotes)
	}
	h, err := newConsoleHandler(filepath.Join(root, "shell", "dist"), remotes, newConsoleConfig(remotes))
	if err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		method, path string
		status       int
		body         string // a substring
		noCache      bool
	}{
		{"GET", "/", 200, "shell", true},
		{"GET", "/main.123.js", 200, "main", false},
		{"GET", "/transactions", 200, "shell", true},
		{"GET", "/transactions/42/logs", 200, "shell", true},
		{"GET", "/login?redirect=%2Fproviders", 200, "shell", true},
		{"GET", "/docs/", 200, "docs", true},
		{"GET", "/missing.js", 404, "", false},
		{"GET", "/remotes/security/remoteEntry.js", 200, "entry", true},
		{"GET", "/remotes/security/chunk.abc.js", 200, "chunk", false},
		{"GET", "/remotes/security/nope.js", 404, "", false},
		{"GET", "/remotes/security/some/route", 404, "", false},
		{"GET", "/remotes/providers/remoteEntry.js", 404, "", false},
		{"GET", "/../secret.txt", 404, "", false},
		{"GET", "/remotes/security/../../../secret.txt", 404, "", false},
		{"HEAD", "/", 200, "", true},
		{"POST", "/", 405, "", false},
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
			if got := rec.Header().Get("Cache-Control") == "no-cache"; tt.status == 200 && got != tt.noCache {
				t.Errorf("Cache-Control no-cache = %v, want %v", got, tt.noCache)
			}
		})
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
