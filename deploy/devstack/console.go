package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// consoleConfig is the console's runtime /config.json (docs/contracts.md, "Console runtime config").
type consoleConfig struct {
	AuthURL       string            `json:"authUrl"`
	GatewayURL    string            `json:"gatewayUrl"`
	CallbacksURL  string            `json:"callbacksUrl"`
	AggregatorURL string            `json:"aggregatorUrl"`
	Remotes       map[string]string `json:"remotes"`
}

// findRemotes returns the built remotes: name → remotes/<name>/dist.
func findRemotes(root string) map[string]string {
	remotes := map[string]string{}
	dists, _ := filepath.Glob(filepath.Join(root, "remotes", "*", "dist"))
	for _, d := range dists {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			remotes[filepath.Base(filepath.Dir(d))] = d
		}
	}
	return remotes
}

// newConsoleConfig points the console at the local services and the built remotes.
func newConsoleConfig(remotes map[string]string) consoleConfig {
	url := func(name string) string {
		for _, s := range knownServices {
			if s.name == name {
				return "http://localhost:" + strconv.Itoa(s.httpPort)
			}
		}
		panic("unknown service " + name)
	}
	cfg := consoleConfig{
		AuthURL:       url("auth"),
		GatewayURL:    url("gateway"),
		CallbacksURL:  url("callbacks"),
		AggregatorURL: url("aggregator"),
		Remotes:       map[string]string{},
	}
	for name := range remotes {
		cfg.Remotes[name] = "/remotes/" + name + "/remoteEntry.js"
	}
	return cfg
}

// consoleHandler serves the console the way a static host in production does (and as
// deploy/images/console does): the shell's build at /, each remote's build at
// /remotes/<name>/, the generated /config.json, and index.html for any other path without a file
// extension (the shell's router handles those). Every response carries the security headers;
// files the build precompressed (name.br, name.gz) are sent compressed to clients that accept it.
type consoleHandler struct {
	shell   fs.FS // nil when the shell is not built
	remotes map[string]fs.FS
	config  []byte
	csp     string
}

// Cache policies: hashed files (the build writes them under assets/) never change; everything
// else (index.html, remoteEntry.js, config.json, the REST reference) is revalidated on every use.
const (
	cacheImmutable  = "public, max-age=31536000, immutable"
	cacheRevalidate = "no-cache"
)

// consoleCSP is the Content-Security-Policy of every console response. Scripts come only from the
// console's origin and the origins of remote entries config.json names; the page talks only to
// itself and the services config.json names. Styles allow 'unsafe-inline': Emotion (Chakra UI)
// and Swagger UI insert style elements and attributes at run time.
func consoleCSP(cfg consoleConfig) string {
	scripts := []string{"'self'"}
	connect := []string{"'self'"}
	for _, u := range []string{cfg.AuthURL, cfg.GatewayURL, cfg.CallbacksURL, cfg.AggregatorURL} {
		connect = appendOrigin(connect, u)
	}
	names := make([]string, 0, len(cfg.Remotes))
	for n := range cfg.Remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		scripts = appendOrigin(scripts, cfg.Remotes[n])
	}
	return strings.Join([]string{
		"default-src 'self'",
		"script-src " + strings.Join(scripts, " "),
		"style-src 'self' 'unsafe-inline'",
		"img-src 'self' data:",
		"font-src 'self' data:",
		"connect-src " + strings.Join(connect, " "),
		"object-src 'none'",
		"base-uri 'self'",
		"form-action 'self'",
		"frame-ancestors 'none'",
	}, "; ")
}

// appendOrigin adds the origin (scheme://host[:port]) of an absolute http(s) URL to list once;
// relative URLs are on the console's own origin, which 'self' covers.
func appendOrigin(list []string, raw string) []string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return list
	}
	origin := u.Scheme + "://" + u.Host
	for _, o := range list {
		if o == origin {
			return list
		}
	}
	return append(list, origin)
}

// setSecurityHeaders sets the headers every console response carries, errors included.
func (h *consoleHandler) setSecurityHeaders(hdr http.Header) {
	hdr.Set("Content-Security-Policy", h.csp)
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("X-Frame-Options", "DENY")
	hdr.Set("Referrer-Policy", "no-referrer")
}

func newConsoleHandler(shellDist string, remotes map[string]string, cfg consoleConfig) (*consoleHandler, error) {
	body, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	h := &consoleHandler{config: append(body, '\n'), remotes: map[string]fs.FS{}, csp: consoleCSP(cfg)}
	if _, err := os.Stat(filepath.Join(shellDist, "index.html")); err == nil {
		h.shell = os.DirFS(shellDist)
	}
	for name, dir := range remotes {
		h.remotes[name] = os.DirFS(dir)
	}
	return h, nil
}

func (h *consoleHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.setSecurityHeaders(w.Header())
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := path.Clean("/" + r.URL.Path)
	if p == "/config.json" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", cacheRevalidate)
		w.Write(h.config)
		return
	}
	if rest, ok := strings.CutPrefix(p, "/remotes/"); ok {
		name, file, _ := strings.Cut(rest, "/")
		fsys, known := h.remotes[name]
		if !known || file == "" {
			http.NotFound(w, r)
			return
		}
		// A remote's missing file is a 404: index.html in its place would only confuse the loader.
		h.serveFile(w, r, fsys, file, false)
		return
	}
	if h.shell == nil {
		http.Error(w, "The console is not built: run `npm run build` (make build does it), then reload.", http.StatusServiceUnavailable)
		return
	}
	h.serveFile(w, r, h.shell, strings.TrimPrefix(p, "/"), true)
}

// serveFile serves name from fsys; a missing name without a file extension gets index.html when
// spa is set (client-side routes such as /transactions or /login).
func (h *consoleHandler) serveFile(w http.ResponseWriter, r *http.Request, fsys fs.FS, name string, spa bool) {
	if name == "" {
		name = "index.html"
	}
	fi, err := fs.Stat(fsys, name)
	if err == nil && fi.IsDir() {
		name = path.Join(name, "index.html")
		fi, err = fs.Stat(fsys, name)
	}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, fs.ErrInvalid) {
			http.Error(w, "cannot read "+name, http.StatusInternalServerError)
			return
		}
		if !spa || strings.Contains(path.Base(name), ".") {
			http.NotFound(w, r)
			return
		}
		name = "index.html"
		if fi, err = fs.Stat(fsys, name); err != nil {
			http.NotFound(w, r)
			return
		}
	}
	hdr := w.Header()
	if strings.HasPrefix(name, "assets/") {
		hdr.Set("Cache-Control", cacheImmutable)
	} else {
		hdr.Set("Cache-Control", cacheRevalidate)
	}
	if ct := mime.TypeByExtension(path.Ext(name)); ct != "" {
		hdr.Set("Content-Type", ct)
	}
	// The compressed copy is chosen by Accept-Encoding, so caches must key on it too.
	hdr.Add("Vary", "Accept-Encoding")
	send := name
	for _, enc := range acceptedEncodings(r.Header.Get("Accept-Encoding")) {
		if cfi, err := fs.Stat(fsys, name+precompressed[enc]); err == nil && !cfi.IsDir() {
			send, fi = name+precompressed[enc], cfi
			hdr.Set("Content-Encoding", enc)
			break
		}
	}
	f, err := fsys.Open(send)
	if err != nil {
		http.Error(w, "cannot read "+name, http.StatusInternalServerError)
		return
	}
	defer f.Close()
	rs, ok := f.(interface {
		Read([]byte) (int, error)
		Seek(int64, int) (int64, error)
	})
	if !ok {
		http.Error(w, "cannot read "+name, http.StatusInternalServerError)
		return
	}
	http.ServeContent(w, r, path.Base(name), fi.ModTime(), rs)
}

// precompressed maps a content coding to the suffix of the file the build wrote with it.
var precompressed = map[string]string{"br": ".br", "gzip": ".gz"}

// acceptedEncodings lists the precompressed codings the client accepts (q > 0), best first: the
// client's preference by q-value, brotli before gzip on a tie (it is smaller).
func acceptedEncodings(header string) []string {
	weights := map[string]float64{}
	for _, part := range strings.Split(header, ",") {
		name, params, _ := strings.Cut(part, ";")
		name = strings.ToLower(strings.TrimSpace(name))
		if name == "x-gzip" {
			name = "gzip"
		}
		weight := 1.0
		if k, v, ok := strings.Cut(params, "="); ok && strings.EqualFold(strings.TrimSpace(k), "q") {
			f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
			if err != nil {
				continue
			}
			weight = f
		}
		if name != "" {
			weights[name] = weight
		}
	}
	weight := func(enc string) float64 {
		if w, ok := weights[enc]; ok {
			return w
		}
		if w, ok := weights["*"]; ok {
			return w
		}
		return 0
	}
	var out []string
	for _, enc := range []string{"br", "gzip"} { // the tie order
		if weight(enc) > 0 {
			out = append(out, enc)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return weight(out[i]) > weight(out[j]) })
	return out
}

// startConsole serves the console on :8080 in the background.
func (st *stack) startConsole() error {
	shellDist := filepath.Join(st.opts.root, "shell", "dist")
	remotes := findRemotes(st.opts.root)
	h, err := newConsoleHandler(shellDist, remotes, newConsoleConfig(remotes))
	if err != nil {
		return err
	}
	if h.shell == nil {
		fmt.Fprintf(st.say, "console: %s has no index.html: the console is not built (npm run build)\n", shellDist)
	}
	names := make([]string, 0, len(remotes))
	for n := range remotes {
		names = append(names, n)
	}
	sort.Strings(names)
	addr := net.JoinHostPort(st.opts.host, strconv.Itoa(consolePort))
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("console: %w", err)
	}
	st.console = &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	st.consoleErr = make(chan error, 1)
	go func() {
		if err := st.console.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			st.consoleErr <- err
		}
	}()
	fmt.Fprintf(st.say, "console: serving %s on %s with remotes %v\n", shellDist, addr, names)
	return nil
}
