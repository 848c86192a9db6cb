// Command listbench measures the transaction list of the real gateway
// through REST (GET /api/v1/collabs/{id}/transactions/advanced) on a schema
// loaded by bench/txgen: p50/p95 per documented filter, alone and combined,
// page 1 and page 100, and the lookups by id and reference. It starts
// bin/auth (demo users, its own schema and Redis prefix) and bin/gateway on
// loopback ports, signs in as the demo admin, runs the requests one at a
// time, prints a Markdown table, then prints the plans of the store's SQL
// (mirrored here) for every case and EXPLAIN (ANALYZE, BUFFERS) for the
// headline ones. The statements are the store's own
// (postgres.ListStatements), so they cannot drift from what the gateway
// sends. Before measuring it builds the list's rollups (migration 0010) when
// they are not built yet, and reports how long that took. Both services are
// stopped before it exits.
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
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
)

var (
	dbURL      = flag.String("db", "postgres://postgres@127.0.0.1:5432/paygate?sslmode=disable", "Postgres URL")
	schema     = flag.String("schema", "gateway_bench", "gateway schema loaded by bench/txgen")
	authSchema = flag.String("auth-schema", "auth_bench", "auth schema (demo users)")
	gatewayBin = flag.String("gateway", "bin/gateway", "gateway binary")
	authBin    = flag.String("auth", "bin/auth", "auth binary")
	requests   = flag.Int("requests", 30, "measured requests per case (after 1 warm-up)")
	budget     = flag.Duration("case-budget", 6*time.Second, "stop a case after this long (at least 1 measured request; no warm-up when the first takes over a quarter of it)")
	take       = flag.Int("take", 20, "page size")
	portBase   = flag.Int("port-base", 18000, "auth on +81/+1081, gateway on +82/+1082")
	plans      = flag.Bool("plans", true, "print the plans")
	build      = flag.Bool("build", true, "build the list's rollups first when they are not built")
	only       = flag.String("only", "", "run only the cases whose name matches this regular expression")
	clients    = flag.Int("clients", 1, "requests in flight at once (each client sends the next when its last is answered)")
	explainAll = flag.Bool("explain-all", false, "EXPLAIN (ANALYZE, BUFFERS) every case, not only the headline ones")
)

type service struct {
	name string
	cmd  *exec.Cmd
}

func start(name, bin string, env []string, logPath string) *service {
	f, err := os.Create(logPath)
	if err != nil {
		fatalf("%v", err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), env...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		fatalf("start %s: %v", name, err)
	}
	svc := &service{name: name, cmd: cmd}
	running = append(running, svc)
	return svc
}

// running are the services started so far; fatalf and a signal stop them
// so that no gateway or auth outlives the benchmark.
var running []*service

func stopAll() {
	for i := len(running) - 1; i >= 0; i-- {
		running[i].stop()
	}
	running = nil
}

func fatalf(format string, args ...any) {
	stopAll()
	log.Fatalf(format, args...)
}

// cpuTime is the CPU time the service's process has used so far (user and
// system, from /proc; in clock ticks of 10 ms, so read it over many requests).
func (s *service) cpuTime() time.Duration {
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		fatalf("cpu time of %s: %v", s.name, err)
	}
	// The fields after the command's name, which is in parentheses: utime
	// and stime are the 12th and 13th of them.
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		fatalf("cpu time of %s: %q", s.name, raw)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}

func (s *service) stop() {
	_ = s.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-done
	}
}

func waitReady(base string) error {
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return fmt.Errorf("%s/readyz not ready after 60s", base)
}

// sample holds real values picked from the loaded table.
type sample struct {
	collabID, merchantID  int32
	id                    int64
	ref, ptid, cid, nonce string
	pmValue, ip           string
	from, to              time.Time
	rows                  int64
}

type listCase struct {
	name    string
	collab  int32
	query   url.Values
	pages   bool // run page 100 too
	path    string
	explain bool // EXPLAIN (ANALYZE, BUFFERS) it
}

func main() {
	flag.Parse()
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM, syscall.SIGPIPE)
	go func() {
		<-sig
		stopAll()
		os.Exit(130)
	}()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, *dbURL)
	if err != nil {
		fatalf("%v", err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "SET search_path TO "+pgx.Identifier{*schema}.Sanitize()); err != nil {
		fatalf("%v", err)
	}
	s := pick(ctx, conn)
	rollups(ctx, conn)

	authHTTP := fmt.Sprintf("127.0.0.1:%d", *portBase+81)
	gwHTTP := fmt.Sprintf("127.0.0.1:%d", *portBase+82)
	start("auth", *authBin, []string{
		"PAYGATE_DEMO=true", "PAYGATE_DATABASE_SCHEMA=" + *authSchema,
		"PAYGATE_REDIS_KEY_PREFIX=paygate:authbench:", "PAYGATE_ACCESS_TOKEN_TTL=1h",
		"PAYGATE_HTTP_ADDR=" + authHTTP, fmt.Sprintf("PAYGATE_GRPC_ADDR=127.0.0.1:%d", *portBase+1081),
		"PAYGATE_LOG_LEVEL=warn",
	}, "/tmp/listbench-auth.log")
	gateway := start("gateway", *gatewayBin, []string{
		"PAYGATE_DEMO=true", "PAYGATE_DATABASE_SCHEMA=" + *schema,
		"PAYGATE_HTTP_ADDR=" + gwHTTP, fmt.Sprintf("PAYGATE_GRPC_ADDR=127.0.0.1:%d", *portBase+1082),
		"PAYGATE_JWKS_URL=http://" + authHTTP + "/.well-known/jwks.json",
		fmt.Sprintf("PAYGATE_SANDBOX_URL=http://127.0.0.1:%d", *portBase+85), "PAYGATE_LOG_LEVEL=warn",
		// txgen leaves 1 % of the rows Not Confirmed: the recovery sweep
		// would resolve them (and change the data) while we measure.
		"PAYGATE_RECOVERY_AFTER=876000h",
	}, "/tmp/listbench-gateway.log")
	defer stopAll()
	for _, b := range []string{"http://" + authHTTP, "http://" + gwHTTP} {
		if err := waitReady(b); err != nil {
			fatalf("%v", err)
		}
	}
	token := login("http://" + authHTTP)

	cases := buildCases(s)
	if *only != "" {
		re, err := regexp.Compile(*only)
		if err != nil {
			fatalf("-only: %v", err)
		}
		cases = slices.DeleteFunc(cases, func(c listCase) bool { return !re.MatchString(c.name) })
	}
	if *explainAll {
		for i := range cases {
			cases[i].explain = true
		}
	}
	client := &http.Client{Timeout: 60 * time.Second}
	fmt.Printf("transactions: %d rows; collab %d (merchant %d); range %s … %s\n\n",
		s.rows, s.collabID, s.merchantID, s.from.Format(time.RFC3339), s.to.Format(time.RFC3339))
	fmt.Println("| case | page | totalCount | p50 ms | p95 ms | max ms | n | gateway CPU µs per request |")
	fmt.Println("|---|---|---|---|---|---|---|---|")
	for _, c := range cases {
		pagesToRun := []int{1}
		if c.pages {
			pagesToRun = append(pagesToRun, 100)
		}
		for _, page := range pagesToRun {
			var u string
			if c.path != "" {
				u = "http://" + gwHTTP + c.path
			} else {
				q := url.Values{}
				for k, v := range c.query {
					q[k] = v
				}
				q.Set("take", strconv.Itoa(*take))
				q.Set("page", strconv.Itoa(page))
				u = fmt.Sprintf("http://%s/api/v1/collabs/%d/transactions/advanced?%s", gwHTTP, c.collab, q.Encode())
			}
			cpu0 := gateway.cpuTime()
			lat, count, sent := measure(client, u, token)
			cpu := gateway.cpuTime() - cpu0
			p := func(q float64) float64 {
				i := int(q*float64(len(lat))+0.5) - 1
				return lat[max(0, min(i, len(lat)-1))]
			}
			fmt.Printf("| %s | %d | %s | %.1f | %.1f | %.1f | %d | %.0f |\n", c.name, page, count, p(0.50), p(0.95), lat[len(lat)-1], len(lat),
				float64(cpu.Microseconds())/float64(sent))
		}
	}
	if *plans {
		printPlans(ctx, conn, cases)
	}
}

// rollups prints whether the list's rollups are built, building them first
// (timed) when -build is set.
func rollups(ctx context.Context, conn *pgx.Conn) {
	var built bool
	if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM transaction_totals_state WHERE built_at IS NOT NULL)`).Scan(&built); err != nil {
		fatalf("rollup state (is migration 0010 applied?): %v", err)
	}
	if built || !*build {
		fmt.Printf("rollups built: %v\n", built)
		return
	}
	t0 := time.Now()
	var n *int64
	if err := conn.QueryRow(ctx, `SELECT build_transaction_totals(true)`).Scan(&n); err != nil {
		fatalf("build rollups: %v", err)
	}
	took := time.Since(t0)
	// As Payments.FoldTotals does after a build.
	if _, err := conn.Exec(ctx, `VACUUM (ANALYZE) transaction_totals_hourly, transaction_totals_daily`); err != nil {
		fatalf("analyze rollups: %v", err)
	}
	var hourly, daily int64
	if err := conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM transaction_totals_hourly), (SELECT count(*) FROM transaction_totals_daily)`).Scan(&hourly, &daily); err != nil {
		fatalf("%v", err)
	}
	fmt.Printf("rollups built in %s, vacuumed and analyzed in %s (%d hourly rows, %d daily rows)\n",
		took.Round(time.Millisecond), (time.Since(t0) - took).Round(time.Millisecond), hourly, daily)
}

// filter is the store's filter for a case, parsed as the gateway parses the
// REST query (payment.ParseListQuery), for the admin's scope.
func filter(c listCase, page int) payment.ListFilter {
	q := c.query
	num := func(k string) int32 {
		n, _ := strconv.Atoi(q.Get(k))
		return int32(n)
	}
	f, err := payment.ParseListQuery(payment.ListQuery{
		CollabID: c.collab, MerchantID: num("MerchantId"), Page: ptr(int32(page)), Take: ptr(int32(*take)), Type: num("type"),
		Statuses: q["statuses"], ProviderTID: q.Get("providerTid"), MerchantCID: q.Get("merchantCid"),
		Nonce: q.Get("nonce"), From: q.Get("from"), To: q.Get("to"), MinAmount: q.Get("minAmount"),
		MaxAmount: q.Get("maxAmount"), Currency: q.Get("currency"), PaymentMethodValue: q.Get("paymentMethodValue"),
		PaymentMethodType: num("paymentMethodType"), PaymentIP: q.Get("paymentIpAddress"),
		IncludeTotals: q.Get("includeTotalAmounts") == "true", Search: q.Get("search"),
	})
	if err != nil {
		fatalf("case %s: %v", c.name, err)
	}
	f.Scope = merchant.Scope{All: true}
	return f
}

func login(base string) string {
	body, _ := json.Marshal(map[string]string{"username": "admin", "password": "paygate-demo"})
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
		fatalf("login: %d %s", resp.StatusCode, raw)
	}
	return out.AccessToken
}

// measure sends the case's requests and returns their latencies (the
// warm-up not among them unless the case is slow), the first answer's
// totalCount and how many requests it sent in all.
func measure(client *http.Client, u, token string) ([]float64, string, int) {
	get := func() (time.Duration, []byte) {
		req, _ := http.NewRequest(http.MethodGet, u, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			fatalf("GET %s: %v", u, err)
		}
		raw, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if resp.StatusCode != 200 {
			fatalf("GET %s: %d %s", u, resp.StatusCode, raw)
		}
		return d, raw
	}
	var lat []float64
	count := "-"
	began := time.Now()
	d, raw := get()
	var out struct {
		TotalCount json.Number `json:"totalCount"`
	}
	if json.Unmarshal(raw, &out) == nil && out.TotalCount != "" {
		count = out.TotalCount.String()
	}
	if d > *budget/4 {
		lat = append(lat, float64(d.Microseconds())/1000) // a slow case: its first request counts
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		left = *requests - len(lat)
	)
	for range max(1, *clients) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				over := left <= 0 || (len(lat) >= 1 && time.Since(began) > *budget)
				left--
				mu.Unlock()
				if over {
					return
				}
				d, _ := get()
				mu.Lock()
				lat = append(lat, float64(d.Microseconds())/1000)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	slices.Sort(lat)
	sent := len(lat)
	if d <= *budget/4 {
		sent++ // the warm-up
	}
	return lat, count, sent
}

func pick(ctx context.Context, conn *pgx.Conn) sample {
	var s sample
	if err := conn.QueryRow(ctx, `SELECT reltuples::bigint FROM pg_class WHERE oid = 'transactions'::regclass`).Scan(&s.rows); err != nil {
		fatalf("%v", err)
	}
	// The busiest collab (txgen gives collab order weights 1, 1/2, …).
	if err := conn.QueryRow(ctx, `SELECT id, merchant_id FROM collabs ORDER BY id LIMIT 1`).Scan(&s.collabID, &s.merchantID); err != nil {
		fatalf("%v", err)
	}
	// A 30-day range ending two weeks ago, a typical console query.
	var newest time.Time
	if err := conn.QueryRow(ctx, `SELECT max(created_at) FROM transactions`).Scan(&newest); err != nil {
		fatalf("%v", err)
	}
	s.to = newest.AddDate(0, 0, -14).UTC().Truncate(time.Second)
	s.from = s.to.AddDate(0, 0, -30)
	var ptid *string
	if err := conn.QueryRow(ctx, `SELECT id, reference_id, provider_transaction_id, merchant_client_id, nonce,
		payment_method_value, payment_ip_address FROM transactions
		WHERE collab_id = $1 AND created_at BETWEEN $2 AND $3 AND provider_transaction_id IS NOT NULL
		ORDER BY created_at DESC LIMIT 1`, s.collabID, s.from, s.to).
		Scan(&s.id, &s.ref, &ptid, &s.cid, &s.nonce, &s.pmValue, &s.ip); err != nil {
		fatalf("%v", err)
	}
	s.ptid = *ptid
	return s
}

func buildCases(s sample) []listCase {
	rfc := func(t time.Time) string { return t.Format(time.RFC3339) }
	dates := url.Values{"from": {rfc(s.from)}, "to": {rfc(s.to)}}
	// The console's range: whole days in the user's zone (here UTC+8), the
	// last one ending at 23:59:59.999.
	zone := time.FixedZone("UTC+8", 8*3600)
	last := s.to.In(zone)
	dayEnd := time.Date(last.Year(), last.Month(), last.Day(), 23, 59, 59, 999_000_000, zone)
	dayStart := time.Date(last.Year(), last.Month(), last.Day()-29, 0, 0, 0, 0, zone)
	console := url.Values{"from": {dayStart.Format(time.RFC3339Nano)}, "to": {dayEnd.Format(time.RFC3339Nano)}}
	// The console's default range: yesterday and today.
	twoDays := url.Values{"from": {dayEnd.AddDate(0, 0, -2).Add(time.Millisecond).Format(time.RFC3339Nano)},
		"to": {dayEnd.Format(time.RFC3339Nano)}}
	join := func(vs ...url.Values) url.Values {
		o := url.Values{}
		for _, v := range vs {
			for k, x := range v {
				o[k] = append(o[k], x...)
			}
		}
		return o
	}
	totals := url.Values{"includeTotalAmounts": {"true"}}
	st := url.Values{"statuses": {"4,-2"}}
	return []listCase{
		{name: "**headline**: collab + 30 days + statuses 4,-2 + totals", collab: s.collabID, query: join(dates, st, totals), pages: true, explain: true},
		{name: "console: collab + 30 whole days UTC+8 + statuses 4,-2 + totals", collab: s.collabID, query: join(console, st, totals), pages: true, explain: true},
		{name: "collab + 30 days + totals", collab: s.collabID, query: join(dates, totals), pages: true},
		{name: "merchant + 30 days + totals", query: join(dates, totals, url.Values{"MerchantId": {strconv.Itoa(int(s.merchantID))}}), pages: true},
		{name: "collab alone (all time)", collab: s.collabID, pages: true},
		{name: "30 days alone (all collabs)", query: dates, pages: true},
		{name: "30 days + totals (all collabs)", query: join(dates, totals), pages: true},
		{name: "type=2 alone", query: url.Values{"type": {"2"}}, pages: true},
		{name: "statuses=3 alone", query: url.Values{"statuses": {"3"}}, pages: true},
		{name: "statuses=4,-2 alone", query: url.Values{"statuses": {"4,-2"}}, pages: true},
		{name: "currency=USD alone", query: url.Values{"currency": {"USD"}}, pages: true},
		{name: "minAmount=50000 alone", query: url.Values{"minAmount": {"50000"}}, pages: true, explain: true},
		{name: "minAmount=5000 alone", query: url.Values{"minAmount": {"5000"}}, pages: true, explain: true},
		{name: "maxAmount=5 alone", query: url.Values{"maxAmount": {"5"}}, pages: true},
		{name: "minAmount=100 + maxAmount=200 alone", query: url.Values{"minAmount": {"100"}, "maxAmount": {"200"}}, pages: true, explain: true},
		{name: "paymentMethodType=2 alone", query: url.Values{"paymentMethodType": {"2"}}, pages: true},
		{name: "paymentMethodType=1 alone", query: url.Values{"paymentMethodType": {"1"}}, pages: true},
		{name: "MerchantId alone (all time)", query: url.Values{"MerchantId": {strconv.Itoa(int(s.merchantID))}}, pages: true},
		{name: "providerTid", query: url.Values{"providerTid": {s.ptid}}},
		{name: "merchantCid", query: url.Values{"merchantCid": {s.cid}}},
		{name: "nonce", query: url.Values{"nonce": {s.nonce}}},
		{name: "paymentMethodValue", query: url.Values{"paymentMethodValue": {s.pmValue}}},
		{name: "paymentIpAddress", query: url.Values{"paymentIpAddress": {s.ip}}},
		{name: "collab + 30 days + type + statuses + amount + currency + totals", collab: s.collabID, pages: true, explain: true,
			query: join(dates, st, totals, url.Values{"type": {"1"}, "minAmount": {"100"}, "maxAmount": {"5000"}, "currency": {"PHP"}})},
		{name: "collab + 30 days + minAmount=5000 + totals", collab: s.collabID, pages: true,
			query: join(dates, totals, url.Values{"minAmount": {"5000"}})},
		{name: "console default (2 days UTC+8, all collabs) + minAmount=5000 + totals", pages: true,
			query: join(twoDays, totals, url.Values{"minAmount": {"5000"}})},
		{name: "search by id (list)", query: url.Values{"search": {strconv.FormatInt(s.id, 10)}, "includeTotalAmounts": {"true"}}, explain: true},
		{name: "search by reference (list)", query: url.Values{"search": {s.ref}, "includeTotalAmounts": {"true"}}, explain: true},
		{name: "GET /api/v1/transactions/{id}", path: "/api/v1/transactions/" + strconv.FormatInt(s.id, 10)},
	}
}

// printPlans prints, for every case, the scan nodes of the two statements
// the store sends (count/totals, and the page: 100 for the cases measured
// there, else 1), and the full EXPLAIN
// (ANALYZE, BUFFERS) of the headline cases.
func printPlans(ctx context.Context, conn *pgx.Conn, cases []listCase) {
	fmt.Println("\n## Plans (the store's statements, postgres.ListStatements)")
	for _, c := range cases {
		if c.path != "" {
			continue
		}
		pg := 1
		if c.pages {
			pg = 100
		}
		totals, fromRollups, page, err := postgres.ListStatements(ctx, conn, filter(c, pg))
		if err != nil {
			fatalf("statements of %s: %v", c.name, err)
		}
		source := "rows"
		if fromRollups {
			source = "rollups"
		}
		for _, st := range []struct {
			kind string
			postgres.Statement
		}{{"count (" + source + ")", totals}, {"page " + strconv.Itoa(pg), page}} {
			if st.SQL == "" {
				fmt.Printf("- %s — count: not sent (the first page of a search is its count)\n", c.name)
				continue
			}
			opts := "EXPLAIN (COSTS OFF) "
			if c.explain {
				opts = "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) "
			}
			rows, err := conn.Query(ctx, opts+st.SQL, st.Args...)
			if err != nil {
				fatalf("explain %s: %v", c.name, err)
			}
			var lines []string
			for rows.Next() {
				var l string
				if err := rows.Scan(&l); err != nil {
					fatalf("%v", err)
				}
				lines = append(lines, l)
			}
			rows.Close()
			if c.explain {
				fmt.Printf("\n### %s — %s\n```\n%s\n```\n", c.name, st.kind, strings.Join(lines, "\n"))
				continue
			}
			var scans []string
			for _, l := range lines {
				if strings.Contains(l, "Scan") {
					scans = append(scans, strings.TrimLeft(strings.TrimSpace(l), "-> "))
				}
			}
			fmt.Printf("- %s — %s: %s\n", c.name, st.kind, strings.Join(scans, "; "))
		}
	}
}

// ptr returns a pointer to v (the list query's optional paging).
func ptr[T any](v T) *T { return &v }
