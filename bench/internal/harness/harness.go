// Package harness is what the benches under bench/ share to run the
// services they measure: starting built binaries with their logs in /tmp,
// waiting until they answer, stopping them in reverse order (also when the
// bench fails), a NATS server of the bench's own, and the machine's load and
// CPU time read beside every figure. It imports no service package: the
// benches drive the services from outside, as a deployment would.
package harness

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// Proc is one running process.
type Proc struct {
	// Name is the name the bench gave it ("auth", "nats", a scenario).
	Name string
	// Log is the file its output goes to, or "" when the caller chose.
	Log    string
	cmd    *exec.Cmd
	exited chan struct{}
}

// Start starts cmd, whose output the caller has set, and waits for it in
// the background so that Exited, Kill and Stop can tell when it is gone.
func Start(name string, cmd *exec.Cmd) (*Proc, error) {
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	p := &Proc{Name: name, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(p.exited) }()
	return p, nil
}

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Exited is closed once the process has exited.
func (p *Proc) Exited() <-chan struct{} { return p.exited }

// Kill ends the process with SIGKILL, as a crash would, and waits for it.
// Killing a process that is gone already does nothing.
func (p *Proc) Kill() {
	_ = p.cmd.Process.Kill()
	<-p.exited
}

// Stop ends the process with SIGTERM, SIGKILL when it is still running
// after grace (at once when grace is 0), and waits for it.
func (p *Proc) Stop(grace time.Duration) {
	if grace <= 0 {
		p.Kill()
		return
	}
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(grace):
		p.Kill()
	}
}

// Group is the processes one bench started. Each one's output goes to
// Logs + name + ".log"; StopAll stops them newest first, so that a service
// goes before the NATS server it uses.
type Group struct {
	// Logs is the start of every log file's path, e.g. "/tmp/aggbench-".
	Logs string
	// Append keeps what a log file held (a service started again after a
	// crash writes on); otherwise each start empties it.
	Append bool
	// Grace is how long StopAll waits after SIGTERM before SIGKILL; 0
	// kills at once.
	Grace time.Duration

	mu    sync.Mutex
	procs []*Proc
}

// Start starts args[0] with args[1:], this process's environment plus env
// ("KEY=value"), and its output in the group's log file.
func (g *Group) Start(name string, args []string, env []string) (*Proc, error) {
	logPath := g.Logs + name + ".log"
	flags := os.O_CREATE | os.O_WRONLY | os.O_TRUNC
	if g.Append {
		flags = os.O_CREATE | os.O_WRONLY | os.O_APPEND
	}
	f, err := os.OpenFile(logPath, flags, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	p, err := Start(name, cmd)
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	p.Log = logPath
	go func() { <-p.exited; _ = f.Close() }()
	g.mu.Lock()
	g.procs = append(g.procs, p)
	g.mu.Unlock()
	return p, nil
}

// MustStart is Start that ends the bench (Fatalf) when the process cannot start.
func (g *Group) MustStart(name string, args []string, env []string) *Proc {
	p, err := g.Start(name, args, env)
	if err != nil {
		g.Fatalf("%v", err)
	}
	return p
}

// StopAll stops every process of the group, newest first (see Grace).
func (g *Group) StopAll() {
	g.mu.Lock()
	procs := g.procs
	g.procs = nil
	g.mu.Unlock()
	for i := len(procs) - 1; i >= 0; i-- {
		procs[i].Stop(g.Grace)
	}
}

// Fatalf stops every process of the group, then logs and exits as log.Fatalf.
func (g *Group) Fatalf(format string, args ...any) {
	g.StopAll()
	log.Fatalf(format, args...)
}

// NATSFlags defines the flags -nats-server and -nats, for a bench that
// runs a NATS server of its own (so that no other stack's events reach the
// services it measures, and none of its events reach theirs) unless told
// to use a running one; StartNATS takes their values.
func NATSFlags() (server, url *string) {
	server = flag.String("nats-server", "nats-server", "nats-server binary; empty uses -nats instead of a server of the bench's own")
	url = flag.String("nats", "nats://127.0.0.1:4222", "NATS URL when -nats-server is empty")
	return server, url
}

// StartNATS returns url when bin is empty. Otherwise it starts a NATS
// server with JetStream of the bench's own (binary bin) on 127.0.0.1:port,
// its store in Logs + "nats-<port>" emptied first, and returns its URL once
// it takes connections.
func (g *Group) StartNATS(bin, url string, port int) (string, error) {
	if bin == "" {
		return url, nil
	}
	dir := fmt.Sprintf("%snats-%d", g.Logs, port)
	_ = os.RemoveAll(dir)
	if _, err := g.Start("nats", []string{bin, "-a", "127.0.0.1", "-p", strconv.Itoa(port), "-js", "-sd", dir}, nil); err != nil {
		return "", err
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	if err := WaitTCP(addr, 30*time.Second); err != nil {
		return "", fmt.Errorf("nats: %w", err)
	}
	return "nats://" + addr, nil
}

// WaitReady polls base + "/readyz" until it answers 200. It gives up after
// limit, when ctx ends, or when p (if not nil) exits first; the error then
// names p's log.
func WaitReady(ctx context.Context, base string, limit time.Duration, p *Proc) error {
	var exited <-chan struct{}
	see := ""
	if p != nil {
		exited = p.exited
		if p.Log != "" {
			see = " (see " + p.Log + ")"
		}
	}
	deadline := time.Now().Add(limit)
	for {
		if resp, err := http.Get(base + "/readyz"); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s/readyz: not ready after %s%s", base, limit, see)
		}
		select {
		case <-exited:
			return fmt.Errorf("%s exited before %s/readyz answered%s", p.Name, base, see)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// WaitTCP waits until addr ("host:port") accepts a TCP connection, at most limit.
func WaitTCP(addr string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if c, err := (&net.Dialer{Timeout: time.Second}).Dial("tcp", addr); err == nil {
			_ = c.Close()
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("%s: not listening after %s", addr, limit)
}

// EmbeddedNATS runs a NATS server with JetStream inside this process on a
// free port of 127.0.0.1, its store in dir, and returns it once it takes
// connections; the caller shuts it down (Shutdown, WaitForShutdown). A
// bench or test that counts the events of a stream uses one so that no
// other stack's events reach it.
func EmbeddedNATS(dir string) (*natsserver.Server, error) {
	ns, err := natsserver.NewServer(&natsserver.Options{Host: "127.0.0.1", Port: -1, JetStream: true,
		StoreDir: dir, NoSigs: true, NoLog: true})
	if err != nil {
		return nil, err
	}
	ns.Start()
	if !ns.ReadyForConnections(10 * time.Second) {
		ns.Shutdown()
		ns.WaitForShutdown()
		return nil, errors.New("embedded NATS not ready")
	}
	return ns, nil
}
