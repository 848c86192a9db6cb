// Command devstack runs the whole Paygate suite on one machine, for `make run` and the end-to-end
// tests: NATS (embedded), Postgres and Redis (project-local, unless URLs are given), the service
// binaries built into bin/, and the console on :8080.
//
// Usage:
//
//	devstack [-services auth,gateway] [-data-dir .data] [-ready-file path]
//
// PAYGATE_DATABASE_URL, PAYGATE_NATS_URL and PAYGATE_REDIS_URL, when set, are used instead of the
// local servers; PAYGATE_DATA_DIR sets the data folder (default .data of the repository);
// PAYGATE_CONSOLE_ORIGINS replaces the console origins the services allow (for a console dev
// server on another port).
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// service is one Paygate service the stack can run, with its ports from docs/contracts.md.
type service struct {
	name     string
	httpPort int
	grpcPort int
}

// knownServices lists every Paygate service, in start order. auth comes first: the others fetch its
// JWKS when they start. A service runs when its binary exists in the bin folder (or when it is
// named with -services); the console's config.json names all of them either way.
var knownServices = []service{
	{name: "auth", httpPort: 8081, grpcPort: 9081},
	{name: "gateway", httpPort: 8082, grpcPort: 9082},
	{name: "callbacks", httpPort: 8083, grpcPort: 9083},
	{name: "aggregator", httpPort: 8084, grpcPort: 9084},
	// The provider simulators: plain HTTP only (grpcPort 0).
	{name: "sandbox", httpPort: 8085},
}

// demoLogins are the demo users of docs/contracts.md, printed when the stack is ready.
var demoLogins = [][2]string{
	{"admin", "Admin"},
	{"support", "Support, merchants 1, 2, 3"},
	{"merchant", "Merchant, merchant 1"},
	{"merchant-admin", "Merchant Admin, merchants 1, 2"},
	{"merchant-finance-manager", "Merchant Finance Manager, merchant 1"},
	{"merchant-support", "Merchant Support, merchant 2"},
}

const consolePort = 8080

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "devstack: %v\n", err)
		os.Exit(1)
	}
}

// options are the command line and environment settings of one run.
type options struct {
	root         string
	binDir       string
	dataDir      string
	readyFile    string
	services     []service
	host         string
	readyTimeout time.Duration
	stopTimeout  time.Duration
	databaseURL  string
	natsURL      string
	redisURL     string
	origins      string   // the console origins the services allow (CORS)
	passThrough  []string // PAYGATE_* variables given to every child as they are
}

func parseOptions(args []string, getenv func(string) string, environ []string) (options, error) {
	fs := flag.NewFlagSet("devstack", flag.ContinueOnError)
	var o options
	var names string
	fs.StringVar(&o.root, "root", ".", "the repository root (shell/dist, remotes/*/dist and bin/ are found from it)")
	fs.StringVar(&o.binDir, "bin", "", "the folder of the service binaries (default <root>/bin)")
	fs.StringVar(&o.dataDir, "data-dir", getenv("PAYGATE_DATA_DIR"), "the data folder for Postgres, Redis and NATS (env PAYGATE_DATA_DIR, default <root>/.data)")
	fs.StringVar(&o.readyFile, "ready-file", "", "a file written once everything answers, removed on exit")
	fs.StringVar(&names, "services", "", "comma-separated services to run (default: every service whose binary exists)")
	fs.StringVar(&o.host, "host", "127.0.0.1", "the address the services and the console listen on")
	fs.DurationVar(&o.readyTimeout, "ready-timeout", 2*time.Minute, "how long each service may take to answer /readyz")
	fs.DurationVar(&o.stopTimeout, "stop-timeout", 10*time.Second, "how long a child may take to stop after SIGTERM")
	if err := fs.Parse(args); err != nil {
		return o, err
	}
	if fs.NArg() > 0 {
		return o, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	root, err := filepath.Abs(o.root)
	if err != nil {
		return o, err
	}
	o.root = root
	if o.binDir == "" {
		o.binDir = filepath.Join(root, "bin")
	}
	if o.dataDir == "" {
		o.dataDir = filepath.Join(root, ".data")
	}
	if o.dataDir, err = filepath.Abs(o.dataDir); err != nil {
		return o, err
	}
	if o.readyFile != "" {
		if o.readyFile, err = filepath.Abs(o.readyFile); err != nil {
			return o, err
		}
	}
	if o.services, err = selectServices(names, o.binDir); err != nil {
		return o, err
	}
	o.databaseURL = getenv("PAYGATE_DATABASE_URL")
	o.natsURL = getenv("PAYGATE_NATS_URL")
	o.redisURL = getenv("PAYGATE_REDIS_URL")
	o.origins = getenv("PAYGATE_CONSOLE_ORIGINS")
	if o.origins == "" {
		o.origins = fmt.Sprintf("http://localhost:%d,http://127.0.0.1:%d", consolePort, consolePort)
	}
	for _, kv := range environ {
		if k, _, _ := strings.Cut(kv, "="); k == "PAYGATE_LOG_LEVEL" || k == "PAYGATE_TRUSTED_PROXY_HOPS" ||
			k == "PAYGATE_ACCESS_TOKEN_TTL" || k == "PAYGATE_REFRESH_TOKEN_TTL" {
			o.passThrough = append(o.passThrough, kv)
		}
	}
	return o, nil
}

// selectServices returns the named services in start order, or, with no names, those whose binary
// exists in binDir.
func selectServices(names, binDir string) ([]service, error) {
	var picked []service
	if strings.TrimSpace(names) == "" {
		for _, s := range knownServices {
			if _, err := os.Stat(filepath.Join(binDir, s.name)); err == nil {
				picked = append(picked, s)
			}
		}
		if len(picked) == 0 {
			return nil, fmt.Errorf("no service binary in %s: run make build", binDir)
		}
		return picked, nil
	}
	want := map[string]bool{}
	for _, n := range strings.FieldsFunc(names, func(r rune) bool { return r == ',' || r == ' ' }) {
		want[n] = true
	}
	for _, s := range knownServices {
		if want[s.name] {
			picked = append(picked, s)
			delete(want, s.name)
		}
	}
	for n := range want {
		return nil, fmt.Errorf("unknown service %q (known: auth, gateway, callbacks, aggregator, sandbox)", n)
	}
	for _, s := range picked {
		if _, err := os.Stat(filepath.Join(binDir, s.name)); err != nil {
			return nil, fmt.Errorf("service %s: %s is missing: run make build", s.name, filepath.Join(binDir, s.name))
		}
	}
	return picked, nil
}

func run(ctx context.Context, args []string, getenv func(string) string, stdout io.Writer) error {
	o, err := parseOptions(args, getenv, os.Environ())
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if err := os.MkdirAll(o.dataDir, 0o755); err != nil {
		return fmt.Errorf("create data folder: %w", err)
	}
	if err := checkPortsFree(o); err != nil {
		return err
	}

	logs := newLogMux(stdout, append(serviceNames(o.services), "devstack"))
	say := logs.writer("devstack")
	st := &stack{opts: o, logs: logs, say: say, exited: make(chan *child, 16)}
	defer st.stop()
	if o.readyFile != "" {
		_ = os.Remove(o.readyFile)
		defer os.Remove(o.readyFile)
	}

	if err := st.startDeps(ctx); err != nil {
		return err
	}
	if err := st.startConsole(); err != nil {
		return err
	}
	if err := st.startServices(ctx); err != nil {
		return err
	}

	logs.print(banner(st))
	if o.readyFile != "" {
		if err := writeFileAtomic(o.readyFile, []byte(consoleURL()+"\n")); err != nil {
			return fmt.Errorf("write ready file: %w", err)
		}
	}

	select {
	case <-ctx.Done():
		fmt.Fprintln(say, "stopping")
		return nil
	case c := <-st.exited:
		fmt.Fprintf(say, "%s exited early (%v): stopping the rest\n", c.name, c.err)
		return fmt.Errorf("%s exited early (%v)", c.name, c.err)
	case err := <-st.consoleErr:
		return fmt.Errorf("console server: %w", err)
	}
}

func serviceNames(ss []service) []string {
	names := make([]string, 0, len(ss)+2)
	for _, s := range ss {
		names = append(names, s.name)
	}
	return names
}

func consoleURL() string { return fmt.Sprintf("http://localhost:%d", consolePort) }

func banner(st *stack) string {
	var b strings.Builder
	fmt.Fprintf(&b, "\nPaygate is running.\n\n")
	fmt.Fprintf(&b, "  Console     %s\n", consoleURL())
	for _, s := range st.opts.services {
		if s.grpcPort == 0 {
			fmt.Fprintf(&b, "  %-11s http://localhost:%d\n", s.name, s.httpPort)
			continue
		}
		fmt.Fprintf(&b, "  %-11s http://localhost:%d  (gRPC localhost:%d)\n", s.name, s.httpPort, s.grpcPort)
	}
	fmt.Fprintf(&b, "  Postgres    %s\n  NATS        %s\n  Redis       %s\n", st.databaseURL, st.natsURL, st.redisURL)
	fmt.Fprintf(&b, "\nDemo logins (password paygate-demo):\n")
	for _, l := range demoLogins {
		fmt.Fprintf(&b, "  %-26s %s\n", l[0], l[1])
	}
	fmt.Fprintf(&b, "  %-26s %s\n", "newcomer", "Merchant Admin, merchant 1; temporary password paygate-temp")
	fmt.Fprintf(&b, "\nData in %s. Press Ctrl-C to stop.\n\n", st.opts.dataDir)
	return b.String()
}

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
