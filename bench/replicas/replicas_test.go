// Package replicas_test proves, on this machine, that Paygate keeps one truth
// while every stateless service runs as two replicas (issue 18): it starts
// two gateways, two callbacks services and two aggregators (one auth, one
// sandbox) as the built binaries against one Postgres, one Redis and one
// NATS, drives payments through both gateways, kills one replica of each
// with SIGKILL mid-load, and checks every payment, callback, job run and
// statistic against the ground truth read from the data (docs/replicas.md).
package replicas_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"maps"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	"github.com/paygate/paygate/bench/internal/harness"
	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// stack is the running suite of one test.
type stack struct {
	auth, sandbox        *proc
	gw, cb, agg          [2]*proc
	gwDB, aggDB          *pgxpool.Pool
	natsURL              string
	admin                *client
	receiver             *receiver
	spans                *spanSink
	merchantID, collabID int32
	killedAt             time.Time
	hash, payType        string
	nonces               sync.Map // nonce → gateway index it was sent to
}

// newStack starts the suite on fresh schemas and a fresh event stream.
func newStack(t *testing.T) *stack {
	t.Helper()
	dir, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	s := &stack{natsURL: startNATS(t), receiver: newReceiver(t), spans: newSpanSink(t)}
	prefix := "replicas_" + harness.RandomHex(4) + "_"
	schemas := map[string]string{"auth": prefix + "auth", "gateway": prefix + "gateway",
		"callbacks": prefix + "callbacks", "aggregator": prefix + "aggregator"}
	// The pools drop the schemas at the end, after the processes stopped
	// (cleanups run last-registered first).
	for _, name := range []string{"auth", "callbacks"} {
		openSchema(t, schemas[name])
	}
	s.gwDB = openSchema(t, schemas["gateway"])
	s.aggDB = openSchema(t, schemas["aggregator"])

	authHTTP, authGRPC, sandboxHTTP := freePort(t), freePort(t), freePort(t)
	var gwHTTP, gwGRPC, cbHTTP, cbGRPC, aggHTTP, aggGRPC [2]string
	for i := range 2 {
		gwHTTP[i], gwGRPC[i], cbHTTP[i], cbGRPC[i], aggHTTP[i], aggGRPC[i] =
			freePort(t), freePort(t), freePort(t), freePort(t), freePort(t), freePort(t)
	}
	common := func(service, httpAddr, grpcAddr string) map[string]string {
		return map[string]string{
			"PAYGATE_HTTP_ADDR": httpAddr, "PAYGATE_GRPC_ADDR": grpcAddr,
			"PAYGATE_DATABASE_URL": serviceDatabaseURL(), "PAYGATE_DATABASE_SCHEMA": schemas[service],
			"PAYGATE_REDIS_URL": redisURL, "PAYGATE_NATS_URL": s.natsURL,
			"PAYGATE_DEMO": "true", "PAYGATE_LOG_LEVEL": "info", "PAYGATE_ALLOW_PRIVATE_URLS": "true",
			"PAYGATE_JWKS_URL":      "http://" + authHTTP + "/.well-known/jwks.json",
			"PAYGATE_AUTH_GRPC_URL": authGRPC,
			// Every service exports its spans to the test (checkTraces).
			"PAYGATE_OTLP_ENDPOINT": s.spans.url,
		}
	}
	authEnv := common("auth", authHTTP, authGRPC)
	authEnv["PAYGATE_REDIS_KEY_PREFIX"] = "paygate:" + prefix
	authEnv["PAYGATE_ACCESS_TOKEN_TTL"] = "1h"
	s.auth = start(t, dir, "auth", authEnv)

	// The sandbox plays the providers without webhooks: every pending
	// payment is resolved by the gateways' polling job, which must run on
	// one replica at a time and move to the other when its runner dies.
	s.sandbox = start(t, dir, "sandbox", map[string]string{
		"PAYGATE_HTTP_ADDR": sandboxHTTP, "PAYGATE_LOG_LEVEL": "info",
		"PAYGATE_SANDBOX_GATEWAY_URL": "http://" + gwHTTP[0], "PAYGATE_SANDBOX_WEBHOOKS": "false",
		"PAYGATE_SANDBOX_OUTCOME": "success", "PAYGATE_SANDBOX_PENDING_FOR": "300ms",
		"PAYGATE_SANDBOX_LATENCY": "0s", "PAYGATE_SANDBOX_PROVIDERS": "",
	})
	// Replica i of the gateway forwards to replica i of callbacks and
	// aggregator, which resolve and rebuild on gateway i: after the kills of
	// replica 0, replicas 1 still form a whole path.
	for i := range 2 {
		env := common("gateway", gwHTTP[i], gwGRPC[i])
		env["PAYGATE_SANDBOX_URL"] = "http://" + sandboxHTTP
		env["PAYGATE_CALLBACKS_GRPC_ADDR"] = cbGRPC[i]
		env["PAYGATE_AGGREGATOR_GRPC_ADDR"] = aggGRPC[i]
		env["PAYGATE_POLL_INTERVAL"] = "200ms"
		// A payment cut mid-call by the kill is resolved within seconds.
		env["PAYGATE_PROVIDER_TIMEOUT"] = "2s"
		env["PAYGATE_VALIDATION_TIMEOUT"] = "2s"
		env["PAYGATE_RECOVERY_AFTER"] = "5s"
		env["PAYGATE_FILES_DIR"] = t.TempDir()
		s.gw[i] = start(t, dir, fmt.Sprintf("gateway-%d", i), env)
	}
	for i := range 2 {
		env := common("callbacks", cbHTTP[i], cbGRPC[i])
		env["PAYGATE_GATEWAY_GRPC_ADDR"] = gwGRPC[i]
		env["PAYGATE_CALLBACK_TIMEOUT"] = "2s"
		env["PAYGATE_CALLBACK_LEASE"] = "5s"
		env["PAYGATE_CALLBACK_EVENTS_ACK_WAIT"] = "10s"
		env["PAYGATE_CALLBACK_BACKOFF_BASE"] = "200ms"
		env["PAYGATE_CALLBACK_BACKOFF_CAP"] = "1s"
		s.cb[i] = start(t, dir, fmt.Sprintf("callbacks-%d", i), env)
	}
	for i := range 2 {
		env := common("aggregator", aggHTTP[i], aggGRPC[i])
		env["PAYGATE_GATEWAY_GRPC_ADDR"] = gwGRPC[i]
		s.agg[i] = start(t, dir, fmt.Sprintf("aggregator-%d", i), env)
	}

	tr := &http.Transport{MaxIdleConnsPerHost: 16}
	t.Cleanup(tr.CloseIdleConnections)
	anon := &client{http: &http.Client{Transport: tr, Timeout: 30 * time.Second}}
	var login struct {
		AccessToken string `json:"accessToken"`
	}
	anon.must(t, http.StatusOK, http.MethodPost, s.auth.URL()+"/api/v1/login",
		map[string]string{"username": "admin", "password": "paygate-demo"}, &login)
	s.admin = &client{http: anon.http, token: login.AccessToken}
	// The bench changes configuration as the admin without a passkey: step-up
	// confirmation (issue 28) off, and a new token without the cfm claim.
	s.admin.must(t, http.StatusOK, http.MethodPut, s.auth.URL()+"/api/v1/sensitive-actions/step-up",
		map[string]any{"actions": []string{}, "scope": "none"}, nil)
	// The auth replicas read the change within their settings cache's
	// refresh: sign in again until the token has no cfm claim.
	deadline := time.Now().Add(20 * time.Second)
	for {
		anon.must(t, http.StatusOK, http.MethodPost, s.auth.URL()+"/api/v1/login",
			map[string]string{"username": "admin", "password": "paygate-demo"}, &login)
		if !tokenAsksConfirmation(t, login.AccessToken) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("20 s after step-up was turned off, a new token still lists actions to confirm (cfm)")
		}
		time.Sleep(200 * time.Millisecond)
	}
	s.admin = &client{http: anon.http, token: login.AccessToken}

	// A demo merchant's collab with the first sandbox provider, its pay
	// type, and a callback URL of the test's receiver on it.
	ctx := context.Background()
	err = retryDB(func() error {
		return s.gwDB.QueryRow(ctx, `SELECT m.id, m.hash, c.id, pt.code
		FROM collabs c JOIN merchants m ON m.id = c.merchant_id
		JOIN collab_pay_types cp ON cp.collab_id = c.id JOIN pay_types pt ON pt.id = cp.pay_type_id
		WHERE c.provider_id = 1 AND c.is_enabled ORDER BY m.id, c.id, pt.id LIMIT 1`).
			Scan(&s.merchantID, &s.hash, &s.collabID, &s.payType)
	})
	if err != nil {
		t.Fatalf("find a demo collab: %v", err)
	}
	s.admin.must(t, http.StatusOK, http.MethodPost, s.gw[0].URL()+"/api/v1/callbacks", map[string]any{
		"collabId": s.collabID, "callbackUrl": s.receiver.url, "isEnabled": true, "maxAttempts": 10,
		"addSignature": false, "transactionTypeId": 0}, nil)
	return s
}

// pay sends one payment through gateway g and returns the HTTP status.
func (s *stack) pay(ctx context.Context, g int, nonce, amount, outcome string) (int, []byte, error) {
	body := map[string]any{
		"paymentData": map[string]any{"nonce": nonce, "amount": amount, "currency": "PHP", "providerId": 1,
			"payType": s.payType, "providerTags": []string{"sandbox:outcome=" + outcome, "sandbox:pending=300ms"}},
		"merchantData": map[string]any{"merchantHash": s.hash, "clientId": "replicas"},
		"cashIn":       true,
	}
	status, raw, err := s.admin.call(ctx, http.MethodPost, s.gw[g].URL()+"/api/v1/transactions/initialize", body, nil)
	if err == nil && status == http.StatusOK {
		s.nonces.Store(nonce, g)
	}
	return status, raw, err
}

// drive sends n payments, alternating between the gateways in gws, from
// four workers; every third payment fails at the provider. A payment
// refused, or lost in transport, fails t unless tolerated says the gateway
// it was sent to may be dead. after, when not nil, is called once the
// payment number at has been answered, while the others go on.
func (s *stack) drive(t *testing.T, tag string, n int, gws []int, at int, after func(), tolerated func(g int) bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var mu sync.Mutex
	var problems []string
	next := make(chan int)
	for range 4 {
		wg.Go(func() {
			for i := range next {
				outcome := "pending-success"
				if i%3 == 0 {
					outcome = "pending-failed"
				}
				amount := fmt.Sprintf("%d.%02d", 100+i%90, i%100)
				g := gws[i%len(gws)]
				status, raw, err := s.pay(ctx, g, fmt.Sprintf("%s-%d", tag, i), amount, outcome)
				if i == at && after != nil {
					go after()
				}
				if (err != nil || status != http.StatusOK) && (tolerated == nil || !tolerated(g)) {
					mu.Lock()
					problems = append(problems, fmt.Sprintf("payment %s-%d on gateway %d: %d %s %v", tag, i, gws[i%len(gws)], status, raw, err))
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	for _, p := range problems {
		t.Error(p)
	}
}

// TestReplicas is issue 18's proof; docs/replicas.md says what each step
// shows. PAYGATE_REPLICAS_LONG=1 sends ten times the payments.
func TestReplicas(t *testing.T) {
	if testing.Short() {
		t.Skip("starts eight service processes")
	}
	perPhase := 24
	if os.Getenv("PAYGATE_REPLICAS_LONG") == "1" {
		perPhase = 240
	}
	began := time.Now()
	s := newStack(t)
	t.Logf("stack of 8 processes up in %s", time.Since(began).Round(time.Millisecond))

	// 1. Payments through both gateways; every one final once, called back
	// once, on both replicas' shares of the work.
	s.drive(t, "a", perPhase, []int{0, 1}, -1, nil, nil)
	s.checkPayments(t, "both replicas", false)
	s.checkStatistics(t, []int{0, 1})
	s.checkTraces(t)

	// 2. Configuration changed through one gateway is obeyed by the other
	// from the next payment.
	s.checkConfiguration(t)
	s.checkFeeEdit(t)

	// 3. SIGKILL one replica of each mid-load, while payments go to both
	// gateways; the survivors carry on. A payment sent to the dead gateway
	// may be lost to its caller (refused connection, or cut mid-call: then
	// its row is resolved by the survivor's recovery sweep); every row the
	// gateways wrote must still end final once and be called back once.
	killed := make(chan struct{})
	var dead atomic.Bool
	s.drive(t, "b", 2*perPhase, []int{0, 1}, perPhase/2, func() {
		dead.Store(true)
		s.killedAt = time.Now()
		s.gw[0].Kill()
		s.cb[0].Kill()
		s.agg[0].Kill()
		close(killed)
	}, func(g int) bool { return g == 0 && dead.Load() })
	<-killed
	s.drive(t, "c", perPhase, []int{1}, -1, nil, nil)
	s.checkPayments(t, "after the kills", true)
	s.checkStatistics(t, []int{1})
	s.checkJobs(t)
	t.Logf("whole test %s", time.Since(began).Round(time.Millisecond))
}

// checkPayments waits until every accepted payment is final and called back,
// then checks the ground truth: one final status and one TransactionFinalized
// event per transaction, one webhook id per transaction at the receiver,
// each received once (or, after a kill, possibly again with the same id:
// a delivery whose answer a dead replica never recorded is sent again,
// and the receiver deduplicates on the id).
func (s *stack) checkPayments(t *testing.T, when string, afterKill bool) {
	t.Helper()
	ctx := context.Background()
	var accepted []string
	s.nonces.Range(func(n, _ any) bool { accepted = append(accepted, n.(string)); return true })
	var rows, final, found int
	if !eventually(90*time.Second, func() bool {
		_ = s.gwDB.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status = 4 OR status < 0),
			count(*) FILTER (WHERE nonce = ANY($2))
			FROM transactions WHERE merchant_id = $1 AND merchant_client_id = 'replicas'`, s.merchantID, accepted).Scan(&rows, &final, &found)
		return found == len(accepted) && final == rows
	}) {
		t.Fatalf("%s: %d transactions, %d final; %d of the %d payments accepted are there", when, rows, final, found, len(accepted))
	}
	ids := s.transactionIDs(t)
	if !eventually(90*time.Second, func() bool { return s.receiver.coveredAll(ids) }) {
		t.Fatalf("%s: callbacks of %d of %d transactions arrived", when, s.receiver.covered(ids), len(ids))
	}

	finalized, perMsgID := s.finalizedEvents(t)
	for id := range ids {
		if finalized[id] != 1 {
			t.Errorf("%s: transaction %d has %d TransactionFinalized events, want 1", when, id, finalized[id])
		}
	}
	for msgID, n := range perMsgID {
		if n != 1 {
			t.Errorf("%s: event %s is %d times on the stream", when, msgID, n)
		}
	}
	var journal int
	if err := retryDB(func() error {
		return s.gwDB.QueryRow(ctx, `SELECT count(*) FROM outbox WHERE subject = 'paygate.events.transaction_finalized'`).Scan(&journal)
	}); err != nil {
		t.Fatal(err)
	}
	if journal != len(finalized) {
		t.Errorf("%s: the outbox holds %d TransactionFinalized events, the stream %d", when, journal, len(finalized))
	}

	webhooks, dups := s.receiver.byTransaction()
	for id := range ids {
		if len(webhooks[id]) != 1 {
			t.Errorf("%s: transaction %d called back under %d webhook ids %v, want 1", when, id, len(webhooks[id]), webhooks[id])
		}
	}
	if dups > 0 {
		if afterKill {
			t.Logf("%s: %d callbacks sent again under the same webhook id (deliveries in flight at the kill)", when, dups)
		} else {
			t.Errorf("%s: %d callbacks received more than once under one webhook id", when, dups)
		}
	}
	perGateway := map[int]int{}
	s.nonces.Range(func(_, g any) bool { perGateway[g.(int)]++; return true })
	t.Logf("%s: %d transactions final once and called back (%d payments accepted: %v per gateway)", when, len(ids), len(accepted), perGateway)
}

// transactionIDs returns the ids of the test's transactions.
func (s *stack) transactionIDs(t *testing.T) map[int64]bool {
	t.Helper()
	var ids map[int64]bool
	err := retryDB(func() error {
		ids = map[int64]bool{}
		rows, err := s.gwDB.Query(context.Background(), `SELECT id FROM transactions WHERE merchant_id = $1 AND merchant_client_id = 'replicas'`, s.merchantID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				return err
			}
			ids[id] = true
		}
		return rows.Err()
	})
	if err != nil {
		t.Fatal(err)
	}
	return ids
}

// retryDB runs fn until it returns something other than Postgres's "too
// many clients" (the test server is shared with the tests running beside
// this one), for at most 30s.
func retryDB(fn func() error) error {
	deadline := time.Now().Add(30 * time.Second)
	for {
		err := fn()
		if err == nil || !strings.Contains(err.Error(), "SQLSTATE 53300") || time.Now().After(deadline) {
			return err
		}
		time.Sleep(500 * time.Millisecond)
	}
}

// readStream calls fn with every message of the event stream, from the first
// to the last one there when it is called.
func (s *stack) readStream(t *testing.T, fn func(subject, msgID string, data []byte, traceparent string)) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	nc, err := nats.Connect(s.natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, "PAYGATE_EVENTS")
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	last := info.State.LastSeq
	if last == 0 {
		return
	}
	cons, err := stream.OrderedConsumer(ctx, jetstream.OrderedConsumerConfig{DeliverPolicy: jetstream.DeliverAllPolicy})
	if err != nil {
		t.Fatal(err)
	}
	it, err := cons.Messages()
	if err != nil {
		t.Fatal(err)
	}
	defer it.Stop()
	for {
		m, err := it.Next(jetstream.NextContext(ctx))
		if err != nil {
			t.Fatalf("read the stream: %v", err)
		}
		meta, err := m.Metadata()
		if err != nil {
			t.Fatal(err)
		}
		fn(m.Subject(), m.Headers().Get(nats.MsgIdHdr), m.Data(), m.Headers().Get("traceparent"))
		if meta.Sequence.Stream >= last {
			return
		}
	}
}

// finalizedEvents counts the stream's TransactionFinalized events per
// transaction, and every event per Nats-Msg-Id.
func (s *stack) finalizedEvents(t *testing.T) (map[int64]int, map[string]int) {
	t.Helper()
	perTx, perMsg := map[int64]int{}, map[string]int{}
	s.readStream(t, func(subject, msgID string, data []byte, _ string) {
		perMsg[msgID]++
		if subject != "paygate.events.transaction_finalized" {
			return
		}
		var ev eventsv1.TransactionFinalized
		if err := proto.Unmarshal(data, &ev); err != nil {
			t.Fatal(err)
		}
		perTx[ev.GetTransaction().GetTransactionId()]++
	})
	return perTx, perMsg
}

// statistics is the part of GET /api/v1/statistics the test compares.
type statistics struct {
	Total      json.Number `json:"total"`
	Successful json.Number `json:"successful"`
	PspError   json.Number `json:"pspError"`
	CashInData struct {
		Count  json.Number `json:"count"`
		Amount string      `json:"amount"`
	} `json:"cashInData"`
}

// checkStatistics waits until the statistics of today's hours for the
// merchant, read through each aggregator in aggs, equal the ground truth
// computed from the gateway's transactions.
func (s *stack) checkStatistics(t *testing.T, aggs []int) {
	t.Helper()
	ctx := context.Background()
	from := time.Now().UTC().Truncate(time.Hour).Add(-2 * time.Hour)
	to := from.Add(4 * time.Hour)
	path := "/api/v1/statistics?currency=PHP&merchantId=" + strconv.Itoa(int(s.merchantID)) +
		"&from=" + from.Format(time.RFC3339) + "&to=" + to.Add(-time.Millisecond).Format("2006-01-02T15:04:05.000Z07:00")
	for _, a := range aggs {
		var last string
		ok := eventually(90*time.Second, func() bool {
			var want struct {
				total, success, failed int64
				amount                 string
			}
			if err := s.gwDB.QueryRow(ctx, `SELECT count(*), count(*) FILTER (WHERE status = 4),
				count(*) FILTER (WHERE status = -2), COALESCE(sum(amount) FILTER (WHERE status = 4 AND transaction_type = 1), 0)::text
				FROM transactions WHERE merchant_id = $1 AND created_at >= $2 AND created_at < $3`, s.merchantID, from, to).
				Scan(&want.total, &want.success, &want.failed, &want.amount); err != nil {
				last = err.Error()
				return false
			}
			var got statistics
			status, raw, err := s.admin.call(ctx, http.MethodGet, s.agg[a].URL()+path, nil, &got)
			if err != nil || status != http.StatusOK {
				last = fmt.Sprintf("%d %s %v", status, raw, err)
				return false
			}
			last = fmt.Sprintf("aggregator %d: total %s successful %s pspError %s cashIn %s/%s; gateway rows: total %d successful %d pspError %d cashIn %s",
				a, got.Total, got.Successful, got.PspError, got.CashInData.Count, got.CashInData.Amount,
				want.total, want.success, want.failed, want.amount)
			return got.Total.String() == strconv.FormatInt(want.total, 10) &&
				got.Successful.String() == strconv.FormatInt(want.success, 10) &&
				got.PspError.String() == strconv.FormatInt(want.failed, 10) &&
				got.CashInData.Count.String() == strconv.FormatInt(want.success, 10) &&
				harness.SameAmount(got.CashInData.Amount, want.amount)
		})
		if !ok {
			t.Errorf("statistics never equalled the gateway's rows within 90s: %s", last)
			continue
		}
		t.Logf("statistics equal the ground truth: %s", last)
	}
}

// checkConfiguration changes settings through one gateway and pays through
// the other at once: maintenance on (refused), off (accepted), the collab
// disabled (refused), enabled again (accepted).
func (s *stack) checkConfiguration(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	seq := 0
	expect := func(what string, g int, wantOK bool) {
		t.Helper()
		seq++
		status, raw, err := s.pay(ctx, g, fmt.Sprintf("cfg-%d", seq), "150.00", "pending-success")
		if err != nil {
			t.Fatalf("%s: payment through gateway %d: %v", what, g, err)
		}
		if ok := status == http.StatusOK; ok != wantOK {
			t.Errorf("%s: payment through gateway %d answered %d %s", what, g, status, raw)
		}
	}
	for _, changer := range []int{0, 1} {
		other := 1 - changer
		s.admin.must(t, http.StatusOK, http.MethodPost, s.gw[changer].URL()+"/api/v1/maintenance/enable", nil, nil)
		expect(fmt.Sprintf("maintenance on through gateway %d", changer), other, false)
		expect(fmt.Sprintf("maintenance on through gateway %d", changer), changer, false)
		s.admin.must(t, http.StatusOK, http.MethodPost, s.gw[changer].URL()+"/api/v1/maintenance/disable", nil, nil)
		expect(fmt.Sprintf("maintenance off through gateway %d", changer), other, true)

		s.admin.must(t, http.StatusOK, http.MethodPost,
			fmt.Sprintf("%s/api/v1/collabs/%d/activeness?isEnabled=false", s.gw[changer].URL(), s.collabID), nil, nil)
		expect(fmt.Sprintf("collab disabled through gateway %d", changer), other, false)
		expect(fmt.Sprintf("collab disabled through gateway %d", changer), changer, false)
		s.admin.must(t, http.StatusOK, http.MethodPost,
			fmt.Sprintf("%s/api/v1/collabs/%d/activeness?isEnabled=true", s.gw[changer].URL(), s.collabID), nil, nil)
		expect(fmt.Sprintf("collab enabled through gateway %d", changer), other, true)
	}
}

// checkFeeEdit creates a fee through one gateway and edits it through the
// other, and after each change pays through both at once: every payment
// must carry the fee as it was just saved (its id and charge, read from the
// gateway's transactions table). The fee is the most specific there can be
// (the test's collab, deposits, its pay type, PHP) at the highest priority,
// so it wins over the demo fees; it is deleted at the end.
func (s *stack) checkFeeEdit(t *testing.T) {
	t.Helper()
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var currencyID, payTypeID int32
	err := retryDB(func() error {
		return s.gwDB.QueryRow(ctx, `SELECT (SELECT id FROM currencies WHERE code = 'PHP'), (SELECT id FROM pay_types WHERE code = $1)`,
			s.payType).Scan(&currencyID, &payTypeID)
	})
	if err != nil {
		t.Fatalf("find the PHP currency and the pay type %s: %v", s.payType, err)
	}
	fee := func(value string) map[string]any {
		return map[string]any{"collabId": s.collabID, "transactionType": 1, "payTypeId": payTypeID,
			"currencyFromId": currencyID, "currencyToId": currencyID, "amountMin": "", "amountMax": "",
			"priority": 1000000, "enabled": true, "feeType": 2, "value": value, "payer": 2, "allowConflict": true}
	}
	seq := 0
	expect := func(what string, g int, feeID string, charge string) {
		t.Helper()
		seq++
		nonce := fmt.Sprintf("fee-%d", seq)
		status, raw, err := s.pay(ctx, g, nonce, "150.00", "pending-success")
		if err != nil || status != http.StatusOK {
			t.Fatalf("%s: payment through gateway %d answered %d %s (%v)", what, g, status, raw, err)
		}
		var gotID *int64
		var gotAmount *string
		err = retryDB(func() error {
			return s.gwDB.QueryRow(ctx, `SELECT applied_fee_id, applied_fee_amount::text FROM transactions
				WHERE merchant_id = $1 AND nonce = $2`, s.merchantID, nonce).Scan(&gotID, &gotAmount)
		})
		if err != nil {
			t.Fatalf("%s: read the fee of payment %s: %v", what, nonce, err)
		}
		if gotID == nil || strconv.FormatInt(*gotID, 10) != feeID || gotAmount == nil || !harness.SameAmount(*gotAmount, charge) {
			t.Errorf("%s: payment through gateway %d got fee %v charging %v, want fee %s charging %s",
				what, g, deref(gotID), deref(gotAmount), feeID, charge)
		}
	}

	var saved struct {
		ID string `json:"id"`
	}
	s.admin.must(t, http.StatusOK, http.MethodPost, s.gw[0].URL()+"/api/v1/fees", fee("1.2300"), &saved)
	expect("fee created through gateway 0", 1, saved.ID, "1.23")
	expect("fee created through gateway 0", 0, saved.ID, "1.23")
	s.admin.must(t, http.StatusOK, http.MethodPut, s.gw[1].URL()+"/api/v1/fees/"+saved.ID, fee("2.3400"), nil)
	expect("fee edited through gateway 1", 0, saved.ID, "2.34")
	expect("fee edited through gateway 1", 1, saved.ID, "2.34")
	s.admin.must(t, http.StatusOK, http.MethodPut, s.gw[0].URL()+"/api/v1/fees/"+saved.ID, fee("3.4500"), nil)
	expect("fee edited through gateway 0", 1, saved.ID, "3.45")
	expect("fee edited through gateway 0", 0, saved.ID, "3.45")
	s.admin.must(t, http.StatusOK, http.MethodDelete, s.gw[1].URL()+"/api/v1/fees/"+saved.ID, nil, nil)
	t.Logf("fee %s created and edited twice through alternate gateways: %d payments through both carried it as just saved, in %s",
		saved.ID, seq, time.Since(began).Round(time.Millisecond))
}

// deref is *p, or nil for a nil p, for messages.
func deref[T any](p *T) any {
	if p == nil {
		return nil
	}
	return *p
}

// jobRun is one run of a job as the stream reports it.
type jobRun struct {
	job, instance, id string
	start, end        time.Time // end is zero while the run is open
}

// jobRuns reads every job run reported on the stream, and which processes
// registered each job.
func (s *stack) jobRuns(t *testing.T) ([]*jobRun, map[string]map[string]bool) {
	t.Helper()
	byID := map[string]*jobRun{}
	var runs []*jobRun
	registered := map[string]map[string]bool{}
	get := func(job, instance, id string) *jobRun {
		r := byID[id]
		if r == nil {
			r = &jobRun{job: job, instance: instance, id: id}
			byID[id] = r
			runs = append(runs, r)
		}
		return r
	}
	ended := func(job, instance, id string, start, end *timestamppb.Timestamp) {
		r := get(job, instance, id)
		r.start, r.end = start.AsTime(), end.AsTime()
	}
	s.readStream(t, func(subject, _ string, data []byte, _ string) {
		switch subject {
		case "paygate.events.job_registered":
			var ev eventsv1.JobRegistered
			if proto.Unmarshal(data, &ev) == nil {
				if registered[ev.GetJob()] == nil {
					registered[ev.GetJob()] = map[string]bool{}
				}
				registered[ev.GetJob()][ev.GetInstance()] = true
			}
		case "paygate.events.job_run_started":
			var ev eventsv1.JobRunStarted
			if proto.Unmarshal(data, &ev) == nil {
				get(ev.GetJob(), ev.GetInstance(), ev.GetRunId()).start = ev.GetStartedAt().AsTime()
			}
		case "paygate.events.job_run_completed":
			var ev eventsv1.JobRunCompleted
			if proto.Unmarshal(data, &ev) == nil {
				ended(ev.GetJob(), ev.GetInstance(), ev.GetRunId(), ev.GetStartedAt(), ev.GetCompletedAt())
			}
		case "paygate.events.job_run_failed":
			var ev eventsv1.JobRunFailed
			if proto.Unmarshal(data, &ev) == nil {
				ended(ev.GetJob(), ev.GetInstance(), ev.GetRunId(), ev.GetStartedAt(), ev.GetCompletedAt())
			}
		}
	})
	return runs, registered
}

// killedInstance reports whether a job event's instance ("host:pid") is
// one of the processes the test killed.
func (s *stack) killedInstance(instance string) bool {
	for _, p := range []*proc{s.gw[0], s.cb[0], s.agg[0]} {
		if strings.HasSuffix(instance, ":"+strconv.Itoa(p.Pid())) {
			return true
		}
	}
	return false
}

// checkJobs checks the job runs reported on the stream: every job a killed
// process was running at its death is taken over by the surviving replica,
// and no two runs of one job by different processes overlap in time (a
// run still open ends at the kill for a killed process, now for a live one).
func (s *stack) checkJobs(t *testing.T) {
	t.Helper()
	var runs []*jobRun
	var registered map[string]map[string]bool
	var orphans []string
	took := eventually(45*time.Second, func() bool {
		runs, registered = s.jobRuns(t)
		orphans = orphans[:0]
		for _, r := range runs {
			if !s.killedInstance(r.instance) || (!r.end.IsZero() && r.end.Before(s.killedAt)) {
				continue
			}
			// r was running when its process died: another process must
			// have started the job since.
			if !slices.ContainsFunc(runs, func(o *jobRun) bool {
				return o.job == r.job && o.instance != r.instance && !o.start.Before(r.start)
			}) {
				orphans = append(orphans, r.job)
			}
		}
		return len(orphans) == 0
	})
	if !took {
		t.Errorf("jobs the killed replicas ran were not taken over within 45s: %v", orphans)
	}
	if len(runs) == 0 {
		t.Fatal("no job run was reported")
	}
	now := time.Now()
	perJob := map[string][]*jobRun{}
	for _, r := range runs {
		if r.end.IsZero() {
			r.end = now
			if s.killedInstance(r.instance) {
				r.end = s.killedAt
			}
		}
		perJob[r.job] = append(perJob[r.job], r)
	}
	for _, job := range slices.Sorted(maps.Keys(perJob)) {
		rs := perJob[job]
		instances := map[string]int{}
		for i, a := range rs {
			instances[a.instance]++
			for _, b := range rs[i+1:] {
				if a.instance != b.instance && a.start.Before(b.end) && b.start.Before(a.end) {
					t.Errorf("job %s ran at once on %s (%s … %s) and %s (%s … %s)", job,
						a.instance, a.start.Format(time.StampMilli), a.end.Format(time.StampMilli),
						b.instance, b.start.Format(time.StampMilli), b.end.Format(time.StampMilli))
				}
			}
		}
		t.Logf("job %s: registered by %d processes; %d runs by %v", job, len(registered[job]), len(rs), instances)
	}
}

// tokenAsksConfirmation reports whether an access token lists sensitive
// actions its holder must confirm (the cfm claim, docs/contracts-approvals.md)
// besides approving a request, which always is.
func tokenAsksConfirmation(t *testing.T, token string) bool {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("the access token is not a JWT: %d parts", len(parts))
	}
	payload, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatalf("the access token's payload: %v", err)
	}
	var claims struct {
		Confirm []string `json:"cfm"`
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatalf("the access token's claims: %v", err)
	}
	return slices.ContainsFunc(claims.Confirm, func(a string) bool { return a != "approval.approve" })
}
