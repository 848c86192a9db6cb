// Command callbacks benchmarks the callbacks service (bin/callbacks) end to
// end: it runs a NATS server with JetStream inside this process (so the
// shared stream of a development machine is left alone), starts the built
// service against a scratch Postgres schema, seeds callback URLs pointing at
// a sink served by this process, publishes TransactionFinalized events as
// the gateway's relay would, and checks and times what reaches the sink and
// what the service recorded. Four scenarios:
//
//   - crash: 10,000 events; the service is SIGKILLed once half the
//     transactions reached the sink, and started again. Every callback must
//     arrive at least once, duplicates sharing their webhook id.
//   - flaky: the same with a sink that fails 30% of requests (500). Every
//     delivery must end delivered or failed, with every attempt listed.
//   - throughput: events published for -duration to a sink that answers at
//     once; deliveries per second sustained, every attempt persisted, and
//     published = delivered + failed; beside it, a bare loop of signed POSTs
//     to the same sink from this process, the ceiling of the machine, run
//     before and after the service; and the CPU per delivery (the service,
//     its Postgres backends, this process) against the CPU per bare POST.
//   - dead: one of ten callback URLs stops answering in the middle of a
//     throughput run. Each URL is a receiver of its own (its own port);
//     phase A (all ten healthy) and phase B (the tenth holds every request
//     until the service's client timeout cuts it) follow each other under
//     one service and one schema, and the deliveries per second to the nine
//     that stay healthy are compared, B/A (the circuit breaker of
//     docs/contracts-callbacks.md, "Endpoint health", must keep it >= 0.90).
//
// Every signature is verified by the sink with the documented scheme and
// the demo secrets. The scratch schemas are dropped at the end (-keep keeps
// them); logs of the service go to /tmp/callbacksbench-<scenario>.log.
package main

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log"
	"maps"
	mrand "math/rand/v2"
	"net"
	"net/http"
	"net/url"
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
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/paygate/paygate/bench/internal/harness"
	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

var (
	bin        = flag.String("bin", "bin/callbacks", "callbacks service binary")
	dbURL      = flag.String("db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL (a scratch schema is made in it)")
	redisURL   = flag.String("redis", "redis://127.0.0.1:6379/14", "Redis URL the service is given")
	scenarios  = flag.String("scenarios", "crash,flaky,throughput", "scenarios to run, comma separated")
	events     = flag.Int("events", 10_000, "events of the crash and flaky scenarios")
	collabs    = flag.Int("collabs", 10, "collabs (one merchant and one callback URL each)")
	duration   = flag.Duration("duration", 60*time.Second, "publishing time of the throughput scenario")
	bareFor    = flag.Duration("bare", 10*time.Second, "duration of the bare signed-POST loop")
	workers    = flag.Int("workers", 64, "PAYGATE_CALLBACK_WORKERS, and the bare loop's concurrency")
	httpPort   = flag.Int("http-port", 18183, "the service's HTTP port (gRPC on +1000)")
	keep       = flag.Bool("keep", false, "keep the scratch schemas")
	phase      = flag.Duration("phase", 60*time.Second, "dead: the length of each measured phase (A all healthy, B one dead)")
	warmup     = flag.Duration("warmup", 10*time.Second, "dead: publishing before phase A is measured")
	deadWait   = flag.Duration("dead-timeout", 5*time.Second, "dead: PAYGATE_CALLBACK_TIMEOUT, how long the service waits for the dead receiver (the service's default)")
	urlWorkers = flag.Int("url-workers", 16, "dead: PAYGATE_CALLBACK_URL_WORKERS, the requests in flight one URL may hold (0: no limit but -workers)")
)

func main() {
	flag.Parse()
	log.SetFlags(log.Ltime)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := benchmark(ctx); err != nil {
		log.Printf("FAILED: %v", err)
		procs.StopAll()
		os.Exit(1)
	}
}

func benchmark(ctx context.Context) error {
	dir, err := os.MkdirTemp("", "callbacksbench-nats")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ns, err := harness.EmbeddedNATS(dir)
	if err != nil {
		return err
	}
	defer func() { ns.Shutdown(); ns.WaitForShutdown() }()
	nc, err := nats.Connect(ns.ClientURL())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc, jetstream.WithPublishAsyncMaxPending(1<<16), jetstream.WithPublishAsyncTimeout(30*time.Second))
	if err != nil {
		return err
	}
	pool, err := pgxpool.New(ctx, *dbURL)
	if err != nil {
		return err
	}
	defer pool.Close()

	s := newSink(*collabs)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = srv.Serve(lis) }()
	defer srv.Close()
	sinkURL := "http://" + lis.Addr().String()

	fmt.Printf("machine: %d CPUs (%s), Go %s, %s\n", runtime.NumCPU(), cpuModel(), runtime.Version(), time.Now().UTC().Format(time.RFC3339))
	b := &bench{nats: ns.ClientURL(), js: js, pool: pool, sink: s, sinkURL: sinkURL}
	for name := range strings.SplitSeq(*scenarios, ",") {
		var err error
		switch strings.TrimSpace(name) {
		case "crash":
			err = b.crash(ctx, "crash", 0)
		case "flaky":
			err = b.crash(ctx, "flaky", 0.3)
		case "throughput":
			err = b.throughput(ctx)
		case "dead":
			err = b.dead(ctx)
		default:
			err = fmt.Errorf("unknown scenario %q", name)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

type bench struct {
	nats    string
	js      jetstream.JetStream
	pool    *pgxpool.Pool
	sink    *sink
	sinkURL string
	txBase  int64
}

// procs are the runs of the binary; each scenario's runs write on
// /tmp/callbacksbench-<scenario>.log. A failing bench kills them all.
var procs = &harness.Group{Logs: "/tmp/callbacksbench-", Append: true}

// start runs the service on schema and waits for /readyz.
func (b *bench) start(ctx context.Context, scenario, schema string, env map[string]string) (*harness.Proc, error) {
	all := map[string]string{
		"PAYGATE_DATABASE_URL":             withAppName(*dbURL, appName(schema)),
		"PAYGATE_DATABASE_SCHEMA":          schema,
		"PAYGATE_NATS_URL":                 b.nats,
		"PAYGATE_REDIS_URL":                *redisURL,
		"PAYGATE_HTTP_ADDR":                "127.0.0.1:" + strconv.Itoa(*httpPort),
		"PAYGATE_GRPC_ADDR":                "127.0.0.1:" + strconv.Itoa(*httpPort+1000),
		"PAYGATE_JWKS_URL":                 "http://127.0.0.1:1/unused",
		"PAYGATE_DEMO":                     "true",
		"PAYGATE_ALLOW_PRIVATE_URLS":       "true",
		"PAYGATE_LOG_LEVEL":                "warn",
		"PAYGATE_CALLBACK_WORKERS":         strconv.Itoa(*workers),
		"PAYGATE_CALLBACK_LEASE":           "10s",
		"PAYGATE_CALLBACK_EVENTS_ACK_WAIT": "10s",
		"PAYGATE_CALLBACK_TIMEOUT":         "2s",
		"PAYGATE_CALLBACK_EVENTS_FROM":     "new",
	}
	maps.Copy(all, env)
	var kv []string
	for k, v := range all {
		kv = append(kv, k+"="+v)
	}
	s, err := procs.Start(scenario, []string{*bin}, kv)
	if err != nil {
		return nil, err
	}
	if err := harness.WaitReady(ctx, "http://127.0.0.1:"+strconv.Itoa(*httpPort), 30*time.Second, s); err != nil {
		return nil, err
	}
	return s, nil
}

// prepare makes a scratch schema (by starting the service, which migrates
// it) and seeds one callback URL per collab (urls[c-1], or the sink's
// /hook/c when urls is nil); it returns the running service.
func (b *bench) prepare(ctx context.Context, scenario string, maxAttempts int, env map[string]string, urls []string) (string, *harness.Proc, error) {
	schema := "callbacks_bench_" + harness.RandomHex(4)
	svc, err := b.start(ctx, scenario, schema, env)
	if err != nil {
		return "", nil, err
	}
	for c := 1; c <= *collabs; c++ {
		url := b.sinkURL + "/hook/" + strconv.Itoa(c)
		if urls != nil {
			url = urls[c-1]
		}
		_, err := b.pool.Exec(ctx, `
			INSERT INTO `+pgx.Identifier{schema, "callback_urls"}.Sanitize()+`
				(collab_id, merchant_id, url, max_attempts, add_signature, created_at, updated_at)
			VALUES ($1, $1, $2, $3, true, now() - interval '1 hour', now() - interval '1 hour')`,
			c, url, maxAttempts)
		if err != nil {
			return "", nil, fmt.Errorf("seed callback urls: %w", err)
		}
	}
	return schema, svc, nil
}

func (b *bench) drop(ctx context.Context, schema string) {
	if *keep {
		log.Printf("kept schema %s", schema)
		return
	}
	if _, err := b.pool.Exec(ctx, "DROP SCHEMA "+pgx.Identifier{schema}.Sanitize()+" CASCADE"); err != nil {
		log.Printf("drop schema %s: %v", schema, err)
	}
}

// publish publishes n finalized events for transactions from first, spread
// over the collabs, asynchronously, and waits for the stream's acks.
func (b *bench) publish(ctx context.Context, first int64, n int) error {
	for i := range n {
		id := first + int64(i)
		collab := int32(1 + int(id)%*collabs)
		now := timestamppb.Now()
		ev := &eventsv1.TransactionFinalized{PreviousStatus: 3, Source: "Provider", Transaction: &eventsv1.TransactionState{
			TransactionId: id, ReferenceId: "bench-" + strconv.FormatInt(id, 10), MerchantId: collab, CollabId: collab,
			ProviderId: 1, Nonce: "n-" + strconv.FormatInt(id, 10), TransactionType: int32(1 + id%2), Amount: "1234.56",
			Currency: "PHP", Status: 4, StatusMessage: "Success", ProviderTransactionId: "psp-" + strconv.FormatInt(id, 10),
			UpdatedAt: now, CreatedAt: now, MerchantClientId: "client-" + strconv.FormatInt(id%97, 10),
			DestinationAmount: "1234.56", DestinationCurrency: "PHP",
		}}
		raw, err := proto.Marshal(ev)
		if err != nil {
			return err
		}
		m := nats.NewMsg("paygate.events.transaction_finalized")
		m.Data = raw
		m.Header.Set(jetstream.MsgIDHeader, "bench-"+strconv.FormatInt(id, 10))
		if _, err := b.js.PublishMsgAsync(m); err != nil {
			return err
		}
	}
	select {
	case <-b.js.PublishAsyncComplete():
		return nil
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(2 * time.Minute):
		return errors.New("publish acks not in after 2 min")
	}
}

// deliveryCounts reads the deliveries of a schema by status.
func (b *bench) deliveryCounts(ctx context.Context, schema string) (map[string]int64, error) {
	rows, err := b.pool.Query(ctx, `SELECT status, count(*) FROM `+pgx.Identifier{schema, "deliveries"}.Sanitize()+` GROUP BY status`)
	if err != nil {
		return nil, err
	}
	out := map[string]int64{}
	var st string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&st, &n}, func() error { out[st] = n; return nil })
	return out, err
}

func (b *bench) count(ctx context.Context, schema, table, where string) (int64, error) {
	var n int64
	err := b.pool.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, table}.Sanitize()+" "+where).Scan(&n)
	return n, err
}

// waitSettled waits until want deliveries exist and none is pending.
func (b *bench) waitSettled(ctx context.Context, schema string, want int64, limit time.Duration) (map[string]int64, error) {
	deadline := time.Now().Add(limit)
	for {
		c, err := b.deliveryCounts(ctx, schema)
		if err != nil {
			return nil, err
		}
		if c["delivered"]+c["failed"] >= want && c["pending"] == 0 {
			return c, nil
		}
		if time.Now().After(deadline) {
			return c, fmt.Errorf("not settled after %v: %v", limit, c)
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// crash runs the crash scenario, with a sink failing failRate of requests.
func (b *bench) crash(ctx context.Context, name string, failRate float64) error {
	maxAttempts := 3
	env := map[string]string{"PAYGATE_CALLBACK_BACKOFF_BASE": "200ms", "PAYGATE_CALLBACK_BACKOFF_CAP": "2s"}
	if failRate > 0 {
		maxAttempts = 5
	}
	b.sink.reset(failRate)
	schema, svc, err := b.prepare(ctx, name, maxAttempts, env, nil)
	if err != nil {
		return err
	}
	defer b.drop(ctx, schema)
	first := b.nextTx(*events)
	start := time.Now()
	if err := b.publish(ctx, first, *events); err != nil {
		return err
	}
	published := time.Since(start)

	for b.sink.uniqueTx() < *events/2 {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
	atKill := b.sink.snapshot()
	svc.Kill()
	killedAt := time.Since(start)
	svc, err = b.start(ctx, name, schema, env)
	if err != nil {
		return err
	}
	defer svc.Stop(20 * time.Second)
	restartedAt := time.Since(start)
	counts, err := b.waitSettled(ctx, schema, int64(*events), 5*time.Minute)
	if err != nil {
		return err
	}
	settled := time.Since(start)
	time.Sleep(500 * time.Millisecond) // a straggler would show now
	final := b.sink.snapshot()

	// Checks.
	var problems []string
	missing, split, dupTx := 0, 0, 0
	for id := first; id < first+int64(*events); id++ {
		r := final.tx[id]
		switch {
		case r == nil:
			missing++
		case len(r.ids) != 1:
			split++
		}
		if r != nil && r.ok > 1 {
			dupTx++
		}
	}
	if missing > 0 {
		problems = append(problems, fmt.Sprintf("%d transactions never reached the sink", missing))
	}
	if split > 0 {
		problems = append(problems, fmt.Sprintf("%d transactions arrived under more than one webhook id", split))
	}
	if final.badSig > 0 {
		problems = append(problems, fmt.Sprintf("%d requests with a bad signature", final.badSig))
	}
	if got := counts["delivered"] + counts["failed"]; got != int64(*events) {
		problems = append(problems, fmt.Sprintf("%d deliveries, want %d", got, *events))
	}
	attempts, err := b.count(ctx, schema, "attempts", "")
	if err != nil {
		return err
	}
	mismatched, err := b.count(ctx, schema, "deliveries", `d WHERE attempts_made <> (SELECT count(*) FROM `+
		pgx.Identifier{schema, "attempts"}.Sanitize()+` a WHERE a.delivery_id = d.id)`)
	if err != nil {
		return err
	}
	if mismatched > 0 {
		problems = append(problems, fmt.Sprintf("%d deliveries whose attempts are not all listed", mismatched))
	}
	if failRate == 0 && counts["failed"] > 0 {
		problems = append(problems, fmt.Sprintf("%d deliveries failed with a sink that never fails", counts["failed"]))
	}
	successes, err := b.count(ctx, schema, "attempts", `WHERE status = 'Success'`)
	if err != nil {
		return err
	}
	if successes != counts["delivered"] {
		problems = append(problems, fmt.Sprintf("%d Success attempts for %d delivered", successes, counts["delivered"]))
	}
	unrecorded := final.requests - attempts

	fmt.Printf("\n### %s: %d events, SIGKILL at half, sink failing %.0f%%\n\n", name, *events, failRate*100)
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| published (async, acked) | %d in %.2fs |\n", *events, published.Seconds())
	fmt.Printf("| SIGKILL at | %.2fs, %d of %d transactions at the sink, %d requests |\n", killedAt.Seconds(), len(atKill.tx), *events, atKill.requests)
	fmt.Printf("| restarted and ready at | %.2fs |\n", restartedAt.Seconds())
	fmt.Printf("| all deliveries settled at | %.2fs (lease 10s, event ack wait 10s) |\n", settled.Seconds())
	fmt.Printf("| deliveries | %d delivered, %d failed |\n", counts["delivered"], counts["failed"])
	fmt.Printf("| sink requests | %d (%d answered 2xx), %d transactions, %d bad signatures |\n", final.requests, final.okTotal, len(final.tx), final.badSig)
	fmt.Printf("| transactions received 2xx more than once | %d (same webhook id each) |\n", dupTx)
	fmt.Printf("| attempts listed | %d; sent but not recorded (in flight at the kill) %d |\n", attempts, unrecorded)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	fmt.Printf("| checks | every transaction arrived, one webhook id each, every delivery settled, attempts = attempts_made for all |\n")
	return nil
}

// throughput runs the throughput scenario and the bare loop.
func (b *bench) throughput(ctx context.Context) error {
	// The ceiling is measured before and after the service's run, and the
	// ratio taken to their mean: on a shared machine the load moves during
	// a run.
	bareBeforeLoad := harness.LoadAvg()
	cpu0 := harness.ProcessCPU(os.Getpid())
	bareBefore, bareBeforeN := bareLoop(ctx, b.sinkURL+"/bare", *bareFor, *workers)
	bareCPU := harness.ProcessCPU(os.Getpid()) - cpu0
	b.sink.reset(0)
	schema, svc, err := b.prepare(ctx, "throughput", 3, nil, nil)
	if err != nil {
		return err
	}
	defer b.drop(ctx, schema)
	defer svc.Stop(20 * time.Second)

	// Publish in chunks while the backlog is under a ceiling, for -duration.
	const chunk, backlog = 2000, 30_000
	first := b.nextTx(0)
	var published int64
	start := time.Now()
	type sample struct {
		at   time.Duration
		ok   int64 // callbacks answered 2xx at the sink
		cpu  cpuSample
		load string
	}
	var samples []sample
	next := time.Now()
	for time.Since(start) < *duration {
		if published-b.sink.okCount() < backlog {
			if err := b.publish(ctx, first+published, chunk); err != nil {
				return err
			}
			published += chunk
		} else {
			time.Sleep(20 * time.Millisecond)
		}
		if time.Now().After(next) {
			// Only the sink is read while publishing: a count of the
			// service's tables every second would take a growing share of
			// the same Postgres (deliveries are stored with their first
			// attempt, so the sink's count is the service's progress).
			samples = append(samples, sample{time.Since(start), b.sink.okCount(), b.cpuNow(ctx, svc, schema), harness.LoadAvg()})
			next = next.Add(time.Second)
		}
	}
	b.txBase = first + published
	end := time.Since(start)
	okAtEnd := b.sink.okCount()
	cpuAtEnd, loadAtEnd := b.cpuNow(ctx, svc, schema), harness.LoadAvg()
	counts, err := b.waitSettled(ctx, schema, published, 5*time.Minute)
	if err != nil {
		return err
	}
	drained := time.Since(start)
	final := b.sink.snapshot()
	attempts, err := b.count(ctx, schema, "attempts", "")
	if err != nil {
		return err
	}
	// Sustained rate: from the tenth second (warm) to the end of publishing.
	var from sample
	for _, s := range samples {
		if s.at >= 10*time.Second {
			from = s
			break
		}
	}
	rate := float64(okAtEnd-from.ok) / (end - from.at).Seconds()
	drainRate := float64(published-okAtEnd) / (drained - end).Seconds()

	var problems []string
	if counts["delivered"]+counts["failed"] != published {
		problems = append(problems, fmt.Sprintf("published %d, delivered %d + failed %d", published, counts["delivered"], counts["failed"]))
	}
	if attempts != final.requests {
		problems = append(problems, fmt.Sprintf("%d attempts persisted for %d requests at the sink", attempts, final.requests))
	}
	if final.badSig > 0 {
		problems = append(problems, fmt.Sprintf("%d bad signatures", final.badSig))
	}

	bareLoad := harness.LoadAvg()
	cpu0 = harness.ProcessCPU(os.Getpid())
	bare, bareN := bareLoop(ctx, b.sinkURL+"/bare", *bareFor, *workers)
	bareCPU += harness.ProcessCPU(os.Getpid()) - cpu0
	// CPU per request of the two bare loops, and per delivery of the
	// service's path (the service, its Postgres backends, this process):
	// their ratio is what the throughput ratio is on a machine where both
	// have the two cores to themselves, whatever else runs here.
	bareCPUPer := float64(bareCPU.Microseconds()) / float64(max(bareN+bareBeforeN, 1))
	used := cpuAtEnd.sub(from.cpu)
	perDelivery := func(d time.Duration) float64 {
		return float64(d.Microseconds()) / float64(max(okAtEnd-from.ok, 1))
	}

	fmt.Printf("\n### throughput: %s of publishing, sink answering 204 at once, %d workers\n\n", duration.String(), *workers)
	fmt.Printf("| measure | value |\n|---|---|\n")
	fmt.Printf("| published | %d events (%d collabs, 1 URL each) |\n", published, *collabs)
	fmt.Printf("| deliveries/s sustained (service) | **%.0f** (from %.0fs to %.0fs) |\n", rate, from.at.Seconds(), end.Seconds())
	ceiling := (bare + bareBefore) / 2
	fmt.Printf("| bare signed POSTs/s (this process, %d goroutines, no database), before the service and after it | %.0f (%d in %s, load %s) and %.0f (%d, load %s): mean **%.0f** |\n",
		*workers, bareBefore, bareBeforeN, bareFor.String(), bareBeforeLoad, bare, bareN, bareLoad, ceiling)
	fmt.Printf("| ratio to the mean ceiling | **%.3f** |\n", rate/ceiling)
	fmt.Printf("| load average | %s at %.0fs → %s at the end of publishing |\n", from.load, from.at.Seconds(), loadAtEnd)
	pathCPU := perDelivery(used.service) + perDelivery(used.backends) + perDelivery(used.bench)
	fmt.Printf("| CPU per delivery in the window | service %.0f µs, its Postgres backends %.0f µs, this process (NATS, publisher, sink) %.0f µs: **%.0f µs** |\n",
		perDelivery(used.service), perDelivery(used.backends), perDelivery(used.bench), pathCPU)
	fmt.Printf("| CPU per bare signed POST (client and sink) | %.1f µs: CPU ratio **%.3f** |\n", bareCPUPer, bareCPUPer/pathCPU)
	fmt.Printf("| drained at | %.1fs (%.0f deliveries/s after publishing stopped) |\n", drained.Seconds(), drainRate)
	fmt.Printf("| balance | published %d = delivered %d + failed %d |\n", published, counts["delivered"], counts["failed"])
	fmt.Printf("| attempts persisted | %d = sink requests %d |\n", attempts, final.requests)
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	return nil
}

// appName is the application_name of the service's Postgres connections on
// schema, by which the bench finds their backends.
func appName(schema string) string { return "cbbench-" + schema }

// withAppName sets application_name in a Postgres URL.
func withAppName(raw, name string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw
	}
	q := u.Query()
	q.Set("application_name", name)
	u.RawQuery = q.Encode()
	return u.String()
}

// cpuSample is the CPU time used so far by the service, by the Postgres
// backends of its connections and by this process (the embedded NATS
// server, the publisher and the sink). Postgres's own background processes
// (WAL writer, checkpointer) are left out: on a shared machine they work
// for everyone.
type cpuSample struct{ service, backends, bench time.Duration }

func (b *bench) cpuNow(ctx context.Context, svc *harness.Proc, schema string) cpuSample {
	c := cpuSample{service: harness.ProcessCPU(svc.Pid()), bench: harness.ProcessCPU(os.Getpid())}
	rows, err := b.pool.Query(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1`, appName(schema))
	if err == nil {
		pids, _ := pgx.CollectRows(rows, pgx.RowTo[int32])
		for _, pid := range pids {
			c.backends += harness.ProcessCPU(int(pid))
		}
	}
	return c
}

func (c cpuSample) sub(o cpuSample) cpuSample {
	return cpuSample{service: c.service - o.service, backends: c.backends - o.backends, bench: c.bench - o.bench}
}

// nextTx hands out transaction ids, n at a time.
func (b *bench) nextTx(n int) int64 {
	if b.txBase == 0 {
		b.txBase = 1_000_000
	}
	id := b.txBase
	b.txBase += int64(n)
	return id
}

// bareLoop posts signed requests to url from n goroutines for d and returns
// requests per second.
func bareLoop(ctx context.Context, url string, d time.Duration, n int) (float64, int64) {
	tr := &http.Transport{MaxIdleConnsPerHost: n, MaxIdleConns: n}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	key := demoKey(1)
	body := []byte(`{"type":"transaction.finalized","timestamp":"2026-01-01T00:00:00Z","data":{"id":"1","transactionReferenceId":"bench-1","merchantClientId":"client-1","nonce":"n-1","amount":"1234.56","currency":"PHP","destinationAmount":"1234.56","destinationCurrency":"PHP","transactionType":1,"transactionStatus":4,"transactionStatusMessage":"Success","providerTransactionId":"psp-1","errorMessage":"","createdUtc":"2026-01-01T00:00:00Z","updatedUtc":"2026-01-01T00:00:00Z","collabId":1,"merchantId":1}}`)
	var count atomic.Int64
	dctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	var wg sync.WaitGroup
	start := time.Now()
	for g := range n {
		wg.Go(func() {
			for i := 0; dctx.Err() == nil; i++ {
				id := fmt.Sprintf("msg_bare%d_%d", g, i)
				ts := strconv.FormatInt(time.Now().Unix(), 10)
				req, err := http.NewRequestWithContext(dctx, http.MethodPost, url, bytes.NewReader(body))
				if err != nil {
					return
				}
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("webhook-id", id)
				req.Header.Set("webhook-timestamp", ts)
				req.Header.Set("webhook-signature", sign(key, id, ts, body))
				resp, err := client.Do(req)
				if err != nil {
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				count.Add(1)
			}
		})
	}
	wg.Wait()
	return float64(count.Load()) / time.Since(start).Seconds(), count.Load()
}

func demoKey(merchant int) []byte {
	return []byte("paygate-demo-callback-secret-" + strconv.Itoa(merchant))
}

// sign is the documented scheme: v1,base64(HMAC-SHA256(key, id.ts.body)).
func sign(key []byte, id, ts string, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id + "." + ts + "."))
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// sink is the merchants' receiver: it verifies every signature and records
// what arrived per transaction. Requests to dead's merchant are held until
// the caller gives up.
type sink struct {
	failRate atomic.Uint64 // in hundredths of a percent (3000 = 30%)
	mu       sync.Mutex
	tx       map[int64]*txRecord
	requests int64
	okTotal  int64
	badSig   int64
	ok       atomic.Int64
	// dead is the merchant whose receiver never answers (0: none); held is
	// how many of its requests are held now.
	dead atomic.Int64
	held atomic.Int64
	// okBy and reqBy count 2xx answers and requests per merchant (index).
	okBy, reqBy []atomic.Int64
}

type txRecord struct {
	ids map[string]int
	ok  int
}

func newSink(merchants int) *sink {
	s := &sink{okBy: make([]atomic.Int64, merchants+1), reqBy: make([]atomic.Int64, merchants+1)}
	s.reset(0)
	return s
}

func (s *sink) reset(failRate float64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.failRate.Store(uint64(failRate * 10_000))
	s.tx, s.requests, s.okTotal, s.badSig = map[int64]*txRecord{}, 0, 0, 0
	s.ok.Store(0)
	s.dead.Store(0)
	for i := range s.okBy {
		s.okBy[i].Store(0)
		s.reqBy[i].Store(0)
	}
}

func (s *sink) okCount() int64 { return s.ok.Load() }

// okOf is the 2xx answers given for merchant's requests.
func (s *sink) okOf(merchant int) int64 { return s.okBy[merchant].Load() }

// requestsOf is the requests that came for merchant (held ones included).
func (s *sink) requestsOf(merchant int) int64 { return s.reqBy[merchant].Load() }

func (s *sink) uniqueTx() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tx)
}

type snapshot struct {
	tx                        map[int64]*txRecord
	requests, okTotal, badSig int64
}

func (s *sink) snapshot() snapshot {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx := make(map[int64]*txRecord, len(s.tx))
	for k, v := range s.tx {
		ids := make(map[string]int, len(v.ids))
		for i, n := range v.ids {
			ids[i] = n
		}
		tx[k] = &txRecord{ids: ids, ok: v.ok}
	}
	return snapshot{tx: tx, requests: s.requests, okTotal: s.okTotal, badSig: s.badSig}
}

func (s *sink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	merchant := 1
	if m, ok := strings.CutPrefix(r.URL.Path, "/hook/"); ok {
		merchant, _ = strconv.Atoi(m)
	}
	id, ts := r.Header.Get("webhook-id"), r.Header.Get("webhook-timestamp")
	good := slices.Contains(strings.Fields(r.Header.Get("webhook-signature")), sign(demoKey(merchant), id, ts, body))
	if r.URL.Path == "/bare" {
		if !good {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		w.WriteHeader(http.StatusNoContent)
		return
	}
	counted := merchant > 0 && merchant < len(s.reqBy)
	if counted {
		s.reqBy[merchant].Add(1)
	}
	var b struct {
		Data struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &b)
	txID, _ := strconv.ParseInt(b.Data.ID, 10, 64)
	dead := int64(merchant) == s.dead.Load()
	fail := mrand.Uint64N(10_000) < s.failRate.Load()
	s.mu.Lock()
	s.requests++
	if !good {
		s.badSig++
	}
	rec := s.tx[txID]
	if rec == nil {
		rec = &txRecord{ids: map[string]int{}}
		s.tx[txID] = rec
	}
	rec.ids[id]++
	if !fail && !dead {
		rec.ok++
		s.okTotal++
	}
	s.mu.Unlock()
	if dead {
		// No answer: the caller's timeout ends it (or the server's Close).
		s.held.Add(1)
		<-r.Context().Done()
		s.held.Add(-1)
		return
	}
	if fail {
		w.WriteHeader(http.StatusInternalServerError)
		return
	}
	s.ok.Add(1)
	if counted {
		s.okBy[merchant].Add(1)
	}
	w.WriteHeader(http.StatusNoContent)
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err != nil {
		return "unknown CPU"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown CPU"
}
