package main

import (
	"context"
	"net/http"
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
