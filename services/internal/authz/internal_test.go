package authz_test

import (
	"context"
	"crypto"
	"errors"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

func TestInternalRules(t *testing.T) {
	t.Parallel()
	issuer := authztest.NewIssuer(t)
	v := authz.NewKeyVerifier(func(kid string) (crypto.PublicKey, error) {
		if kid != issuer.Kid {
			return nil, errors.New("unknown")
		}
		return issuer.Public(), nil
	})
	rules := authz.Rules{
		"/t.S/Internal": {Internal: true},
		"/t.S/Signed":   {Authenticated: true},
	}
	admin := issuer.Token(t, authztest.User{ID: 1, Username: "admin", Roles: []string{access.RoleAdmin}, Permissions: access.AllPermissions})
	creds, err := authz.InternalCredentials("s3cret-internal").GetRequestMetadata(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	good := creds["authorization"]
	if good != "Internal s3cret-internal" {
		t.Fatalf("InternalCredentials metadata = %q", good)
	}

	tests := []struct {
		name     string
		opts     []authz.Option
		method   string
		auth     string
		wantKind apperr.Kind
	}{
		{"right token", []authz.Option{authz.WithInternalToken("s3cret-internal")}, "/t.S/Internal", good, ""},
		{"scheme case-insensitive", []authz.Option{authz.WithInternalToken("s3cret-internal")}, "/t.S/Internal", "internal s3cret-internal", ""},
		{"no token", []authz.Option{authz.WithInternalToken("s3cret-internal")}, "/t.S/Internal", "", apperr.KindUnauthenticated},
		{"wrong token", []authz.Option{authz.WithInternalToken("s3cret-internal")}, "/t.S/Internal", "Internal s3cret-internaX", apperr.KindForbidden},
		{"prefix of the token", []authz.Option{authz.WithInternalToken("s3cret-internal")}, "/t.S/Internal", "Internal s3cret", apperr.KindForbidden},
		{"user token", []authz.Option{authz.WithInternalToken("s3cret-internal")}, "/t.S/Internal", "Bearer " + admin, apperr.KindForbidden},
		{"no token configured", nil, "/t.S/Internal", good, apperr.KindForbidden},
		{"empty token configured", []authz.Option{authz.WithInternalToken("")}, "/t.S/Internal", "Internal ", apperr.KindForbidden},
		// The internal token is no user token.
		{"internal token on a user method", []authz.Option{authz.WithInternalToken("s3cret-internal")}, "/t.S/Signed", good, apperr.KindUnauthenticated},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ctx := context.Background()
			if tt.auth != "" {
				ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", tt.auth))
			}
			check := func(err error, called bool) {
				t.Helper()
				if got := apperr.KindOf(err); got != tt.wantKind {
					t.Fatalf("kind = %q (%v), want %q", got, err, tt.wantKind)
				}
				if called != (tt.wantKind == "") {
					t.Fatalf("handler called = %v", called)
				}
			}
			called := false
			_, err := authz.UnaryInterceptor(v, rules, nil, tt.opts...)(ctx, nil, &grpc.UnaryServerInfo{FullMethod: tt.method},
				func(ctx context.Context, _ any) (any, error) {
					called = true
					if _, ok := access.FromContext(ctx); ok {
						t.Error("an internal call carries user claims")
					}
					return nil, nil
				})
			check(err, called)
			called = false
			err = authz.StreamInterceptor(v, rules, nil, tt.opts...)(nil, fakeStream{ctx: ctx}, &grpc.StreamServerInfo{FullMethod: tt.method},
				func(any, grpc.ServerStream) error { called = true; return nil })
			check(err, called)
		})
	}
}

type fakeStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s fakeStream) Context() context.Context { return s.ctx }
