package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"net/http"
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

// consoleHandler serves the console the way a static host in production does: the shell's build
// at /, each remote's build at /remotes/<name>/, the generated /config.json, and index.html for
// any other path without a file extension (the shell's router handles those).
type consoleHandler struct {
	shell   fs.FS // nil when the shell is not built
	remotes map[string]fs.FS
	config  []byte
}

func newConsoleHandler(shellDist string, remotes map[string]string, cfg consoleConfig) (*consoleHandler, error) {
	body, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	h := &consoleHandler{config: append(body, '\n'), remotes: map[string]fs.FS{}}
	if _, err := os.Stat(filepath.Join(shellDist, "index.html")); err == nil {
		h.shell = os.DirFS(shellDist)
	}
	for name, dir := range remotes {
		h.remotes[name] = os.DirFS(dir)
	}
	return h, nil
}

func (h *consoleHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	p := path.Clean("/" + r.URL.Path)
	if p == "/config.json" {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-cache")
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
	f, err := fsys.Open(name)
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
	base := path.Base(name)
	// Entry points must be fetched fresh after a rebuild; the hashed chunks they name can be cached.
	if strings.HasSuffix(base, ".html") || base == "remoteEntry.js" {
		w.Header().Set("Cache-Control", "no-cache")
	}
	http.ServeContent(w, r, base, fi.ModTime(), rs)
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
