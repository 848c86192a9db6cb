// Command aggregator measures the statistics of issue 14 at scale
// (bench/README.md, "Statistics at scale"): on a gateway schema loaded by
// bench/txgen it starts bin/auth, bin/gateway and bin/aggregator on bench
// ports and schemas (and a NATS server of its own, so that no other stack's
// events reach the bench aggregator and none of the bench's reach theirs),
// then
//
//  1. times `bin/aggregator rebuild` end to end, beside the bare read of the
//     same rows through pgx (the ceiling a replay cannot beat);
//  2. times GET /api/v1/statistics per range and scope on the aggregator host
//     and through the gateway host, beside one SQL over the gateway's rows
//     that computes the same figures, and checks that both agree;
//  3. publishes synthetic transaction events to JetStream and times until
//     the aggregator's statistics include them, beside the publish rate of
//     the same events alone.
//
// It is a plain main package, not a test: `make test` never runs it.
// Nothing here imports a service's packages; the services are driven through
// their REST APIs and the generated messages in gen/go.
package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/paygate/paygate/bench/internal/harness"
	aggregatorv1 "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
)

var natsServer, natsURL = harness.NATSFlags()

var (
	dbURL       = flag.String("db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL (database of the three schemas)")
	gwSchema    = flag.String("gateway-schema", "gateway_bench", "gateway schema, loaded by bench/txgen")
	aggSchema   = flag.String("schema", "aggregator_bench", "aggregator schema (made by the aggregator)")
	authSchema  = flag.String("auth-schema", "auth_bench", "auth schema")
	binDir      = flag.String("bin", "bin", "folder of the auth, gateway and aggregator binaries")
	redisURL    = flag.String("redis", "redis://127.0.0.1:6379/7", "Redis URL of the bench services (a DB of their own)")
	portBase    = flag.Int("port-base", 18000, "auth on base+81, gateway +82, aggregator +84 (gRPC +1081, +1082, +1084), NATS +4222")
	doRebuild   = flag.Bool("rebuild", true, "time `aggregator rebuild` (false: measure the statistics the schema holds)")
	doCeiling   = flag.Bool("ceiling", true, "time the bare pgx read of the rows before and after the rebuild")
	ceilAfter   = flag.Bool("ceiling-after", true, "read the rows a second time after the rebuild (false: the read before is the ceiling; at 10 M rows a read takes minutes)")
	requests    = flag.Int("requests", 30, "timed requests per range, after one warm-up")
	doStats     = flag.Bool("statistics", true, "measure the statistics per range (false: only the rebuild and the consumer)")
	events      = flag.Int("events", 200000, "synthetic events (half created, half finalized) for the consumer phase; 0 skips it")
	eventsQuiet = flag.Duration("consumer-timeout", 5*time.Minute, "most time the consumer phase waits for the statistics")
	freshRate   = flag.Float64("freshness-rate", 1000, "transactions per second (created, then finalized) of the freshness phase; 0 skips it")
	freshFor    = flag.Duration("freshness-duration", 30*time.Second, "how long the freshness phase publishes")
)

// procs are the processes the bench started; their logs are /tmp/aggbench-<name>.log.
var procs = &harness.Group{Logs: "/tmp/aggbench-", Grace: 10 * time.Second}

func fatalf(format string, args ...any) { procs.Fatalf(format, args...) }

func main() {
	flag.Parse()
	log.SetFlags(log.Ltime)
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() { <-sig; fatalf("interrupted") }()
	defer procs.StopAll()

	ctx := context.Background()
	gw := connect(ctx, *gwSchema)
	defer gw.Close(ctx)
	var rows, minID, maxID int64
	if err := gw.QueryRow(ctx, `SELECT count(*), COALESCE(min(id), 0), COALESCE(max(id), 0) FROM transactions`).Scan(&rows, &minID, &maxID); err != nil {
		fatalf("count %s.transactions: %v", *gwSchema, err)
	}
	var heap string
	var corr float64
	_ = gw.QueryRow(ctx, `SELECT pg_size_pretty(sum(pg_table_size(relid))) FROM pg_partition_tree('transactions')`).Scan(&heap)
	// How closely id order follows created_at order: a replay page of 1000
	// ids touches a few rollup hours when it does (as in production, where
	// ids are handed out as rows are made), about 1000 when it does not (as
	// bench/txgen writes them: created_at random, corr ≈ 0).
	_ = gw.QueryRow(ctx, `SELECT COALESCE(corr(id, extract(epoch FROM created_at)), 0) FROM transactions`).Scan(&corr)
	fmt.Printf("gateway rows: %d (ids %d … %d), table %s, corr(id, created_at) %.3f; load average %s\n", rows, minID, maxID, heap, corr, harness.LoadAvg())

	// The services.
	authHTTP := fmt.Sprintf("127.0.0.1:%d", *portBase+81)
	gwHTTP := fmt.Sprintf("127.0.0.1:%d", *portBase+82)
	gwGRPC := fmt.Sprintf("127.0.0.1:%d", *portBase+1082)
	aggHTTP := fmt.Sprintf("127.0.0.1:%d", *portBase+84)
	aggGRPC := fmt.Sprintf("127.0.0.1:%d", *portBase+1084)
	nurl, err := procs.StartNATS(*natsServer, *natsURL, *portBase+4222)
	if err != nil {
		fatalf("%v", err)
	}
	common := []string{"PAYGATE_DEMO=true", "PAYGATE_LOG_LEVEL=warn", "PAYGATE_NATS_URL=" + nurl,
		"PAYGATE_REDIS_URL=" + *redisURL, "PAYGATE_JWKS_URL=http://" + authHTTP + "/.well-known/jwks.json",
		"PAYGATE_DATABASE_URL=" + *dbURL}
	authProc := procs.MustStart("auth", []string{*binDir + "/auth"}, append(slices.Clone(common),
		"PAYGATE_DATABASE_SCHEMA="+*authSchema, "PAYGATE_REDIS_KEY_PREFIX=paygate:aggbench:",
		"PAYGATE_ACCESS_TOKEN_TTL=1h", "PAYGATE_HTTP_ADDR="+authHTTP,
		fmt.Sprintf("PAYGATE_GRPC_ADDR=127.0.0.1:%d", *portBase+1081)))
	gwProc := procs.MustStart("gateway", []string{*binDir + "/gateway"}, append(slices.Clone(common),
		"PAYGATE_DATABASE_SCHEMA="+*gwSchema, "PAYGATE_HTTP_ADDR="+gwHTTP, "PAYGATE_GRPC_ADDR="+gwGRPC,
		"PAYGATE_AGGREGATOR_GRPC_ADDR="+aggGRPC,
		fmt.Sprintf("PAYGATE_SANDBOX_URL=http://127.0.0.1:%d", *portBase+85),
		// txgen leaves 1 % of the rows Not Confirmed: the recovery sweep
		// would resolve them (and change the data) while we measure.
		"PAYGATE_RECOVERY_AFTER=876000h"))
	aggEnv := append(slices.Clone(common), "PAYGATE_DATABASE_SCHEMA="+*aggSchema,
		"PAYGATE_HTTP_ADDR="+aggHTTP, "PAYGATE_GRPC_ADDR="+aggGRPC, "PAYGATE_GATEWAY_GRPC_ADDR="+gwGRPC,
		"PAYGATE_AGGREGATOR_AUTO_REBUILD=false")
	aggProc := procs.MustStart("aggregator", []string{*binDir + "/aggregator"}, aggEnv)
	for addr, p := range map[string]*harness.Proc{authHTTP: authProc, gwHTTP: gwProc, aggHTTP: aggProc} {
		if err := harness.WaitReady(ctx, "http://"+addr, 2*time.Minute, p); err != nil {
			fatalf("%v", err)
		}
	}
	fmt.Printf("services ready; load average %s\n\n", harness.LoadAvg())

	if *doRebuild {
		var before time.Duration
		if *doCeiling {
			before = ceiling(ctx, gw)
		}
		fmt.Printf("rebuild starts; load average %s\n", harness.LoadAvg())
		t0 := time.Now()
		cmd := exec.Command(*binDir+"/aggregator", "rebuild")
		cmd.Env = append(os.Environ(), aggEnv...)
		out, err := cmd.CombinedOutput()
		took := time.Since(t0)
		_ = os.WriteFile("/tmp/aggbench-rebuild.log", out, 0o644)
		if err != nil {
			fatalf("aggregator rebuild: %v\n%s", err, out)
		}
		fmt.Printf("rebuild: %d rows in %s = %.0f rows/s (%.1f s per million); load average %s\n",
			rows, took.Round(time.Millisecond), float64(rows)/took.Seconds(), took.Seconds()/float64(rows)*1e6, harness.LoadAvg())
		if *doCeiling {
			best := before
			if *ceilAfter {
				best = min(before, ceiling(ctx, gw))
			}
			fmt.Printf("ceiling (bare read, best of the reads): %s = %.0f rows/s; rebuild / ceiling = %.1f×\n",
				best.Round(time.Millisecond), float64(rows)/best.Seconds(), took.Seconds()/best.Seconds())
		}
		agg := connect(ctx, *aggSchema)
		var states int64
		if err := agg.QueryRow(ctx, `SELECT count(*) FROM tx_state`).Scan(&states); err != nil {
			fatalf("count tx_state: %v", err)
		}
		_ = agg.Close(ctx)
		mark := "equal"
		if states != rows {
			mark = "MISMATCH"
		}
		fmt.Printf("aggregator tx_state rows %d, gateway rows %d: %s\n\n", states, rows, mark)
	}

	tokens := map[string]string{"admin": login("http://"+authHTTP, "admin"), "merchant": login("http://"+authHTTP, "merchant")}
	mismatches := 0
	if *doStats {
		mismatches = statistics(ctx, gw, tokens, "http://"+aggHTTP, "http://"+gwHTTP)
	}
	if *events > 0 {
		consumer(ctx, gw, nurl, tokens["admin"], "http://"+aggHTTP)
	}
	if *freshRate > 0 {
		freshness(ctx, gw, nurl, tokens["admin"], "http://"+aggHTTP)
	}
	fmt.Printf("\nload average at the end %s\n", harness.LoadAvg())
	if mismatches > 0 {
		procs.StopAll()
		log.Fatalf("%d MISMATCHES between the aggregator and the gateway's rows", mismatches)
	}
}

func connect(ctx context.Context, schema string) *pgx.Conn {
	conn, err := pgx.Connect(ctx, *dbURL)
	if err != nil {
		fatalf("%v", err)
	}
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgx.Identifier{schema}.Sanitize()); err != nil {
		fatalf("%v", err)
	}
	return conn
}

// replayColumns are the columns the gateway's replay reads for every
// transaction (its transactionColumns).
const replayColumns = `id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
	provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message, error_message,
	amount::text, currency, destination_amount::text, destination_currency, COALESCE(provider_transaction_id, ''),
	provider_tags, provider_data, account_data, payment_ip_address, user_agent, payment_method_type,
	payment_method_value, COALESCE(applied_fee_id, 0), applied_fee_type, applied_fee_value::text,
	applied_fee_amount::text, applied_fee_currency, applied_fee_payer, callbacks_delivered, callbacks_total, callbacks_canceled,
	poll_attempts, next_poll_at, created_at, updated_at, status_version`

// ceiling reads every row the replay reads, with the same columns, in one
// pass through pgx on one connection, without decoding them: the least a
// replay of the table costs.
func ceiling(ctx context.Context, conn *pgx.Conn) time.Duration {
	t0 := time.Now()
	rs, err := conn.Query(ctx, `SELECT `+replayColumns+` FROM transactions`)
	if err != nil {
		fatalf("ceiling: %v", err)
	}
	var n, bytes int64
	for rs.Next() {
		for _, v := range rs.RawValues() {
			bytes += int64(len(v))
		}
		n++
	}
	if err := rs.Err(); err != nil {
		fatalf("ceiling: %v", err)
	}
	took := time.Since(t0)
	fmt.Printf("ceiling: bare pgx read of %d rows (%d MB of values): %s = %.0f rows/s; load average %s\n",
		n, bytes>>20, took.Round(time.Millisecond), float64(n)/took.Seconds(), harness.LoadAvg())
	return took
}

func login(base, user string) string {
	body, _ := json.Marshal(map[string]string{"username": user, "password": "paygate-demo"})
	resp, err := http.Post(base+"/api/v1/login", "application/json", bytes.NewReader(body))
	if err != nil {
		fatalf("%v", err)
	}
	defer resp.Body.Close()
	var out struct {
		AccessToken string `json:"accessToken"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil || out.AccessToken == "" {
		fatalf("login %s: %d %s", user, resp.StatusCode, raw)
	}
	return out.AccessToken
}

var client = &http.Client{Timeout: 60 * time.Second}

// get returns the statistics answer and its latency.
func get(base, token string, q url.Values) (*aggregatorv1.GetStatisticsResponse, time.Duration) {
	req, _ := http.NewRequest(http.MethodGet, base+"/api/v1/statistics?"+q.Encode(), nil)
	req.Header.Set("Authorization", "Bearer "+token)
	t0 := time.Now()
	resp, err := client.Do(req)
	if err != nil {
		fatalf("GET statistics: %v", err)
	}
	raw, err := io.ReadAll(resp.Body)
	took := time.Since(t0)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK {
		fatalf("GET %s/api/v1/statistics?%s: %d %s %v", base, q.Encode(), resp.StatusCode, raw, err)
	}
	var out aggregatorv1.GetStatisticsResponse
	if err := (protojson.UnmarshalOptions{DiscardUnknown: true}).Unmarshal(raw, &out); err != nil {
		fatalf("decode statistics: %v", err)
	}
	return &out, took
}

// urlValues asks the statistics of day (UTC midnight) in USD.
func urlValues(day time.Time) url.Values {
	return url.Values{"currency": {"USD"}, "from": {day.Format(time.RFC3339)},
		"to": {day.Add(24*time.Hour - time.Millisecond).Format("2006-01-02T15:04:05.000Z07:00")}}
}

type span struct {
	name     string
	from, to time.Time // to inclusive, one ms before a whole hour
}

// ranges are the console's ranges in the zone offset hours east of UTC:
// local midnight … 23:59:59.999.
func ranges(now time.Time, offset int) []span {
	zone := time.FixedZone(fmt.Sprintf("UTC%+d", offset), offset*3600)
	l := now.In(zone)
	today := time.Date(l.Year(), l.Month(), l.Day(), 0, 0, 0, 0, zone)
	end := today.AddDate(0, 0, 1).Add(-time.Millisecond)
	out := []span{{"Today", today, end}, {"Yesterday", today.AddDate(0, 0, -1), today.Add(-time.Millisecond)}}
	for _, d := range []int{7, 14, 30, 90, 180, 365} {
		out = append(out, span{fmt.Sprintf("Last %d days", d), today.AddDate(0, 0, 1-d), end})
	}
	return out
}

type pct struct{ p50, p95, p99, max float64 }

func percentiles(lat []time.Duration) pct {
	ms := make([]float64, len(lat))
	for i, d := range lat {
		ms[i] = float64(d.Microseconds()) / 1000
	}
	slices.Sort(ms)
	p := func(q float64) float64 {
		i := int(q*float64(len(ms))+0.5) - 1
		return ms[max(0, min(i, len(ms)-1))]
	}
	return pct{p(0.5), p(0.95), p(0.99), ms[len(ms)-1]}
}

// truth is the statistics computed from the gateway's rows.
type truth struct {
	total, successful, failed, pending, validationFailed, pspError, cancelled, notConfirmed int64
	cashInN, cashOutN                                                                       int64
	cashIn, cashOut                                                                         string
}

// truthSQL counts the gateway's transactions made in [$1, $2) by status
// family (docs/statistics.md), and converts the successful deposits and
// withdrawals to USD at the rate in force on each one's UTC day: the rows
// are grouped by (status, type, currency, UTC day) first, then each group
// meets its rate.
const truthSQL = `
WITH g AS (
	SELECT status, transaction_type, currency, (created_at AT TIME ZONE 'UTC')::date AS d, count(*) AS n, sum(amount) AS amount
	FROM transactions
	WHERE created_at >= $1 AND created_at < $2 AND ($3::int[] IS NULL OR merchant_id = ANY ($3))
	GROUP BY 1, 2, 3, 4
), r AS (
	SELECT g.*, CASE WHEN g.currency = 'USD' THEN 1::numeric ELSE (
		SELECT usd_rate FROM currency_rates c WHERE c.currency = g.currency AND c.effective_from <= g.d
		ORDER BY effective_from DESC, id DESC LIMIT 1) END AS f
	FROM g
)
SELECT COALESCE(sum(n), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status = 4), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status NOT IN (4, 3, 2, 300, 1, -1, -2, -6)), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status IN (3, 2, 300)), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status = -6), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status = -2), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status = -1), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status = 1), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status = 4 AND transaction_type = 1), 0)::bigint,
	COALESCE(sum(n) FILTER (WHERE status = 4 AND transaction_type = 2), 0)::bigint,
	COALESCE(round(sum(amount * f) FILTER (WHERE status = 4 AND transaction_type = 1), 2), 0)::text,
	COALESCE(round(sum(amount * f) FILTER (WHERE status = 4 AND transaction_type = 2), 2), 0)::text
FROM r`

func groundTruth(ctx context.Context, conn *pgx.Conn, s span, merchants []int32) (truth, time.Duration) {
	var t truth
	t0 := time.Now()
	err := conn.QueryRow(ctx, truthSQL, s.from, s.to.Add(time.Millisecond), merchants).Scan(&t.total, &t.successful,
		&t.failed, &t.pending, &t.validationFailed, &t.pspError, &t.cancelled, &t.notConfirmed,
		&t.cashInN, &t.cashOutN, &t.cashIn, &t.cashOut)
	if err != nil {
		fatalf("ground truth: %v", err)
	}
	return t, time.Since(t0)
}

// compare returns what differs between the aggregator's answer and the
// gateway's rows.
func compare(r *aggregatorv1.GetStatisticsResponse, t truth) []string {
	var diff []string
	chk := func(name string, got, want int64) {
		if got != want {
			diff = append(diff, fmt.Sprintf("%s %d ≠ %d", name, got, want))
		}
	}
	chk("total", r.GetTotal(), t.total)
	chk("successful", r.GetSuccessful(), t.successful)
	chk("failed", r.GetFailed(), t.failed)
	chk("pending", r.GetPending(), t.pending)
	chk("validationFailed", r.GetValidationFailed(), t.validationFailed)
	chk("pspError", r.GetPspError(), t.pspError)
	chk("cancelled", r.GetCancelled(), t.cancelled)
	chk("notConfirmed", r.GetNotConfirmed(), t.notConfirmed)
	chk("cashIn.count", r.GetCashInData().GetCount(), t.cashInN)
	chk("cashOut.count", r.GetCashOutData().GetCount(), t.cashOutN)
	if !harness.SameAmount(r.GetCashInData().GetAmount(), t.cashIn) {
		diff = append(diff, fmt.Sprintf("cashIn.amount %s ≠ %s", r.GetCashInData().GetAmount(), t.cashIn))
	}
	if !harness.SameAmount(r.GetCashOutData().GetAmount(), t.cashOut) {
		diff = append(diff, fmt.Sprintf("cashOut.amount %s ≠ %s", r.GetCashOutData().GetAmount(), t.cashOut))
	}
	if len(r.GetUnconverted()) > 0 {
		diff = append(diff, fmt.Sprintf("%d unconverted amounts", len(r.GetUnconverted())))
	}
	return diff
}

func statistics(ctx context.Context, gw *pgx.Conn, tokens map[string]string, aggBase, gwBase string) int {
	now := time.Now()
	scopes := []struct {
		user      string
		merchants []int32
	}{{"admin", nil}, {"merchant", []int32{1}}}
	mismatches := 0
	fmt.Printf("statistics (GET /api/v1/statistics?currency=USD, %d requests after 1 warm-up; load average %s)\n\n", *requests, harness.LoadAvg())
	fmt.Println("| scope | zone | range | total | aggregator p50 / p95 / max ms | through gateway p50 / p95 ms | SQL over gateway rows ms | check |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, sc := range scopes {
		for _, off := range []int{0, 8} {
			for _, s := range ranges(now, off) {
				q := url.Values{"currency": {"USD"}, "from": {s.from.Format("2006-01-02T15:04:05.000Z07:00")},
					"to": {s.to.Format("2006-01-02T15:04:05.000Z07:00")}}
				token := tokens[sc.user]
				run := func(base string) (*aggregatorv1.GetStatisticsResponse, pct) {
					get(base, token, q)
					var lat []time.Duration
					var last *aggregatorv1.GetStatisticsResponse
					for range *requests {
						r, d := get(base, token, q)
						lat = append(lat, d)
						last = r
					}
					return last, percentiles(lat)
				}
				ans, pa := run(aggBase)
				viaGW, pg := run(gwBase)
				t, took := groundTruth(ctx, gw, s, sc.merchants)
				diff := compare(ans, t)
				if d2 := compare(viaGW, t); len(d2) > 0 && len(diff) == 0 {
					diff = append(diff, "through the gateway: "+strings.Join(d2, ", "))
				}
				check := "equal"
				if len(diff) > 0 {
					mismatches++
					check = "**MISMATCH**: " + strings.Join(diff, "; ")
					log.Printf("MISMATCH %s %s %s: %s", sc.user, s.name, q.Encode(), strings.Join(diff, "; "))
				}
				fmt.Printf("| %s | UTC%+d | %s | %d | %.1f / %.1f / %.1f | %.1f / %.1f | %.0f | %s |\n", sc.user, off, s.name,
					ans.GetTotal(), pa.p50, pa.p95, pa.max, pg.p50, pg.p95, float64(took.Microseconds())/1000, check)
			}
		}
	}
	fmt.Printf("\nload average after the statistics %s\n", harness.LoadAvg())
	return mismatches
}

// consumer publishes synthetic TransactionCreated + TransactionFinalized
// events for new ids to JetStream and times until the aggregator's
// statistics count them, beside the publish rate of the same events to a
// subject nobody consumes.
func consumer(ctx context.Context, gw *pgx.Conn, nurl, token, aggBase string) {
	c := firstCollab(ctx, gw)
	nc, js := jetStream(nurl)
	defer nc.Close()
	n := *events / 2
	run := time.Now().UnixNano()
	// Ids far above any real one: 10^15 + the run's seconds × 10^6.
	base := int64(1_000_000_000_000_000) + (run/1e9%1_000_000)*1_000_000
	now := time.Now().UTC()
	msgs := make([]*nats.Msg, 0, 2*n)
	for i := range n {
		created, finalized := c.events(run, base+int64(i), now)
		msgs = append(msgs, created, finalized)
	}
	publish := func(subject func(*nats.Msg) string, idSuffix string) time.Duration {
		t0 := time.Now()
		const window = 4000
		var futures []jetstream.PubAckFuture
		for _, m := range msgs {
			out := nats.NewMsg(subject(m))
			out.Data = m.Data
			out.Header.Set(nats.MsgIdHdr, m.Header.Get(nats.MsgIdHdr)+idSuffix)
			f, err := js.PublishMsgAsync(out)
			if err != nil {
				fatalf("publish: %v", err)
			}
			futures = append(futures, f)
			if len(futures) >= window {
				for _, f := range futures {
					select {
					case <-f.Ok():
					case err := <-f.Err():
						fatalf("publish: %v", err)
					}
				}
				futures = futures[:0]
			}
		}
		for _, f := range futures {
			select {
			case <-f.Ok():
			case err := <-f.Err():
				fatalf("publish: %v", err)
			}
		}
		return time.Since(t0)
	}

	// Ceiling: the same events, published alone to a subject of the stream
	// that no consumer reads.
	fmt.Printf("\nconsumer: %d events (%d transactions, created + finalized, ids from %d); load average %s\n", len(msgs), n, base, harness.LoadAvg())
	alone := publish(func(*nats.Msg) string { return "paygate.events.aggbench_probe" }, "-probe")
	fmt.Printf("ceiling: JetStream publish alone: %s = %.0f events/s\n", alone.Round(time.Millisecond), float64(len(msgs))/alone.Seconds())
	if stream, err := js.Stream(ctx, "PAYGATE_EVENTS"); err == nil {
		_ = stream.Purge(ctx, jetstream.WithPurgeSubject("paygate.events.aggbench_probe"))
	}

	q := urlValues(now.Truncate(time.Hour).Add(-time.Duration(now.Hour()) * time.Hour))
	before, _ := get(aggBase, token, q)
	t0 := time.Now()
	pubDone := make(chan time.Duration, 1)
	go func() { pubDone <- publish(func(m *nats.Msg) string { return m.Subject }, "") }()
	var pubTook time.Duration
	wantTotal, wantOK := before.GetTotal()+int64(n), before.GetSuccessful()+int64(n)
	var last *aggregatorv1.GetStatisticsResponse
	var series []string
	nextMark := time.Second
	for {
		time.Sleep(100 * time.Millisecond)
		last, _ = get(aggBase, token, q)
		if el := time.Since(t0); el >= nextMark {
			series = append(series, fmt.Sprintf("%ds %d", int(el.Seconds()+0.5), last.GetTotal()-before.GetTotal()))
			nextMark += time.Second
		}
		if last.GetTotal() >= wantTotal && last.GetSuccessful() >= wantOK {
			break
		}
		if time.Since(t0) > *eventsQuiet {
			fatalf("consumer: after %s the statistics hold %d of %d transactions (%d of %d successful)",
				*eventsQuiet, last.GetTotal()-before.GetTotal(), n, last.GetSuccessful()-before.GetSuccessful(), n)
		}
	}
	took := time.Since(t0)
	select {
	case pubTook = <-pubDone:
	default:
		pubTook = <-pubDone
	}
	fmt.Printf("consumer: all %d events in the statistics after %s = %.0f events/s (published in %s, %.0f events/s while consumed); "+
		"total %d → %d, successful %d → %d; load average %s\n",
		len(msgs), took.Round(time.Millisecond), float64(len(msgs))/took.Seconds(), pubTook.Round(time.Millisecond),
		float64(len(msgs))/pubTook.Seconds(), before.GetTotal(), last.GetTotal(), before.GetSuccessful(), last.GetSuccessful(), harness.LoadAvg())
	fmt.Printf("transactions in the statistics, by second: %s\n", strings.Join(series, ", "))
	if last.GetTotal() != wantTotal || last.GetSuccessful() != wantOK {
		log.Printf("MISMATCH consumer: total %d (want %d), successful %d (want %d)", last.GetTotal(), wantTotal, last.GetSuccessful(), wantOK)
	}
}
