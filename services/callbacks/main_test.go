package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/goleak"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	cbnats "github.com/paygate/paygate/services/callbacks/internal/nats"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// The integration tests run the service as main does (run) in a schema of
// its own against the test Postgres, Redis and NATS, and one real gateway
// (its binary, built once) that resolves collabs. Events are published to
// JetStream as the gateway's relay would; receivers are httptest servers.
//
// The event stream is shared with every other test on the machine, so each
// test makes merchants, collabs and transaction ids of its own, far from
// anyone else's, and counts only what concerns them.

func testEnv(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

var (
	natsURL  = testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222")
	redisURL = testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
)

// suite is what TestMain sets up for every test.
var suite struct {
	issuer   *authztest.Issuer
	jwksURL  string
	gwHTTP   string
	gwGRPC   string
	gwPool   *pgxpool.Pool
	idBase   int64
	idSeq    atomic.Int64
	userSeq  atomic.Int64
	merchSeq atomic.Int32
}

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	// No auth service fills the test Redis: mark it filled, as its refill
	// does, or every revocation check would wait for one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := authztest.MarkRevocationsFilled(ctx, redisURL)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, "callbacks tests:", err)
		return 1
	}
	code, err := withGateway(m.Run)
	if err != nil {
		fmt.Fprintln(os.Stderr, "callbacks tests:", err)
		return 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}

// withGateway starts the JWK set server and a gateway in a schema of its
// own, runs tests, and tears both down.
func withGateway(tests func() int) (int, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return 0, err
	}
	suite.issuer = &authztest.Issuer{Kid: randomHex(6), Key: priv}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		body, err := authz.MarshalJWKS(map[string]ed25519.PublicKey{suite.issuer.Kid: suite.issuer.Public()})
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	defer jwks.Close()
	suite.jwksURL = jwks.URL

	// Ids of this run's merchants, collabs, users and transactions start at
	// a random point so that runs sharing the event stream do not meet.
	var b [8]byte
	_, _ = rand.Read(b[:])
	suite.idBase = 1_000_000_000_000 + int64(binary.BigEndian.Uint64(b[:])%1_000_000_000)*1000
	suite.idSeq.Store(suite.idBase)
	suite.userSeq.Store(suite.idBase)
	suite.merchSeq.Store(int32(100_000 + binary.BigEndian.Uint64(b[:])%1_000_000_000))

	bin, err := servicetest.Build("github.com/paygate/paygate/services/gateway")
	if err != nil {
		return 0, err
	}
	schema := "cbtest_gw_" + randomHex(6)
	defer dropSchema(schema)
	gw, err := servicetest.Start(bin, map[string]string{
		"PAYGATE_DATABASE_URL": pgtest.URL(), "PAYGATE_DATABASE_SCHEMA": schema,
		"PAYGATE_REDIS_URL": redisURL, "PAYGATE_NATS_URL": natsURL,
		"PAYGATE_HTTP_ADDR": "127.0.0.1:0", "PAYGATE_GRPC_ADDR": "127.0.0.1:0",
		"PAYGATE_JWKS_URL": jwks.URL, "PAYGATE_DEMO": "true",
		"PAYGATE_CALLBACKS_GRPC_ADDR": "127.0.0.1:1",
	})
	if err != nil {
		return 0, err
	}
	defer func() {
		_ = gw.Stop()
		servicetest.DeleteConsumers(natsURL, schema+"-callback-tally", schema+"-callback-activity")
	}()
	suite.gwHTTP, suite.gwGRPC = gw.HTTPURL, gw.GRPCAddr

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	suite.gwPool, err = pgdb.Open(ctx, pgtest.URL(), schema)
	if err != nil {
		return 0, err
	}
	defer suite.gwPool.Close()
	// Collab ids of this run start far from other runs' too.
	if _, err := suite.gwPool.Exec(ctx, fmt.Sprintf(`ALTER TABLE collabs ALTER COLUMN id RESTART WITH %d`, suite.merchSeq.Load())); err != nil {
		return 0, err
	}
	return tests(), nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func dropSchema(schema string) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, pgtest.URL())
	if err != nil {
		return
	}
	defer conn.Close(ctx)
	_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{schema}.Sanitize()+" CASCADE")
}

// grants are the permissions each role holds (docs/contracts.md).
var grants = map[string][]string{
	access.RoleAdmin: access.AllPermissions,
	access.RoleSupport: {access.PermDashboardAccess, access.PermStatisticsAccess, access.PermGetTransactions,
		access.PermViewLogs, access.PermGetProviders, access.PermBalanceAccess, access.PermFilesAccess,
		access.PermViewFrauds, access.PermViewRecentActions, access.PermViewFees, access.PermJobsAccess},
	access.RoleMerchant: merchantPerms,
	access.RoleMerchantAdmin: append([]string{access.PermEditTransactions, access.PermViewLogs, access.PermEditCollab,
		access.PermCredentialsAccess, access.PermViewFrauds, access.PermCancelCallbacks, access.PermAllowIP,
		access.PermAddUsers, access.PermEditUser}, merchantPerms...),
	access.RoleMerchantSupport: {access.PermGetTransactions, access.PermViewLogs, access.PermGetProviders},
}

var merchantPerms = []string{access.PermDashboardAccess, access.PermStatisticsAccess, access.PermGetTransactions,
	access.PermGetProviders, access.PermBalanceAccess, access.PermFilesAccess, access.PermViewRecentActions, access.PermViewFees}

// caller is a signed-in user.
type caller struct {
	id    int64
	name  string
	token string
}

// user signs in a new user with role (and its permissions) and merchants.
func user(t *testing.T, role string, merchantIDs ...int32) caller {
	t.Helper()
	return userWith(t, role, grants[role], merchantIDs...)
}

// userWith signs in a new user with role, exactly perms, and merchants.
func userWith(t *testing.T, role string, perms []string, merchantIDs ...int32) caller {
	t.Helper()
	id := suite.userSeq.Add(1)
	name := strings.ToLower(strings.ReplaceAll(role, " ", "-")) + "-" + strconv.FormatInt(id, 10)
	return caller{id: id, name: name, token: suite.issuer.Token(t, authztest.User{
		ID: id, Username: name, Roles: []string{role}, Permissions: perms, MerchantIDs: merchantIDs,
	})}
}

var httpClient = &http.Client{Transport: &http.Transport{}, Timeout: 20 * time.Second}

// call sends a REST request to base; body is JSON-encoded unless a string.
func call(t *testing.T, c caller, base, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		raw, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, base+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "callbacks-test/"+c.name)
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, raw
}

// must is call that fails the test unless the answer is want, decoding it
// into out when not nil.
func must(t *testing.T, c caller, base string, want int, method, path string, body, out any) []byte {
	t.Helper()
	status, raw := call(t, c, base, method, path, body)
	if status != want {
		t.Fatalf("%s %s = %d, want %d: %s", method, path, status, want, raw)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s %s: decode %s: %v", method, path, raw, err)
		}
	}
	return raw
}

// errorMessage is the message of a REST error body.
func errorMessage(t *testing.T, raw []byte) string {
	t.Helper()
	var e struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	}
	if err := json.Unmarshal(raw, &e); err != nil || e.Code == "" {
		t.Fatalf("not an error body: %s", raw)
	}
	return e.Message
}

// newMerchant adds a merchant of the test's own to the gateway.
func newMerchant(t *testing.T) int32 {
	t.Helper()
	id := suite.merchSeq.Add(1)
	if _, err := suite.gwPool.Exec(context.Background(), `INSERT INTO merchants (id, name, hash) VALUES ($1, $2, $3)`,
		id, "Callbacks Test "+strconv.Itoa(int(id)), "cbtest-"+strconv.Itoa(int(id))); err != nil {
		t.Fatal(err)
	}
	return id
}

// newCollab makes a collab of merchantID with the first demo provider, as
// an admin would in the console.
func newCollab(t *testing.T, merchantID int32) int32 {
	t.Helper()
	var out struct {
		ID int32 `json:"id"`
	}
	must(t, user(t, access.RoleAdmin), suite.gwHTTP, http.StatusOK, http.MethodPost, "/api/v1/collabs/initialize",
		map[string]any{"ProviderId": 1, "MerchantId": merchantID, "PayTypeIds": []int32{}}, &out)
	return out.ID
}

// newTxID returns a transaction id no one else uses.
func newTxID() int64 { return suite.idSeq.Add(1) }

// service is a running callbacks service, its schema and a pool on it.
type service struct {
	*servicetest.Service
	schema string
	pool   *pgxpool.Pool
}

// fastEnv makes retries quick for tests, and starts the consumers with the
// events published from then on (the shared stream holds every other
// test's).
var fastEnv = map[string]string{
	"PAYGATE_CALLBACK_EVENTS_FROM":   "new",
	"PAYGATE_CALLBACK_BACKOFF_BASE":  "20ms",
	"PAYGATE_CALLBACK_BACKOFF_CAP":   "100ms",
	"PAYGATE_CALLBACK_POLL_INTERVAL": "20ms",
	"PAYGATE_CALLBACK_TIMEOUT":       "2s",
	"PAYGATE_CALLBACK_LEASE":         "10s",
	// An open breaker probes soon, so that tests of retries against a
	// receiver that failed five times in a row wait little.
	"PAYGATE_CALLBACK_BREAKER_COOLDOWN":     "100ms",
	"PAYGATE_CALLBACK_BREAKER_COOLDOWN_CAP": "1s",
}

// startService runs the service on a fresh schema (dropped, with its
// consumer, when the test ends).
func startService(t *testing.T, extra ...map[string]string) *service {
	t.Helper()
	schema := "cbtest_" + randomHex(6)
	t.Cleanup(func() {
		servicetest.DeleteConsumers(natsURL, cbnats.Consumers(schema)...)
		dropSchema(schema)
	})
	return startServiceIn(t, schema, extra...)
}

// startServiceIn runs the service on schema; stop ends it early.
func startServiceIn(t *testing.T, schema string, extra ...map[string]string) *service {
	t.Helper()
	env := map[string]string{
		"PAYGATE_DATABASE_URL":       pgtest.URL(),
		"PAYGATE_DATABASE_SCHEMA":    schema,
		"PAYGATE_REDIS_URL":          redisURL,
		"PAYGATE_NATS_URL":           natsURL,
		"PAYGATE_HTTP_ADDR":          "127.0.0.1:0",
		"PAYGATE_GRPC_ADDR":          "127.0.0.1:0",
		"PAYGATE_JWKS_URL":           suite.jwksURL,
		"PAYGATE_DEMO":               "true",
		"PAYGATE_ALLOW_PRIVATE_URLS": "true",
		"PAYGATE_GATEWAY_GRPC_ADDR":  suite.gwGRPC,
	}
	maps.Copy(env, fastEnv)
	for _, e := range extra {
		maps.Copy(env, e)
	}
	s := &service{Service: servicetest.Run(t, run, env), schema: schema}
	pctx, pcancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer pcancel()
	pool, err := pgdb.Open(pctx, pgtest.URL(), schema)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	s.pool = pool
	return s
}

func (s *service) queryInt(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := s.pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// received is one request a receiver got.
type received struct {
	header http.Header
	body   []byte
	txID   string
	at     time.Time
}

// receiver is a merchant's callback endpoint.
type receiver struct {
	*httptest.Server
	status atomic.Int32
	mu     sync.Mutex
	got    []received
}

// newReceiver starts a receiver that answers 200 until told otherwise.
func newReceiver(t *testing.T) *receiver {
	t.Helper()
	r := &receiver{}
	r.status.Store(http.StatusOK)
	r.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		var b struct {
			Data struct {
				ID string `json:"id"`
			} `json:"data"`
		}
		_ = json.Unmarshal(body, &b)
		r.mu.Lock()
		r.got = append(r.got, received{header: req.Header.Clone(), body: body, txID: b.Data.ID, at: time.Now()})
		r.mu.Unlock()
		w.WriteHeader(int(r.status.Load()))
	}))
	t.Cleanup(r.Close)
	return r
}

// of returns the requests about one transaction.
func (r *receiver) of(txID int64) []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []received
	for _, g := range r.got {
		if g.txID == strconv.FormatInt(txID, 10) {
			out = append(out, g)
		}
	}
	return out
}

// waitFor polls cond until it holds or d passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// events is a subscription to the events on NATS.
type events struct {
	sub  *nats.Subscription
	nc   *nats.Conn
	seen []*nats.Msg
	used []bool
}

// connect connects to NATS and subscribes to every event before the test
// acts, so none it causes is missed.
func connect(t *testing.T) *events {
	t.Helper()
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	sub, err := nc.SubscribeSync(bus.SubjectPrefix + ">")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &events{sub: sub, nc: nc}
}

// publish publishes an event as the gateway's relay would: the event id as
// Nats-Msg-Id.
func (e *events) publish(t *testing.T, id string, msg proto.Message) {
	t.Helper()
	js, err := jetstream.New(e.nc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(bus.Subject(msg))
	m.Data = raw
	m.Header.Set(jetstream.MsgIDHeader, id)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
}

// tx describes a transaction event of a test.
type tx struct {
	id                int64
	merchant, collab  int32
	typ, prev, status int32
	cancelled         bool
	updatedAt         time.Time
	// callbacksOff finalizes it with the collab's merchant callbacks off.
	callbacksOff bool
}

func (x tx) state() *eventsv1.TransactionState {
	at := x.updatedAt
	if at.IsZero() {
		at = time.Now()
	}
	return &eventsv1.TransactionState{
		TransactionId: x.id, ReferenceId: "ref-" + strconv.FormatInt(x.id, 10), MerchantId: x.merchant, CollabId: x.collab,
		ProviderId: 1, Nonce: "nonce-" + strconv.FormatInt(x.id, 10), TransactionType: x.typ, Amount: "12.34", Currency: "PHP",
		Status: x.status, StatusMessage: "Status " + strconv.Itoa(int(x.status)), ProviderTransactionId: "psp-" + strconv.FormatInt(x.id, 10),
		UpdatedAt: timestamppb.New(at), CallbackSendingCanceled: x.cancelled, MerchantClientId: "client-9",
		DestinationAmount: "12.34", DestinationCurrency: "PHP", CreatedAt: timestamppb.New(at.Add(-time.Minute)),
	}
}

// finalize publishes a TransactionFinalized of x and returns its event id.
func (e *events) finalize(t *testing.T, x tx) string {
	t.Helper()
	id := "cbtest-" + randomHex(8)
	e.publish(t, id, &eventsv1.TransactionFinalized{Transaction: x.state(), PreviousStatus: x.prev, Source: "Provider",
		MerchantCallbacksOff: x.callbacksOff})
	return id
}

// update publishes a TransactionUpdated of x.
func (e *events) update(t *testing.T, x tx) {
	t.Helper()
	e.publish(t, "cbtest-"+randomHex(8), &eventsv1.TransactionUpdated{Transaction: x.state(), PreviousStatus: x.prev, Source: "Provider"})
}

// next returns the first event on subject, among those received so far and
// those still coming within 15s, that match accepts; every event is kept
// for later calls.
func (e *events) next(t *testing.T, subject string, accepts func(data []byte) bool) []byte {
	t.Helper()
	for i, m := range e.seen {
		if m.Subject == subject && !e.used[i] && accepts(m.Data) {
			e.used[i] = true
			return m.Data
		}
	}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		m, err := e.sub.NextMsg(time.Until(deadline))
		if err != nil {
			break
		}
		e.seen = append(e.seen, m)
		e.used = append(e.used, false)
		if m.Subject == subject && accepts(m.Data) {
			e.used[len(e.used)-1] = true
			return m.Data
		}
	}
	return nil
}

// tally waits for a CallbackDeliveryChanged of txID matching want.
func (e *events) tally(t *testing.T, txID int64, want func(*eventsv1.CallbackDeliveryChanged) bool) *eventsv1.CallbackDeliveryChanged {
	t.Helper()
	var ev eventsv1.CallbackDeliveryChanged
	data := e.next(t, bus.Subject(&ev), func(data []byte) bool {
		var c eventsv1.CallbackDeliveryChanged
		return proto.Unmarshal(data, &c) == nil && c.GetTransactionId() == txID && want(&c)
	})
	if data == nil {
		t.Fatalf("no matching CallbackDeliveryChanged for transaction %d", txID)
	}
	if err := proto.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return &ev
}

// urlChange waits for the next CallbackUrlChanged of a callback id made by
// user (ids are per schema, users per test).
func (e *events) urlChange(t *testing.T, callbackID int64, by caller) *eventsv1.CallbackUrlChanged {
	t.Helper()
	var ev eventsv1.CallbackUrlChanged
	data := e.next(t, bus.Subject(&ev), func(data []byte) bool {
		var c eventsv1.CallbackUrlChanged
		return proto.Unmarshal(data, &c) == nil && c.GetCallbackId() == callbackID && c.GetUserId() == by.id
	})
	if data == nil {
		t.Fatalf("no CallbackUrlChanged for callback %d by user %d", callbackID, by.id)
	}
	if err := proto.Unmarshal(data, &ev); err != nil {
		t.Fatal(err)
	}
	return &ev
}

// JSON shapes of docs/contracts-callbacks.md.
type (
	callbackJSON struct {
		ID                int64  `json:"id,string"`
		CollabID          int32  `json:"collabId"`
		CallbackURL       string `json:"callbackUrl"`
		IsEnabled         bool   `json:"isEnabled"`
		MaxAttempts       int32  `json:"maxAttempts"`
		AddSignature      bool   `json:"addSignature"`
		TransactionTypeID *int32 `json:"transactionTypeId"`
		MerchantID        int32  `json:"merchantId"`
		CreatedUtc        string `json:"createdUtc"`
		UpdatedUtc        string `json:"updatedUtc"`
	}
	attemptJSON struct {
		ID                    int64  `json:"id,string"`
		CreatedUtc            string `json:"createdUtc"`
		CallbackURL           string `json:"callbackUrl"`
		RequestBody           string `json:"requestBody"`
		ResponseCode          int32  `json:"responseCode"`
		CallbackAttemptStatus string `json:"callbackAttemptStatus"`
		WebhookID             string `json:"webhookId"`
		AttemptNumber         int32  `json:"attemptNumber"`
		ErrorMessage          string `json:"errorMessage"`
		TransactionID         string `json:"transactionId"`
	}
	attemptsJSON struct {
		CallbackAttempts []attemptJSON `json:"callbackAttempts"`
		TotalCount       string        `json:"totalCount"`
		CurrentPage      int32         `json:"currentPage"`
		TotalPages       int32         `json:"totalPages"`
	}
)

// createURL adds a callback URL as c and returns it.
func (s *service) createURL(t *testing.T, c caller, body map[string]any) callbackJSON {
	t.Helper()
	var out callbackJSON
	must(t, c, s.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/callbacks", body, &out)
	return out
}

// attempts lists a transaction's attempts as c.
func (s *service) attempts(t *testing.T, c caller, txID int64) attemptsJSON {
	t.Helper()
	var out attemptsJSON
	must(t, c, s.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/transactions/"+strconv.FormatInt(txID, 10)+"/callbacks/attempts", nil, &out)
	return out
}
