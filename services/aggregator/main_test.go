package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/big"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	aggnats "github.com/paygate/paygate/services/aggregator/internal/nats"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// The integration tests run the service as main does (run) in a schema of
// its own against the test Postgres, Redis and NATS. Events are published
// to JetStream as the gateway's relay would. The stream is shared with
// other tests, so each test uses transaction and merchant ids of its own
// and its consumers start with new events.

func testEnv(key, fallback string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return fallback
}

var (
	natsURL  = testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222")
	redisURL = testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
	issuer   *authztest.Issuer
	jwksURL  string
	idSeq    atomic.Int64
	merchSeq atomic.Int32
)

func TestMain(m *testing.M) {
	_, priv, _ := ed25519.GenerateKey(rand.Reader)
	issuer = &authztest.Issuer{Kid: randomHex(6), Key: priv}
	jwks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		body, _ := authz.MarshalJWKS(map[string]ed25519.PublicKey{issuer.Kid: issuer.Public()})
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	jwksURL = jwks.URL
	var b [8]byte
	_, _ = rand.Read(b[:])
	idSeq.Store(2_000_000_000_000 + int64(binary.BigEndian.Uint64(b[:])%1_000_000_000)*1000)
	merchSeq.Store(int32(200_000 + binary.BigEndian.Uint64(b[:])%1_000_000_000))
	// No auth service fills the test Redis: mark it filled, as its refill
	// does, or every revocation check would wait for one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := authztest.MarkRevocationsFilled(ctx, redisURL)
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	jwks.Close()
	os.Exit(code)
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// service is a running aggregator in a schema of its own.
type service struct {
	*servicetest.Service
	schema string
	js     jetstream.JetStream
	db     *pgx.Conn
}

// newSchema names a schema of the test's own and answers the environment of
// an aggregator on it, a JetStream and a database connection; the schema and
// its consumers go when the test ends.
func newSchema(t *testing.T) (schema string, env map[string]string, js jetstream.JetStream, conn *pgx.Conn) {
	t.Helper()
	schema = "aggtest_" + randomHex(6)
	env = serviceEnv(schema)
	ctx := context.Background()
	nc, js, err := bus.Connect(ctx, natsURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err = pgx.Connect(ctx, pgtest.URL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		for _, n := range aggnats.Consumers(schema) {
			_ = js.DeleteConsumer(ctx, bus.StreamName, n)
		}
		_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		conn.Close(ctx)
		nc.Close()
	})
	return schema, env, js, conn
}

func start(t *testing.T) *service {
	t.Helper()
	schema, env, js, conn := newSchema(t)
	s := servicetest.Run(t, run, env)
	waitConsumers(t, js, schema)
	return &service{Service: s, schema: schema, js: js, db: conn}
}

// serviceEnv is the environment of an aggregator on its own schema whose
// consumers start with new events (the stream is shared with other tests).
func serviceEnv(schema string) map[string]string {
	return map[string]string{
		"PAYGATE_DATABASE_URL": pgtest.URL(), "PAYGATE_DATABASE_SCHEMA": schema,
		"PAYGATE_REDIS_URL": redisURL, "PAYGATE_NATS_URL": natsURL,
		"PAYGATE_HTTP_ADDR": "127.0.0.1:0", "PAYGATE_GRPC_ADDR": "127.0.0.1:0",
		"PAYGATE_JWKS_URL": jwksURL, "PAYGATE_DEMO": "true",
		"PAYGATE_GATEWAY_GRPC_ADDR": "127.0.0.1:1", "PAYGATE_AGGREGATOR_AUTO_REBUILD": "false",
		"PAYGATE_AGGREGATOR_EVENTS_FROM": "new",
	}
}

func (s *service) publish(t *testing.T, msg proto.Message) {
	t.Helper()
	data, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.js.Publish(context.Background(), bus.Subject(msg), data); err != nil {
		t.Fatal(err)
	}
}

// tx is a transaction's state at one version.
type tx struct {
	id, version        int64
	created            time.Time
	merchant, provider int32
	status, typ        int32
	currency, amount   string
}

func (x tx) state() *eventsv1.TransactionState {
	return &eventsv1.TransactionState{TransactionId: x.id, Version: x.version, CreatedAt: timestamppb.New(x.created),
		UpdatedAt:  timestamppb.New(x.created.Add(time.Duration(x.version) * time.Minute)),
		MerchantId: x.merchant, CollabId: x.merchant, ProviderId: x.provider, MerchantName: fmt.Sprint("M", x.merchant),
		ProviderName: fmt.Sprint("P", x.provider), Status: x.status, TransactionType: x.typ, Currency: x.currency, Amount: x.amount}
}

func (s *service) send(t *testing.T, x tx) {
	t.Helper()
	switch {
	case x.version == 1:
		s.publish(t, &eventsv1.TransactionCreated{Transaction: x.state()})
	case x.status == 3 || x.status == 2:
		s.publish(t, &eventsv1.TransactionUpdated{Transaction: x.state()})
	default:
		s.publish(t, &eventsv1.TransactionFinalized{Transaction: x.state()})
	}
}

// waitApplied waits until the schema holds n transactions at their
// expected versions.
func (s *service) waitApplied(t *testing.T, want map[int64]int64) {
	t.Helper()
	// Long enough for events a killed process held to come back (AckWait).
	deadline := time.Now().Add(45 * time.Second)
	for {
		ids := make([]int64, 0, len(want))
		for id := range want {
			ids = append(ids, id)
		}
		rows, err := s.db.Query(context.Background(), "SELECT id, version FROM "+s.schema+".tx_state WHERE id = ANY($1)", ids)
		if err != nil {
			t.Fatal(err)
		}
		ok := 0
		for rows.Next() {
			var id, v int64
			_ = rows.Scan(&id, &v)
			if want[id] == v {
				ok++
			}
		}
		rows.Close()
		if ok == len(want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d of %d transactions applied", ok, len(want))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

type user struct{ token string }

var admin = func(t *testing.T) user {
	return user{issuer.Token(t, authztest.User{ID: 1, Username: "admin", Roles: []string{access.RoleAdmin},
		Permissions: access.AllPermissions})}
}

func merchantUser(t *testing.T, perms []string, merchants ...int32) user {
	return user{issuer.Token(t, authztest.User{ID: 2, Username: "merchant", Roles: []string{access.RoleMerchant},
		Permissions: perms, MerchantIDs: merchants})}
}

func get(t *testing.T, s *service, u user, method, path string, body string) (int, map[string]any) {
	t.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req, _ := http.NewRequest(method, s.HTTPURL+path, rd)
	req.Header.Set("Authorization", "Bearer "+u.token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return resp.StatusCode, out
}

func statsPath(from, to time.Time, extra string) string {
	return "/api/v1/statistics?currency=USD&from=" + url.QueryEscape(from.Format(time.RFC3339Nano)) +
		"&to=" + url.QueryEscape(to.Add(-time.Millisecond).Format("2006-01-02T15:04:05.000Z07:00")) + extra
}

func num(v any) int64 {
	switch x := v.(type) {
	case string:
		var n int64
		fmt.Sscan(x, &n)
		return n
	case float64:
		return int64(x)
	}
	return 0
}

func ratEq(t *testing.T, what, got string, want *big.Rat) {
	t.Helper()
	var g big.Rat
	// Converted amounts are rounded to cents, once per figure.
	if _, ok := g.SetString(got); !ok || g.FloatString(2) != want.FloatString(2) {
		t.Errorf("%s = %s, want %s", what, got, want.FloatString(2))
	}
}
