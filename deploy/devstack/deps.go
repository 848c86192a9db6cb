package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	natsserver "github.com/nats-io/nats-server/v2/server"
)

// Preferred ports of the stack's own servers: away from the standard ones, so that a system
// Postgres, Redis or NATS on the same machine never clashes. A taken port is replaced by a free one.
const (
	natsPort     = 4250
	postgresPort = 5440
	redisPort    = 6390
)

// startDeps makes the database, Redis and NATS URLs the services get: the given ones, or servers
// the stack starts itself under the data folder.
func (st *stack) startDeps(ctx context.Context) error {
	if err := st.startNATS(); err != nil {
		return err
	}
	if err := st.startPostgres(ctx); err != nil {
		return err
	}
	return st.startRedis(ctx)
}

func (st *stack) startNATS() error {
	if st.opts.natsURL != "" {
		st.natsURL = st.opts.natsURL
		fmt.Fprintf(st.say, "nats: using %s\n", st.natsURL)
		return nil
	}
	port := natsPort
	if !portFree("127.0.0.1", port) {
		port = -1 // any free port
	}
	store := filepath.Join(st.opts.dataDir, "nats")
	// services/internal/bus/natsembed does the same for the services, but Go's internal rule keeps
	// it out of reach from deploy/.
	ns, err := natsserver.NewServer(&natsserver.Options{
		ServerName: "paygate-devstack",
		Host:       "127.0.0.1",
		Port:       port,
		JetStream:  true,
		StoreDir:   store,
		NoSigs:     true,
		NoLog:      true,
	})
	if err != nil {
		return fmt.Errorf("nats: %w", err)
	}
	ns.Start()
	st.natsStop = func() { ns.Shutdown(); ns.WaitForShutdown() }
	if !ns.ReadyForConnections(15 * time.Second) {
		return errors.New("nats: the embedded server did not start within 15s")
	}
	url := ns.ClientURL()
	st.natsURL = url
	fmt.Fprintf(st.say, "nats: embedded server with JetStream on %s (store %s)\n", url, store)
	return nil
}

func (st *stack) startPostgres(ctx context.Context) error {
	if st.opts.databaseURL != "" {
		st.databaseURL = st.opts.databaseURL
		fmt.Fprintf(st.say, "postgres: using the given PAYGATE_DATABASE_URL\n")
		return nil
	}
	bin, err := postgresBinDir()
	if err != nil {
		fmt.Fprintln(st.say, "postgres: no PostgreSQL binaries found; installing the Debian package postgresql")
		if err := aptInstall(ctx, st.say, "postgresql"); err != nil {
			return fmt.Errorf("postgres: %w", err)
		}
		if bin, err = postgresBinDir(); err != nil {
			return err
		}
	}
	port, err := pickPort(postgresPort)
	if err != nil {
		return err
	}
	data := filepath.Join(st.opts.dataDir, "pg")
	run := filepath.Join(st.opts.dataDir, "pg-run") // the server's socket folder
	logDir := filepath.Join(st.opts.dataDir, "logs")
	for _, d := range []string{data, run, logDir} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	cred, err := postgresCredential(st.opts.dataDir, data, run)
	if err != nil {
		return err
	}
	logFile := filepath.Join(logDir, "postgres.log")
	if _, err := os.Stat(filepath.Join(data, "PG_VERSION")); err != nil {
		fmt.Fprintf(st.say, "postgres: creating a cluster in %s\n", data)
		cmd := exec.CommandContext(ctx, filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres",
			"--auth=trust", "--encoding=UTF8", "--no-locale")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("postgres: initdb: %w\n%s", err, out)
		}
	}
	cmd := exec.Command(filepath.Join(bin, "postgres"), "-D", data, "-p", strconv.Itoa(port),
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories="+run)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: cred}
	// SIGINT is Postgres's fast shutdown: it ends sessions and stops at once, cleanly.
	c, err := st.startChild("postgres", cmd, syscall.SIGINT, logFile)
	if err != nil {
		return err
	}
	st.postgres = c
	fmt.Fprintf(st.say, "postgres: %s on 127.0.0.1:%d (log %s)\n", filepath.Join(bin, "postgres"), port, logFile)

	psql := func(sql string) (string, error) {
		out, err := exec.CommandContext(ctx, filepath.Join(bin, "psql"), "-h", "127.0.0.1", "-p", strconv.Itoa(port),
			"-U", "postgres", "-d", "postgres", "-tAqc", sql).CombinedOutput()
		return strings.TrimSpace(string(out)), err
	}
	if err := waitFor(ctx, c, 60*time.Second, func() bool { _, err := psql("select 1"); return err == nil }); err != nil {
		return fmt.Errorf("postgres: %w; the end of %s:\n%s", err, logFile, tail(logFile, 20))
	}
	if out, err := psql("select 1 from pg_database where datname = 'paygate'"); err != nil {
		return fmt.Errorf("postgres: %v: %s", err, out)
	} else if out == "" {
		if out, err := psql("create database paygate"); err != nil {
			return fmt.Errorf("postgres: create database paygate: %v: %s", err, out)
		}
		fmt.Fprintln(st.say, "postgres: created database paygate")
	}
	st.databaseURL = fmt.Sprintf("postgres://postgres@127.0.0.1:%d/paygate?sslmode=disable", port)
	return nil
}

// postgresBinDir finds the newest PostgreSQL server binaries: Debian's /usr/lib/postgresql/N/bin,
// or initdb on PATH.
func postgresBinDir() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(dirs, func(a, b string) int {
		va, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		vb, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return va - vb
	})
	for i := len(dirs) - 1; i >= 0; i-- {
		if _, err := os.Stat(filepath.Join(dirs[i], "initdb")); err == nil {
			return dirs[i], nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		return filepath.Dir(p), nil
	}
	return "", errors.New("postgres: no initdb under /usr/lib/postgresql/*/bin or on PATH")
}

// postgresCredential returns the identity the Postgres server runs as: the postgres OS user when
// devstack runs as root (Postgres refuses to run as root), otherwise nil (the current user). As
// root it hands the server's folders to that user and lets it reach them.
func postgresCredential(dataDir string, owned ...string) (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("postgres: running as root needs a postgres OS user to run the server as: %w", err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	for _, d := range owned {
		if err := os.Chown(d, uid, gid); err != nil {
			return nil, err
		}
	}
	// Every folder above the cluster must be searchable by that user.
	for d := dataDir; d != "/" && d != "."; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return nil, err
		}
		if fi.Mode().Perm()&0o001 == 0 {
			if d == dataDir {
				if err := os.Chmod(d, fi.Mode().Perm()|0o011); err != nil {
					return nil, err
				}
				continue
			}
			return nil, fmt.Errorf("postgres: the postgres OS user cannot reach %s: %s is not searchable by others (chmod o+x it, or set PAYGATE_DATA_DIR elsewhere)", dataDir, d)
		}
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, nil
}

func (st *stack) startRedis(ctx context.Context) error {
	if st.opts.redisURL != "" {
		st.redisURL = st.opts.redisURL
		fmt.Fprintf(st.say, "redis: using the given PAYGATE_REDIS_URL\n")
		return nil
	}
	bin, err := exec.LookPath("redis-server")
	if err != nil {
		fmt.Fprintln(st.say, "redis: redis-server not found; installing the Debian package redis-server")
		if err := aptInstall(ctx, st.say, "redis-server"); err != nil {
			return fmt.Errorf("redis: %w", err)
		}
		if bin, err = exec.LookPath("redis-server"); err != nil {
			return fmt.Errorf("redis: %w", err)
		}
	}
	port, err := pickPort(redisPort)
	if err != nil {
		return err
	}
	dir := filepath.Join(st.opts.dataDir, "redis")
	logDir := filepath.Join(st.opts.dataDir, "logs")
	for _, d := range []string{dir, logDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	logFile := filepath.Join(logDir, "redis.log")
	// Nothing is kept on disk: rate limits, revocations and locks are short-lived by nature.
	cmd := exec.Command(bin, "--bind", "127.0.0.1", "--port", strconv.Itoa(port), "--save", "",
		"--appendonly", "no", "--dir", dir, "--daemonize", "no")
	c, err := st.startChild("redis", cmd, syscall.SIGTERM, logFile)
	if err != nil {
		return err
	}
	st.redis = c
	addr := "127.0.0.1:" + strconv.Itoa(port)
	if err := waitFor(ctx, c, 30*time.Second, func() bool { return !portFree("127.0.0.1", port) }); err != nil {
		return fmt.Errorf("redis: %w; the end of %s:\n%s", err, logFile, tail(logFile, 20))
	}
	st.redisURL = "redis://" + addr + "/0"
	fmt.Fprintf(st.say, "redis: %s on %s, nothing persisted (log %s)\n", bin, addr, logFile)
	return nil
}

// waitFor polls ok until it holds, the child ends, the context ends or the timeout passes.
func waitFor(ctx context.Context, c *child, timeout time.Duration, ok func() bool) error {
	deadline := time.Now().Add(timeout)
	for !ok() {
		if time.Now().After(deadline) {
			return fmt.Errorf("not ready within %s", timeout)
		}
		select {
		case <-ctx.Done():
			return errors.New("interrupted")
		case <-c.done:
			return fmt.Errorf("exited while starting (%v)", c.err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	return nil
}

// aptInstall installs Debian packages, as root or through a sudo that needs no password.
func aptInstall(ctx context.Context, say interface{ Write([]byte) (int, error) }, pkgs ...string) error {
	if _, err := exec.LookPath("apt-get"); err != nil {
		return fmt.Errorf("apt-get not found: install %s yourself", strings.Join(pkgs, " "))
	}
	var prefix []string
	if os.Geteuid() != 0 {
		if exec.CommandContext(ctx, "sudo", "-n", "true").Run() != nil {
			return fmt.Errorf("installing %s needs root: run sudo apt-get install %s", strings.Join(pkgs, " "), strings.Join(pkgs, " "))
		}
		prefix = []string{"sudo"}
	}
	steps := [][]string{
		{"apt-get", "update", "-qq"},
		append([]string{"env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "install", "-y", "-qq", "--no-install-recommends"}, pkgs...),
	}
	for _, s := range steps {
		args := append(append([]string{}, prefix...), s...)
		cmd := exec.CommandContext(ctx, args[0], args[1:]...)
		cmd.Stdout, cmd.Stderr = say, say
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(args, " "), err)
		}
	}
	return nil
}
