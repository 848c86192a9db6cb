package main

import (
	"bytes"
	"context"
	"crypto"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/currency"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/server"
)

// The gateway's side of the aggregator (issue 14): transaction versions in
// the events, currencies and their rates, and the internal replay of
// transactions and rates.

// testInternalToken is the internal token the tests' gateways are given.
const testInternalToken = "gateway-test-internal-token"

// aggregatorSide is where a test reaches CurrencyService and ReplayService:
// the gateway under test when it serves them, otherwise a server of the
// test's own on the gateway's schema, wired as main wires them.
type aggregatorSide struct {
	grpcAddr string
	httpURL  string
}

func newAggregatorSide(t *testing.T, g *testGateway) aggregatorSide {
	t.Helper()
	cc, err := grpc.NewClient(g.GRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err = gatewayv1.NewCurrencyServiceClient(cc).ListCurrencies(ctx, &gatewayv1.ListCurrenciesRequest{})
	if status.Code(err) != codes.Unimplemented {
		return aggregatorSide{grpcAddr: g.GRPCAddr, httpURL: g.HTTPURL}
	}

	verifier := authz.NewKeyVerifier(func(kid string) (crypto.PublicKey, error) {
		if kid != g.issuer.Kid {
			return nil, errors.New("unknown key")
		}
		return g.issuer.Public(), nil
	})
	internal := authz.WithInternalToken(testInternalToken)
	srv := server.New(server.Options{
		Name: "gateway-aggregator-side", GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0",
		Logger:             slog.New(slog.NewTextHandler(io.Discard, nil)),
		Interceptors:       []grpc.UnaryServerInterceptor{authz.UnaryInterceptor(verifier, grpcapi.Rules, nil, internal)},
		StreamInterceptors: []grpc.StreamServerInterceptor{authz.StreamInterceptor(verifier, grpcapi.Rules, nil, internal)},
	})
	currencies := currency.NewService(postgres.NewCurrencies(g.pool), time.Now)
	srv.Register(&gatewayv1.CurrencyService_ServiceDesc, grpcapi.NewCurrencyServer(currencies))
	srv.Register(&gatewayv1.ReplayService_ServiceDesc, grpcapi.NewReplayServer(postgres.NewPayments(g.pool), currencies))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return gatewayv1.RegisterCurrencyServiceHandlerClient(ctx, mux, gatewayv1.NewCurrencyServiceClient(cc))
	})
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	t.Cleanup(func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("aggregator-side server: %v", err)
		}
	})
	grpcAddr, httpAddr := srv.Addrs()
	return aggregatorSide{grpcAddr: grpcAddr, httpURL: "http://" + httpAddr}
}

// rest sends a REST request with token (none when empty) and returns the
// status and body.
func (a aggregatorSide) rest(t *testing.T, g *testGateway, token, method, path string, body any) (int, []byte) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, a.httpURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := g.client.Do(req)
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

// outboxEvents decodes the schema's outbox rows of a subject, in order.
func outboxEvents[M proto.Message](t *testing.T, g *testGateway, subject string, newMsg func() M) []M {
	t.Helper()
	rows, err := g.pool.Query(context.Background(), `SELECT payload FROM outbox WHERE subject = $1 ORDER BY id`, subject)
	if err != nil {
		t.Fatal(err)
	}
	payloads, err := pgx.CollectRows(rows, pgx.RowTo[[]byte])
	if err != nil {
		t.Fatal(err)
	}
	out := make([]M, 0, len(payloads))
	for _, p := range payloads {
		m := newMsg()
		if err := proto.Unmarshal(p, m); err != nil {
			t.Fatalf("decode %s: %v", subject, err)
		}
		out = append(out, m)
	}
	return out
}

// transactionStates returns the states the events of one transaction
// carried, in the order they were written (outbox ids are time-ordered).
func transactionStates(t *testing.T, g *testGateway, id int64) []*eventsv1.TransactionState {
	t.Helper()
	rows, err := g.pool.Query(context.Background(), `SELECT subject, payload FROM outbox
		WHERE subject IN ('paygate.events.transaction_created', 'paygate.events.transaction_updated',
			'paygate.events.transaction_finalized') ORDER BY id`)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		subject string
		payload []byte
	}
	all, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
		var x row
		return x, r.Scan(&x.subject, &x.payload)
	})
	if err != nil {
		t.Fatal(err)
	}
	var out []*eventsv1.TransactionState
	for _, r := range all {
		var st *eventsv1.TransactionState
		switch r.subject {
		case "paygate.events.transaction_created":
			var m eventsv1.TransactionCreated
			if err := proto.Unmarshal(r.payload, &m); err != nil {
				t.Fatal(err)
			}
			st = m.GetTransaction()
		case "paygate.events.transaction_updated":
			var m eventsv1.TransactionUpdated
			if err := proto.Unmarshal(r.payload, &m); err != nil {
				t.Fatal(err)
			}
			st = m.GetTransaction()
		default:
			var m eventsv1.TransactionFinalized
			if err := proto.Unmarshal(r.payload, &m); err != nil {
				t.Fatal(err)
			}
			st = m.GetTransaction()
		}
		if st.GetTransactionId() == id {
			out = append(out, st)
		}
	}
	return out
}

func TestTransactionVersions(t *testing.T) {
	e := newPayEnvWith(t, payEnvOptions{env: map[string]string{"PAYGATE_INTERNAL_TOKEN": testInternalToken}})

	check := func(t *testing.T, id int64, wantStatuses []int32) {
		t.Helper()
		states := transactionStates(t, e.testGateway, id)
		if len(states) != len(wantStatuses) {
			t.Fatalf("transaction %d has %d events, want %d: %v", id, len(states), len(wantStatuses), states)
		}
		for i, st := range states {
			if st.GetVersion() != int64(i+1) || st.GetStatus() != wantStatuses[i] {
				t.Errorf("event %d: version %d status %d, want version %d status %d", i, st.GetVersion(), st.GetStatus(), i+1, wantStatuses[i])
			}
			if st.GetMerchantName() != "Test Merchant "+strconv.Itoa(int(e.merchantID)) || st.GetProviderName() == "" {
				t.Errorf("event %d: merchant %q provider %q", i, st.GetMerchantName(), st.GetProviderName())
			}
		}
		if v := e.queryInt(t, `SELECT status_version FROM transactions WHERE id = $1`, id); v != int64(len(wantStatuses)) {
			t.Errorf("row status_version = %d, want %d", v, len(wantStatuses))
		}
	}

	t.Run("created, updated, finalized, overridden", func(t *testing.T) {
		out := e.initialize(t, http.StatusOK, e.payload("n-versions", "10", 1, "GCASH",
			"sandbox:outcome=pending-success", "sandbox:pending=300ms", "sandbox:webhook=off"))
		if out.TransactionStatus != 3 {
			t.Fatalf("answer %+v", out)
		}
		e.waitStatus(t, out.ID, 4)
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+out.ID+"/status/-2?transactionStatus=4", nil, nil)
		id, _ := strconv.ParseInt(out.ID, 10, 64)
		check(t, id, []int32{1, 3, 4, -2})
	})

	t.Run("an operator's change that keeps the status keeps the version", func(t *testing.T) {
		out := e.initialize(t, http.StatusOK, e.payload("n-versions-2", "10", 1, "GCASH"))
		if out.TransactionStatus != 4 {
			t.Fatalf("answer %+v", out)
		}
		id, _ := strconv.ParseInt(out.ID, 10, 64)
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+out.ID+"/callbacks/cancel?transactionStatus=4", nil, nil)
		states := transactionStates(t, e.testGateway, id)
		if len(states) != 3 || states[2].GetVersion() != 2 || !states[2].GetCallbackSendingCanceled() {
			t.Fatalf("events %v, want created v1, finalized v2, then the callbacks cancel at v2", states)
		}
	})
}

type currencyJSON struct {
	ID                int32  `json:"id"`
	Code              string `json:"code"`
	Name              string `json:"name"`
	Decimals          int32  `json:"decimals"`
	USDRate           string `json:"usdRate"`
	RateEffectiveFrom string `json:"rateEffectiveFrom"`
}

type rateJSON struct {
	ID            string `json:"id"`
	Currency      string `json:"currency"`
	USDRate       string `json:"usdRate"`
	EffectiveFrom string `json:"effectiveFrom"`
	SetBy         string `json:"setBy"`
	SetAt         string `json:"setAt"`
}

func TestCurrencies(t *testing.T) {
	g := newTestGateway(t, map[string]string{"PAYGATE_INTERNAL_TOKEN": testInternalToken})
	side := newAggregatorSide(t, g)
	admin := g.user(t, access.RoleAdmin)
	merchantUser := g.user(t, access.RoleMerchant, 1)
	support := g.user(t, access.RoleSupport, 1, 2, 3)
	today := time.Now().UTC().Format(currency.DayLayout)

	list := func(t *testing.T, c *caller) map[string]currencyJSON {
		t.Helper()
		code, raw := side.rest(t, g, c.token, http.MethodGet, "/api/v1/currencies", nil)
		if code != http.StatusOK {
			t.Fatalf("GET /api/v1/currencies = %d: %s", code, raw)
		}
		var cs []currencyJSON
		if err := json.Unmarshal(raw, &cs); err != nil {
			t.Fatal(err)
		}
		out := map[string]currencyJSON{}
		for _, c := range cs {
			out[c.Code] = c
		}
		return out
	}
	rates := func(t *testing.T, c *caller, code string) []rateJSON {
		t.Helper()
		status, raw := side.rest(t, g, c.token, http.MethodGet, "/api/v1/currencies/"+code+"/rates", nil)
		if status != http.StatusOK {
			t.Fatalf("GET rates of %s = %d: %s", code, status, raw)
		}
		var rs []rateJSON
		if err := json.Unmarshal(raw, &rs); err != nil {
			t.Fatal(err)
		}
		return rs
	}
	// written counts what a rate call may write. The jobs' own run reports
	// (paygate.events.job_*) are left out: the gateway's background jobs
	// (the fraud scan, the credentials re-seal…) report runs into the same
	// outbox at any moment, whatever the call did.
	written := func(t *testing.T) int64 {
		t.Helper()
		return g.queryInt(t, `SELECT (SELECT count(*) FROM currency_rates) * 1000000
			+ (SELECT count(*) FROM outbox WHERE subject NOT LIKE 'paygate.events.job\_%')
			+ (SELECT count(*) FROM activity_log) * 1000`)
	}

	t.Run("the demo data has PHP and USD rates; any signed-in user reads them", func(t *testing.T) {
		cs := list(t, merchantUser)
		for _, code := range []string{"PHP", "USD", "EUR"} {
			if _, ok := cs[code]; !ok {
				t.Errorf("no %s in %v", code, cs)
			}
		}
		if php := cs["PHP"]; php.USDRate != "0.0172" || php.RateEffectiveFrom != "2025-01-01" || php.Decimals != 2 || php.Name == "" {
			t.Errorf("PHP %+v", php)
		}
		if usd := cs["USD"]; usd.USDRate != "1" {
			t.Errorf("USD %+v", usd)
		}
		if eur := cs["EUR"]; eur.USDRate != "" || eur.RateEffectiveFrom != "" {
			t.Errorf("EUR has no rate yet: %+v", eur)
		}
		if rs := rates(t, support, "PHP"); len(rs) != 1 || rs[0].USDRate != "0.0172" || rs[0].EffectiveFrom != "2025-01-01" {
			t.Errorf("PHP rates %+v", rs)
		}
		if status, _ := side.rest(t, g, "", http.MethodGet, "/api/v1/currencies", nil); status != http.StatusUnauthorized {
			t.Errorf("without a token: %d, want 401", status)
		}
	})

	t.Run("demo seeding again adds nothing", func(t *testing.T) {
		before := written(t)
		if err := postgres.NewCurrencies(g.pool).SeedRatesDemo(context.Background()); err != nil {
			t.Fatal(err)
		}
		if after := written(t); after != before {
			t.Errorf("seeding again wrote: %d -> %d", before, after)
		}
	})

	t.Run("bad input is refused and writes nothing", func(t *testing.T) {
		nextYear := time.Now().UTC().AddDate(1, 0, 2).Format(currency.DayLayout)
		tests := []struct {
			name, code string
			body       map[string]any
			status     int
			field      string
		}{
			{"USD", "USD", map[string]any{"usdRate": "1"}, http.StatusBadRequest, "currency"},
			{"unknown currency", "XYZ", map[string]any{"usdRate": "1"}, http.StatusNotFound, "XYZ"},
			{"no rate", "PHP", map[string]any{}, http.StatusBadRequest, "usdRate"},
			{"zero", "PHP", map[string]any{"usdRate": "0.000"}, http.StatusBadRequest, "usdRate"},
			{"negative", "PHP", map[string]any{"usdRate": "-0.01"}, http.StatusBadRequest, "usdRate"},
			{"exponent", "PHP", map[string]any{"usdRate": "1e-2"}, http.StatusBadRequest, "usdRate"},
			{"13 fraction digits", "PHP", map[string]any{"usdRate": "0.0000000000001"}, http.StatusBadRequest, "usdRate"},
			{"not a day", "PHP", map[string]any{"usdRate": "0.02", "effectiveFrom": "2025-13-01"}, http.StatusBadRequest, "effectiveFrom"},
			{"a time", "PHP", map[string]any{"usdRate": "0.02", "effectiveFrom": "2025-01-01T00:00:00Z"}, http.StatusBadRequest, "effectiveFrom"},
			{"before 2000", "PHP", map[string]any{"usdRate": "0.02", "effectiveFrom": "1999-12-31"}, http.StatusBadRequest, "effectiveFrom"},
			{"over a year ahead", "PHP", map[string]any{"usdRate": "0.02", "effectiveFrom": nextYear}, http.StatusBadRequest, "effectiveFrom"},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				before := written(t)
				status, raw := side.rest(t, g, admin.token, http.MethodPost, "/api/v1/currencies/"+tt.code+"/rates", tt.body)
				var e struct{ Code, Message string }
				_ = json.Unmarshal(raw, &e)
				if status != tt.status || !strings.Contains(e.Message, tt.field) || !strings.HasSuffix(e.Message, ".") {
					t.Errorf("= %d %s, want %d with a sentence naming %s", status, raw, tt.status, tt.field)
				}
				if after := written(t); after != before {
					t.Errorf("a refused call wrote: %d -> %d", before, after)
				}
			})
		}
	})

	t.Run("only admins set rates", func(t *testing.T) {
		for _, c := range []*caller{support, merchantUser, g.user(t, access.RoleMerchantAdmin, 1)} {
			before := written(t)
			if status, raw := side.rest(t, g, c.token, http.MethodPost, "/api/v1/currencies/PHP/rates", map[string]any{"usdRate": "0.02"}); status != http.StatusForbidden {
				t.Errorf("%s: %d %s, want 403", c.name, status, raw)
			}
			if after := written(t); after != before {
				t.Errorf("%s: a refused call wrote", c.name)
			}
		}
	})

	t.Run("an admin sets a rate: stored, published, journaled, in force", func(t *testing.T) {
		status, raw := side.rest(t, g, admin.token, http.MethodPost, "/api/v1/currencies/PHP/rates", map[string]any{"usdRate": "0.0175"})
		if status != http.StatusOK {
			t.Fatalf("= %d %s", status, raw)
		}
		var r rateJSON
		if err := json.Unmarshal(raw, &r); err != nil {
			t.Fatal(err)
		}
		if r.Currency != "PHP" || r.USDRate != "0.0175" || r.EffectiveFrom != today || r.SetBy != admin.name || r.ID == "" || r.SetAt == "" {
			t.Errorf("rate %+v", r)
		}
		evs := outboxEvents(t, g, "paygate.events.currency_rate_set", func() *eventsv1.CurrencyRateSet { return &eventsv1.CurrencyRateSet{} })
		last := evs[len(evs)-1]
		if strconv.FormatInt(last.GetRateId(), 10) != r.ID || last.GetUsdRate() != "0.0175" || last.GetEffectiveFrom() != today ||
			last.GetSetBy() != admin.name || last.GetCurrency() != "PHP" {
			t.Errorf("event %v for rate %+v", last, r)
		}
		if n := g.queryInt(t, `SELECT count(*) FROM activity_log WHERE username = $1 AND message LIKE 'Rate of PHP set to 0.0175 USD%'`, admin.name); n != 1 {
			t.Errorf("%d activity entries, want 1", n)
		}
		if php := list(t, merchantUser)["PHP"]; php.USDRate != "0.0175" || php.RateEffectiveFrom != today {
			t.Errorf("PHP in force %+v", php)
		}

		// A second rate for the same day replaces the first; a future rate
		// is not in force yet; the history keeps them all, newest day first.
		side.rest(t, g, admin.token, http.MethodPost, "/api/v1/currencies/PHP/rates", map[string]any{"usdRate": "0.0176", "effectiveFrom": today})
		future := time.Now().UTC().AddDate(0, 1, 0).Format(currency.DayLayout)
		if status, raw := side.rest(t, g, admin.token, http.MethodPost, "/api/v1/currencies/PHP/rates", map[string]any{"usdRate": "0.018", "effectiveFrom": future}); status != http.StatusOK {
			t.Fatalf("future rate = %d %s", status, raw)
		}
		if php := list(t, merchantUser)["PHP"]; php.USDRate != "0.0176" {
			t.Errorf("PHP in force %+v, want 0.0176", php)
		}
		rs := rates(t, merchantUser, "PHP")
		var got []string
		for _, r := range rs {
			got = append(got, r.EffectiveFrom+"="+r.USDRate)
		}
		want := []string{future + "=0.018", today + "=0.0176", today + "=0.0175", "2025-01-01=0.0172"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("history %v, want %v", got, want)
		}
		if status, _ := side.rest(t, g, merchantUser.token, http.MethodGet, "/api/v1/currencies/XYZ/rates", nil); status != http.StatusNotFound {
			t.Errorf("rates of an unknown currency: %d, want 404", status)
		}
	})
}

// internalConn is a gRPC connection to the side presenting token as the
// internal token (none when empty).
func internalConn(t *testing.T, side aggregatorSide, token string) *grpc.ClientConn {
	t.Helper()
	opts := []grpc.DialOption{grpc.WithTransportCredentials(insecure.NewCredentials())}
	if token != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(authz.InternalCredentials(token)))
	}
	cc, err := grpc.NewClient(side.grpcAddr, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

func TestReplay(t *testing.T) {
	e := newPayEnvWith(t, payEnvOptions{env: map[string]string{"PAYGATE_INTERNAL_TOKEN": testInternalToken}})
	g := e.testGateway
	side := newAggregatorSide(t, g)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	// One real transaction, copied 2,500 times with versions 1 to 5.
	first := e.initialize(t, http.StatusOK, e.payload("n-replay", "10", 1, "GCASH"))
	var cols string
	if err := g.pool.QueryRow(ctx, `SELECT string_agg(column_name, ', ' ORDER BY ordinal_position) FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'transactions' AND is_generated = 'NEVER'
			AND column_name NOT IN ('id', 'nonce', 'reference_id', 'status_version')`).Scan(&cols); err != nil {
		t.Fatal(err)
	}
	g.exec(t, `INSERT INTO transactions (`+cols+`, nonce, reference_id, status_version)
		SELECT `+cols+`, 'replay-' || n, 'ref-replay-' || n, n % 5 + 1
		FROM transactions, generate_series(1, 2500) n WHERE id = $1`, first.ID)

	type row struct {
		id, version int64
		status      int32
	}
	truth := func(t *testing.T, from, to int64) []row {
		t.Helper()
		rows, err := g.pool.Query(ctx, `SELECT id, status_version, status FROM transactions WHERE id >= $1 AND id < $2 ORDER BY id`, from, to)
		if err != nil {
			t.Fatal(err)
		}
		out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (row, error) {
			var x row
			return x, r.Scan(&x.id, &x.version, &x.status)
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}

	t.Run("refused without the internal token", func(t *testing.T) {
		admin := g.user(t, access.RoleAdmin)
		tests := []struct {
			name string
			cc   *grpc.ClientConn
			md   metadata.MD
			want codes.Code
		}{
			{"no token", internalConn(t, side, ""), nil, codes.Unauthenticated},
			{"a wrong token", internalConn(t, side, "not-the-internal-token"), nil, codes.PermissionDenied},
			{"an admin's token", internalConn(t, side, ""), metadata.Pairs("authorization", "Bearer "+admin.token), codes.PermissionDenied},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				cctx := ctx
				if tt.md != nil {
					cctx = metadata.NewOutgoingContext(ctx, tt.md)
				}
				client := gatewayv1.NewReplayServiceClient(tt.cc)
				if _, err := client.GetTransactionIdRange(cctx, &gatewayv1.GetTransactionIdRangeRequest{}); status.Code(err) != tt.want {
					t.Errorf("GetTransactionIdRange: %v, want %v", err, tt.want)
				}
				stream, err := client.StreamTransactions(cctx, &gatewayv1.StreamTransactionsRequest{FromId: 0, ToId: 1 << 62})
				if err == nil {
					_, err = stream.Recv()
				}
				if status.Code(err) != tt.want {
					t.Errorf("StreamTransactions: %v, want %v", err, tt.want)
				}
				rates, err := client.StreamCurrencyRates(cctx, &gatewayv1.StreamCurrencyRatesRequest{})
				if err == nil {
					_, err = rates.Recv()
				}
				if status.Code(err) != tt.want {
					t.Errorf("StreamCurrencyRates: %v, want %v", err, tt.want)
				}
			})
		}
	})

	client := gatewayv1.NewReplayServiceClient(internalConn(t, side, testInternalToken))
	stream := func(t *testing.T, from, to int64) (got []row, batches []int) {
		t.Helper()
		s, err := client.StreamTransactions(ctx, &gatewayv1.StreamTransactionsRequest{FromId: from, ToId: to})
		if err != nil {
			t.Fatal(err)
		}
		for {
			msg, err := s.Recv()
			if errors.Is(err, io.EOF) {
				return got, batches
			}
			if err != nil {
				t.Fatal(err)
			}
			batches = append(batches, len(msg.GetTransactions()))
			for _, st := range msg.GetTransactions() {
				got = append(got, row{id: st.GetTransactionId(), version: st.GetVersion(), status: st.GetStatus()})
				if st.GetMerchantName() == "" || st.GetReferenceId() == "" || st.GetAmount() != "10.00" {
					t.Fatalf("state %v", st)
				}
			}
		}
	}
	same := func(t *testing.T, got, want []row) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%d transactions, want %d", len(got), len(want))
		}
		for i := range want {
			if got[i] != want[i] {
				t.Fatalf("transaction %d: %+v, want %+v", i, got[i], want[i])
			}
		}
	}

	var lo, hi int64
	t.Run("the id range", func(t *testing.T) {
		resp, err := client.GetTransactionIdRange(ctx, &gatewayv1.GetTransactionIdRangeRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if err := g.pool.QueryRow(ctx, `SELECT min(id), max(id) FROM transactions`).Scan(&lo, &hi); err != nil {
			t.Fatal(err)
		}
		if resp.GetMinId() != lo || resp.GetMaxId() != hi {
			t.Errorf("range %v, want %d..%d", resp, lo, hi)
		}
	})

	t.Run("every transaction with its version, in batches of at most 1000", func(t *testing.T) {
		got, batches := stream(t, lo, hi+1)
		same(t, got, truth(t, lo, hi+1))
		if len(got) < 2500 {
			t.Fatalf("%d transactions", len(got))
		}
		for i, n := range batches {
			if n > grpcapi.ReplayBatch || (i < len(batches)-1 && n != grpcapi.ReplayBatch) || n == 0 {
				t.Errorf("batch sizes %v", batches)
				break
			}
		}
	})

	t.Run("id ranges are respected", func(t *testing.T) {
		for _, r := range [][2]int64{{lo + 1, lo + 1001}, {lo + 10, lo + 11}, {hi, hi + 5}, {hi + 1, hi + 100}, {lo, lo}} {
			got, _ := stream(t, r[0], r[1])
			same(t, got, truth(t, r[0], r[1]))
		}
		s, err := client.StreamTransactions(ctx, &gatewayv1.StreamTransactionsRequest{FromId: 10, ToId: 5})
		if err == nil {
			_, err = s.Recv()
		}
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("toId before fromId: %v, want InvalidArgument", err)
		}
	})

	t.Run("every rate, oldest first", func(t *testing.T) {
		s, err := client.StreamCurrencyRates(ctx, &gatewayv1.StreamCurrencyRatesRequest{})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for {
			msg, err := s.Recv()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			r := msg.GetRate()
			got = append(got, strconv.FormatInt(r.GetRateId(), 10)+" "+r.GetCurrency()+" "+r.GetUsdRate()+" "+r.GetEffectiveFrom())
		}
		rows, err := g.pool.Query(ctx, `SELECT id || ' ' || currency || ' ' || usd_rate::text || ' ' || to_char(effective_from, 'YYYY-MM-DD')
			FROM currency_rates ORDER BY id`)
		if err != nil {
			t.Fatal(err)
		}
		want, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		if strings.Join(got, "; ") != strings.Join(want, "; ") || len(want) < 2 {
			t.Errorf("rates %v, want %v", got, want)
		}
	})
}
