package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/nats-io/nats.go"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// replicaPair is a primary and its streaming replica started by
// deploy/local/replica.sh for one test, stopped (and their files removed)
// when it ends.
type replicaPair struct {
	primaryURL, replicaURL string
}

// startReplicaPair starts a primary of its own and a replica made from it
// with pg_basebackup -R. It skips the test only when pg_basebackup is not
// installed (make test's deps stage installs it with the postgresql
// package).
func startReplicaPair(t *testing.T) replicaPair {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/pg_basebackup")
	if len(bins) == 0 {
		t.Skip("pg_basebackup is not installed (/usr/lib/postgresql/*/bin): install the postgresql package to run the read replica tests")
	}
	_, file, _, _ := runtime.Caller(0)
	script := filepath.Join(filepath.Dir(file), "..", "..", "deploy", "local", "replica.sh")
	dir := filepath.Join(os.TempDir(), "paygate-replica-"+randomHex(t, 6))
	stop := func() {
		if out, err := exec.Command(script, "stop", dir).CombinedOutput(); err != nil {
			t.Errorf("replica.sh stop: %v: %s", err, out)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, script, "start", dir).CombinedOutput()
	// Registered before the check: a start that failed halfway leaves a
	// server to stop.
	t.Cleanup(stop)
	if err != nil {
		t.Fatalf("replica.sh start: %v: %s", err, out)
	}
	var p replicaPair
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "PRIMARY_URL="); ok {
			p.primaryURL = v
		}
		if v, ok := strings.CutPrefix(sc.Text(), "REPLICA_URL="); ok {
			p.replicaURL = v
		}
	}
	if p.primaryURL == "" || p.replicaURL == "" {
		t.Fatalf("replica.sh start printed no URLs: %s", out)
	}
	return p
}

// TestReadReplica runs the gateway with its read pool on a real streaming
// replica: the transaction list is read there (a transaction the replica
// has not replayed is not listed, and the answer says how far behind it
// is), a compare-and-set change of that transaction still works (it reads
// the primary), the replay of a statistics rebuild waits for the replica
// to catch up, and the read pool refuses writes.
func TestReadReplica(t *testing.T) {
	pair := startReplicaPair(t)
	issuer := authztest.NewIssuer(t)
	jwks := authztest.ServeJWKS(t, issuer)
	schema := "gateway_test_" + randomHex(t, 6)
	run := startGatewayIn(t, schema, jwks.URL, map[string]string{
		"PAYGATE_DATABASE_URL":      pair.primaryURL,
		"PAYGATE_DATABASE_READ_URL": pair.replicaURL,
	})

	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	pool, err := pgdb.Open(ctx, pair.primaryURL, schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	replica, err := pgx.Connect(ctx, pair.replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = replica.Close(context.Background()) })
	nc, err := nats.Connect(testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	g := &testGateway{gatewayRun: run, issuer: issuer, pool: pool, nc: nc, client: &http.Client{Transport: tr, Timeout: 20 * time.Second}}
	admin := g.user(t, access.RoleAdmin)

	var collab, merchantID, providerID int32
	if err := pool.QueryRow(ctx, `SELECT id, merchant_id, provider_id FROM collabs ORDER BY id LIMIT 1`).Scan(&collab, &merchantID, &providerID); err != nil {
		t.Fatalf("a demo collab: %v", err)
	}
	seed := func(at string) string {
		return g.seed(t, seedTx{merchant: merchantID, collab: collab, provider: providerID, typ: 1, status: 3,
			amount: "10.00", currency: "PHP", at: at})
	}
	// waitList lists until ok accepts the answer, for up to a minute (a
	// loaded machine replays slowly), and returns it.
	waitList := func(what string, ok func(listJSON) bool) listJSON {
		t.Helper()
		deadline := time.Now().Add(time.Minute)
		for {
			l := admin.list(t, collab, "take=50")
			if ok(l) {
				return l
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: still %+v after a minute", what, l)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	lag := func(raw []byte) (int, bool) {
		var l struct {
			DataLagSeconds *int `json:"dataLagSeconds"`
		}
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if l.DataLagSeconds == nil {
			return 0, false
		}
		return *l.DataLagSeconds, true
	}
	listPath := "/api/v1/collabs/" + strconv.Itoa(int(collab)) + "/transactions/advanced?take=50"

	first := seed("2026-01-10T10:00:00Z")
	waitList("the replica replays the first transaction", func(l listJSON) bool { return slices.Contains(ids(l), first) })

	// Replay paused: the replica keeps receiving WAL but applies none.
	if _, err := replica.Exec(ctx, `SELECT pg_wal_replay_pause()`); err != nil {
		t.Fatal(err)
	}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			if _, err := replica.Exec(context.Background(), `SELECT pg_wal_replay_resume()`); err != nil {
				t.Errorf("resume replay: %v", err)
			}
		}
	}
	t.Cleanup(resume)
	waitLong(t, "replay paused", func() bool {
		var state string
		return replica.QueryRow(ctx, `SELECT pg_get_wal_replay_pause_state()`).Scan(&state) == nil && state == "paused"
	})
	second := seed("2026-01-10T11:00:00Z")
	if n := g.queryInt(t, `SELECT count(*) FROM transactions WHERE id = $1`, second); n != 1 {
		t.Fatalf("the second transaction is not on the primary (%d rows)", n)
	}
	// The list answers from the replica: the second transaction is not
	// there, and once the replica has received its WAL (and not replayed
	// it) the answer says the data is behind.
	deadline := time.Now().Add(time.Minute)
	for {
		raw := admin.must(t, http.StatusOK, http.MethodGet, listPath, nil, nil)
		var l listJSON
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if slices.Contains(ids(l), second) {
			t.Fatalf("the list shows transaction %s, which the paused replica has not replayed: it read the primary", second)
		}
		if !slices.Contains(ids(l), first) {
			t.Fatalf("the list lost transaction %s: %+v", first, l)
		}
		if n, ok := lag(raw); ok {
			if n < 1 {
				t.Fatalf("dataLagSeconds = %d, want at least 1", n)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no dataLagSeconds after a minute of paused replay: %s", raw)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// An exact match (a search by id, which List answers in one batch)
	// reads the replica too, and says how far behind it is.
	for _, c := range []struct {
		id    string
		found bool
	}{{first, true}, {second, false}} {
		raw := admin.must(t, http.StatusOK, http.MethodGet, listPath+"&search="+c.id, nil, nil)
		var l listJSON
		if err := json.Unmarshal(raw, &l); err != nil {
			t.Fatalf("decode %s: %v", raw, err)
		}
		if got := slices.Contains(ids(l), c.id); got != c.found {
			t.Errorf("search for %s on the paused replica found it: %v, want %v (%s)", c.id, got, c.found, raw)
		}
		if n, ok := lag(raw); !ok || n < 1 {
			t.Errorf("search for %s: dataLagSeconds = %d (present %v), want at least 1", c.id, n, ok)
		}
	}

	// A compare-and-set change reads the transaction on the primary: it
	// finds the one the replica does not have.
	var cancelled txJSON
	admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+second+"/cancel?transactionStatus=3", nil, &cancelled)
	if cancelled.TransactionStatus != -1 {
		t.Errorf("cancelled transaction %s has status %d, want -1", second, cancelled.TransactionStatus)
	}

	// The replay behind a statistics rebuild waits until the replica has
	// replayed what the primary had written when it was asked: no answer
	// while replay is paused, the second transaction in the range after.
	replay := gatewayv1.NewReplayServiceClient(internalConn(t, aggregatorSide{grpcAddr: g.GRPCAddr}, config.DemoInternalToken))
	type rangeAnswer struct {
		r   *gatewayv1.GetTransactionIdRangeResponse
		err error
	}
	answered := make(chan rangeAnswer, 1)
	rctx, rcancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer rcancel()
	go func() {
		r, err := replay.GetTransactionIdRange(rctx, &gatewayv1.GetTransactionIdRangeRequest{})
		answered <- rangeAnswer{r, err}
	}()
	select {
	case a := <-answered:
		t.Fatalf("GetTransactionIdRange answered while the replica's replay was paused: %v, %v", a.r, a.err)
	case <-time.After(2 * time.Second):
	}

	resume()
	select {
	case a := <-answered:
		if a.err != nil {
			t.Fatalf("GetTransactionIdRange after the replica caught up: %v", a.err)
		}
		if want, _ := strconv.ParseInt(second, 10, 64); a.r.GetMaxId() < want {
			t.Errorf("GetTransactionIdRange max id %d, want at least %d (the transaction written before the call)", a.r.GetMaxId(), want)
		}
	case <-time.After(time.Minute):
		t.Fatal("GetTransactionIdRange did not answer within a minute of resuming replay")
	}
	l := waitList("the replica replays the rest", func(l listJSON) bool { return slices.Contains(ids(l), second) })
	for _, tx := range l.Transactions {
		if tx.ID == second && tx.TransactionStatus != -1 {
			t.Errorf("after replay transaction %s has status %d, want -1 (cancelled on the primary)", second, tx.TransactionStatus)
		}
	}
	waitLong(t, "no dataLagSeconds once the replica caught up", func() bool {
		_, behind := lag(admin.must(t, http.StatusOK, http.MethodGet, listPath, nil, nil))
		return !behind
	})

	// The read pool's sessions refuse writes, even on a primary (so a write
	// routed to it by mistake fails where the replica is the primary
	// itself, or was promoted).
	for name, url := range map[string]string{"primary": pair.primaryURL, "replica": pair.replicaURL} {
		reads, err := pgdb.OpenReadOnly(ctx, url, schema)
		if err != nil {
			t.Fatalf("read pool on the %s: %v", name, err)
		}
		_, err = reads.Exec(ctx, `UPDATE transactions SET amount = amount WHERE id = $1`, first)
		reads.Close()
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "25006" {
			t.Errorf("a write through the read pool on the %s: %v, want SQLSTATE 25006 (read-only transaction)", name, err)
		}
	}
}

// waitLong polls cond every 100 ms for up to a minute: a replica on a
// loaded machine may take seconds to replay.
func waitLong(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
