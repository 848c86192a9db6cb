package authz_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"errors"
	"fmt"
	"net/http"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

func TestMain(m *testing.M) {
	// No auth service fills the test Redis: mark it filled, as its refill
	// does, or every revocation check would wait for one.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	err := authztest.MarkRevocationsFilled(ctx, redisURL())
	cancel()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m)
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func httpClient(t *testing.T) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 5 * time.Second}
}

var merchantUser = authztest.User{
	ID: 42, Username: "merchant", Roles: []string{access.RoleMerchant},
	Permissions: []string{access.PermGetTransactions}, MerchantIDs: []int32{1},
}

func TestJWKSVerifier(t *testing.T) {
	t.Parallel()
	issuer := authztest.NewIssuer(t)
	stranger := authztest.NewIssuer(t)
	impostor := &authztest.Issuer{Kid: issuer.Kid, Key: stranger.Key} // our kid, their key
	jwks := authztest.ServeJWKS(t, issuer)
	v := authz.NewJWKSVerifier(jwks.URL, httpClient(t))

	mutate := func(f func(c *access.Claims)) string {
		c := authztest.Claims(merchantUser)
		f(c)
		return issuer.Sign(t, c)
	}
	hs256 := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodHS256, authztest.Claims(merchantUser))
		tok.Header["kid"] = issuer.Kid
		s, err := tok.SignedString([]byte(issuer.Public()))
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	none := func() string {
		tok := jwt.NewWithClaims(jwt.SigningMethodNone, authztest.Claims(merchantUser))
		tok.Header["kid"] = issuer.Kid
		s, err := tok.SignedString(jwt.UnsafeAllowNoneSignatureType)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}

	tests := []struct {
		name  string
		token string
		ok    bool
	}{
		{"valid", issuer.Token(t, merchantUser), true},
		{"expired within leeway", mutate(func(c *access.Claims) { c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-10 * time.Second)) }), true},
		{"another signer, unknown kid", stranger.Token(t, merchantUser), false},
		{"another signer, our kid", impostor.Token(t, merchantUser), false},
		{"wrong audience", mutate(func(c *access.Claims) { c.Audience = jwt.ClaimStrings{"someone-else"} }), false},
		{"wrong issuer", mutate(func(c *access.Claims) { c.Issuer = "evil" }), false},
		{"expired", mutate(func(c *access.Claims) { c.ExpiresAt = jwt.NewNumericDate(time.Now().Add(-2 * time.Minute)) }), false},
		{"no expiry", mutate(func(c *access.Claims) { c.ExpiresAt = nil }), false},
		{"issued in the future", mutate(func(c *access.Claims) { c.IssuedAt = jwt.NewNumericDate(time.Now().Add(time.Hour)) }), false},
		{"no subject", mutate(func(c *access.Claims) { c.Subject = "" }), false},
		{"HS256 with the public key as secret", hs256(), false},
		{"alg none", none(), false},
		{"garbage", "not.a.token", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			claims, err := v.Verify(testContext(t), tt.token)
			if !tt.ok {
				if kind := apperr.KindOf(err); kind != apperr.KindUnauthenticated {
					t.Fatalf("Verify kind = %q (%v), want unauthenticated", kind, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Verify: %v", err)
			}
			if claims.Username != "merchant" || claims.MerchantIDs[0] != 1 || !claims.HasPermission(access.PermGetTransactions) {
				t.Errorf("claims = %+v", claims)
			}
			if id, err := claims.UserID(); err != nil || id != 42 {
				t.Errorf("UserID = %d, %v", id, err)
			}
		})
	}
}

// fakeClock is a settable clock.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestJWKSVerifierRefetchesOnUnknownKid(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	oldKey, newKey := authztest.NewIssuer(t), authztest.NewIssuer(t)
	jwks := authztest.ServeJWKS(t, oldKey)
	clock := &fakeClock{now: time.Now()}
	v := authz.NewJWKSVerifierWithClock(jwks.URL, httpClient(t), clock.Now)

	if _, err := v.Verify(ctx, oldKey.Token(t, merchantUser)); err != nil {
		t.Fatalf("Verify with the first key: %v", err)
	}
	if _, err := v.Verify(ctx, oldKey.Token(t, merchantUser)); err != nil {
		t.Fatalf("Verify again: %v", err)
	}
	if n := jwks.Fetches(); n != 1 {
		t.Fatalf("fetches = %d, want 1 (cached)", n)
	}

	jwks.SetIssuers(oldKey, newKey) // the auth service rotates its key

	// Within 30 s of the last fetch, an unknown kid does not fetch again.
	clock.Advance(10 * time.Second)
	if _, err := v.Verify(ctx, newKey.Token(t, merchantUser)); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("Verify with a new kid inside the refetch interval: %v", err)
	}
	if n := jwks.Fetches(); n != 1 {
		t.Fatalf("fetches = %d, want 1 (rate limited)", n)
	}

	clock.Advance(25 * time.Second)
	if _, err := v.Verify(ctx, newKey.Token(t, merchantUser)); err != nil {
		t.Fatalf("Verify with the new key after the interval: %v", err)
	}
	if n := jwks.Fetches(); n != 2 {
		t.Fatalf("fetches = %d, want 2", n)
	}

	// Once the cache ages out, a retired key stops verifying.
	jwks.SetIssuers(newKey)
	clock.Advance(11 * time.Minute)
	if _, err := v.Verify(ctx, oldKey.Token(t, merchantUser)); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("Verify with a retired key: %v", err)
	}
}

func TestJWKSVerifierUnreachableIsInternal(t *testing.T) {
	t.Parallel()
	issuer := authztest.NewIssuer(t)
	jwks := authztest.ServeJWKS(t, issuer)
	url := jwks.URL
	jwks.Close()
	v := authz.NewJWKSVerifier(url, httpClient(t))
	_, err := v.Verify(testContext(t), issuer.Token(t, merchantUser))
	if err == nil || apperr.KindOf(err) != apperr.KindInternal {
		t.Fatalf("Verify with the JWKS down = %v, want an internal error", err)
	}
}

func TestKeyVerifier(t *testing.T) {
	t.Parallel()
	issuer := authztest.NewIssuer(t)
	v := authz.NewKeyVerifier(func(kid string) (crypto.PublicKey, error) {
		if kid != issuer.Kid {
			return nil, errors.New("no such key")
		}
		return issuer.Public(), nil
	})
	if _, err := v.Verify(testContext(t), issuer.Token(t, merchantUser)); err != nil {
		t.Fatalf("Verify: %v", err)
	}
	other := authztest.NewIssuer(t)
	if _, err := v.Verify(testContext(t), other.Token(t, merchantUser)); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("Verify with an unknown kid = %v, want unauthenticated", err)
	}
}

func TestJWKSRoundTrip(t *testing.T) {
	t.Parallel()
	a, b := authztest.NewIssuer(t), authztest.NewIssuer(t)
	data, err := authz.MarshalJWKS(map[string]ed25519.PublicKey{a.Kid: a.Public(), b.Kid: b.Public()})
	if err != nil {
		t.Fatal(err)
	}
	keys, err := authz.ParseJWKS(data)
	if err != nil {
		t.Fatal(err)
	}
	if len(keys) != 2 || !keys[a.Kid].Equal(a.Public()) || !keys[b.Kid].Equal(b.Public()) {
		t.Fatalf("round trip = %v", keys)
	}
	if _, err := authz.MarshalJWKS(map[string]ed25519.PublicKey{"short": {1, 2}}); err == nil {
		t.Fatal("MarshalJWKS accepted a short key")
	}
}

func TestClaims(t *testing.T) {
	t.Parallel()
	admin := authztest.Claims(authztest.User{ID: 1, Roles: []string{access.RoleAdmin}})
	support := authztest.Claims(authztest.User{ID: 2, Roles: []string{access.RoleSupport}})
	merchant := authztest.Claims(merchantUser)
	tests := []struct {
		name string
		got  bool
		want bool
	}{
		{"admin is global", admin.GlobalScope(), true},
		{"support is global", support.GlobalScope(), true},
		{"merchant is not global", merchant.GlobalScope(), false},
		{"admin reaches any merchant", admin.CanAccessMerchant(99), true},
		{"merchant reaches its own", merchant.CanAccessMerchant(1), true},
		{"merchant cannot reach another", merchant.CanAccessMerchant(2), false},
		{"has any of the permissions", merchant.HasPermission(access.PermEditFees, access.PermGetTransactions), true},
		{"has none of the permissions", merchant.HasPermission(access.PermEditFees), false},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("%s: got %v", tt.name, tt.got)
		}
	}
	if len(access.AllPermissions) != 30 || len(access.BuiltInRoles) != 6 {
		t.Errorf("%d permissions, %d built-in roles; want 30 and 6", len(access.AllPermissions), len(access.BuiltInRoles))
	}
	bad := authztest.Claims(merchantUser)
	bad.Subject = "abc"
	if _, err := bad.UserID(); err == nil {
		t.Error("UserID accepted a non-numeric subject")
	}
}

func redisURL() string {
	if u := os.Getenv("PAYGATE_TEST_REDIS_URL"); u != "" {
		return u
	}
	return "redis://127.0.0.1:6379/15"
}

// TestVerifiedTokenCache: a token verified once is answered from the cache
// (no second parse), but never past its expiry, never once its kid no longer
// looks up the key that verified it, and never with claims another call can
// change.
func TestVerifiedTokenCache(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	issuer, other := authztest.NewIssuer(t), authztest.NewIssuer(t)
	var mu sync.Mutex
	keys := map[string]crypto.PublicKey{issuer.Kid: issuer.Public()}
	setKey := func(kid string, key crypto.PublicKey) {
		mu.Lock()
		defer mu.Unlock()
		if key == nil {
			delete(keys, kid)
			return
		}
		keys[kid] = key
	}
	clock := &fakeClock{now: time.Now()}
	v := authz.NewKeyVerifierWithClock(func(kid string) (crypto.PublicKey, error) {
		mu.Lock()
		defer mu.Unlock()
		if k, ok := keys[kid]; ok {
			return k, nil
		}
		return nil, errors.New("no such key")
	}, clock.Now)

	token := issuer.Token(t, merchantUser) // expires in five minutes
	first, err := v.Verify(ctx, token)
	if err != nil {
		t.Fatalf("Verify: %v", err)
	}
	first.Username = "changed by the first caller"
	second, err := v.Verify(ctx, token)
	if err != nil {
		t.Fatalf("Verify again: %v", err)
	}
	if n := authz.FullVerifications(v); n != 1 {
		t.Fatalf("full verifications = %d after the same token twice, want 1 (the second from the cache)", n)
	}
	if second.Username != "merchant" || second == first {
		t.Fatalf("second claims = %p %q, want claims of its own with the token's username", second, second.Username)
	}

	// Another token is verified in full, and a bad one is never cached.
	if _, err := v.Verify(ctx, issuer.Token(t, merchantUser)); err != nil {
		t.Fatalf("Verify another token: %v", err)
	}
	forged := token[:len(token)-4] + "AAAA"
	for range 2 {
		if _, err := v.Verify(ctx, forged); apperr.KindOf(err) != apperr.KindUnauthenticated {
			t.Fatalf("Verify of a forged signature = %v, want unauthenticated", err)
		}
	}
	if n := authz.FullVerifications(v); n != 4 {
		t.Fatalf("full verifications = %d, want 4", n)
	}

	// The kid now names another key (a rotation reusing the kid): refused.
	setKey(issuer.Kid, other.Public())
	if _, err := v.Verify(ctx, token); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("Verify of a cached token whose kid names another key = %v, want unauthenticated", err)
	}
	// The key retired: refused.
	setKey(issuer.Kid, nil)
	if _, err := v.Verify(ctx, token); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("Verify of a cached token whose key retired = %v, want unauthenticated", err)
	}
	// Back: accepted again (the full check) and cached again.
	setKey(issuer.Kid, issuer.Public())
	if _, err := v.Verify(ctx, token); err != nil {
		t.Fatalf("Verify with the key back: %v", err)
	}

	// Within the leeway after its expiry it is still accepted, from the cache;
	// past it, refused.
	clock.Advance(5*time.Minute + authz.Leeway - 2*time.Second)
	before := authz.FullVerifications(v)
	if _, err := v.Verify(ctx, token); err != nil {
		t.Fatalf("Verify within the leeway: %v", err)
	}
	if n := authz.FullVerifications(v); n != before {
		t.Fatalf("full verifications %d -> %d within the leeway, want the cache's answer", before, n)
	}
	clock.Advance(3 * time.Second)
	if _, err := v.Verify(ctx, token); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("Verify of a cached token past its expiry = %v, want unauthenticated", err)
	}
}
