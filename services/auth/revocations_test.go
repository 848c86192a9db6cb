package main

import (
	"context"
	"net/http"
	"net/url"
	"testing"
	"time"

	goredis "github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
)

// A Redis that loses the revocation list (restart without persistence,
// flush, failover) has it back within PAYGATE_REVOCATION_REFILL_INTERVAL: a
// logged-out session's access token is refused again by another service's
// interceptor, which reads only Redis.
func TestRevocationsRefilledAfterRedisLosesThem(t *testing.T) {
	t.Parallel()
	in := start(t, "fast-refill", map[string]string{"PAYGATE_REVOCATION_REFILL_INTERVAL": "200ms"})
	access, _ := in.mustLogin(t, "support", "paygate-demo", "10.60.0.1")
	sessionID := sid(t, access)

	opts, err := goredis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(opts)
	defer rdb.Close()
	// Another service's view: the JWKS and the Redis revocation list.
	intercept := authz.UnaryInterceptor(authz.NewJWKSVerifier(in.rest+"/.well-known/jwks.json", http.DefaultClient),
		authz.Rules{"/t.S/Call": {Authenticated: true}}, authz.NewRedisRevocations(rdb))
	callKind := func() apperr.Kind {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", "Bearer "+access))
		_, err := intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/t.S/Call"}, func(context.Context, any) (any, error) {
			return "ok", nil
		})
		return apperr.KindOf(err)
	}
	if k := callKind(); k != "" {
		t.Fatalf("call with a live session: %q, want accepted", k)
	}
	wantStatus(t, "logout", in.call(t, http.MethodPost, "/api/v1/logout", access, "10.60.0.1", map[string]string{}), http.StatusOK)
	if k := callKind(); k != apperr.KindUnauthenticated {
		t.Fatalf("call after logout: %q, want unauthenticated", k)
	}

	// Redis loses the revocation. The test Redis is shared: only this
	// session's key goes, never a FLUSHALL.
	if err := rdb.Del(context.Background(), authz.RevokedSessionKey(sessionID)).Err(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for callKind() != apperr.KindUnauthenticated {
		if time.Now().After(deadline) {
			t.Fatal("the revoked session's token is still accepted 10s after Redis lost its revocation")
		}
		time.Sleep(50 * time.Millisecond)
	}
	ttl, err := rdb.TTL(context.Background(), authz.RevokedSessionKey(sessionID)).Result()
	if err != nil || ttl <= 0 || ttl > 5*time.Minute+authz.Leeway {
		t.Errorf("refilled key's TTL = %v, %v; want at most the access-token lifetime plus the leeway", ttl, err)
	}
}

// After FLUSHDB (or a Redis restart without persistence) a revoked session's
// token is refused at once by another service's interceptor, not once the
// periodic refill comes round (an hour here): the reader sees that Redis lost
// its data (authz.RevocationsFilledKey is gone) and waits for the refill
// that every auth replica starts within authz.FilledCheckInterval. A live
// session's token still passes. The test flushes a Redis database of its own.
func TestRevokedTokenRefusedRightAfterRedisFlush(t *testing.T) {
	t.Parallel()
	u, err := url.Parse(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	u.Path = "/11"
	privateURL := u.String()
	opts, err := goredis.ParseURL(privateURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(opts)
	defer rdb.Close()
	if err := rdb.FlushDB(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.FlushDB(context.Background()) })

	in := start(t, "private-redis", map[string]string{
		"PAYGATE_REDIS_URL":                  privateURL,
		"PAYGATE_REVOCATION_REFILL_INTERVAL": "1h",
	})
	revoked, _ := in.mustLogin(t, "support", "paygate-demo", "10.61.0.1")
	valid, _ := in.mustLogin(t, "support", "paygate-demo", "10.61.0.2")
	wantStatus(t, "logout", in.call(t, http.MethodPost, "/api/v1/logout", revoked, "10.61.0.1", map[string]string{}), http.StatusOK)

	// Another service's view: the JWKS and the Redis revocation list.
	intercept := authz.UnaryInterceptor(authz.NewJWKSVerifier(in.rest+"/.well-known/jwks.json", http.DefaultClient),
		authz.Rules{"/t.S/Call": {Authenticated: true}}, authz.NewRedisRevocations(rdb))
	callKind := func(token string) apperr.Kind {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", "Bearer "+token))
		_, err := intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/t.S/Call"}, func(context.Context, any) (any, error) {
			return "ok", nil
		})
		return apperr.KindOf(err)
	}
	if k := callKind(revoked); k != apperr.KindUnauthenticated {
		t.Fatalf("revoked token before the flush: %q, want unauthenticated", k)
	}
	if k := callKind(valid); k != "" {
		t.Fatalf("live token before the flush: %q, want accepted", k)
	}

	for i := range 3 {
		if err := rdb.FlushDB(context.Background()).Err(); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		if k := callKind(revoked); k != apperr.KindUnauthenticated {
			t.Fatalf("revoked token right after flush %d: %q, want unauthenticated", i+1, k)
		}
		if k := callKind(valid); k != "" {
			t.Fatalf("live token right after flush %d: %q, want accepted", i+1, k)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("the calls after flush %d took %v, want well under authz.RefillWait", i+1, d)
		}
	}
	if n, err := rdb.Exists(context.Background(), authz.RevocationsFilledKey, authz.RevokedSessionKey(sid(t, revoked))).Result(); err != nil || n != 2 {
		t.Errorf("after the flushes: %d of the filled key and the revocation, %v; want both back", n, err)
	}
}
