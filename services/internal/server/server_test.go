package server_test

import (
	"context"
	"crypto"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"go.uber.org/goleak"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/apperr/grpcstatus"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/sensitive"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// fakeAuth answers Login according to the username, and ValidateToken with
// what ClientInfo saw.
type fakeAuth struct {
	authv1.UnimplementedAuthServiceServer
	slowStarted chan struct{}
	slowRelease chan struct{}
}

var _ authv1.AuthServiceServer = (*fakeAuth)(nil)

func (f *fakeAuth) Login(ctx context.Context, req *authv1.LoginRequest) (*authv1.LoginResponse, error) {
	switch req.GetUsername() {
	case "invalid":
		return nil, apperr.Invalid("Username is required.")
	case "unauthenticated":
		return nil, apperr.Unauthenticated("Invalid username or password")
	case "forbidden":
		return nil, apperr.Forbidden("Sign-in from this address is not allowed.")
	case "not_found":
		return nil, apperr.NotFound("The user was not found.")
	case "conflict":
		return nil, apperr.Conflict("The user was changed by someone else.")
	case "failed_precondition":
		return nil, apperr.FailedPrecondition("The user is disabled.")
	case "too_many_requests":
		return nil, apperr.TooManyRequests(1500*time.Millisecond, "Too many attempts. Try again later.")
	case "internal":
		return nil, apperr.Internal("database exploded at secret-dsn")
	case "unknown":
		return nil, errors.New("dial postgres password=hunter2")
	case "panic":
		panic("boom")
	case "confirmation_required":
		md, _ := metadata.FromIncomingContext(ctx)
		if tok := md.Get(sensitive.Header); len(tok) > 0 {
			return &authv1.LoginResponse{AccessToken: "confirmed:" + tok[0], TokenType: "Bearer"}, nil
		}
		b, _ := proto.Marshal(req)
		return nil, apperr.ConfirmationRequired(`{"action":"user.update"}`, b)
	case "queued":
		server.SetHTTPStatus(ctx, http.StatusAccepted)
	case "queued_then_failed":
		server.SetHTTPStatus(ctx, http.StatusAccepted)
		return nil, apperr.Conflict("The user was changed by someone else.")
	case "slow":
		close(f.slowStarted)
		select {
		case <-f.slowRelease:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	return &authv1.LoginResponse{AccessToken: req.GetUsername(), RefreshToken: req.GetPassword(), TokenType: "Bearer"}, nil
}

func (f *fakeAuth) ValidateToken(ctx context.Context, _ *authv1.ValidateTokenRequest) (*authv1.ValidateTokenResponse, error) {
	ip, ua := server.ClientInfo(ctx)
	claims, _ := access.FromContext(ctx)
	return &authv1.ValidateTokenResponse{Valid: true, User: &authv1.User{
		Username: ip, Roles: []string{ua}, Permissions: claims.Permissions,
	}}, nil
}

type running struct {
	srv      *server.Server
	fake     *fakeAuth
	grpcAddr string
	baseURL  string
	client   *http.Client
	stop     func() error
}

var testIssuer = sync.OnceValue(func() *authztest.Issuer {
	return authztest.NewIssuer(&onceTB{})
})

// onceTB lets authztest run outside a test for the shared issuer.
type onceTB struct{ testing.TB }

func (onceTB) Helper()                   {}
func (onceTB) Fatalf(f string, a ...any) { panic(fmt.Sprintf(f, a...)) }

var rules = authz.Rules{
	authv1.AuthService_Login_FullMethodName:         {Public: true},
	authv1.AuthService_ValidateToken_FullMethodName: {Authenticated: true},
}

func quietLogger() *slog.Logger {
	return slog.New(slog.NewJSONHandler(io.Discard, nil))
}

// start runs a server with the fake auth service until the test ends.
func start(t *testing.T, mutate func(o *server.Options), checks ...func(ctx context.Context) error) *running {
	t.Helper()
	issuer := testIssuer()
	verifier := authz.NewKeyVerifier(func(kid string) (crypto.PublicKey, error) {
		if kid != issuer.Kid {
			return nil, errors.New("unknown kid")
		}
		return issuer.Public(), nil
	})
	o := server.Options{
		Name:         "test",
		GRPCAddr:     "127.0.0.1:0",
		HTTPAddr:     "127.0.0.1:0",
		CORSOrigins:  []string{"http://console.test"},
		Logger:       quietLogger(),
		Interceptors: []grpc.UnaryServerInterceptor{authz.UnaryInterceptor(verifier, rules, nil)},
	}
	if mutate != nil {
		mutate(&o)
	}
	srv := server.New(o)
	fake := &fakeAuth{slowStarted: make(chan struct{}), slowRelease: make(chan struct{})}
	srv.Register(&authv1.AuthService_ServiceDesc, fake)
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return authv1.RegisterAuthServiceHandlerClient(ctx, mux, authv1.NewAuthServiceClient(cc))
	})
	srv.Handle("GET /.well-known/jwks.json", http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(`{"keys":[]}`))
	}))
	for i, c := range checks {
		srv.AddReadyCheck(fmt.Sprintf("check-%d", i), c)
	}
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	grpcAddr, httpAddr := srv.Addrs()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(ctx) }()

	tr := &http.Transport{}
	r := &running{
		srv: srv, fake: fake, grpcAddr: grpcAddr, baseURL: "http://" + httpAddr,
		client: &http.Client{Transport: tr, Timeout: 10 * time.Second},
	}
	var once sync.Once
	var stopErr error
	r.stop = func() error {
		once.Do(func() {
			cancel()
			select {
			case stopErr = <-done:
			case <-time.After(server.ShutdownTimeout + 5*time.Second):
				stopErr = errors.New("Run did not return after shutdown")
			}
			tr.CloseIdleConnections()
		})
		return stopErr
	}
	t.Cleanup(func() {
		if err := r.stop(); err != nil {
			t.Errorf("Run: %v", err)
		}
	})
	return r
}

func (r *running) do(t *testing.T, method, path, body string, header map[string]string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, r.baseURL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := r.client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, b
}

func (r *running) dial(t *testing.T) *grpc.ClientConn {
	t.Helper()
	cc, err := grpc.NewClient(r.grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()), grpc.WithUserAgent("test-agent/1"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

func TestRESTErrorBodies(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	tests := []struct {
		username   string
		status     int
		code       string
		message    string
		retryAfter string
	}{
		{"invalid", 400, "invalid", "Username is required.", ""},
		{"unauthenticated", 401, "unauthenticated", "Invalid username or password", ""},
		{"forbidden", 403, "forbidden", "Sign-in from this address is not allowed.", ""},
		{"not_found", 404, "not_found", "The user was not found.", ""},
		{"conflict", 409, "conflict", "The user was changed by someone else.", ""},
		{"failed_precondition", 422, "failed_precondition", "The user is disabled.", ""},
		{"too_many_requests", 429, "too_many_requests", "Too many attempts. Try again later.", "2"},
		{"confirmation_required", 428, "confirmation_required", "This change needs your confirmation.", ""},
		{"internal", 500, "internal", apperr.InternalMessage, ""},
		{"unknown", 500, "internal", apperr.InternalMessage, ""},
		{"panic", 500, "internal", apperr.InternalMessage, ""},
	}
	for _, tt := range tests {
		t.Run(tt.username, func(t *testing.T) {
			t.Parallel()
			resp, body := r.do(t, "POST", "/api/v1/login", `{"username":"`+tt.username+`","password":"x"}`, nil)
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d, want %d (%s)", resp.StatusCode, tt.status, body)
			}
			var got server.ErrorBody
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatalf("body %s: %v", body, err)
			}
			if got.Code != tt.code || got.Message != tt.message {
				t.Errorf("body = %+v, want code %q message %q", got, tt.code, tt.message)
			}
			if ra := resp.Header.Get("Retry-After"); ra != tt.retryAfter {
				t.Errorf("Retry-After = %q, want %q", ra, tt.retryAfter)
			}
			if ct := resp.Header.Get("Content-Type"); ct != "application/json" {
				t.Errorf("Content-Type = %q", ct)
			}
		})
	}

	t.Run("routing errors", func(t *testing.T) {
		t.Parallel()
		resp, body := r.do(t, "GET", "/api/v1/nothing-here", "", nil)
		if resp.StatusCode != 404 || !strings.Contains(string(body), `"code":"not_found"`) {
			t.Errorf("unknown path: %d %s", resp.StatusCode, body)
		}
		resp, body = r.do(t, "POST", "/api/v1/login", `{"username": 5`, nil)
		if resp.StatusCode != 400 || !strings.Contains(string(body), `"code":"invalid"`) {
			t.Errorf("malformed JSON: %d %s", resp.StatusCode, body)
		}
	})
}

// TestConfirmationRequired: a sensitive call without a confirmation answers
// 428 with the described action and the request's bytes; the REST header
// X-Paygate-Confirmation reaches the handler as sensitive.Header metadata.
func TestConfirmationRequired(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	resp, body := r.do(t, "POST", "/api/v1/login", `{"username":"confirmation_required","password":"x"}`, nil)
	if resp.StatusCode != 428 {
		t.Fatalf("status = %d, want 428 (%s)", resp.StatusCode, body)
	}
	var got server.ErrorBody
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("body %s: %v", body, err)
	}
	if got.Code != "confirmation_required" || got.Message != "This change needs your confirmation." ||
		got.Confirmation == nil || got.Confirmation.Action != `{"action":"user.update"}` {
		t.Fatalf("body = %s", body)
	}
	raw, err := base64.StdEncoding.DecodeString(got.Confirmation.Request)
	if err != nil {
		t.Fatalf("request is not standard base64: %v", err)
	}
	var req authv1.LoginRequest
	if err := proto.Unmarshal(raw, &req); err != nil || req.GetUsername() != "confirmation_required" || req.GetPassword() != "x" {
		t.Errorf("request bytes = %v (%v)", &req, err)
	}
	resp, body = r.do(t, "POST", "/api/v1/login", `{"username":"confirmation_required","password":"x"}`,
		map[string]string{"X-Paygate-Confirmation": "tok.en"})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"accessToken":"confirmed:tok.en"`) {
		t.Errorf("with the header: %d %s", resp.StatusCode, body)
	}
}

func TestGRPCErrorStatuses(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	client := authv1.NewAuthServiceClient(r.dial(t))
	tests := []struct {
		username string
		code     codes.Code
		kind     apperr.Kind
		message  string
	}{
		{"invalid", codes.InvalidArgument, apperr.KindInvalid, "Username is required."},
		{"conflict", codes.Aborted, apperr.KindConflict, "The user was changed by someone else."},
		{"failed_precondition", codes.FailedPrecondition, apperr.KindFailedPrecondition, "The user is disabled."},
		{"too_many_requests", codes.ResourceExhausted, apperr.KindTooManyRequests, "Too many attempts. Try again later."},
		{"confirmation_required", codes.FailedPrecondition, apperr.KindConfirmationRequired, apperr.ConfirmationMessage},
		{"unknown", codes.Internal, apperr.KindInternal, apperr.InternalMessage},
		{"panic", codes.Internal, apperr.KindInternal, apperr.InternalMessage},
	}
	for _, tt := range tests {
		t.Run(tt.username, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			_, err := client.Login(ctx, &authv1.LoginRequest{Username: tt.username})
			st := status.Convert(err)
			if st.Code() != tt.code || st.Message() != tt.message {
				t.Errorf("status = %v %q, want %v %q", st.Code(), st.Message(), tt.code, tt.message)
			}
			back := grpcstatus.FromError(err)
			if apperr.KindOf(back) != tt.kind {
				t.Errorf("FromError kind = %q, want %q", apperr.KindOf(back), tt.kind)
			}
			if tt.kind == apperr.KindTooManyRequests && apperr.As(back).RetryAfter != 1500*time.Millisecond {
				t.Errorf("RetryAfter = %v", apperr.As(back).RetryAfter)
			}
		})
	}
}

func TestInterceptorsGuardRESTAndGRPC(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	token := testIssuer().Token(t, authztest.User{ID: 1, Roles: []string{access.RoleAdmin}, Permissions: []string{access.PermEditFees}})

	resp, body := r.do(t, "GET", "/api/v1/validate-token", "", nil)
	if resp.StatusCode != 401 || !strings.Contains(string(body), `"code":"unauthenticated"`) {
		t.Errorf("REST without a token: %d %s", resp.StatusCode, body)
	}
	resp, body = r.do(t, "GET", "/api/v1/validate-token", "", map[string]string{"Authorization": "Bearer " + token})
	if resp.StatusCode != 200 || !strings.Contains(string(body), `"permissions":["Edit Fees"]`) {
		t.Errorf("REST with a token: %d %s", resp.StatusCode, body)
	}

	client := authv1.NewAuthServiceClient(r.dial(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := client.ValidateToken(ctx, &authv1.ValidateTokenRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Errorf("gRPC without a token: %v", err)
	}
	authed := metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token)
	if _, err := client.ValidateToken(authed, &authv1.ValidateTokenRequest{}); err != nil {
		t.Errorf("gRPC with a token: %v", err)
	}
	// Deny by default: Logout has no rule.
	if _, err := client.Logout(authed, &authv1.LogoutRequest{}); status.Code(err) != codes.PermissionDenied {
		t.Errorf("method without a rule: %v", err)
	}
}

func TestJSONCaseInsensitiveAndZeroValues(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	tests := []struct {
		name string
		body string
	}{
		{"camelCase", `{"username":"ann","password":"pw"}`},
		{"PascalCase", `{"Username":"ann","Password":"pw"}`},
		{"UPPER", `{"USERNAME":"ann","PASSWORD":"pw"}`},
		{"unknown keys dropped", `{"username":"ann","password":"pw","RememberMe":true}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			resp, body := r.do(t, "POST", "/api/v1/login", tt.body, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			var got map[string]any
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"accessToken": "ann", "refreshToken": "pw", "expiresIn": float64(0), "tokenType": "Bearer"}
			for k, v := range want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v (body %s)", k, got[k], v, body)
				}
			}
		})
	}
}

func TestJSONMarshalerNested(t *testing.T) {
	t.Parallel()
	m := server.NewJSONMarshaler()
	var got authv1.ValidateTokenResponse
	in := `{"VALID":true,"User":{"Id":"9007199254740993","UserName":"ann","Merchant_Ids":[1,2],"IsTemporaryPassword":true,"Extra":{"a":1}}}`
	if err := m.Unmarshal([]byte(in), &got); err != nil {
		t.Fatal(err)
	}
	u := got.GetUser()
	if !got.GetValid() || u.GetId() != 9007199254740993 || u.GetUsername() != "ann" ||
		len(u.GetMerchantIds()) != 2 || !u.GetIsTemporaryPassword() {
		t.Fatalf("decoded %v", &got)
	}
	// The exact spelling wins over a differently cased duplicate.
	var login authv1.LoginRequest
	if err := m.NewDecoder(strings.NewReader(`{"USERNAME":"loud","username":"exact"}`)).Decode(&login); err != nil {
		t.Fatal(err)
	}
	if login.GetUsername() != "exact" {
		t.Errorf("username = %q, want the exact key's value", login.GetUsername())
	}
	if err := m.NewDecoder(strings.NewReader("")).Decode(&login); !errors.Is(err, io.EOF) {
		t.Errorf("empty body = %v, want io.EOF", err)
	}
}

func TestHealthReadyMetrics(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var failing error
	r := start(t, nil, func(context.Context) error {
		mu.Lock()
		defer mu.Unlock()
		return failing
	})

	resp, body := r.do(t, "GET", "/healthz", "", nil)
	if resp.StatusCode != 200 {
		t.Errorf("/healthz = %d %s", resp.StatusCode, body)
	}
	resp, body = r.do(t, "GET", "/readyz", "", nil)
	if resp.StatusCode != 200 {
		t.Errorf("/readyz = %d %s", resp.StatusCode, body)
	}
	mu.Lock()
	failing = errors.New("database down")
	mu.Unlock()
	resp, body = r.do(t, "GET", "/readyz", "", nil)
	if resp.StatusCode != 503 || !strings.Contains(string(body), "check-0") || strings.Contains(string(body), "database down") {
		t.Errorf("/readyz with a failing check = %d %s", resp.StatusCode, body)
	}

	// gRPC health of the whole server is liveness: SERVING whatever the
	// readiness checks say (the services' own health follows them).
	health := healthpb.NewHealthClient(r.dial(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{}); err != nil || resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("health check with a failing readiness check = %v, %v; want SERVING", resp, err)
	}

	// The shared plumbing's registry is served beside the server's own.
	shared := prometheus.NewGauge(prometheus.GaugeOpts{Name: "test_shared_registry_gauge", Help: "A series of metrics.Registry."})
	shared.Set(1)
	metrics.Registry.MustRegister(shared)
	defer metrics.Registry.Unregister(shared)

	r.do(t, "POST", "/api/v1/login", `{"username":"ann"}`, nil)
	resp, body = r.do(t, "GET", "/metrics", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("/metrics = %d", resp.StatusCode)
	}
	for _, want := range []string{
		`grpc_server_handled_total{grpc_code="OK",grpc_method="Login",grpc_service="paygate.auth.v1.AuthService",transport="rest"} 1`,
		`grpc_server_handling_seconds_bucket`,
		`go_goroutines`,
		`test_shared_registry_gauge 1`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	resp, _ = r.do(t, "GET", "/.well-known/jwks.json", "", nil)
	if resp.StatusCode != 200 {
		t.Errorf("extra route = %d", resp.StatusCode)
	}
}

func TestGRPCHealthServing(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	health := healthpb.NewHealthClient(r.dial(t))
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		resp, err := health.Check(ctx, &healthpb.HealthCheckRequest{Service: "paygate.auth.v1.AuthService"})
		if err == nil && resp.GetStatus() == healthpb.HealthCheckResponse_SERVING {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("never SERVING: %v %v", resp, err)
		case <-time.After(20 * time.Millisecond):
		}
	}
}

func TestCORS(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	tests := []struct {
		name        string
		method      string
		path        string
		header      map[string]string
		status      int
		allowOrigin string
	}{
		{"preflight from the console", "OPTIONS", "/api/v1/validate-token", map[string]string{
			"Origin": "http://console.test", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization",
		}, 204, "http://console.test"},
		{"preflight from elsewhere", "OPTIONS", "/api/v1/validate-token", map[string]string{
			"Origin": "http://evil.test", "Access-Control-Request-Method": "GET",
		}, 403, ""},
		{"request from the console", "POST", "/api/v1/login", map[string]string{"Origin": "http://console.test"}, 200, "http://console.test"},
		{"request from elsewhere", "POST", "/api/v1/login", map[string]string{"Origin": "http://evil.test"}, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			body := ""
			if tt.method == "POST" {
				body = `{"username":"ann"}`
			}
			resp, b := r.do(t, tt.method, tt.path, body, tt.header)
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d, want %d (%s)", resp.StatusCode, tt.status, b)
			}
			if got := resp.Header.Get("Access-Control-Allow-Origin"); got != tt.allowOrigin {
				t.Errorf("Allow-Origin = %q, want %q", got, tt.allowOrigin)
			}
			if tt.status == 204 {
				if m := resp.Header.Get("Access-Control-Allow-Methods"); m != "GET, POST, PUT, DELETE, OPTIONS" {
					t.Errorf("Allow-Methods = %q", m)
				}
				if h := resp.Header.Get("Access-Control-Allow-Headers"); h != "Authorization, Content-Type, X-Paygate-Confirmation" {
					t.Errorf("Allow-Headers = %q", h)
				}
			}
			if tt.allowOrigin != "" && tt.method == "POST" && resp.Header.Get("Access-Control-Expose-Headers") != "Retry-After" {
				t.Errorf("Expose-Headers = %q", resp.Header.Get("Access-Control-Expose-Headers"))
			}
		})
	}
}

func TestClientInfo(t *testing.T) {
	t.Parallel()
	token := testIssuer().Token(t, authztest.User{ID: 1, Roles: []string{access.RoleAdmin}})
	tests := []struct {
		name   string
		hops   int
		xff    string
		wantIP string
	}{
		{"no proxy: the connection's address", 0, "", "127.0.0.1"},
		{"no proxy: a spoofed header is ignored", 0, "6.6.6.6", "127.0.0.1"},
		{"one proxy: the entry it appended", 1, "203.0.113.9", "203.0.113.9"},
		{"one proxy: a spoofed prefix is ignored", 1, "6.6.6.6, 203.0.113.9", "203.0.113.9"},
		{"more hops than entries: the left-most", 5, "203.0.113.9", "203.0.113.9"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := start(t, func(o *server.Options) { o.TrustedProxyHops = tt.hops })
			header := map[string]string{"Authorization": "Bearer " + token, "User-Agent": "console/2"}
			if tt.xff != "" {
				header["X-Forwarded-For"] = tt.xff
			}
			resp, body := r.do(t, "GET", "/api/v1/validate-token", "", header)
			if resp.StatusCode != 200 {
				t.Fatalf("status %d: %s", resp.StatusCode, body)
			}
			var got struct {
				User struct {
					Username string   `json:"username"`
					Roles    []string `json:"roles"`
				} `json:"user"`
			}
			if err := json.Unmarshal(body, &got); err != nil {
				t.Fatal(err)
			}
			if got.User.Username != tt.wantIP || len(got.User.Roles) != 1 || got.User.Roles[0] != "console/2" {
				t.Errorf("client = %q %q, want %q console/2", got.User.Username, got.User.Roles, tt.wantIP)
			}
		})
	}

	t.Run("direct gRPC", func(t *testing.T) {
		t.Parallel()
		r := start(t, nil)
		client := authv1.NewAuthServiceClient(r.dial(t))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctx = metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token, "x-forwarded-for", "6.6.6.6")
		resp, err := client.ValidateToken(ctx, &authv1.ValidateTokenRequest{})
		if err != nil {
			t.Fatal(err)
		}
		if ip := resp.GetUser().GetUsername(); ip != "127.0.0.1" {
			t.Errorf("ip = %q, want 127.0.0.1", ip)
		}
		if ua := resp.GetUser().GetRoles()[0]; !strings.HasPrefix(ua, "test-agent/1") {
			t.Errorf("user agent = %q", ua)
		}
	})
}

func TestGracefulShutdown(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	type result struct {
		status int
		body   string
		err    error
	}
	inFlight := make(chan result, 1)
	go func() {
		resp, err := r.client.Post(r.baseURL+"/api/v1/login", "application/json", strings.NewReader(`{"username":"slow"}`))
		if err != nil {
			inFlight <- result{err: err}
			return
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		inFlight <- result{status: resp.StatusCode, body: string(b)}
	}()
	select {
	case <-r.fake.slowStarted:
	case <-time.After(10 * time.Second):
		t.Fatal("slow call did not start")
	}

	stopped := make(chan error, 1)
	go func() { stopped <- r.stop() }()
	// Shutdown waits for the call in flight.
	select {
	case err := <-stopped:
		t.Fatalf("Run returned while a call was in flight: %v", err)
	case <-time.After(200 * time.Millisecond):
	}
	close(r.fake.slowRelease)
	select {
	case res := <-inFlight:
		if res.err != nil || res.status != 200 || !strings.Contains(res.body, `"accessToken":"slow"`) {
			t.Errorf("in-flight call = %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("in-flight call did not finish")
	}
	select {
	case err := <-stopped:
		if err != nil {
			t.Fatalf("Run: %v", err)
		}
	case <-time.After(server.ShutdownTimeout + 5*time.Second):
		t.Fatal("Run did not return")
	}
	if _, err := r.client.Get(r.baseURL + "/healthz"); err == nil {
		t.Error("HTTP still answering after shutdown")
	}
}

// TestPprofOnItsOwnAddress: profiles are served on PprofAddr only, never on
// the public HTTP port.
func TestPprofOnItsOwnAddress(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := lis.Addr().String()
	_ = lis.Close()
	r := start(t, func(o *server.Options) { o.PprofAddr = addr })
	var resp *http.Response
	deadline := time.Now().Add(5 * time.Second)
	for {
		resp, err = r.client.Get("http://" + addr + "/debug/pprof/cmdline")
		if err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("pprof address: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("pprof address answered %d", resp.StatusCode)
	}
	if resp, _ := r.do(t, http.MethodGet, "/debug/pprof/cmdline", "", nil); resp.StatusCode == http.StatusOK {
		t.Fatal("profiles are served on the public HTTP port")
	}
}

// TestSetHTTPStatus: an RPC that asks for 202 gets it on REST, without the
// metadata leaking as a header; a failure keeps its own status.
func TestSetHTTPStatus(t *testing.T) {
	t.Parallel()
	r := start(t, nil)
	for user, want := range map[string]int{"queued": http.StatusAccepted, "plain": http.StatusOK, "queued_then_failed": http.StatusConflict} {
		resp, body := r.do(t, http.MethodPost, "/api/v1/login", `{"username":"`+user+`","password":"x"}`, nil)
		if resp.StatusCode != want {
			t.Errorf("%s: status %d, want %d (%s)", user, resp.StatusCode, want, body)
		}
		for k := range resp.Header {
			if strings.Contains(strings.ToLower(k), "http-code") {
				t.Errorf("%s: the status metadata was sent on as %s", user, k)
			}
		}
	}
}
