// Command initbench measures POST /api/v1/transactions/initialize of the
// real gateway against the sandbox with zero latency: transactions per
// second, latency percentiles and errors from concurrent merchant-signed
// calls for a fixed time, then how long until every transaction made is
// final and the outbox is drained. In the same run it measures the ceiling
// to compare with: a bare insert of a transaction row plus its outbox row,
// one Postgres transaction each, at the same concurrency.
//
// It starts bin/sandbox and bin/gateway on loopback ports against a scratch
// schema (dropped first), using the local Postgres, Redis and NATS, and
// stops both before it exits. Nothing leaves 127.0.0.1.
package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"os"
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

	"github.com/paygate/paygate/bench/internal/harness"
)

var (
	dbURL       = flag.String("db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL")
	schema      = flag.String("schema", "gateway_initbench", "scratch gateway schema (dropped and made again)")
	gatewayBin  = flag.String("gateway", "bin/gateway", "gateway binary")
	sandboxBin  = flag.String("sandbox", "bin/sandbox", "sandbox binary")
	natsURL     = flag.String("nats", "nats://127.0.0.1:4222", "NATS URL")
	redisURL    = flag.String("redis", "redis://127.0.0.1:6379/14", "Redis URL")
	duration    = flag.Duration("duration", 30*time.Second, "how long each phase sends")
	concurrency = flag.Int("concurrency", 32, "concurrent clients")
	portBase    = flag.Int("port-base", 28000, "gateway on +82/+1082, sandbox on +85")
	merchantID  = flag.Int("merchant", 1, "demo merchant (its API secret is demo-secret-<id>)")
	providerID  = flag.Int("provider", 1, "provider of the merchant's demo collab")
	payType     = flag.String("pay-type", "1", "pay type id or code on that collab")
	amount      = flag.String("amount", "150.00", "amount of every payment (within the collab's limits)")
	skipBare    = flag.Bool("skip-bare", false, "skip the bare insert ceiling")
	gatewayDB   = flag.String("gateway-db", "", "Postgres URL of the gateway (default -db), e.g. with ?pool_max_conns=8")
)

// procs are the processes the bench started; their logs are /tmp/initbench-<name>.log.
var procs = &harness.Group{Logs: "/tmp/initbench-", Grace: 10 * time.Second}

func fatalf(format string, args ...any) { procs.Fatalf(format, args...) }

// demoHash is the demo merchant's public hash (services/gateway/internal/merchant).
func demoHash(id int) string {
	sum := sha256.Sum256([]byte("paygate demo merchant " + strconv.Itoa(id)))
	return hex.EncodeToString(sum[:16])
}

// result is one phase's measurements.
type result struct {
	name      string
	ok, errs  int64
	elapsed   time.Duration
	latencies []time.Duration
	firstErr  string
}

func (r result) row() string {
	lat := slices.Clone(r.latencies)
	slices.Sort(lat)
	pct := func(p float64) string {
		if len(lat) == 0 {
			return "–"
		}
		i := min(int(float64(len(lat))*p), len(lat)-1)
		return fmt.Sprintf("%.1f", float64(lat[i].Microseconds())/1000)
	}
	rate := float64(r.ok) / r.elapsed.Seconds()
	return fmt.Sprintf("| %s | %d | %d | %.0f | %s | %s | %s |", r.name, r.ok, r.errs, rate, pct(0.5), pct(0.95), pct(0.99))
}

// run calls op from n goroutines until d has passed.
func run(name string, n int, d time.Duration, op func(worker, i int) error) result {
	var (
		mu       sync.Mutex
		all      []time.Duration
		ok, errs atomic.Int64
		firstErr atomic.Value
		wg       sync.WaitGroup
	)
	began := time.Now()
	deadline := began.Add(d)
	for w := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for i := 0; time.Now().Before(deadline); i++ {
				t0 := time.Now()
				err := op(w, i)
				local = append(local, time.Since(t0))
				if err != nil {
					errs.Add(1)
					firstErr.CompareAndSwap(nil, err.Error())
					continue
				}
				ok.Add(1)
			}
			mu.Lock()
			all = append(all, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	r := result{name: name, ok: ok.Load(), errs: errs.Load(), elapsed: time.Since(began), latencies: all}
	if v, _ := firstErr.Load().(string); v != "" {
		r.firstErr = v
	}
	return r
}

// cpuPerTransaction prints the CPU time each program spent per
// transaction between two cpuByProgram readings, the busiest first.
func cpuPerTransaction(before, after map[string]time.Duration, n int64) string {
	if n == 0 {
		return ""
	}
	type use struct {
		name string
		d    time.Duration
	}
	var uses []use
	var total time.Duration
	for name, d := range after {
		if d -= before[name]; d > 0 {
			uses = append(uses, use{name, d})
			total += d
		}
	}
	slices.SortFunc(uses, func(a, b use) int { return cmp.Compare(b.d, a.d) })
	var sb strings.Builder
	fmt.Fprintf(&sb, "CPU per transaction made: %.0f µs in all", float64(total.Microseconds())/float64(n))
	for _, u := range uses {
		if per := float64(u.d.Microseconds()) / float64(n); per >= 1 {
			fmt.Fprintf(&sb, "; %s %.0f", u.name, per)
		}
	}
	return sb.String()
}

func main() {
	flag.Parse()
	loadBefore := harness.Load1()
	ctx := context.Background()
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() { <-sigs; procs.StopAll(); os.Exit(1) }()

	pool, err := pgxpool.New(ctx, *dbURL)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{*schema}.Sanitize()+" CASCADE"); err != nil {
		log.Fatal(err)
	}

	gwHTTP := "127.0.0.1:" + strconv.Itoa(*portBase+82)
	sbHTTP := "127.0.0.1:" + strconv.Itoa(*portBase+85)
	procs.MustStart("sandbox", []string{*sandboxBin}, []string{
		"PAYGATE_HTTP_ADDR=" + sbHTTP, "PAYGATE_SANDBOX_GATEWAY_URL=http://" + gwHTTP,
		"PAYGATE_SANDBOX_LATENCY=0s", "PAYGATE_SANDBOX_OUTCOME=success", "PAYGATE_LOG_LEVEL=warn",
	})
	gateway := procs.MustStart("gateway", []string{*gatewayBin}, []string{
		"PAYGATE_HTTP_ADDR=" + gwHTTP, "PAYGATE_GRPC_ADDR=127.0.0.1:" + strconv.Itoa(*portBase+1082),
		"PAYGATE_DATABASE_URL=" + cmp.Or(*gatewayDB, *dbURL), "PAYGATE_DATABASE_SCHEMA=" + *schema, "PAYGATE_NATS_URL=" + *natsURL,
		"PAYGATE_REDIS_URL=" + *redisURL, "PAYGATE_DEMO=true", "PAYGATE_SANDBOX_URL=http://" + sbHTTP,
		"PAYGATE_JWKS_URL=http://127.0.0.1:1/jwks", "PAYGATE_CONSUME_CALLBACK_EVENTS=false", "PAYGATE_LOG_LEVEL=warn",
	})
	defer procs.StopAll()
	if err := harness.WaitReady(ctx, "http://"+gwHTTP, 60*time.Second, gateway); err != nil {
		fatalf("%v", err)
	}

	hash, secret := demoHash(*merchantID), []byte("demo-secret-"+strconv.Itoa(*merchantID))
	tr := &http.Transport{MaxIdleConnsPerHost: *concurrency * 2}
	client := &http.Client{Transport: tr, Timeout: 30 * time.Second}
	runID := make([]byte, 4)
	_, _ = rand.Read(runID)
	phase := "warm"
	initialize := func(w, i int) error {
		body, _ := json.Marshal(map[string]any{
			"paymentData": map[string]any{"nonce": fmt.Sprintf("bench-%x-%s-%d-%d", runID, phase, w, i), "amount": *amount,
				"currency": "PHP", "providerId": *providerID, "payType": *payType, "providerTags": []string{}},
			"merchantData": map[string]any{"merchantHash": hash, "clientId": "bench-" + strconv.Itoa(w), "additionalData": map[string]any{}},
			"cashIn":       true,
		})
		ts := strconv.FormatInt(time.Now().Unix(), 10)
		mac := hmac.New(sha256.New, secret)
		mac.Write([]byte(ts + "."))
		mac.Write(body)
		req, _ := http.NewRequest(http.MethodPost, "http://"+gwHTTP+"/api/v1/transactions/initialize", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Paygate-Merchant", hash)
		req.Header.Set("X-Paygate-Timestamp", ts)
		req.Header.Set("X-Paygate-Signature", "v1="+hex.EncodeToString(mac.Sum(nil)))
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("HTTP %d: %s", resp.StatusCode, raw)
		}
		return nil
	}
	// Warm-up: connections, prepared statements, the JIT of the caches.
	_ = run("warm-up", *concurrency, 2*time.Second, initialize)
	if _, err := pool.Exec(ctx, "SET search_path TO "+pgx.Identifier{*schema}.Sanitize()); err != nil {
		fatalf("%v", err)
	}
	q := func(sql string) int64 {
		var n int64
		if err := pool.QueryRow(ctx, sql).Scan(&n); err != nil {
			fatalf("%s: %v", sql, err)
		}
		return n
	}
	// A fresh schema has no statistics yet: plans cached while its tables
	// were empty would scan them whole until autovacuum's first ANALYZE
	// (within a minute of a real deployment's first writes). Take that
	// step now, on the scratch schema's tables, so that the run measures
	// the steady state.
	var tables []string
	rows, err := pool.Query(ctx, `SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = $1`, *schema)
	if err == nil {
		tables, err = pgx.CollectRows(rows, pgx.RowTo[string])
	}
	if err == nil {
		_, err = pool.Exec(ctx, "ANALYZE "+strings.Join(tables, ", "))
	}
	if err != nil {
		fatalf("analyze %s: %v", *schema, err)
	}
	before := q("SELECT count(*) FROM " + pgx.Identifier{*schema, "transactions"}.Sanitize())
	phase = "measured"
	cpuBefore := harness.CPUByProgram()
	initRes := run("initialize (REST, HMAC-signed, sandbox 0 ms)", *concurrency, *duration, initialize)
	sent := time.Now()

	// Every transaction made must reach a final status, and every event
	// must leave the outbox.
	tx := pgx.Identifier{*schema, "transactions"}.Sanitize()
	ob := pgx.Identifier{*schema, "outbox"}.Sanitize()
	var settle, drain time.Duration
	for {
		open := q("SELECT count(*) FROM " + tx + " WHERE status NOT IN (4, -1, -2, -3, -4, -5, -6)")
		if open == 0 && settle == 0 {
			settle = time.Since(sent)
		}
		unpublished := q("SELECT count(*) FROM " + ob + " WHERE published_at IS NULL")
		if unpublished == 0 && drain == 0 {
			drain = time.Since(sent)
		}
		if (settle != 0 && drain != 0) || time.Since(sent) > 2*time.Minute {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	cpuAfter := harness.CPUByProgram()
	made := q("SELECT count(*) FROM "+tx) - before
	final := q("SELECT count(*) FROM "+tx+" WHERE status = 4") - q("SELECT count(*) FROM "+tx+" WHERE status = 4 AND nonce NOT LIKE '%-measured-%'")

	var bare result
	if !*skipBare {
		bare = bareInserts(ctx, pool, tx, ob)
	}
	procs.StopAll()

	fmt.Printf("\n%d clients, %s per phase, GOMAXPROCS of this machine: %d cores; load average %s before the run, %s after it\n\n",
		*concurrency, *duration, runtime.NumCPU(), loadBefore, harness.Load1())
	fmt.Println("| phase | ok | errors | per second | p50 ms | p95 ms | p99 ms |")
	fmt.Println("|---|---|---|---|---|---|---|")
	fmt.Println(initRes.row())
	if !*skipBare {
		fmt.Println(bare.row())
	}
	fmt.Printf("\ntransactions made in the measured phase: %d (answered ok: %d); Success (4) at the end: %d of them\n",
		made, initRes.ok, final)
	fmt.Printf("all final %s after the last call; outbox drained %s after it\n", fmtDur(settle), fmtDur(drain))
	fmt.Println(cpuPerTransaction(cpuBefore, cpuAfter, made))
	if initRes.firstErr != "" {
		fmt.Println("first initialize error:", initRes.firstErr)
	}
	if bare.firstErr != "" {
		fmt.Println("first bare insert error:", bare.firstErr)
	}
}

func fmtDur(d time.Duration) string {
	if d == 0 {
		return "not within 2 min"
	}
	return d.Round(10 * time.Millisecond).String()
}

// bareInserts is the ceiling: the transaction row the gateway writes on
// initialize and one outbox row, in one Postgres transaction, nothing else.
func bareInserts(ctx context.Context, pool *pgxpool.Pool, tx, ob string) result {
	ref := make([]byte, 4)
	_, _ = rand.Read(ref)
	payload := bytes.Repeat([]byte{7}, 220) // about the size of a TransactionCreated event
	return run("bare insert: transaction + outbox row", *concurrency, *duration, func(w, i int) error {
		return pgx.BeginFunc(ctx, pool, func(t pgx.Tx) error {
			now := time.Now()
			var id int64
			err := t.QueryRow(ctx, `INSERT INTO `+tx+` (reference_id, merchant_id, collab_id, provider_id, pay_type_id,
				merchant_name, provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status,
				status_message, amount, currency, destination_amount, destination_currency, provider_tags, account_data,
				payment_ip_address, user_agent, created_at, updated_at)
				VALUES ($1, 1, 1, 1, 1, 'Acme Games', 'GoVip', 'GCash', $2, 'bench', 1, 1, 'Not Confirmed',
				150.00, 'PHP', 150.00, 'PHP', '{}', '{}', '127.0.0.1', 'initbench', $3, $3) RETURNING id`,
				fmt.Sprintf("BARE-%x-%d-%d", ref, w, i), fmt.Sprintf("bare-%x-%d-%d", ref, w, i), now).Scan(&id)
			if err != nil {
				return err
			}
			var u [16]byte
			_, _ = rand.Read(u[:])
			u[6], u[8] = (u[6]&0x0f)|0x70, (u[8]&0x3f)|0x80
			_, err = t.Exec(ctx, `INSERT INTO `+ob+` (id, subject, payload, published_at) VALUES ($1, 'bench.bare', $2, now())`, u, payload)
			return err
		})
	})
}
