package replicas_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/bench/internal/harness"
)

// The helpers of this file start the built service binaries the way a
// deployment does: each its own process, its own ports, the shared
// Postgres, Redis and NATS. Nothing here imports a service's packages (the
// compiler refuses services/internal outside services/); the services are
// reached through their REST APIs, their schemas and the event stream.

func testEnv(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

var (
	databaseURL = testEnv("PAYGATE_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	redisURL    = testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
)

// serviceDatabaseURL is databaseURL with each service's pool held to 3
// connections: the seven processes then hold about 21 of the test server's
// connections (100 by default), which the other packages' tests share when
// go test runs two packages at once.
func serviceDatabaseURL() string {
	sep := "?"
	if strings.Contains(databaseURL, "?") {
		sep = "&"
	}
	return databaseURL + sep + "pool_max_conns=3"
}

// buildOnce builds the five binaries once per test process into a
// directory of this checkout's own (named after the package's directory),
// so that another checkout's test, building other code under the same
// names, never swaps a binary between two replicas' starts. The path is
// fixed so that go build skips the link when nothing changed.
var buildOnce = sync.OnceValues(func() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(wd))
	dir := filepath.Join(os.TempDir(), "paygate-replicas-"+strconv.Itoa(os.Getuid())+"-"+hex.EncodeToString(sum[:6]))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	args := []string{"build", "-o", dir + "/"}
	for _, s := range []string{"auth", "gateway", "callbacks", "aggregator", "sandbox"} {
		args = append(args, "github.com/paygate/paygate/services/"+s)
	}
	out, err := exec.Command("go", args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return dir, nil
})

// freePort returns a port on 127.0.0.1 that could be listened on just now,
// chosen at random below Linux's ephemeral range (32768 and up): the
// services' outgoing connections, and every other test's 127.0.0.1:0
// listeners, take their ports from that range, and one of them could take
// a port handed out there between this check and the service's bind.
//
// A port is handed out once per test process: the check cannot see a port
// handed out earlier whose service has not bound it yet (18 ports drawn
// from 12,000 repeat one in about 1 run in 80 by the birthday bound, and the
// second service given it fails to bind: a clean-clone run failed so).
func freePort(t *testing.T) string {
	t.Helper()
	handedOut.Lock()
	defer handedOut.Unlock()
	for range 100 {
		addr := "127.0.0.1:" + strconv.Itoa(20000+mrand.IntN(12000))
		if handedOut.ports[addr] {
			continue
		}
		if l, err := net.Listen("tcp", addr); err == nil {
			_ = l.Close()
			handedOut.ports[addr] = true
			return addr
		}
	}
	t.Fatal("no free port between 20000 and 32000")
	return ""
}

// handedOut is the ports freePort returned.
var handedOut = struct {
	sync.Mutex
	ports map[string]bool
}{ports: map[string]bool{}}

// proc is one running service process.
type proc struct {
	*harness.Proc
	name     string
	httpAddr string
	grpcAddr string
	logs     *logBuf
}

// URL is the base URL of the process's REST listener.
func (p *proc) URL() string { return "http://" + p.httpAddr }

// logBuf keeps a process's output.
type logBuf struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.Write(p)
}

func (l *logBuf) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.buf.String()
}

// start starts binary name with env (and none of this process's PAYGATE_
// variables) and waits until it logs that it serves. A process that exits
// because Postgres refused it a connection (too many clients: the test
// server is shared with the tests running beside this one) is started
// again, at most three times.
func start(t *testing.T, dir, name string, env map[string]string) *proc {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p, err := startOnce(t, dir, name, env)
		if err == nil {
			return p
		}
		if attempt == 4 || !strings.Contains(err.Error(), "SQLSTATE 53300") {
			t.Fatal(err)
		}
		t.Logf("%s: Postgres has no connection to spare; starting it again", name)
		time.Sleep(time.Duration(attempt) * time.Second)
	}
}

func startOnce(t *testing.T, dir, name string, env map[string]string) (*proc, error) {
	t.Helper()
	p := &proc{name: name, httpAddr: env["PAYGATE_HTTP_ADDR"], grpcAddr: env["PAYGATE_GRPC_ADDR"], logs: &logBuf{}}
	cmd := exec.Command(filepath.Join(dir, strings.SplitN(name, "-", 2)[0]))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "PAYGATE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(env)) {
		cmd.Env = append(cmd.Env, k+"="+env[k])
	}
	cmd.Stdout, cmd.Stderr = p.logs, p.logs
	// Children die with the test process even when it is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	var err error
	if p.Proc, err = harness.Start(name, cmd); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(90 * time.Second)
	for !strings.Contains(p.logs.String(), `"msg":"serving"`) {
		select {
		case <-p.Exited():
			return nil, fmt.Errorf("%s exited before serving:\n%s", name, p.logs)
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			p.Kill()
			return nil, fmt.Errorf("%s not serving after 90s:\n%s", name, p.logs)
		}
	}
	t.Cleanup(func() {
		p.Stop(20 * time.Second)
		if t.Failed() {
			// The last errors of each process say most about a failure.
			var errs []string
			for line := range strings.SplitSeq(p.logs.String(), "\n") {
				if strings.Contains(line, `"level":"ERROR"`) {
					errs = append(errs, line)
				}
			}
			for _, line := range errs[max(0, len(errs)-10):] {
				t.Logf("%s: %s", name, line)
			}
		}
	})
	return p, nil
}

// startNATS runs a NATS server with JetStream inside the test process: the
// statistics and the exactly-once counts read the whole event stream, which
// must hold this test's events only (other packages' tests publish the same
// demo merchants' and ids' events to the shared server at the same time).
func startNATS(t *testing.T) string {
	t.Helper()
	ns, err := harness.EmbeddedNATS(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ns.Shutdown(); ns.WaitForShutdown() })
	return ns.ClientURL()
}

// openSchema returns a pool on one schema of the test database; the schema
// is dropped when the test ends.
func openSchema(t *testing.T, schema string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = schema
	cfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		pool.Close()
		conn, err := pgx.Connect(context.Background(), databaseURL)
		if err != nil {
			return
		}
		defer conn.Close(context.Background())
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
	})
	return pool
}

// client is a REST client with a bearer token.
type client struct {
	http  *http.Client
	token string
}

// call sends a JSON request and decodes a JSON answer into out (when not
// nil). It returns the status; a transport error is returned as is.
func (c *client) call(ctx context.Context, method, url string, body, out any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return resp.StatusCode, raw, err
	}
	if out != nil && resp.StatusCode < 300 {
		if err := json.Unmarshal(raw, out); err != nil {
			return resp.StatusCode, raw, fmt.Errorf("decode %s: %w", raw, err)
		}
	}
	return resp.StatusCode, raw, nil
}

// must is call that fails the test unless the answer is want.
func (c *client) must(t *testing.T, want int, method, url string, body, out any) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	status, raw, err := c.call(ctx, method, url, body, out)
	if err != nil || status != want {
		t.Fatalf("%s %s = %d %s (%v), want %d", method, url, status, raw, err, want)
	}
}

// eventually polls cond every 100ms until it is true or d has passed, and
// returns whether it became true.
func eventually(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(100 * time.Millisecond)
	}
}
