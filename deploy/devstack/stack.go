package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"
)

// stack holds everything one run started, so that stop can undo it in reverse order.
type stack struct {
	opts   options
	logs   *logMux
	say    io.Writer
	exited chan *child // a child that ended on its own

	natsStop   func() // stops the embedded NATS server, when the stack started one
	postgres   *child
	redis      *child
	services   []*child
	console    *http.Server
	consoleErr chan error

	databaseURL, natsURL, redisURL string
}

// child is a process the stack started and watches.
type child struct {
	name     string
	cmd      *exec.Cmd
	stopSig  syscall.Signal
	done     chan struct{}
	err      error // set before done closes
	stopping bool  // set by the stack before it signals the child; guarded by stack's lock
	logFile  string
}

var stoppingMu sync.Mutex

// startChild starts cmd as a child in its own process group (so that the terminal's Ctrl-C reaches
// only devstack, which stops the children in order) that gets stopSig if devstack dies. Its output
// goes to the log mux under name, or to logFile when one is given.
func (st *stack) startChild(name string, cmd *exec.Cmd, stopSig syscall.Signal, logFile string) (*child, error) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
	cmd.SysProcAttr.Pdeathsig = stopSig
	c := &child{name: name, cmd: cmd, stopSig: stopSig, done: make(chan struct{}), logFile: logFile}
	var copyDone sync.WaitGroup
	if logFile != "" {
		f, err := os.OpenFile(logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			return nil, err
		}
		defer f.Close() // the child keeps its own descriptor
		cmd.Stdout, cmd.Stderr = f, f
	} else {
		pr, pw, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		cmd.Stdout, cmd.Stderr = pw, pw
		defer pw.Close()
		copyDone.Add(1)
		go func() {
			defer copyDone.Done()
			defer pr.Close()
			st.logs.copyLines(name, pr)
		}()
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	go func() {
		c.err = cmd.Wait()
		copyDone.Wait()
		if c.err == nil {
			c.err = errors.New("exit status 0")
		}
		close(c.done)
		stoppingMu.Lock()
		stopping := c.stopping
		stoppingMu.Unlock()
		if !stopping {
			if c.logFile != "" {
				fmt.Fprintf(st.say, "%s exited (%v); the end of %s:\n%s", name, c.err, c.logFile, tail(c.logFile, 20))
			}
			select {
			case st.exited <- c:
			default:
			}
		}
	}()
	return c, nil
}

// stopChild sends the child its stop signal, then kills its process group after the timeout.
func (st *stack) stopChild(c *child) {
	if c == nil {
		return
	}
	stoppingMu.Lock()
	c.stopping = true
	stoppingMu.Unlock()
	select {
	case <-c.done:
		return
	default:
	}
	_ = syscall.Kill(-c.cmd.Process.Pid, c.stopSig)
	select {
	case <-c.done:
	case <-time.After(st.opts.stopTimeout):
		fmt.Fprintf(st.say, "%s did not stop within %s: killing it\n", c.name, st.opts.stopTimeout)
		_ = syscall.Kill(-c.cmd.Process.Pid, syscall.SIGKILL)
		<-c.done
	}
}

// stop stops what the stack started, in reverse order: services (all at once), the console,
// Redis, Postgres, then NATS.
func (st *stack) stop() {
	var wg sync.WaitGroup
	for _, c := range st.services {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.stopChild(c)
		}()
	}
	wg.Wait()
	if st.console != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_ = st.console.Shutdown(ctx)
		cancel()
	}
	st.stopChild(st.redis)
	st.stopChild(st.postgres)
	if st.natsStop != nil {
		st.natsStop()
	}
	fmt.Fprintln(st.say, "stopped")
}

// startServices starts the service binaries: the first one alone (auth serves the JWKS the others
// fetch), then the rest together, each waited for until its /readyz answers 200.
func (st *stack) startServices(ctx context.Context) error {
	for i, s := range st.opts.services {
		c, err := st.startService(s)
		if err != nil {
			return err
		}
		st.services = append(st.services, c)
		if i == 0 {
			if err := st.waitReady(ctx, s, c); err != nil {
				return err
			}
		}
	}
	errs := make(chan error, len(st.opts.services))
	for i, s := range st.opts.services[1:] {
		go func() { errs <- st.waitReady(ctx, s, st.services[i+1]) }()
	}
	for range st.opts.services[1:] {
		if err := <-errs; err != nil {
			return err
		}
	}
	return nil
}

func (st *stack) startService(s service) (*child, error) {
	o := st.opts
	cmd := exec.Command(filepath.Join(o.binDir, s.name))
	cmd.Dir = o.root
	cmd.Env = append(minimalEnv(), o.passThrough...)
	cmd.Env = append(cmd.Env, serviceEnv(s, o.host, st.databaseURL, st.redisURL, st.natsURL, o.origins)...)
	if s.name == "gateway" {
		// Export files live with the stack's other data.
		cmd.Env = append(cmd.Env, "PAYGATE_FILES_DIR="+filepath.Join(o.dataDir, "files"))
		// Frauds show within seconds of the payments that trip a rule.
		cmd.Env = append(cmd.Env, "PAYGATE_FRAUD_INTERVAL=5s")
		// Providers' credentials are sealed under a key of this stack's own.
		keys, err := localCredentialsKeys(o.dataDir)
		if err != nil {
			return nil, err
		}
		cmd.Env = append(cmd.Env, "PAYGATE_CREDENTIALS_KEYS="+keys)
	}
	fmt.Fprintf(st.say, "starting %s (http %d, grpc %d)\n", s.name, s.httpPort, s.grpcPort)
	return st.startChild(s.name, cmd, syscall.SIGTERM, "")
}

// serviceEnv is the environment of docs/contracts.md for one service of the local stack.
func serviceEnv(s service, host, databaseURL, redisURL, natsURL, origins string) []string {
	authHTTP, authGRPC := knownServices[0].httpPort, knownServices[0].grpcPort
	var passkeys []string
	if s.name == "auth" {
		// Passkeys are bound to the console's host and origin: the browser
		// reports http://localhost:8080 (an address such as 127.0.0.1 cannot
		// use an RP id of localhost).
		passkeys = []string{
			"PAYGATE_WEBAUTHN_RP_ID=localhost",
			fmt.Sprintf("PAYGATE_WEBAUTHN_ORIGINS=http://localhost:%d", consolePort),
		}
	}
	return append(passkeys, []string{
		"PAYGATE_HTTP_ADDR=" + net.JoinHostPort(host, strconv.Itoa(s.httpPort)),
		"PAYGATE_GRPC_ADDR=" + net.JoinHostPort(host, strconv.Itoa(s.grpcPort)),
		"PAYGATE_DATABASE_URL=" + databaseURL,
		"PAYGATE_REDIS_URL=" + redisURL,
		"PAYGATE_NATS_URL=" + natsURL,
		"PAYGATE_DEMO=true",
		fmt.Sprintf("PAYGATE_JWKS_URL=http://127.0.0.1:%d/.well-known/jwks.json", authHTTP),
		fmt.Sprintf("PAYGATE_AUTH_GRPC_URL=127.0.0.1:%d", authGRPC),
		"PAYGATE_CONSOLE_ORIGINS=" + origins,
		// The sandbox plays the demo providers; the gateway seeds their
		// addresses and the sandbox pushes webhooks back to it.
		"PAYGATE_SANDBOX_URL=http://" + net.JoinHostPort("127.0.0.1", "8085"),
		"PAYGATE_SANDBOX_GATEWAY_URL=http://" + net.JoinHostPort("127.0.0.1", "8082"),
		// The gateway forwards the callback calls to the callbacks service;
		// the callbacks service resolves collabs on the gateway.
		"PAYGATE_CALLBACKS_GRPC_ADDR=" + net.JoinHostPort("127.0.0.1", "9083"),
		// auth applies approved four-eyes requests on the gateway and the
		// aggregator through these two as well (docs/contracts-approvals.md).
		"PAYGATE_GATEWAY_GRPC_ADDR=" + net.JoinHostPort("127.0.0.1", "9082"),
		// The gateway forwards the statistics (and job stats) calls to the
		// aggregator, which replays the gateway's transactions to rebuild.
		"PAYGATE_AGGREGATOR_GRPC_ADDR=" + net.JoinHostPort("127.0.0.1", "9084"),
		// The demo merchant (callback receiver, validation endpoints) lives
		// in the sandbox on 127.0.0.1: merchant URLs may reach loopback here,
		// never in production.
		"PAYGATE_ALLOW_PRIVATE_URLS=true",
	}...)
}

// minimalEnv is the part of devstack's own environment a child inherits: none of the PAYGATE_*
// variables (the stack sets those it means), the rest as it is.
func minimalEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if len(kv) >= 8 && kv[:8] == "PAYGATE_" {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// waitReady polls the service's /readyz until it answers 200, the child dies, or time runs out.
func (st *stack) waitReady(ctx context.Context, s service, c *child) error {
	url := fmt.Sprintf("http://127.0.0.1:%d/readyz", s.httpPort)
	client := &http.Client{Timeout: 2 * time.Second}
	deadline := time.Now().Add(st.opts.readyTimeout)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		resp, err := client.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				fmt.Fprintf(st.say, "%s is ready\n", s.name)
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s did not answer 200 on %s within %s", s.name, url, st.opts.readyTimeout)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("interrupted while waiting for %s", s.name)
		case <-c.done:
			return fmt.Errorf("%s exited while starting (%v)", s.name, c.err)
		case <-tick.C:
		}
	}
}

// checkPortsFree fails early, with the port's name, when a port the stack needs is taken.
func checkPortsFree(o options) error {
	ports := []struct {
		what string
		port int
	}{{"console", consolePort}}
	for _, s := range o.services {
		ports = append(ports, struct {
			what string
			port int
		}{s.name + " http", s.httpPort}, struct {
			what string
			port int
		}{s.name + " grpc", s.grpcPort})
	}
	for _, p := range ports {
		if !portFree(o.host, p.port) {
			return fmt.Errorf("port %d (%s) is already in use: is another stack running? (ss -ltnp 'sport = :%d' shows who)", p.port, p.what, p.port)
		}
	}
	return nil
}

// portFree reports whether host:port can be listened on now.
func portFree(host string, port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// pickPort returns preferred when it is free on 127.0.0.1, or else a port the kernel picks.
func pickPort(preferred int) (int, error) {
	if portFree("127.0.0.1", preferred) {
		return preferred, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// tail returns the last n lines of a file, for error messages.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := 0
	i := len(b)
	for i > 0 {
		i--
		if b[i] == '\n' && i != len(b)-1 {
			lines++
			if lines == n {
				i++
				break
			}
		}
	}
	s := string(b[i:])
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	return s
}
