// Command console serves the built console (the shell at /, each remote under /remotes/<name>/ and
// the runtime /config.json) from a folder, for the console image: a static binary in a scratch
// image, where nginx cannot be had (it replaces the image's former nginx). It serves as
// deploy/devstack does: security headers on every response (a Content-Security-Policy built from the config.json
// being served), precompressed .br/.gz files to clients that accept them, hashed assets cached for
// good and everything else revalidated, and index.html for any extensionless path outside
// /remotes/ (the shell's router owns those). It writes nothing, so it runs on a read-only root.
//
// Environment:
//
//	PAYGATE_HTTP_ADDR       where to listen (default :8080)
//	PAYGATE_CONSOLE_DIR     the built console (default /srv/console)
//	PAYGATE_CONSOLE_CONFIG  the config.json to serve (default <dir>/config.json; a deployment
//	                        mounts its own over it)
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"path"
	"sort"
	"strings"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout, nil)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "console: %v\n", err)
		os.Exit(1)
	}
}

// run serves until ctx ends. When ready is not nil it receives the listening address.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer, ready chan<- string) error {
	log := slog.New(slog.NewJSONHandler(stdout, nil))
	addr := valueOr(getenv("PAYGATE_HTTP_ADDR"), ":8080")
	dir := valueOr(getenv("PAYGATE_CONSOLE_DIR"), "/srv/console")
	configPath := valueOr(getenv("PAYGATE_CONSOLE_CONFIG"), path.Join(dir, "config.json"))

	h, err := newHandler(os.DirFS(dir), configPath)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, IdleTimeout: 2 * time.Minute}
	errs := make(chan error, 1)
	go func() { errs <- srv.Serve(ln) }()
	log.Info("console serving", "addr", ln.Addr().String(), "dir", dir, "config", configPath)
	if ready != nil {
		ready <- ln.Addr().String()
	}
	select {
	case err := <-errs:
		return err
	case <-ctx.Done():
	}
	shutdown, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := srv.Shutdown(shutdown); err != nil {
		return err
	}
	log.Info("console stopped")
	return nil
}

func valueOr(v, def string) string {
	if v == "" {
		return def
	}
	return v
}

// config is the part of the console's /config.json the policy is built from.
type config struct {
	AuthURL       string            `json:"authUrl"`
	GatewayURL    string            `json:"gatewayUrl"`
	CallbacksURL  string            `json:"callbacksUrl"`
	AggregatorURL string            `json:"aggregatorUrl"`
	Remotes       map[string]string `json:"remotes"`
}

// handler serves one built console.
type handler struct {
	files  fs.FS
	config []byte
	csp    string
}

// newHandler reads config.json once: a changed ConfigMap reaches the console with a restart, as
// it does nginx's.
func newHandler(files fs.FS, configPath string) (*handler, error) {
	raw, err := os.ReadFile(configPath)
	if err != nil {
		return nil, fmt.Errorf("read the console config: %w", err)
	}
	var c config
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("config %s is not the console's JSON: %w", configPath, err)
	}
	if _, err := fs.Stat(files, "index.html"); err != nil {
		return nil, fmt.Errorf("no index.html in the console folder: %w", err)
	}
	return &handler{files: files, config: raw, csp: policy(c)}, nil
}

// policy is the Content-Security-Policy of every response: scripts from the console's origin and
// the origins of the remote entries, connections to the console and the services config names.
func policy(c config) string {
	scripts := []string{"'self'"}
	connect := []string{"'self'"}
	for _, u := range []string{c.AuthURL, c.GatewayURL, c.CallbacksURL, c.AggregatorURL} {
		connect = addOrigin(connect, u)
	}
	names := make([]string, 0, len(c.Remotes))
	for n := range c.Remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		scripts = addOrigin(scripts, c.Remotes[n])
	}
	return "default-src 'self'; script-src " + strings.Join(scripts, " ") +
		"; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src " +
		strings.Join(connect, " ") +
		"; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'"
}

// addOrigin appends the origin of an absolute http(s) URL once; relative URLs are 'self'.
func addOrigin(list []string, raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return list
	}
	o := u.Scheme + "://" + u.Host
	for _, have := range list {
		if have == o {
			return list
		}
	}
	return append(list, o)
}

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", h.csp)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Referrer-Policy", "no-referrer")
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		hd.Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := path.Clean("/" + r.URL.Path)
	switch {
	case p == "/healthz" || p == "/readyz":
		hd.Set("Cache-Control", "no-store")
		hd.Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = io.WriteString(w, "ok\n")
		return
	case p == "/config.json":
		hd.Set("Cache-Control", "no-cache")
		hd.Set("Content-Type", "application/json")
		_, _ = w.Write(h.config)
		return
	}
	name := strings.TrimPrefix(p, "/")
	if name == "" {
		name = "index.html"
	}
	if fi, err := fs.Stat(h.files, name); err == nil && fi.IsDir() {
		name = path.Join(name, "index.html")
	}
	if _, err := fs.Stat(h.files, name); err != nil {
		// Paths of the shell's router have no extension; a missing file (or anything under
		// /remotes/) is a plain 404.
		if strings.HasPrefix(p, "/remotes/") || path.Ext(p) != "" {
			hd.Set("Cache-Control", "no-cache")
			http.NotFound(w, r)
			return
		}
		name = "index.html"
	}
	h.serveFile(w, r, name)
}

// serveFile sends name, or its precompressed .br or .gz sibling when the client accepts it.
func (h *handler) serveFile(w http.ResponseWriter, r *http.Request, name string) {
	hd := w.Header()
	if strings.HasPrefix(name, "assets/") || strings.Contains(name, "/assets/") {
		hd.Set("Cache-Control", "public, max-age=31536000, immutable")
	} else {
		hd.Set("Cache-Control", "no-cache")
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	hd.Set("Content-Type", ctype)
	hd.Add("Vary", "Accept-Encoding")
	send := name
	accept := r.Header.Get("Accept-Encoding")
	for _, enc := range []struct{ token, ext string }{{"br", ".br"}, {"gzip", ".gz"}} {
		if acceptsEncoding(accept, enc.token) {
			if _, err := fs.Stat(h.files, name+enc.ext); err == nil {
				send = name + enc.ext
				hd.Set("Content-Encoding", enc.token)
				break
			}
		}
	}
	f, err := h.files.Open(send)
	if err != nil {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		http.Error(w, "cannot read the file", http.StatusInternalServerError)
		return
	}
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		http.Error(w, "cannot read the file", http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, "", fi.ModTime(), rs)
}

// acceptsEncoding reports whether an Accept-Encoding header value lists token without q=0.
func acceptsEncoding(header, token string) bool {
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(name), token) {
			continue
		}
		q := strings.ReplaceAll(strings.TrimSpace(params), " ", "")
		return q != "q=0" && q != "q=0.0" && q != "q=0.00" && q != "q=0.000"
	}
	return false
}

var _ http.Handler = (*handler)(nil)
