package authz_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// revokedSet is a Revocations fake.
type revokedSet struct {
	ids map[string]bool
	err error
}

func (r revokedSet) IsRevoked(_ context.Context, claims *access.Claims) (bool, error) {
	return r.ids[claims.SessionID], r.err
}

func TestUnaryInterceptor(t *testing.T) {
	t.Parallel()
	issuer := authztest.NewIssuer(t)
	v := authz.NewKeyVerifier(func(kid string) (crypto.PublicKey, error) {
		if kid != issuer.Kid {
			return nil, errors.New("unknown")
		}
		return issuer.Public(), nil
	})
	rules := authz.Rules{
		"/t.S/Public":             {Public: true},
		"/t.S/Signed":             {Authenticated: true},
		"/t.S/Perm":               {Permissions: []string{access.PermEditFees, access.PermGetTransactions}},
		"/t.S/Requires":           {Requires: access.ReqPlatformSettings},
		"/t.S/PermAndRequirement": {Permissions: []string{access.PermGetTransactions}, Requires: access.ReqAllMerchants},
		"/t.S/EmptyRule":          {},
		"/t.S/RevokeProbed":       {Authenticated: true},
		"/t.S/TempOK":             {Permissions: []string{access.PermEditUser}, AllowTemporaryPassword: true},
	}
	rev := revokedSet{ids: map[string]bool{"revoked-sid": true}}
	intercept := authz.UnaryInterceptor(v, rules, rev)

	admin := issuer.Token(t, authztest.User{ID: 1, Username: "admin", Roles: []string{access.RoleAdmin}, Permissions: access.AllPermissions})
	merchant := issuer.Token(t, merchantUser)
	revoked := issuer.Token(t, authztest.User{ID: 3, Roles: []string{access.RoleAdmin}, SessionID: "revoked-sid"})
	forged := authztest.NewIssuer(t).Token(t, authztest.User{ID: 1, Roles: []string{access.RoleAdmin}})
	temporary := issuer.Token(t, authztest.User{ID: 6, Roles: []string{access.RoleAdmin}, Permissions: access.AllPermissions, TemporaryPassword: true})
	// A custom role: what it may do follows its flag and permissions alone.
	customGlobal := issuer.Token(t, authztest.User{ID: 7, Roles: []string{"Platform Settings"}, Global: true,
		Permissions: []string{access.PermSettingsAccess}})
	customMerchant := issuer.Token(t, authztest.User{ID: 8, Roles: []string{"Platform Settings"}, MerchantIDs: []int32{1},
		Permissions: []string{access.PermSettingsAccess}})

	tests := []struct {
		method    string
		auth      string
		wantKind  apperr.Kind // "" = handler called
		wantClaim bool
	}{
		{"/t.S/Public", "", "", false},
		{"/t.S/Public", "Bearer " + merchant, "", true},
		{"/t.S/Public", "Bearer " + forged, "", false},
		{"/t.S/Signed", "", apperr.KindUnauthenticated, false},
		{"/t.S/Signed", "Basic dXNlcjpwYXNz", apperr.KindUnauthenticated, false},
		{"/t.S/Signed", "Bearer " + forged, apperr.KindUnauthenticated, false},
		{"/t.S/Signed", "bearer " + merchant, "", true},
		{"/t.S/Signed", "Bearer " + revoked, apperr.KindUnauthenticated, false},
		{"/t.S/Perm", "Bearer " + merchant, "", true},
		{"/t.S/Perm", "Bearer " + issuer.Token(t, authztest.User{ID: 5, Roles: []string{access.RoleMerchantSupport}}), apperr.KindForbidden, false},
		{"/t.S/Requires", "Bearer " + merchant, apperr.KindForbidden, false},
		{"/t.S/Requires", "Bearer " + admin, "", true},
		{"/t.S/Requires", "Bearer " + customGlobal, "", true},
		{"/t.S/Requires", "Bearer " + customMerchant, apperr.KindForbidden, false},
		{"/t.S/PermAndRequirement", "Bearer " + merchant, apperr.KindForbidden, false},
		{"/t.S/PermAndRequirement", "Bearer " + customGlobal, apperr.KindForbidden, false},
		{"/t.S/PermAndRequirement", "Bearer " + admin, "", true},
		{"/t.S/EmptyRule", "Bearer " + admin, apperr.KindForbidden, false},
		{"/t.S/Unknown", "Bearer " + admin, apperr.KindForbidden, false},
		{"/t.S/Unknown", "", apperr.KindForbidden, false},
		{"/grpc.health.v1.Health/Check", "", "", false},
		{"/t.S/Signed", "Bearer " + temporary, apperr.KindForbidden, false},
		{"/t.S/Requires", "Bearer " + temporary, apperr.KindForbidden, false},
		{"/t.S/TempOK", "Bearer " + temporary, "", true},
		{"/t.S/TempOK", "Bearer " + merchant, apperr.KindForbidden, false},
	}
	for _, tt := range tests {
		name := fmt.Sprintf("%s %.12s", tt.method, tt.auth)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ctx := testContext(t)
			if tt.auth != "" {
				ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", tt.auth))
			}
			called := false
			var gotClaims bool
			_, err := intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: tt.method}, func(ctx context.Context, _ any) (any, error) {
				called = true
				_, gotClaims = access.FromContext(ctx)
				return "ok", nil
			})
			if got := apperr.KindOf(err); got != tt.wantKind {
				t.Fatalf("kind = %q (%v), want %q", got, err, tt.wantKind)
			}
			if called != (tt.wantKind == "") {
				t.Fatalf("handler called = %v", called)
			}
			if gotClaims != tt.wantClaim {
				t.Errorf("claims in context = %v, want %v", gotClaims, tt.wantClaim)
			}
		})
	}

	t.Run("revocation store failure is internal", func(t *testing.T) {
		t.Parallel()
		intercept := authz.UnaryInterceptor(v, rules, revokedSet{err: errors.New("redis down")})
		ctx := metadata.NewIncomingContext(testContext(t), metadata.Pairs("authorization", "Bearer "+admin))
		_, err := intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/t.S/RevokeProbed"}, func(context.Context, any) (any, error) {
			t.Error("handler called")
			return nil, nil
		})
		if apperr.KindOf(err) != apperr.KindInternal {
			t.Fatalf("kind = %q, want internal", apperr.KindOf(err))
		}
	})
}

func TestRedisRevocations(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	opts, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	sid := "test-" + hex.EncodeToString(b)
	t.Cleanup(func() { rdb.Del(context.Background(), authz.RevokedSessionKey(sid)) })

	rev := authz.NewRedisRevocations(rdb)
	if revoked, err := rev.IsRevoked(ctx, &access.Claims{SessionID: sid, Version: access.TokenVersion}); err != nil || revoked {
		t.Fatalf("IsRevoked before Revoke = %v, %v", revoked, err)
	}
	if err := rev.Revoke(ctx, sid, time.Minute); err != nil {
		t.Fatalf("Revoke: %v", err)
	}
	if revoked, err := rev.IsRevoked(ctx, &access.Claims{SessionID: sid, Version: access.TokenVersion}); err != nil || !revoked {
		t.Fatalf("IsRevoked after Revoke = %v, %v", revoked, err)
	}
	ttl, err := rdb.TTL(ctx, "paygate:revoked-session:"+sid).Result()
	if err != nil || ttl <= time.Minute || ttl > time.Minute+authz.Leeway {
		t.Fatalf("key TTL = %v, %v", ttl, err)
	}
}

// recordingTB captures failures so that CheckRulesCover can be tested.
type recordingTB struct {
	testing.TB
	mu     sync.Mutex
	errors []string
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errors = append(r.errors, fmt.Sprintf(format, args...))
}

// oneMethodService is a service with the single method /t.S/Only, so that
// the test does not depend on any real service's method list.
var oneMethodService = grpc.ServiceDesc{
	ServiceName: "t.S",
	HandlerType: (*any)(nil),
	Methods: []grpc.MethodDesc{{
		MethodName: "Only",
		Handler: func(any, context.Context, func(any) error, grpc.UnaryServerInterceptor) (any, error) {
			return nil, errors.New("not called")
		},
	}},
}

func TestCheckRulesCover(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	srv.RegisterService(&oneMethodService, struct{}{})
	healthpb.RegisterHealthServer(srv, health.NewServer())
	const only = "/t.S/Only"

	tests := []struct {
		name  string
		rules authz.Rules
		want  []string
	}{
		{"covered", authz.Rules{only: {Authenticated: true}}, nil},
		{"missing", authz.Rules{}, []string{"Only has no authorization rule"}},
		{"empty", authz.Rules{only: {}}, []string{"Only has an empty"}},
		{"stale", authz.Rules{
			only:        {Public: true},
			"/t.S/Gone": {Public: true},
		}, []string{"Gone names a method the server does not serve"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rec := &recordingTB{TB: t}
			authz.CheckRulesCover(rec, srv, tt.rules)
			if len(rec.errors) != len(tt.want) {
				t.Fatalf("errors = %q, want %d", rec.errors, len(tt.want))
			}
			for i, w := range tt.want {
				if !strings.Contains(rec.errors[i], w) {
					t.Errorf("error %q does not contain %q", rec.errors[i], w)
				}
			}
		})
	}
}
