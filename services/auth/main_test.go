package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/auth/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// The tests run the real service (the same run as main) against real
// Postgres, Redis and NATS, in a schema of their own, and talk to it over
// REST and gRPC like the console and the other services do.

func testEnv(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

var (
	databaseURL = testEnv("PAYGATE_TEST_DATABASE_URL", "postgres://postgres@127.0.0.1:5432/test?sslmode=disable")
	redisURL    = testEnv("PAYGATE_TEST_REDIS_URL", "redis://127.0.0.1:6379/15")
	natsURL     = testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222")
)

// instance is one running auth service.
type instance struct {
	rest string // base URL of REST
	grpc string // gRPC address
}

var (
	schema    = "auth_test_" + randomHex(6)
	instances = map[string]*instance{}
	stops     []func()
)

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

func TestMain(m *testing.M) {
	code := m.Run()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
	if conn, err := pgx.Connect(context.Background(), databaseURL); err == nil {
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+schema+" CASCADE")
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+confirmSchema+" CASCADE")
		_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+sessionPolicySchema+" CASCADE")
		_ = conn.Close(context.Background())
	}
	os.Exit(code)
}

var startMu sync.Mutex

// start returns a running service for a named configuration, starting it on
// first use. Every configuration shares the test schema.
func start(t *testing.T, name string, extra map[string]string) *instance {
	t.Helper()
	startMu.Lock()
	defer startMu.Unlock()
	if in, ok := instances[name]; ok {
		return in
	}
	env := map[string]string{
		"PAYGATE_DATABASE_URL":       databaseURL,
		"PAYGATE_DATABASE_SCHEMA":    schema,
		"PAYGATE_REDIS_URL":          redisURL,
		"PAYGATE_REDIS_KEY_PREFIX":   "paygate:test:" + schema + ":" + name + ":",
		"PAYGATE_NATS_URL":           natsURL,
		"PAYGATE_HTTP_ADDR":          "127.0.0.1:0",
		"PAYGATE_GRPC_ADDR":          "127.0.0.1:0",
		"PAYGATE_DEMO":               "true",
		"PAYGATE_TRUSTED_PROXY_HOPS": "1",
	}
	for k, v := range extra {
		env[k] = v
	}
	svc, err := servicetest.Go(run, env)
	if err != nil {
		t.Fatalf("auth service %s did not start: %v", name, err)
	}
	in := &instance{rest: svc.HTTPURL, grpc: svc.GRPCAddr}
	instances[name] = in
	stops = append(stops, func() { _ = svc.Stop() })
	return in
}

// defaultInstance is the service most tests share. Step-up confirmation is
// off there (scope none): those tests change users and roles as the demo
// admin, which by default would have to confirm each change; the step-up
// tests use confirmInstance, whose schema keeps the defaults.
func defaultInstance(t *testing.T) *instance {
	t.Helper()
	in := start(t, "default", nil)
	stepUpOffOnce.Do(func() {
		tok, _ := in.mustLogin(t, "admin", "paygate-demo", testIP())
		r := in.call(t, http.MethodPut, "/api/v1/sensitive-actions/step-up", tok, testIP(), map[string]any{"actions": []string{}, "scope": "none"})
		wantStatus(t, "step-up off", r, http.StatusOK)
	})
	return in
}

var (
	stepUpOffOnce sync.Once
	confirmSchema = schema + "_cfm"
)

// confirmInstance is a service on a schema of its own, with the default
// step-up settings (every sensitive action for admin-wide users).
func confirmInstance(t *testing.T) *instance {
	return start(t, "confirm", map[string]string{"PAYGATE_DATABASE_SCHEMA": confirmSchema})
}

// reply is a REST answer.
type reply struct {
	status int
	header http.Header
	body   map[string]any
}

func (r reply) str(key string) string { s, _ := r.body[key].(string); return s }

// call sends a REST request as if from clientIP (through one trusted proxy).
func (in *instance) call(t *testing.T, method, path, token, clientIP string, body any) reply {
	t.Helper()
	return in.callWith(t, method, path, token, clientIP, body, nil)
}

// callWith is call with more request headers.
func (in *instance) callWith(t *testing.T, method, path, token, clientIP string, body any, headers map[string]string) reply {
	t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, in.rest+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "auth-test")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	if clientIP != "" {
		req.Header.Set("X-Forwarded-For", clientIP)
	}
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	out := reply{status: res.StatusCode, header: res.Header, body: map[string]any{}}
	if len(raw) > 0 && raw[0] == '{' {
		if err := json.Unmarshal(raw, &out.body); err != nil {
			t.Fatalf("%s %s: body %q: %v", method, path, raw, err)
		}
	}
	return out
}

func (in *instance) login(t *testing.T, username, password, ip string) reply {
	t.Helper()
	return in.call(t, http.MethodPost, "/api/v1/login", "", ip, map[string]string{"username": username, "password": password})
}

func (in *instance) mustLogin(t *testing.T, username, password, ip string) (access, refresh string) {
	t.Helper()
	r := in.login(t, username, password, ip)
	if r.status != http.StatusOK {
		t.Fatalf("login %s: status %d %v", username, r.status, r.body)
	}
	return r.str("accessToken"), r.str("refreshToken")
}

// tokenClaims decodes a JWT's payload without verifying it.
func tokenClaims(t *testing.T, token string) map[string]any {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("not a JWT: %q", token)
	}
	raw, err := base64.RawURLEncoding.DecodeString(parts[1])
	if err != nil {
		t.Fatal(err)
	}
	var c map[string]any
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func wantStatus(t *testing.T, what string, r reply, status int) {
	t.Helper()
	if r.status != status {
		t.Fatalf("%s: status %d %v, want %d", what, r.status, r.body, status)
	}
}

func TestLoginIssuesTokensWithClaims(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	r := in.login(t, "merchant-admin", "paygate-demo", "10.10.0.1")
	wantStatus(t, "login", r, http.StatusOK)
	if r.str("tokenType") != "Bearer" || r.str("refreshToken") == "" || r.body["expiresIn"] != float64(300) {
		t.Fatalf("login answer %v", r.body)
	}
	c := tokenClaims(t, r.str("accessToken"))
	if c["iss"] != "paygate-auth" || c["username"] != "merchant-admin" || c["isTemporaryPassword"] != false || c["sid"] == "" {
		t.Fatalf("claims %v", c)
	}
	if fmt.Sprint(c["roles"]) != "[Merchant Admin]" || fmt.Sprint(c["merchantIds"]) != "[1 2]" {
		t.Fatalf("roles/merchants in claims: %v %v", c["roles"], c["merchantIds"])
	}
	perms := fmt.Sprint(c["permissions"])
	for _, p := range []string{"Edit User", "Get Transactions", "Allow IP"} {
		if !strings.Contains(perms, p) {
			t.Errorf("permissions %s lack %q", perms, p)
		}
	}
	if strings.Contains(perms, "Edit Maintenance Mode") {
		t.Errorf("merchant admin holds an admin-only permission: %s", perms)
	}

	v := in.call(t, http.MethodGet, "/api/v1/validate-token", r.str("accessToken"), "10.10.0.1", nil)
	wantStatus(t, "validate-token", v, http.StatusOK)
	u, _ := v.body["user"].(map[string]any)
	if v.body["valid"] != true || u["username"] != "merchant-admin" || fmt.Sprint(u["merchantIds"]) != "[1 2]" || u["isTemporaryPassword"] != false {
		t.Fatalf("validate-token answer %v", v.body)
	}
}

func TestLoginIsCaseInsensitiveOnKeysAndUsername(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	r := in.call(t, http.MethodPost, "/api/v1/login", "", "10.10.0.2", map[string]string{"Username": "MERCHANT", "Password": "paygate-demo"})
	wantStatus(t, "login with PascalCase keys", r, http.StatusOK)
	if got := tokenClaims(t, r.str("accessToken"))["username"]; got != "merchant" {
		t.Fatalf("username claim %v, want the stored spelling", got)
	}
}

func TestLoginWrongPasswordAndUnknownUserLookAlike(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	wrong := in.login(t, "support", "not-the-password", "10.10.1.1")
	unknown := in.login(t, "nobody-"+randomHex(3), "paygate-demo", "10.10.1.2")
	for name, r := range map[string]reply{"wrong password": wrong, "unknown user": unknown} {
		wantStatus(t, name, r, http.StatusUnauthorized)
		if r.str("message") != "Invalid username or password" || r.str("code") != "unauthenticated" {
			t.Errorf("%s: body %v", name, r.body)
		}
	}
}

func TestLoginMissingFields(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	for _, body := range []map[string]string{
		{"username": "admin"},
		{"password": "paygate-demo"},
		{"username": "  ", "password": "paygate-demo"},
		{},
	} {
		r := in.call(t, http.MethodPost, "/api/v1/login", "", "10.10.2.1", body)
		wantStatus(t, fmt.Sprint(body), r, http.StatusBadRequest)
		if r.str("code") != "invalid" || r.str("message") == "" {
			t.Errorf("%v: body %v", body, r.body)
		}
	}
}

func TestLoginThrottledPerUsername(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	// Failures from different addresses still add up for one username.
	for i := range 5 {
		r := in.login(t, "merchant-finance-manager", "wrong", fmt.Sprintf("10.20.0.%d", i+1))
		wantStatus(t, "failure "+strconv.Itoa(i+1), r, http.StatusUnauthorized)
	}
	r := in.login(t, "merchant-finance-manager", "paygate-demo", "10.20.0.9")
	wantStatus(t, "after 5 failures, even the right password", r, http.StatusTooManyRequests)
	secs, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || secs <= 0 || secs > 15*60 {
		t.Fatalf("Retry-After %q", r.header.Get("Retry-After"))
	}
	// Another user from a fresh address is not affected.
	if r := in.login(t, "admin", "paygate-demo", "10.20.0.10"); r.status != http.StatusOK {
		t.Fatalf("another user was throttled too: %d %v", r.status, r.body)
	}
}

func TestLoginThrottledPerIP(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.30.0.1"
	for i := range 20 {
		r := in.login(t, fmt.Sprintf("ghost-%d-%s", i, randomHex(2)), "wrong", ip)
		wantStatus(t, "failure "+strconv.Itoa(i+1), r, http.StatusUnauthorized)
	}
	r := in.login(t, "admin", "paygate-demo", ip)
	wantStatus(t, "after 20 failures from one address", r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	if r := in.login(t, "admin", "paygate-demo", "10.30.0.2"); r.status != http.StatusOK {
		t.Fatalf("another address was throttled too: %d %v", r.status, r.body)
	}
}

// loginWithCookie signs in like login, presenting the device cookie when
// device is not "".
func (in *instance) loginWithCookie(t *testing.T, username, password, ip, device string) reply {
	t.Helper()
	b, _ := json.Marshal(map[string]string{"username": username, "password": password})
	req, err := http.NewRequest(http.MethodPost, in.rest+"/api/v1/login", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", ip)
	if device != "" {
		req.AddCookie(&http.Cookie{Name: grpcapi.DeviceCookie, Value: device})
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	_, _ = io.Copy(io.Discard, res.Body)
	return reply{status: res.StatusCode, header: res.Header}
}

// deviceCookieOf returns the device cookie a sign-in set.
func deviceCookieOf(t *testing.T, r reply) *http.Cookie {
	t.Helper()
	for _, c := range (&http.Response{Header: r.header}).Cookies() {
		if c.Name == grpcapi.DeviceCookie {
			return c
		}
	}
	t.Fatalf("no %s cookie in %v", grpcapi.DeviceCookie, r.header.Values("Set-Cookie"))
	return nil
}

// TestLoginIPLockCountsUsernames: one person's typos behind a shared address
// count once, so colleagues still sign in; failures across distinct
// usernames (spraying) lock the address at PAYGATE_LOGIN_IP_LIMIT.
func TestLoginIPLockCountsUsernames(t *testing.T) {
	t.Parallel()
	in := start(t, "ip-limit-3", map[string]string{"PAYGATE_LOGIN_IP_LIMIT": "3"})
	const office = "10.40.0.1"
	for i := range 4 {
		wantStatus(t, "typo "+strconv.Itoa(i+1), in.login(t, "merchant", "wrong", office), http.StatusUnauthorized)
	}
	wantStatus(t, "a colleague after one person's typos", in.login(t, "admin", "paygate-demo", office), http.StatusOK)
	for i := range 2 { // with merchant's typos: 3 distinct usernames
		wantStatus(t, "spray "+strconv.Itoa(i+1), in.login(t, fmt.Sprintf("ghost-%d-%s", i, randomHex(2)), "wrong", office), http.StatusUnauthorized)
	}
	r := in.login(t, "support", "paygate-demo", office)
	wantStatus(t, "after failures for 3 distinct usernames", r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
}

// TestLoginDeviceCookiePassesIPLock: a browser that signed in as a username
// before passes its address's lock for that username only, and never the
// username's own lock.
func TestLoginDeviceCookiePassesIPLock(t *testing.T) {
	t.Parallel()
	in := start(t, "ip-limit-2", map[string]string{"PAYGATE_LOGIN_IP_LIMIT": "2"})
	const office = "10.50.0.1"
	first := in.login(t, "merchant-admin", "paygate-demo", office)
	wantStatus(t, "first sign-in", first, http.StatusOK)
	c := deviceCookieOf(t, first)
	if !c.HttpOnly || !c.Secure || c.SameSite != http.SameSiteStrictMode || c.Path != "/api/v1/login" || c.MaxAge <= 0 {
		t.Fatalf("device cookie attributes: %+v", c)
	}
	for i := range 2 {
		wantStatus(t, "spray", in.login(t, fmt.Sprintf("ghost-%d-%s", i, randomHex(2)), "wrong", office), http.StatusUnauthorized)
	}
	wantStatus(t, "no cookie, locked address", in.loginWithCookie(t, "merchant-admin", "paygate-demo", office, ""), http.StatusTooManyRequests)
	wantStatus(t, "cookie for another username", in.loginWithCookie(t, "support", "paygate-demo", office, c.Value), http.StatusTooManyRequests)
	wantStatus(t, "forged cookie", in.loginWithCookie(t, "merchant-admin", "paygate-demo", office, c.Value+"x"), http.StatusTooManyRequests)
	wantStatus(t, "the cookie's own username", in.loginWithCookie(t, "merchant-admin", "paygate-demo", office, c.Value), http.StatusOK)
	// The cookie passes only the address's lock: five failures still lock
	// the username, cookie or not.
	for i := range 5 {
		wantStatus(t, "cookie failure "+strconv.Itoa(i+1), in.loginWithCookie(t, "merchant-admin", "wrong", office, c.Value), http.StatusUnauthorized)
	}
	wantStatus(t, "a username that failed 5 times, with its cookie", in.loginWithCookie(t, "merchant-admin", "paygate-demo", office, c.Value), http.StatusTooManyRequests)
}

func TestRefreshRotates(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	access, refresh := in.mustLogin(t, "merchant", "paygate-demo", "10.40.0.1")
	r := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.40.0.1", map[string]string{"refreshToken": refresh})
	wantStatus(t, "refresh", r, http.StatusOK)
	if r.str("refreshToken") == "" || r.str("refreshToken") == refresh || r.str("accessToken") == access {
		t.Fatalf("refresh did not rotate: %v", r.body)
	}
	if tokenClaims(t, r.str("accessToken"))["sid"] != tokenClaims(t, access)["sid"] {
		t.Fatal("refresh moved to another session")
	}
	r2 := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.40.0.1", map[string]string{"refreshToken": r.str("refreshToken")})
	wantStatus(t, "second refresh with the new token", r2, http.StatusOK)
	v := in.call(t, http.MethodGet, "/api/v1/validate-token", r2.str("accessToken"), "10.40.0.1", nil)
	wantStatus(t, "validate the newest access token", v, http.StatusOK)

	bad := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.40.0.1", map[string]string{"refreshToken": "made-up"})
	wantStatus(t, "unknown refresh token", bad, http.StatusUnauthorized)
	empty := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.40.0.1", map[string]string{})
	wantStatus(t, "missing refresh token", empty, http.StatusBadRequest)
}

func TestRefreshReuseWithinGraceKeepsSession(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t) // grace 10s
	_, refresh := in.mustLogin(t, "merchant", "paygate-demo", "10.41.0.1")
	first := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.41.0.1", map[string]string{"refreshToken": refresh})
	wantStatus(t, "first tab", first, http.StatusOK)
	second := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.41.0.1", map[string]string{"refreshToken": refresh})
	wantStatus(t, "second tab, same token within the grace", second, http.StatusOK)
	for name, r := range map[string]reply{"first": first, "second": second} {
		v := in.call(t, http.MethodGet, "/api/v1/validate-token", r.str("accessToken"), "10.41.0.1", nil)
		wantStatus(t, name+" tab's access token", v, http.StatusOK)
	}
}

func TestRefreshReuseRevokesSession(t *testing.T) {
	t.Parallel()
	in := start(t, "short-grace", map[string]string{"PAYGATE_REFRESH_GRACE": "1ms"})
	_, refresh := in.mustLogin(t, "merchant", "paygate-demo", "10.42.0.1")
	rotated := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.42.0.1", map[string]string{"refreshToken": refresh})
	wantStatus(t, "rotation", rotated, http.StatusOK)
	time.Sleep(5 * time.Millisecond) // past the 1ms grace

	reuse := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.42.0.1", map[string]string{"refreshToken": refresh})
	wantStatus(t, "reusing the spent token", reuse, http.StatusUnauthorized)
	// The whole session is gone: the legitimate newest pair no longer works.
	v := in.call(t, http.MethodGet, "/api/v1/validate-token", rotated.str("accessToken"), "10.42.0.1", nil)
	wantStatus(t, "access token of the revoked session", v, http.StatusUnauthorized)
	again := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.42.0.1", map[string]string{"refreshToken": rotated.str("refreshToken")})
	wantStatus(t, "newest refresh token of the revoked session", again, http.StatusUnauthorized)
}

// sessionPolicySchema is the schema of TestRefreshAppliesStoredSessionPolicy's
// service: its settings would end other tests' sessions.
var sessionPolicySchema = schema + "_spol"

// TestRefreshAppliesStoredSessionPolicy: the idle timeout and lifetime an
// admin stored, not the defaults (a day, a week), decide whether a refresh
// ends its session.
func TestRefreshAppliesStoredSessionPolicy(t *testing.T) {
	t.Parallel()
	in := start(t, "session-policy", map[string]string{"PAYGATE_DATABASE_SCHEMA": sessionPolicySchema})
	admin, _ := in.mustLogin(t, "admin", "paygate-demo", testIP())
	wantStatus(t, "step-up off", in.call(t, http.MethodPut, "/api/v1/sensitive-actions/step-up", admin, testIP(),
		map[string]any{"actions": []string{}, "scope": "none"}), http.StatusOK)
	wantStatus(t, "store the session policy", in.call(t, http.MethodPut, "/api/v1/auth-settings", admin, testIP(),
		map[string]any{"settings": map[string]any{"requireSecondFactor": "REQUIRE_SECOND_FACTOR_OFF",
			"sessionIdleTimeoutSeconds": 300, "sessionMaxLifetimeSeconds": 3600}}), http.StatusOK)

	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	// age moves a session's activity or creation back, as if that time had passed.
	age := func(access, column string, by time.Duration) {
		t.Helper()
		sid, _ := tokenClaims(t, access)["sid"].(string)
		tag, err := conn.Exec(context.Background(), "UPDATE "+sessionPolicySchema+".sessions SET "+column+" = "+column+" - $2::interval WHERE id = $1",
			sid, fmt.Sprintf("%d seconds", int(by.Seconds())))
		if err != nil || tag.RowsAffected() != 1 {
			t.Fatalf("age session %s: %v (%d rows)", sid, err, tag.RowsAffected())
		}
	}
	refresh := func(token string) reply {
		return in.call(t, http.MethodPost, "/api/v1/refresh-token", "", testIP(), map[string]string{"refreshToken": token})
	}
	for _, c := range []struct {
		name, column string
		by           time.Duration
	}{
		{"idle for 10 minutes (the stored idle timeout is 5)", "last_seen_at", 10 * time.Minute},
		{"2 hours old (the stored lifetime is 1)", "created_at", 2 * time.Hour},
	} {
		access, token := in.mustLogin(t, "merchant", "paygate-demo", testIP())
		fresh := refresh(token)
		wantStatus(t, c.name+": a fresh session refreshes", fresh, http.StatusOK)
		age(access, c.column, c.by)
		ended := refresh(fresh.str("refreshToken"))
		wantStatus(t, c.name, ended, http.StatusUnauthorized)
		if msg := ended.str("message"); msg != "The session has ended. Please sign in again." {
			t.Errorf("%s: message %q, want the session's end", c.name, msg)
		}
	}
}

func TestLogoutRevokesSession(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	access, refresh := in.mustLogin(t, "support", "paygate-demo", "10.50.0.1")
	other, _ := in.mustLogin(t, "support", "paygate-demo", "10.50.0.2")

	wantStatus(t, "logout without a token", in.call(t, http.MethodPost, "/api/v1/logout", "", "10.50.0.1", map[string]string{}), http.StatusUnauthorized)
	wantStatus(t, "logout", in.call(t, http.MethodPost, "/api/v1/logout", access, "10.50.0.1", map[string]string{}), http.StatusOK)

	wantStatus(t, "validate after logout", in.call(t, http.MethodGet, "/api/v1/validate-token", access, "10.50.0.1", nil), http.StatusUnauthorized)
	wantStatus(t, "refresh after logout", in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.50.0.1", map[string]string{"refreshToken": refresh}), http.StatusUnauthorized)
	wantStatus(t, "the user's other session", in.call(t, http.MethodGet, "/api/v1/validate-token", other, "10.50.0.2", nil), http.StatusOK)
}

func TestIPRestrictedUser(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	// merchant-support is reserved for this test.
	if _, err := conn.Exec(context.Background(), fmt.Sprintf(`
		UPDATE %[1]s.users SET is_ip_restricted = true WHERE username = 'merchant-support';
		INSERT INTO %[1]s.user_allowed_ips (user_id, name, from_ip, to_ip)
		SELECT id, 'office', '10.60.0.10', '10.60.0.20' FROM %[1]s.users WHERE username = 'merchant-support';`, schema)); err != nil {
		t.Fatal(err)
	}
	wantStatus(t, "inside the range", in.login(t, "merchant-support", "paygate-demo", "10.60.0.15"), http.StatusOK)
	out := in.login(t, "merchant-support", "paygate-demo", "10.60.0.21")
	wantStatus(t, "outside the range", out, http.StatusForbidden)
	if out.str("refreshToken") != "" || out.str("message") == "" {
		t.Fatalf("refusal body %v", out.body)
	}
	// A client cannot smuggle an allowed address in front of its own.
	spoof := in.login(t, "merchant-support", "paygate-demo", "10.60.0.15, 10.60.0.99")
	wantStatus(t, "spoofed X-Forwarded-For", spoof, http.StatusForbidden)
}

func TestChangeOwnPassword(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	access, _ := in.mustLogin(t, "newcomer", "paygate-temp", "10.70.0.1")
	if tokenClaims(t, access)["isTemporaryPassword"] != true {
		t.Fatal("newcomer's token does not say the password is temporary")
	}
	otherAccess, otherRefresh := in.mustLogin(t, "newcomer", "paygate-temp", "10.70.0.2")

	change := func(body map[string]string) reply {
		return in.call(t, http.MethodPost, "/api/v1/user/change-password", access, "10.70.0.1", body)
	}
	for _, tc := range []struct {
		name  string
		body  map[string]string
		field string
	}{
		{"too short", map[string]string{"password": "short", "currentPassword": "paygate-temp"}, "password"},
		{"spaces only", map[string]string{"password": strings.Repeat(" ", 14), "currentPassword": "paygate-temp"}, "password"},
		{"no current password", map[string]string{"password": "a-new-secret-1"}, "currentPassword"},
		{"a wrong current password", map[string]string{"password": "a-new-secret-1", "currentPassword": "paygate-demo"}, "currentPassword"},
		{"the current password again", map[string]string{"password": "paygate-temp", "currentPassword": "paygate-temp"}, "password"},
	} {
		r := change(tc.body)
		wantStatus(t, tc.name, r, http.StatusBadRequest)
		if msg := r.str("message"); !strings.HasPrefix(msg, tc.field+" ") {
			t.Errorf("%s: message %q does not name %s", tc.name, msg, tc.field)
		}
	}
	wantStatus(t, "still the old password", in.login(t, "newcomer", "paygate-temp", "10.70.0.3"), http.StatusOK)

	r := change(map[string]string{"Password": "a-new-secret-1", "CurrentPassword": "paygate-temp"})
	wantStatus(t, "change", r, http.StatusOK)
	if tokenClaims(t, r.str("accessToken"))["isTemporaryPassword"] != false {
		t.Fatal("new token still says the password is temporary")
	}
	v := in.call(t, http.MethodGet, "/api/v1/validate-token", r.str("accessToken"), "10.70.0.1", nil)
	wantStatus(t, "validate", v, http.StatusOK)
	if u, _ := v.body["user"].(map[string]any); u["isTemporaryPassword"] != false {
		t.Fatalf("user still temporary: %v", v.body)
	}
	wantStatus(t, "old password", in.login(t, "newcomer", "paygate-temp", "10.70.0.4"), http.StatusUnauthorized)
	wantStatus(t, "new password", in.login(t, "newcomer", "a-new-secret-1", "10.70.0.5"), http.StatusOK)
	// The user's other sessions end with the change.
	wantStatus(t, "other session's access token", in.call(t, http.MethodGet, "/api/v1/validate-token", otherAccess, "10.70.0.2", nil), http.StatusUnauthorized)
	wantStatus(t, "other session's refresh token", in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.70.0.2", map[string]string{"refreshToken": otherRefresh}), http.StatusUnauthorized)
}

// TestTemporaryPasswordWithoutEditUser: a user whose role lacks Edit User
// (Merchant Support here), added with a temporary password, is held to
// replacing it, and can: the change needs no permission, only the current
// password. Afterwards the user's calls pass.
func TestTemporaryPasswordWithoutEditUser(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	name := "temp-support-" + randomHex(4)
	added := in.call(t, http.MethodPost, "/api/v1/user/add", admin, testIP(), map[string]any{
		"username": name, "password": strongPassword, "roleId": 6, "merchantIds": []int32{2},
	})
	wantStatus(t, "add a Merchant Support user with the default temporary password", added, http.StatusOK)

	access, _ := in.mustLogin(t, name, strongPassword, testIP())
	if claims := tokenClaims(t, access); claims["isTemporaryPassword"] != true {
		t.Fatalf("token %v does not say the password is temporary", claims)
	}
	held := in.call(t, http.MethodGet, "/api/v1/user-sessions/active", access, testIP(), nil)
	wantStatus(t, "a call before the change", held, http.StatusForbidden)

	wrong := in.call(t, http.MethodPost, "/api/v1/user/change-password", access, testIP(),
		map[string]string{"password": "Violet-Harbor-58", "currentPassword": "not-" + strongPassword})
	wantStatus(t, "a wrong current password", wrong, http.StatusBadRequest)

	r := in.call(t, http.MethodPost, "/api/v1/user/change-password", access, testIP(),
		map[string]string{"password": "Violet-Harbor-58", "currentPassword": strongPassword})
	wantStatus(t, "change without Edit User", r, http.StatusOK)
	fresh := r.str("accessToken")
	if claims := tokenClaims(t, fresh); claims["isTemporaryPassword"] != false {
		t.Fatalf("new token %v still says the password is temporary", claims)
	}
	wantStatus(t, "a call after the change", in.call(t, http.MethodGet, "/api/v1/user-sessions/active", fresh, testIP(), nil), http.StatusOK)
	wantStatus(t, "sign in with the new password", in.login(t, name, "Violet-Harbor-58", testIP()), http.StatusOK)

	// A password that is no longer temporary can be changed the same way.
	again := in.call(t, http.MethodPost, "/api/v1/user/change-password", fresh, testIP(),
		map[string]string{"password": "Marble-Comet-77", "currentPassword": "Violet-Harbor-58"})
	wantStatus(t, "change again", again, http.StatusOK)
}

func TestTokenFromAnotherSignerIsRejected(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	genuine, _ := in.mustLogin(t, "admin", "paygate-demo", "10.80.0.1")
	var hdr struct {
		Kid string `json:"kid"`
	}
	raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(genuine, ".")[0])
	_ = json.Unmarshal(raw, &hdr)

	_, foreign, _ := ed25519.GenerateKey(rand.Reader)
	now := time.Now()
	forge := func(mutate func(*access.Claims), key ed25519.PrivateKey, method jwt.SigningMethod) string {
		c := access.Claims{
			RegisteredClaims: jwt.RegisteredClaims{
				Issuer: access.Issuer, Audience: jwt.ClaimStrings{access.Audience}, Subject: "1",
				IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(time.Minute)),
			},
			Username: "admin", Roles: []string{"Admin"}, Permissions: access.AllPermissions,
			SessionID: tokenClaims(t, genuine)["sid"].(string),
		}
		if mutate != nil {
			mutate(&c)
		}
		tok := jwt.NewWithClaims(method, c)
		tok.Header["kid"] = hdr.Kid
		var s string
		var err error
		if method == jwt.SigningMethodHS256 {
			s, err = tok.SignedString([]byte("secret"))
		} else {
			s, err = tok.SignedString(key)
		}
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for name, tok := range map[string]string{
		"another signer, same kid": forge(nil, foreign, jwt.SigningMethodEdDSA),
		"HMAC with a guessed key":  forge(nil, nil, jwt.SigningMethodHS256),
		"tampered payload":         tamper(t, genuine),
		"garbage":                  "not.a.token",
	} {
		r := in.call(t, http.MethodGet, "/api/v1/validate-token", tok, "10.80.0.1", nil)
		wantStatus(t, name, r, http.StatusUnauthorized)
	}

	// The same over gRPC: the interceptors guard both doors.
	cc, err := grpc.NewClient(in.grpc, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	client := authv1.NewAuthServiceClient(cc)
	ctx := metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+forge(nil, foreign, jwt.SigningMethodEdDSA))
	if _, err := client.ValidateToken(ctx, &authv1.ValidateTokenRequest{}); status.Code(err) != codes.Unauthenticated {
		t.Fatalf("gRPC with a forged token: %v", err)
	}
	ctx = metadata.AppendToOutgoingContext(context.Background(), "authorization", "Bearer "+genuine)
	res, err := client.ValidateToken(ctx, &authv1.ValidateTokenRequest{})
	if err != nil || res.GetUser().GetUsername() != "admin" {
		t.Fatalf("gRPC with the genuine token: %v %v", res, err)
	}
}

// tamper flips the payload of a genuine token to claim another user.
func tamper(t *testing.T, token string) string {
	parts := strings.Split(token, ".")
	c := tokenClaims(t, token)
	c["username"] = "someone-else"
	raw, _ := json.Marshal(c)
	return parts[0] + "." + base64.RawURLEncoding.EncodeToString(raw) + "." + parts[2]
}

func TestJWKSPublishesTheSigningKey(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	res, err := http.Get(in.rest + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var set struct {
		Keys []map[string]any `json:"keys"`
	}
	if err := json.NewDecoder(res.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	token, _ := in.mustLogin(t, "admin", "paygate-demo", "10.81.0.1")
	raw, _ := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	var hdr map[string]any
	_ = json.Unmarshal(raw, &hdr)
	found := false
	for _, k := range set.Keys {
		if k["kid"] == hdr["kid"] && k["kty"] == "OKP" && k["crv"] == "Ed25519" {
			found = true
		}
		if _, private := k["d"]; private {
			t.Fatal("the JWKS leaks a private key")
		}
	}
	if !found || hdr["alg"] != "EdDSA" {
		t.Fatalf("token header %v not matched by JWKS %v", hdr, set.Keys)
	}
}

func TestLoginPublishesSessionStarted(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("paygate.events.session_started")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	access, _ := in.mustLogin(t, "merchant-admin", "paygate-demo", "10.90.0.1")
	sid := tokenClaims(t, access)["sid"]
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		msg, err := sub.NextMsg(time.Until(deadline))
		if err != nil {
			break
		}
		var ev eventsv1.SessionStarted
		if err := proto.Unmarshal(msg.Data, &ev); err != nil {
			continue
		}
		if ev.GetSessionId() == sid {
			if ev.GetUsername() != "merchant-admin" || ev.GetIp() != "10.90.0.1" || msg.Header.Get(nats.MsgIdHdr) == "" {
				t.Fatalf("event %v, headers %v", &ev, msg.Header)
			}
			return
		}
	}
	t.Fatalf("no session_started event for session %v", sid)
}

func TestEveryRPCHasARule(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	authv1.RegisterAuthServiceServer(srv, grpcapi.NewServer(nil))
	authv1.RegisterUserServiceServer(srv, grpcapi.NewUserServer(nil))
	authv1.RegisterSessionServiceServer(srv, grpcapi.NewSessionServer(nil))
	authv1.RegisterAllowedIpServiceServer(srv, grpcapi.NewAllowedIPServer(nil))
	authv1.RegisterRoleServiceServer(srv, grpcapi.NewRoleServer(nil, nil))
	authv1.RegisterConfirmationServiceServer(srv, grpcapi.NewConfirmationServer(nil, nil))
	authv1.RegisterApprovalServiceServer(srv, grpcapi.NewApprovalServer(nil, nil))
	authz.CheckRulesCover(t, srv, grpcapi.Rules)
}

// TestRefreshUnderAFullPool: concurrent refreshes never wait for a second
// pool connection while holding one (a pool of two connections and eight
// refreshes at once used to lock the service up).
func TestRefreshUnderAFullPool(t *testing.T) {
	t.Parallel()
	sep := "?"
	if strings.Contains(databaseURL, "?") {
		sep = "&"
	}
	in := start(t, "small-pool", map[string]string{"PAYGATE_DATABASE_URL": databaseURL + sep + "pool_max_conns=2"})
	const n = 8
	refresh := make([]string, n)
	for i := range refresh {
		_, refresh[i] = in.mustLogin(t, "merchant", "paygate-demo", fmt.Sprintf("10.170.0.%d", i+1))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n*5)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tok := refresh[i]
			for range 5 {
				body, _ := json.Marshal(map[string]string{"refreshToken": tok})
				req, _ := http.NewRequestWithContext(ctx, http.MethodPost, in.rest+"/api/v1/refresh-token", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					errs <- err
					return
				}
				var out struct {
					RefreshToken string `json:"refreshToken"`
				}
				err = json.NewDecoder(resp.Body).Decode(&out)
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK || out.RefreshToken == "" {
					errs <- fmt.Errorf("refresh: status %d, %v", resp.StatusCode, err)
					return
				}
				tok = out.RefreshToken
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRunReportsEveryBadKey: the service's own checks come in one error with
// the keys config cannot parse, not one at a time.
func TestRunReportsEveryBadKey(t *testing.T) {
	t.Parallel()
	env := map[string]string{
		"PAYGATE_LOGIN_IP_LIMIT":             "0",
		"PAYGATE_LOGIN_QUEUE":                "-1",
		"PAYGATE_LOGIN_QUEUE_WAIT":           "0s",
		"PAYGATE_REFRESH_GRACE":              "1m",
		"PAYGATE_REVOCATION_REFILL_INTERVAL": "-1s",
		"PAYGATE_DEMO":                       "maybe",
	}
	err := run(context.Background(), func(k string) string { return env[k] }, io.Discard)
	if err == nil {
		t.Fatal("run accepted bad configuration")
	}
	for key := range env {
		if !strings.Contains(err.Error(), key) {
			t.Errorf("error does not name %s: %v", key, err)
		}
	}
}
