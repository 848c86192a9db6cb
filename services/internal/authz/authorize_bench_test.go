package authz_test

import (
	"context"
	"crypto"
	"errors"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// BenchmarkAuthorizeCall is what every authenticated RPC pays before its
// handler runs: EdDSA signature check, claims validation and the rule
// lookup. Target: under 100 µs per call. Recorded in bench/RESULTS.md.
// "first use" verifies the token in full (a new verifier for each call, as
// for a token the service has not seen); "cached" is every later call with
// the same token, answered by the cache of verified tokens.
func BenchmarkAuthorizeCall(b *testing.B) {
	issuer := authztest.NewIssuer(b)
	keys := func(kid string) (crypto.PublicKey, error) {
		if kid != issuer.Kid {
			return nil, errors.New("unknown key")
		}
		return issuer.Public(), nil
	}
	const method = "/paygate.bench.v1.Bench/Call"
	rules := authz.Rules{method: {Permissions: []string{access.PermGetTransactions}}}
	token := issuer.Token(b, authztest.User{ID: 7, Username: "bench", Roles: []string{access.RoleMerchant},
		Permissions: []string{access.PermGetTransactions}, MerchantIDs: []int32{1, 2}})
	ctx := metadata.NewIncomingContext(context.Background(), metadata.Pairs("authorization", "Bearer "+token))
	info := &grpc.UnaryServerInfo{FullMethod: method}
	handler := func(context.Context, any) (any, error) { return nil, nil }

	b.Run("first use", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			intercept := authz.UnaryInterceptor(authz.NewKeyVerifier(keys), rules, nil)
			if _, err := intercept(ctx, nil, info, handler); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		intercept := authz.UnaryInterceptor(authz.NewKeyVerifier(keys), rules, nil)
		b.ReportAllocs()
		for b.Loop() {
			if _, err := intercept(ctx, nil, info, handler); err != nil {
				b.Fatal(err)
			}
		}
	})
}
