// Command auth measures the auth service at load (issue 15; bench/README.md,
// "Auth at load"). It starts bin/auth on bench ports, its own schema
// (auth_loadbench, dropped first) and a NATS server of its own, creates bench
// users directly in the schema with SQL (argon2id hashes computed here in
// the service's PHC format), then
//
//  1. signs in at a fixed open-loop arrival rate (default 40/s for 20 s) over
//     distinct users, beside the same number of bare argon2id verifications
//     in-process at the same rate (the ceiling);
//  2. rotates refresh tokens through POST /api/v1/refresh-token in a closed
//     loop with N workers (one session each), beside the same workers on
//     GET /healthz of the same process and on a bare pgx transaction of the
//     same shape (SELECT … FOR UPDATE, UPDATE, INSERT);
//  3. inserts live sessions by COPY (default 100,000) and times sequential
//     GET /api/v1/user-sessions/active as admin per variant, beside GET
//     /healthz and the bare count of live sessions in SQL;
//  4. (issue 27) enrols TOTP for bench users through the API, then signs in
//     with a second factor (POST /api/v1/login, then POST
//     /api/v1/login/second-factor with the current code) at a fixed
//     open-loop rate (default 20/s), beside the same number of bare argon2id
//     verifications plus TOTP code checks in-process at the same rate (the
//     ceiling).
//
// It is a plain main package, not a test: `make test` never runs it.
// Nothing here imports a service's packages; the service is driven through
// its REST API, the generated messages in gen/go decode its answers, and
// Postgres is reached with pgx.
package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"math"
	mrand "math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"golang.org/x/crypto/argon2"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/paygate/paygate/bench/internal/harness"
	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
)

var natsServer, natsURL = harness.NATSFlags()

var (
	dbURL        = flag.String("db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL of the bench's own connections")
	serviceDB    = flag.String("service-db", "", "PAYGATE_DATABASE_URL of bin/auth (default -db; add pool_max_conns=N to size its pool)")
	schema       = flag.String("schema", "auth_loadbench", "auth schema of the bench service")
	reset        = flag.Bool("reset", true, "drop the schema (and its _bare twin) first, so every run starts from the service's migrations")
	authBin      = flag.String("auth", "bin/auth", "auth binary")
	portBase     = flag.Int("port-base", 38000, "auth HTTP on base+81, gRPC base+1081, the bench's NATS base+4222")
	redisURL     = flag.String("redis", "redis://127.0.0.1:6379/7", "Redis URL of the bench service (a DB of its own)")
	redisPrefix  = flag.String("redis-prefix", "paygate:authloadbench:", "PAYGATE_REDIS_KEY_PREFIX of the bench service")
	phases       = flag.String("phases", "1,2,3,4", "phases to run: 1 login, 2 refresh, 3 sessions list, 4 sign-in with a second factor")
	twofaRate    = flag.Float64("twofa-rate", 20, "sign-ins with a second factor per second (open loop) of phase 4")
	twofaDur     = flag.Duration("twofa-duration", 20*time.Second, "how long sign-ins with a second factor arrive")
	nUsers       = flag.Int("users", 2000, "bench users (role Merchant, merchant 1) created in the schema")
	password     = flag.String("password", "loadbench-pass-1", "password of every bench user (each has its own salt and hash)")
	loginRate    = flag.Float64("login-rate", 40, "sign-ins per second (open loop)")
	loginDur     = flag.Duration("login-duration", 20*time.Second, "how long sign-ins arrive")
	arrivals     = flag.String("arrivals", "poisson", "arrival process of phase 1: poisson (exponential gaps) or uniform (fixed gaps)")
	refreshN     = flag.String("refresh-workers", "8,16,32", "closed-loop workers of phase 2, one run per value")
	refreshDur   = flag.Duration("refresh-duration", 15*time.Second, "measured time of each refresh run")
	ceilDur      = flag.Duration("ceiling-duration", 10*time.Second, "measured time of each ceiling run of phase 2 (healthz, bare pgx)")
	warmup       = flag.Duration("warmup", time.Second, "unmeasured start of every closed-loop run")
	barePool     = flag.Int("bare-pool", 0, "connections of the bare pgx ceiling's pool (0: as many as workers)")
	unbounded    = flag.Bool("unbounded-ceiling", true, "phase 1: also measure bare verifications on unbounded goroutines (19 MiB each: gigabytes under overload)")
	nSessions    = flag.Int("sessions", 100000, "live sessions inserted for phase 3")
	listRequests = flag.Int("list-requests", 200, "timed sequential requests per sessions-list variant")
	listWarmup   = flag.Int("list-warmup", 10, "untimed requests before each variant")
	sqlRequests  = flag.Int("sql-requests", 50, "timed runs of the bare count of live sessions")
	timeout      = flag.Duration("timeout", 10*time.Second, "HTTP client timeout of one request")
	hashCache    = flag.String("hash-cache", "/tmp/authbench-hashes.txt", "file keeping the bench users' hashes between runs (empty: compute every run)")
)

// ---------------------------------------------------------------- processes

// procs are the processes the bench started; their logs are /tmp/authbench-<name>.log.
var procs = &harness.Group{Logs: "/tmp/authbench-", Grace: 10 * time.Second}

func fatalf(format string, args ...any) { procs.Fatalf(format, args...) }

// authPID is the bench service's process, whose CPU time is read around
// each measurement.
var authPID int

// cpuTime is the user+system CPU time the auth process has used.
func cpuTime() time.Duration { return harness.ProcessCPU(authPID) }

// waitIdle waits until the auth process uses almost no CPU (work left by
// requests that timed out, e.g. sign-ins still hashing after their client
// gave up), at most two minutes.
func waitIdle() {
	t0 := time.Now()
	for time.Since(t0) < 2*time.Minute {
		c := cpuTime()
		time.Sleep(500 * time.Millisecond)
		if cpuTime()-c <= 20*time.Millisecond {
			break
		}
	}
	if d := time.Since(t0); d > 2*time.Second {
		fmt.Printf("  (waited %s for bin/auth to go idle)\n", d.Round(time.Second))
	}
}

// cpuNote is the auth process's CPU per successful operation since c0.
func cpuNote(c0 time.Duration, ok int) string {
	if ok == 0 {
		return ""
	}
	return fmt.Sprintf("bin/auth CPU %.2f ms/op; ", float64(cpuTime()-c0)/1e6/float64(ok))
}

// pgCPU is the CPU time Postgres's processes have used so far; pgNote is
// Postgres's CPU per successful operation since p0 (read before a pool's
// backends exit, or they are not counted).
func pgCPU() time.Duration { return harness.CPUByProgram()["postgres"] }

func pgNote(p0 time.Duration, ok int) string {
	if ok == 0 {
		return ""
	}
	return fmt.Sprintf("postgres CPU %.2f ms/op; ", float64(pgCPU()-p0)/1e6/float64(ok))
}

// ---------------------------------------------------------------- statistics

type sample struct {
	lat []time.Duration
	ok  int
	err int
	// shed are the latencies of the requests refused as overload (429):
	// answered, not lost.
	shed []time.Duration
}

// errShed is what a call returns for a request the service refused as
// overload (429): answered, counted apart from the errors.
var errShed = errors.New("refused as overload (429)")

func pct(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f", float64(d)/1e6) }

// q returns p50 / p95 / p99 of the latencies in milliseconds.
func q(lat []time.Duration) (string, string, string) {
	s := slices.Clone(lat)
	slices.Sort(s)
	return ms(pct(s, 0.50)), ms(pct(s, 0.95)), ms(pct(s, 0.99))
}

func p95(lat []time.Duration) time.Duration {
	s := slices.Clone(lat)
	slices.Sort(s)
	return pct(s, 0.95)
}

// row is one line of the final table.
type row struct {
	phase, what, load, rate, p50, p95, p99, note string
	n                                            int
}

var table []row

func record(r row) {
	table = append(table, r)
	fmt.Printf("  %-58s n=%-7d %-14s p50 %7s  p95 %7s  p99 %7s ms  load %s  %s\n", r.what, r.n, r.rate, r.p50, r.p95, r.p99, r.load, r.note)
}

// ---------------------------------------------------------------- HTTP

var client = &http.Client{
	Transport: &http.Transport{
		MaxIdleConns: 256, MaxIdleConnsPerHost: 256, IdleConnTimeout: time.Minute,
		DisableCompression: true,
	},
}

// call sends one request and returns its status and body.
func call(method, url, token string, body []byte) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("User-Agent", "paygate-authbench/1")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, nil, err
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, b, err
}

func loginBody(user string) []byte {
	b, _ := protojson.Marshal(&authv1.LoginRequest{Username: user, Password: *password})
	return b
}

// signIn returns the access and refresh tokens of a new session of user.
func signIn(base, user, pass string) (string, string, error) {
	b, _ := protojson.Marshal(&authv1.LoginRequest{Username: user, Password: pass})
	st, body, err := call("POST", base+"/api/v1/login", "", b)
	if err != nil {
		return "", "", err
	}
	if st != http.StatusOK {
		return "", "", fmt.Errorf("sign in %s: %d %s", user, st, body)
	}
	var r authv1.LoginResponse
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, &r); err != nil {
		return "", "", err
	}
	return r.AccessToken, r.RefreshToken, nil
}

// ---------------------------------------------------------------- argon2id

// The service's cost (services/auth/internal/identity DefaultArgon2: 19 MiB,
// two passes, one lane, 16-byte salt, 32-byte key), written out here since
// the bench may not import the service.
const (
	argonMemKiB  = 19 * 1024
	argonTime    = 2
	argonThreads = 1
	argonSalt    = 16
	argonKey     = 32
)

var b64 = base64.RawStdEncoding

// phc hashes pw with a fresh salt in the PHC string format the service
// stores: $argon2id$v=19$m=…,t=…,p=…$salt$hash.
func phc(pw string) string {
	salt := make([]byte, argonSalt)
	_, _ = rand.Read(salt)
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemKiB, argonThreads, argonKey)
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemKiB, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key))
}

// verifyShape reports whether h is a PHC string of the service's cost.
func verifyShape(h string) bool {
	return strings.HasPrefix(h, fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$", argon2.Version, argonMemKiB, argonTime, argonThreads))
}

// verify checks pw against a PHC string the way a sign-in does: parse,
// derive with the stored parameters, compare in constant time.
func verify(encoded, pw string) bool {
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false
	}
	var m, t, p uint32
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &m, &t, &p); err != nil {
		return false
	}
	salt, err1 := b64.DecodeString(parts[4])
	want, err2 := b64.DecodeString(parts[5])
	if err1 != nil || err2 != nil {
		return false
	}
	got := argon2.IDKey([]byte(pw), salt, t, m, uint8(p), uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1
}

// ---------------------------------------------------------------- setup

func connect(ctx context.Context, maxConns int, searchPath string) *pgxpool.Pool {
	cfg, err := pgxpool.ParseConfig(*dbURL)
	if err != nil {
		fatalf("%v", err)
	}
	cfg.MaxConns = int32(maxConns)
	cfg.ConnConfig.RuntimeParams["search_path"] = searchPath
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		fatalf("connect: %v", err)
	}
	if err := pool.Ping(ctx); err != nil {
		fatalf("ping: %v", err)
	}
	return pool
}

func userName(i int) string { return fmt.Sprintf("loadbench-%05d", i) }

// ensureUsers creates the bench users (role Merchant, merchant 1) that the
// schema does not hold yet, each with a hash of its own, and returns their
// usernames and the hash of the first (for the ceiling).
func ensureUsers(ctx context.Context, db *pgxpool.Pool) ([]string, []string) {
	names := make([]string, *nUsers)
	for i := range names {
		names[i] = userName(i + 1)
	}
	have := map[string]string{}
	rows, err := db.Query(ctx, `SELECT username, password_hash FROM users WHERE username LIKE 'loadbench-%'`)
	if err != nil {
		fatalf("read bench users: %v", err)
	}
	for rows.Next() {
		var u, h string
		if err := rows.Scan(&u, &h); err != nil {
			fatalf("%v", err)
		}
		have[u] = h
	}
	if err := rows.Err(); err != nil {
		fatalf("%v", err)
	}
	var missing []int
	for i, n := range names {
		if _, ok := have[n]; !ok {
			missing = append(missing, i)
		}
	}
	hashes := make([]string, len(names))
	for i, n := range names {
		hashes[i] = have[n]
	}
	cached := map[string]string{}
	if *hashCache != "" {
		if b, err := os.ReadFile(*hashCache); err == nil {
			for l := range strings.SplitSeq(string(b), "\n") {
				if u, h, ok := strings.Cut(l, " "); ok && verifyShape(h) {
					cached[u] = h
				}
			}
		}
	}
	if len(missing) > 0 {
		t0 := time.Now()
		var next atomic.Int64
		var wg sync.WaitGroup
		for range runtime.NumCPU() {
			wg.Go(func() {
				for {
					k := int(next.Add(1)) - 1
					if k >= len(missing) {
						return
					}
					if h, ok := cached[names[missing[k]]]; ok {
						hashes[missing[k]] = h
						continue
					}
					hashes[missing[k]] = phc(*password)
				}
			})
		}
		wg.Wait()
		hashTook := time.Since(t0)
		if *hashCache != "" {
			var sb strings.Builder
			for i, n := range names {
				fmt.Fprintf(&sb, "%s %s\n", n, hashes[i])
			}
			_ = os.WriteFile(*hashCache, []byte(sb.String()), 0o600)
		}
		tx, err := db.Begin(ctx)
		if err != nil {
			fatalf("%v", err)
		}
		for _, i := range missing {
			var id int64
			if err := tx.QueryRow(ctx, `INSERT INTO users (username, password_hash) VALUES ($1, $2) RETURNING id`, names[i], hashes[i]).Scan(&id); err != nil {
				fatalf("insert user: %v", err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO user_roles (user_id, role_id) SELECT $1, id FROM roles WHERE name = 'Merchant'`, id); err != nil {
				fatalf("insert role: %v", err)
			}
			if _, err := tx.Exec(ctx, `INSERT INTO user_merchants (user_id, merchant_id) VALUES ($1, 1)`, id); err != nil {
				fatalf("insert merchant: %v", err)
			}
		}
		if err := tx.Commit(ctx); err != nil {
			fatalf("%v", err)
		}
		fmt.Printf("created %d bench users (argon2id hashes, %d from %s: %s on %d cores) in %s; load average %s\n",
			len(missing), len(cached), *hashCache, hashTook.Round(time.Millisecond), runtime.NumCPU(), time.Since(t0).Round(time.Millisecond), harness.LoadAvg())
	}
	return names, hashes
}

// ---------------------------------------------------------------- phase 1

// schedule returns n arrival offsets at rate per second.
func schedule(n int, rate float64) []time.Duration {
	out := make([]time.Duration, n)
	var t float64
	for i := range out {
		out[i] = time.Duration(t * float64(time.Second))
		if *arrivals == "uniform" {
			t += 1 / rate
		} else {
			t += mrand.ExpFloat64() / rate
		}
	}
	return out
}

// openLoop runs do at the arrival offsets, each in its own goroutine, and
// returns every latency (from the planned arrival, so a late start counts),
// the errors and the achieved arrival and completion rates.
func openLoop(offsets []time.Duration, do func(i int) error) (sample, float64, float64) {
	var (
		mu  sync.Mutex
		s   sample
		wg  sync.WaitGroup
		err atomic.Int64
	)
	t0 := time.Now()
	var lastSent time.Duration
	for i, off := range offsets {
		if d := time.Until(t0.Add(off)); d > 0 {
			time.Sleep(d)
		}
		lastSent = time.Since(t0)
		wg.Go(func() {
			planned := t0.Add(off)
			if e := do(i); errors.Is(e, errShed) {
				lat := time.Since(planned)
				mu.Lock()
				s.shed = append(s.shed, lat)
				mu.Unlock()
				return
			} else if e != nil {
				if err.Add(1) <= 3 {
					log.Printf("error: %v", e)
				}
				return
			}
			lat := time.Since(planned)
			mu.Lock()
			s.lat = append(s.lat, lat)
			mu.Unlock()
		})
	}
	wg.Wait()
	wall := time.Since(t0)
	s.ok, s.err = len(s.lat), int(err.Load())
	sent := float64(len(offsets)) / max(lastSent.Seconds(), 1e-9)
	return s, sent, float64(s.ok) / wall.Seconds()
}

func phaseLogin(base string, names, hashes []string) {
	n := int(*loginRate * loginDur.Seconds())
	fmt.Printf("\n## Phase 1: sign-in, %d arrivals at %.0f/s (%s), %d distinct users\n", n, *loginRate, *arrivals, min(n, len(names)))
	if n > len(names) {
		fmt.Printf("  note: %d sign-ins over %d users, so some users sign in more than once\n", n, len(names))
	}
	// The cost of one verification alone, back to back on one goroutine.
	var one []time.Duration
	// One draw of arrival times for the ceilings and the service alike: the
	// p95 of an open loop near saturation depends on the draw's bursts as
	// much as on the server, so each side must meet the same ones.
	arrivalsAt := schedule(n, *loginRate)
	la := harness.Load1()
	for i := range 20 {
		t0 := time.Now()
		if !verify(hashes[i%len(hashes)], *password) {
			fatalf("bare verify failed")
		}
		one = append(one, time.Since(t0))
	}
	a, b, c := q(one)
	record(row{phase: "1", what: "CEILING: one bare argon2id verify at a time (CPU cost)", n: len(one), load: la + "→" + harness.Load1(),
		p50: a, p95: b, p99: c})
	// Ceiling: the same number of bare verifications at the same rate, each
	// on a goroutine of its own (19 MiB each: under overload this holds
	// gigabytes; -unbounded-ceiling=false leaves it out).
	if *unbounded {
		la = harness.Load1()
		s, sent, done := openLoop(arrivalsAt, func(i int) error {
			if !verify(hashes[i%len(hashes)], *password) {
				return fmt.Errorf("bare verify of %s failed", names[i%len(names)])
			}
			return nil
		})
		a, b, c = q(s.lat)
		record(row{phase: "1", what: "CEILING: bare argon2id verify in-process, open loop", n: s.ok, load: la + "→" + harness.Load1(),
			rate: fmt.Sprintf("%.1f/s (sent %.1f)", done, sent), p50: a, p95: b, p99: c, note: errNote(s.err)})
		runtime.GC()
	}

	// The same, with at most one verification per core at a time and the
	// rest waiting their turn in arrival order (what a semaphore around the
	// hash would give the service).
	sem := make(chan struct{}, runtime.NumCPU())
	la = harness.Load1()
	self0, selfFaults0 := harness.ProcessCPU(os.Getpid()), harness.ProcessFaults(os.Getpid())
	s, sent, done := openLoop(arrivalsAt, func(i int) error {
		sem <- struct{}{}
		defer func() { <-sem }()
		if !verify(hashes[i%len(hashes)], *password) {
			return fmt.Errorf("bare verify of %s failed", names[i%len(names)])
		}
		return nil
	})
	a, b, c = q(s.lat)
	record(row{phase: "1", what: fmt.Sprintf("CEILING: bare verify, open loop, at most %d at once (FIFO)", runtime.NumCPU()), n: s.ok, load: la + "→" + harness.Load1(),
		rate: fmt.Sprintf("%.1f/s (sent %.1f)", done, sent), p50: a, p95: b, p99: c,
		note: errNote(s.err) + fmt.Sprintf("the bench's CPU %.2f ms and %d page faults per verify", float64(harness.ProcessCPU(os.Getpid())-self0)/1e6/float64(max(s.ok, 1)),
			(harness.ProcessFaults(os.Getpid())-selfFaults0)/int64(max(s.ok, 1)))})
	fifo95 := p95(s.lat)
	runtime.GC()

	waitIdle()
	la = harness.Load1()
	c0, faults0 := cpuTime(), harness.ProcessFaults(authPID)
	s, sent, done = openLoop(arrivalsAt, func(i int) error {
		st, body, err := call("POST", base+"/api/v1/login", "", loginBody(names[i%len(names)]))
		if err != nil {
			return err
		}
		if st == http.StatusTooManyRequests {
			return errShed
		}
		if st != http.StatusOK {
			return fmt.Errorf("login %s: %d %s", names[i%len(names)], st, body)
		}
		return nil
	})
	a, b, c = q(s.lat)
	la += "→" + harness.Load1()
	shedNote := ""
	if len(s.shed) > 0 {
		_, s95, _ := q(s.shed)
		shedNote = fmt.Sprintf("%d answered 429 at once (p95 %s ms); ", len(s.shed), s95)
	}
	// Every attempt hashes, also those whose client timed out: wait for
	// them, then count the CPU per attempt.
	waitIdle()
	record(row{phase: "1", what: "POST /api/v1/login, open loop", n: s.ok, load: la,
		rate: fmt.Sprintf("%.1f/s (sent %.1f)", done, sent), p50: a, p95: b, p99: c,
		note: errNote(s.err) + shedNote + strings.Replace(cpuNote(c0, n), "ms/op", "ms per attempt", 1) +
			fmt.Sprintf("bin/auth %d page faults per attempt; ", (harness.ProcessFaults(authPID)-faults0)/int64(max(n, 1))) +
			fmt.Sprintf("p95 / FIFO ceiling p95 = %.2f×; target ≤ 1.5× and none lost: %s", float64(p95(s.lat))/float64(fifo95),
				verdict(float64(p95(s.lat)) <= 1.5*float64(fifo95) && s.err == 0))})
}

func errNote(n int) string {
	if n == 0 {
		return ""
	}
	return fmt.Sprintf("%d ERRORS; ", n)
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "MISSED"
}

// ---------------------------------------------------------------- phase 2

// closedLoop runs workers that each call do(worker) back to back for
// warmup+dur and returns the latencies of the calls started after the warm-up
// and the throughput over the measured time.
func closedLoop(workers int, dur time.Duration, do func(w int) error) (sample, float64) {
	var (
		mu   sync.Mutex
		s    sample
		wg   sync.WaitGroup
		errs atomic.Int64
	)
	t0 := time.Now()
	from, until := t0.Add(*warmup), t0.Add(*warmup+dur)
	for w := range workers {
		wg.Go(func() {
			var lat []time.Duration
			for {
				st := time.Now()
				if !st.Before(until) {
					break
				}
				err := do(w)
				if err != nil {
					// Counted in the warm-up too: a request that hangs
					// there (a stalled service) must not vanish.
					if errs.Add(1) <= 3 {
						log.Printf("error: %v", err)
					}
					continue
				}
				if st.Before(from) {
					continue
				}
				lat = append(lat, time.Since(st))
			}
			mu.Lock()
			s.lat = append(s.lat, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	s.ok, s.err = len(s.lat), int(errs.Load())
	return s, float64(s.ok) / dur.Seconds()
}

func phaseRefresh(ctx context.Context, base string, names []string) {
	pool := "pgx default, max(4, cores)"
	if i := strings.Index(*serviceDB, "pool_max_conns="); i >= 0 {
		pool = strings.SplitN((*serviceDB)[i:], "&", 2)[0]
	}
	fmt.Printf("\n## Phase 2: refresh-token rotation, closed loop, %s per run (+%s warm-up); service pool: %s\n", *refreshDur, *warmup, pool)
	bare := connect(ctx, 2, *schema+"_bare")
	for _, st := range []string{
		`CREATE SCHEMA IF NOT EXISTS ` + pgx.Identifier{*schema + "_bare"}.Sanitize(),
		`DROP TABLE IF EXISTS bare_sessions, bare_tokens`,
		`CREATE TABLE bare_sessions (id int PRIMARY KEY, last_seen_at timestamptz NOT NULL, refresh_expires_at timestamptz NOT NULL)`,
		`CREATE TABLE bare_tokens (token_hash bytea PRIMARY KEY, session_id int NOT NULL, created_at timestamptz NOT NULL, expires_at timestamptz NOT NULL)`,
	} {
		if _, err := bare.Exec(ctx, st); err != nil {
			fatalf("bare schema: %v", err)
		}
	}
	bare.Close()

	for _, f := range strings.Split(*refreshN, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			fatalf("-refresh-workers: %q", f)
		}
		fmt.Printf(" N = %d\n", n)
		waitIdle()
		tokens := make([]string, n)
		for w := range n {
			// Users from the end of the list, away from phase 1's.
			if _, tokens[w], err = signIn(base, names[len(names)-1-w], *password); err != nil {
				fatalf("%v", err)
			}
		}
		la := harness.Load1()
		c0, p0 := cpuTime(), pgCPU()
		s, tput := closedLoop(n, *refreshDur, func(w int) error {
			b, _ := protojson.Marshal(&authv1.RefreshTokenRequest{RefreshToken: tokens[w]})
			st, body, err := call("POST", base+"/api/v1/refresh-token", "", b)
			if err != nil {
				return err
			}
			if st != http.StatusOK {
				return fmt.Errorf("refresh: %d %s", st, body)
			}
			var r authv1.RefreshTokenResponse
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, &r); err != nil {
				return err
			}
			tokens[w] = r.RefreshToken
			return nil
		})
		a, b, c := q(s.lat)
		record(row{phase: "2", what: fmt.Sprintf("POST /api/v1/refresh-token, N=%d", n), n: s.ok, load: la + "→" + harness.Load1(),
			rate: fmt.Sprintf("%.0f/s", tput), p50: a, p95: b, p99: c,
			note: errNote(s.err) + cpuNote(c0, s.ok) + pgNote(p0, s.ok) + fmt.Sprintf("target ≥ 3,000/s and p95 ≤ 10 ms: %s", verdict(tput >= 3000 && p95(s.lat) <= 10*time.Millisecond && s.err == 0))})

		waitIdle()
		la = harness.Load1()
		c0 = cpuTime()
		s, tput = closedLoop(n, *ceilDur, func(int) error {
			st, _, err := call("GET", base+"/healthz", "", nil)
			if err == nil && st != http.StatusOK {
				err = fmt.Errorf("healthz: %d", st)
			}
			return err
		})
		a, b, c = q(s.lat)
		record(row{phase: "2", what: fmt.Sprintf("CEILING: GET /healthz, N=%d", n), n: s.ok, load: la + "→" + harness.Load1(),
			rate: fmt.Sprintf("%.0f/s", tput), p50: a, p95: b, p99: c, note: errNote(s.err) + cpuNote(c0, s.ok)})

		conns := *barePool
		if conns == 0 {
			conns = n
		}
		pool := connect(ctx, conns, *schema+"_bare")
		if _, err := pool.Exec(ctx, `TRUNCATE bare_sessions, bare_tokens`); err != nil {
			fatalf("%v", err)
		}
		if _, err := pool.Exec(ctx, `INSERT INTO bare_sessions SELECT g, now(), now() + interval '1 day' FROM generate_series(0, $1 - 1) g`, n); err != nil {
			fatalf("%v", err)
		}
		la = harness.Load1()
		p0 = pgCPU()
		s, tput = closedLoop(n, *ceilDur, func(w int) error {
			return pgx.BeginFunc(ctx, pool, func(tx pgx.Tx) error {
				var exp time.Time
				if err := tx.QueryRow(ctx, `SELECT refresh_expires_at FROM bare_sessions WHERE id = $1 FOR UPDATE`, w).Scan(&exp); err != nil {
					return err
				}
				now := time.Now()
				if _, err := tx.Exec(ctx, `UPDATE bare_sessions SET last_seen_at = $2, refresh_expires_at = $3 WHERE id = $1`, w, now, now.Add(24*time.Hour)); err != nil {
					return err
				}
				h := make([]byte, 32)
				_, _ = rand.Read(h)
				_, err := tx.Exec(ctx, `INSERT INTO bare_tokens (token_hash, session_id, created_at, expires_at) VALUES ($1, $2, $3, $4)`, h, w, now, now.Add(24*time.Hour))
				return err
			})
		})
		pgn := pgNote(p0, s.ok)
		pool.Close()
		a, b, c = q(s.lat)
		record(row{phase: "2", what: fmt.Sprintf("CEILING: bare pgx tx (FOR UPDATE, UPDATE, INSERT), N=%d, pool %d", n, conns), n: s.ok, load: la + "→" + harness.Load1(),
			rate: fmt.Sprintf("%.0f/s", tput), p50: a, p95: b, p99: c, note: errNote(s.err) + pgn})
	}
}

// ---------------------------------------------------------------- phase 3

func phaseSessions(ctx context.Context, db *pgxpool.Pool, base string, names []string) {
	fmt.Printf("\n## Phase 3: sessions list with %d live sessions\n", *nSessions)
	waitIdle()
	var have int64
	if err := db.QueryRow(ctx, `SELECT count(*) FROM sessions WHERE user_agent LIKE 'loadbench %'`).Scan(&have); err != nil {
		fatalf("%v", err)
	}
	if missing := int64(*nSessions) - have; missing > 0 {
		ids := map[string]int64{}
		rows, err := db.Query(ctx, `SELECT username, id FROM users WHERE username LIKE 'loadbench-%'`)
		if err != nil {
			fatalf("%v", err)
		}
		for rows.Next() {
			var u string
			var id int64
			_ = rows.Scan(&u, &id)
			ids[u] = id
		}
		rows.Close()
		uids := make([]int64, 0, len(names))
		for _, n := range names {
			uids = append(uids, ids[n])
		}
		agents := []string{"loadbench Mozilla/5.0 (Windows NT 10.0; Win64; x64) Chrome/131.0", "loadbench Mozilla/5.0 (Macintosh) Safari/605.1.15",
			"loadbench Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0", "loadbench Mozilla/5.0 (iPhone; CPU iPhone OS 18_1) Mobile/15E148"}
		now := time.Now()
		t0 := time.Now()
		src := make([][]any, 0, missing)
		for i := range missing {
			id := make([]byte, 16)
			_, _ = rand.Read(id)
			id[6] = id[6]&0x0f | 0x40
			id[8] = id[8]&0x3f | 0x80
			created := now.Add(-time.Duration(mrand.Int64N(int64(20 * time.Hour))))
			src = append(src, []any{
				fmt.Sprintf("%x-%x-%x-%x-%x", id[0:4], id[4:6], id[6:8], id[8:10], id[10:16]),
				uids[int(i)%len(uids)],
				fmt.Sprintf("10.%d.%d.%d", mrand.IntN(256), mrand.IntN(256), 1+mrand.IntN(254)),
				agents[mrand.IntN(len(agents))],
				created, created.Add(time.Duration(mrand.Int64N(int64(time.Hour)))), created.Add(24 * time.Hour),
			})
		}
		n, err := db.CopyFrom(ctx, pgx.Identifier{"sessions"},
			[]string{"id", "user_id", "ip", "user_agent", "created_at", "last_seen_at", "refresh_expires_at"}, pgx.CopyFromRows(src))
		if err != nil {
			fatalf("copy sessions: %v", err)
		}
		// The users and their merchants were inserted a moment ago: analyze
		// them too, as autovacuum would within a minute of a bulk import
		// (without it the planner takes merchant 1 for 11 users, not 2,000,
		// and sorts all 100,000 sessions of a merchantId filter).
		if _, err := db.Exec(ctx, `VACUUM (ANALYZE) sessions, users, user_merchants, user_roles`); err != nil {
			fatalf("%v", err)
		}
		fmt.Printf("  copied %d sessions in %s (with VACUUM ANALYZE of them and the users); load average %s\n", n, time.Since(t0).Round(time.Millisecond), harness.LoadAvg())
	}
	var live int64
	var size string
	_ = db.QueryRow(ctx, `SELECT count(*), pg_size_pretty(pg_total_relation_size('sessions')) FROM sessions WHERE revoked_at IS NULL AND refresh_expires_at > now()`).Scan(&live, &size)
	fmt.Printf("  live sessions: %d (table with indexes: %s)\n", live, size)

	// Ceilings: the bare count, and GET /healthz, sequential.
	var lat []time.Duration
	la := harness.Load1()
	for range *sqlRequests {
		t0 := time.Now()
		var c int64
		if err := db.QueryRow(ctx, `SELECT count(*) FROM sessions WHERE revoked_at IS NULL AND refresh_expires_at > now()`).Scan(&c); err != nil {
			fatalf("%v", err)
		}
		lat = append(lat, time.Since(t0))
	}
	a, b, c := q(lat)
	record(row{phase: "3", what: "CEILING: bare SQL count of live sessions, sequential", n: len(lat), load: la + "→" + harness.Load1(), rate: "", p50: a, p95: b, p99: c})
	lat = lat[:0]
	la = harness.Load1()
	for range *listRequests {
		t0 := time.Now()
		if st, _, err := call("GET", base+"/healthz", "", nil); err != nil || st != 200 {
			fatalf("healthz: %d %v", st, err)
		}
		lat = append(lat, time.Since(t0))
	}
	a, b, c = q(lat)
	record(row{phase: "3", what: "CEILING: GET /healthz, sequential", n: len(lat), load: la + "→" + harness.Load1(), p50: a, p95: b, p99: c})

	admin, _, err := signIn(base, "admin", "paygate-demo")
	if err != nil {
		fatalf("%v", err)
	}
	st, body, err := call("GET", base+"/api/v1/user-sessions/active?page=1&take=10", admin, nil)
	if err != nil || st != http.StatusOK {
		fmt.Printf("  sessions list not available in this build (%d %v: %.200s); phase 3 list not measured\n", st, err, body)
		record(row{phase: "3", what: "GET /api/v1/user-sessions/active", note: fmt.Sprintf("NOT AVAILABLE in this build (HTTP %d)", st)})
		return
	}
	// A rare search: "bench-0004" is in the names of users 40–49 only.
	fragment := "bench-0004"
	for _, v := range []string{
		"page=1&take=10", "page=1&take=50", "page=100&take=10", "merchantId=1&page=1&take=10",
		"search=" + fragment + "&page=1&take=10", "search=loadbench&page=1&take=10",
	} {
		url := base + "/api/v1/user-sessions/active?" + v
		var total int64
		for range *listWarmup {
			st, body, err := call("GET", url, admin, nil)
			if err != nil || st != http.StatusOK {
				fatalf("%s: %d %v %.300s", v, st, err, body)
			}
			var r authv1.ListActiveSessionsResponse
			if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(body, &r); err == nil {
				total = r.TotalCount
			}
		}
		lat = lat[:0]
		errs := 0
		la := harness.Load1()
		c0 := cpuTime()
		for range *listRequests {
			t0 := time.Now()
			st, _, err := call("GET", url, admin, nil)
			if err != nil || st != http.StatusOK {
				errs++
				continue
			}
			lat = append(lat, time.Since(t0))
		}
		a, b, c := q(lat)
		record(row{phase: "3", what: "GET /api/v1/user-sessions/active?" + v, n: len(lat), load: la + "→" + harness.Load1(),
			rate: fmt.Sprintf("total %d", total), p50: a, p95: b, p99: c,
			note: errNote(errs) + cpuNote(c0, len(lat)) + "target p95 ≤ 20 ms: " + verdict(p95(lat) <= 20*time.Millisecond && errs == 0)})
	}
}

// ---------------------------------------------------------------- main

func main() {
	flag.Parse()
	log.SetFlags(log.Ltime)
	client.Timeout = *timeout
	if *arrivals != "poisson" && *arrivals != "uniform" {
		log.Fatalf("-arrivals: poisson or uniform")
	}
	want := map[string]bool{}
	for _, p := range strings.Split(*phases, ",") {
		want[strings.TrimSpace(p)] = true
	}
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; fatalf("interrupted") }()
	defer procs.StopAll()
	ctx := context.Background()

	commit := "?"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
	}
	sum := "?"
	if f, err := os.ReadFile(*authBin); err == nil {
		h := sha256.Sum256(f)
		sum = "sha256 " + hex.EncodeToString(h[:6])
	}
	fmt.Printf("# auth at load — %s, bench commit %s, %s (%s), %d cores, Go %s; load average %s\n",
		time.Now().UTC().Format("2006-01-02 15:04 MST"), commit, *authBin, sum, runtime.NumCPU(), runtime.Version(), harness.LoadAvg())

	if *reset {
		admin := connect(ctx, 1, "public")
		for _, s := range []string{*schema, *schema + "_bare"} {
			if _, err := admin.Exec(ctx, `DROP SCHEMA IF EXISTS `+pgx.Identifier{s}.Sanitize()+` CASCADE`); err != nil {
				fatalf("drop schema %s: %v", s, err)
			}
		}
		admin.Close()
	}

	httpAddr := fmt.Sprintf("127.0.0.1:%d", *portBase+81)
	base := "http://" + httpAddr
	nurl, err := procs.StartNATS(*natsServer, *natsURL, *portBase+4222)
	if err != nil {
		fatalf("%v", err)
	}
	sdb := *serviceDB
	if sdb == "" {
		sdb = *dbURL
	}
	authProc := procs.MustStart("auth", []string{*authBin}, []string{
		"PAYGATE_DEMO=true", "PAYGATE_LOG_LEVEL=warn", "PAYGATE_NATS_URL=" + nurl, "PAYGATE_REDIS_URL=" + *redisURL,
		"PAYGATE_REDIS_KEY_PREFIX=" + *redisPrefix, "PAYGATE_DATABASE_URL=" + sdb, "PAYGATE_DATABASE_SCHEMA=" + *schema,
		"PAYGATE_JWKS_URL=" + base + "/.well-known/jwks.json", "PAYGATE_ACCESS_TOKEN_TTL=1h",
		"PAYGATE_LOGIN_IP_LIMIT=1000000", "PAYGATE_HTTP_ADDR=" + httpAddr,
		fmt.Sprintf("PAYGATE_GRPC_ADDR=127.0.0.1:%d", *portBase+1081),
	})
	authPID = authProc.Pid()
	if err := harness.WaitReady(ctx, base, 2*time.Minute, authProc); err != nil {
		fatalf("%v", err)
	}
	fmt.Printf("bin/auth ready on %s (schema %s); load average %s\n", httpAddr, *schema, harness.LoadAvg())

	db := connect(ctx, 4, *schema)
	defer db.Close()
	names, hashes := ensureUsers(ctx, db)
	// One sign-in warms the service's pool and the client's connection.
	if _, _, err := signIn(base, names[0], *password); err != nil {
		fatalf("%v", err)
	}

	if want["1"] {
		phaseLogin(base, names, hashes)
	}
	if want["2"] {
		phaseRefresh(ctx, base, names)
	}
	if want["3"] {
		phaseSessions(ctx, db, base, names)
	}
	if want["4"] {
		phaseSecondFactor(base, names, hashes)
	}

	fmt.Printf("\n## Summary (load average at the end %s)\n\n", harness.LoadAvg())
	fmt.Println("| phase | measurement | n | rate | p50 ms | p95 ms | p99 ms | load 1-min (start→end) | note |")
	fmt.Println("|---|---|---|---|---|---|---|---|---|")
	for _, r := range table {
		fmt.Printf("| %s | %s | %d | %s | %s | %s | %s | %s | %s |\n", r.phase, r.what, r.n, r.rate, r.p50, r.p95, r.p99, r.load, strings.TrimSuffix(r.note, "; "))
	}
}
