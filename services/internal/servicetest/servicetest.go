// Package servicetest runs Paygate services for integration tests, the way
// they run in production: a service's own run function in-process, or
// another service's main package built and started as a child process. Both
// listen on the ports the environment gives (127.0.0.1:0 in tests) and are
// ready once the service logs "serving" with its addresses, which every
// service does once its listeners are bound.
package servicetest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/paygate/paygate/services/internal/bus"
)

// RunFunc is a service's run: it reads its configuration through getenv,
// writes JSON logs to stdout and serves until ctx ends.
type RunFunc func(ctx context.Context, getenv func(string) string, stdout io.Writer) error

// Service is a running service.
type Service struct {
	// HTTPURL is the base URL of its REST, health and metrics listener,
	// e.g. http://127.0.0.1:41233.
	HTTPURL string
	// GRPCAddr is its gRPC listener's address (empty for a service without
	// one, such as the sandbox).
	GRPCAddr string

	logs *Logs
	stop func() error
	kill func()
}

// Logs returns every log line the service wrote so far.
func (s *Service) Logs() string { return s.logs.String() }

// Stop ends the service, waits for it (at most 20s, then a child process is
// killed) and returns the error it ended with. Stopping again returns the
// same error; tests stop a service early to start another one on its data.
func (s *Service) Stop() error { return s.stop() }

// Kill ends a service started from a binary (Start) with SIGKILL, as a
// crash would, and waits for it; Stop then returns at once. It does nothing
// for a service run in this process (Go, Run).
func (s *Service) Kill() {
	if s.kill != nil {
		s.kill()
	}
}

// startTimeout bounds how long a service may take to serve.
const startTimeout = 60 * time.Second

// stopTimeout bounds how long a service may take to stop.
const stopTimeout = 20 * time.Second

// Go runs a service's run function in a goroutine with env as its whole
// environment and waits until it serves (at most a minute). It suits a
// service that several tests share (TestMain stops it); Run ties one to a
// test.
func Go(run RunFunc, env map[string]string) (*Service, error) {
	env = maps.Clone(env)
	logs := NewLogs()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, func(k string) string { return env[k] }, logs) }()
	s := &Service{logs: logs}
	s.stop = sync.OnceValue(func() error {
		cancel()
		select {
		case err := <-done:
			return err
		case <-time.After(stopTimeout):
			return fmt.Errorf("run did not return %s after cancel", stopTimeout)
		}
	})
	select {
	case <-logs.Serving():
	case err := <-done:
		cancel()
		return nil, fmt.Errorf("run returned before serving: %v\n%s", err, logs)
	case <-time.After(startTimeout):
		_ = s.Stop()
		return nil, fmt.Errorf("not serving after %s:\n%s", startTimeout, logs)
	}
	s.HTTPURL, s.GRPCAddr = logs.Addrs()
	return s, nil
}

// Run is Go for one test: it fails t when the service does not serve,
// stops the service when t ends (run's error, if any, fails t), and logs
// the service's warnings and errors when t has failed.
func Run(t testing.TB, run RunFunc, env map[string]string) *Service {
	t.Helper()
	s, err := Go(run, env)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Errorf("run: %v", err)
		}
	})
	t.Cleanup(func() { logProblems(t, s.logs) })
	return s
}

// logProblems logs a failed test's service warnings and errors.
func logProblems(t testing.TB, logs *Logs) {
	if !t.Failed() {
		return
	}
	for line := range strings.SplitSeq(logs.String(), "\n") {
		if strings.Contains(line, `"level":"ERROR"`) || strings.Contains(line, `"level":"WARN"`) {
			t.Log(line)
		}
	}
}

// Build compiles the main package at importPath (e.g.
// "github.com/paygate/paygate/services/sandbox") and returns the binary's
// path. The path is fixed per user and package, so that go build skips the
// link when nothing changed since the last test run.
func Build(importPath string) (string, error) {
	dir := filepath.Join(os.TempDir(), "paygate-servicetest-"+strconv.Itoa(os.Getuid()))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, path.Base(importPath))
	out, err := exec.Command("go", "build", "-o", bin, importPath).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build %s: %v\n%s", importPath, err, out)
	}
	return bin, nil
}

// Start starts the binary bin with env added to this process's environment
// and waits until it serves (at most a minute). Stop sends it SIGTERM and
// waits for it to exit. Start takes no testing.TB so that TestMain can start
// the peers every test shares.
func Start(bin string, env map[string]string) (*Service, error) {
	cmd := exec.Command(bin)
	cmd.Env = os.Environ()
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	logs := NewLogs()
	cmd.Stdout, cmd.Stderr = logs, logs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	s := &Service{logs: logs}
	var killed atomic.Bool
	s.kill = func() {
		if killed.CompareAndSwap(false, true) {
			_ = cmd.Process.Kill()
			<-exited
		}
	}
	s.stop = sync.OnceValue(func() error {
		if !killed.CompareAndSwap(false, true) {
			return nil
		}
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			return err
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-exited
			return fmt.Errorf("%s did not exit %s after SIGTERM", bin, stopTimeout)
		}
	})
	select {
	case <-logs.Serving():
	case err := <-exited:
		return nil, fmt.Errorf("%s exited before serving: %v\n%s", bin, err, logs)
	case <-time.After(startTimeout):
		_ = s.Stop()
		return nil, fmt.Errorf("%s not serving after %s:\n%s", bin, startTimeout, logs)
	}
	s.HTTPURL, s.GRPCAddr = logs.Addrs()
	return s, nil
}

// Logs collects a service's JSON log lines (it is the service's stdout)
// and notes the addresses of its "listening" line (its ports answer probes
// while it starts) and of its "serving" line (it has started).
type Logs struct {
	mu            sync.Mutex
	buf           bytes.Buffer
	partial       []byte
	serving       chan struct{}
	once          sync.Once
	httpURL       string
	grpcAddr      string
	listening     chan struct{}
	listeningOnce sync.Once
	probeURL      string
	probeGRPC     string
}

// NewLogs returns an empty log collector.
func NewLogs() *Logs { return &Logs{serving: make(chan struct{}), listening: make(chan struct{})} }

// Write records p, spotting the "serving" line even when a line arrives in
// several writes (a child process's pipe).
func (l *Logs) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.buf.Write(p)
	l.partial = append(l.partial, p...)
	for {
		i := bytes.IndexByte(l.partial, '\n')
		if i < 0 {
			// The last line has no newline yet: keep it for the next write.
			break
		}
		l.note(l.partial[:i])
		l.partial = l.partial[i+1:]
	}
	return len(p), nil
}

// note records the addresses of a "serving" line.
func (l *Logs) note(line []byte) {
	var entry struct {
		Msg      string `json:"msg"`
		GRPCAddr string `json:"grpc_addr"`
		HTTPAddr string `json:"http_addr"`
	}
	if json.Unmarshal(line, &entry) != nil || entry.HTTPAddr == "" {
		return
	}
	if entry.Msg == "listening" {
		l.listeningOnce.Do(func() {
			l.probeURL, l.probeGRPC = "http://"+entry.HTTPAddr, entry.GRPCAddr
			close(l.listening)
		})
		return
	}
	if entry.Msg != "serving" {
		return
	}
	l.once.Do(func() {
		l.httpURL, l.grpcAddr = "http://"+entry.HTTPAddr, entry.GRPCAddr
		close(l.serving)
	})
}

// Listening is closed once the service logged that its ports answer
// probes, before it migrates (server.Start).
func (l *Logs) Listening() <-chan struct{} { return l.listening }

// ProbeAddrs returns the addresses the "listening" line gave.
func (l *Logs) ProbeAddrs() (httpURL, grpcAddr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.probeURL, l.probeGRPC
}

// Serving is closed once the service logged that it serves.
func (l *Logs) Serving() <-chan struct{} { return l.serving }

// Addrs returns the addresses the "serving" line gave.
func (l *Logs) Addrs() (httpURL, grpcAddr string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.httpURL, l.grpcAddr
}

// String returns every line written so far.
func (l *Logs) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// DeleteConsumers removes durable consumers a test's services made on the
// shared event stream, once those services stopped (each test schema names
// its own); a server that cannot be reached is left alone.
func DeleteConsumers(natsURL string, names ...string) {
	nc, err := nats.Connect(natsURL)
	if err != nil {
		return
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, n := range names {
		_ = js.DeleteConsumer(ctx, bus.StreamName, n)
	}
}
