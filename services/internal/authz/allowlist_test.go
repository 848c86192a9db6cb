package authz_test

import (
	"context"
	"crypto"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"net/netip"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

func TestIPRangeContains(t *testing.T) {
	t.Parallel()
	v4 := access.IPRange{From: netip.MustParseAddr("10.0.0.10"), To: netip.MustParseAddr("10.0.0.20")}
	v6 := access.IPRange{From: netip.MustParseAddr("2001:db8::1"), To: netip.MustParseAddr("2001:db8::ff")}
	for _, tc := range []struct {
		ip   string
		want bool
	}{
		{"10.0.0.10", true}, {"10.0.0.20", true}, {"10.0.0.15", true},
		{"10.0.0.9", false}, {"10.0.0.21", false},
		{"::ffff:10.0.0.12", true}, // IPv4-mapped counts as IPv4
		{"2001:db8::2", false},     // another family never matches v4
		{"not-an-ip", false}, {"", false},
	} {
		if got := access.IPAllowed(tc.ip, []access.IPRange{v4}); got != tc.want {
			t.Errorf("access.IPAllowed(%q, v4) = %v, want %v", tc.ip, got, tc.want)
		}
	}
	if !access.IPAllowed("2001:db8::80", []access.IPRange{v4, v6}) || access.IPAllowed("2001:db8::100", []access.IPRange{v4, v6}) {
		t.Error("IPv6 range bounds not honoured")
	}
}

func randomUserID() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.BigEndian.Uint64(b[:])>>2) + 1_000_000
}

// TestAllowListsOnCalls: an IP-restricted token passes only from an allowed
// address; an unrestricted token is never checked; a list not mirrored is a
// 401 (renew the session); a changed list applies once the cache expires.
func TestAllowListsOnCalls(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	opts, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	restricted, unknown := randomUserID(), randomUserID()
	t.Cleanup(func() { rdb.Del(context.Background(), authz.AllowListKey(restricted), authz.AllowListKey(unknown)) })

	lists := authz.NewRedisAllowLists(rdb)
	if err := lists.Store(ctx, restricted, []access.IPRange{{From: netip.MustParseAddr("192.0.2.1"), To: netip.MustParseAddr("192.0.2.9")}}); err != nil {
		t.Fatal(err)
	}
	issuer := authztest.NewIssuer(t)
	v := authz.NewKeyVerifier(func(kid string) (crypto.PublicKey, error) {
		if kid != issuer.Kid {
			return nil, errors.New("unknown")
		}
		return issuer.Public(), nil
	})
	type ipKey struct{}
	clientIP := func(ctx context.Context) string { s, _ := ctx.Value(ipKey{}).(string); return s }
	intercept := authz.UnaryInterceptor(v, authz.Rules{"/t.S/Signed": {Authenticated: true}}, nil, authz.WithAllowLists(lists, clientIP))
	call := func(token, ip string) error {
		ctx := metadata.NewIncomingContext(context.WithValue(ctx, ipKey{}, ip), metadata.Pairs("authorization", "Bearer "+token))
		_, err := intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/t.S/Signed"}, func(context.Context, any) (any, error) { return "ok", nil })
		return err
	}
	tok := issuer.Token(t, authztest.User{ID: restricted, Username: "r", IPRestricted: true})
	if err := call(tok, "192.0.2.5"); err != nil {
		t.Fatalf("allowed address refused: %v", err)
	}
	if err := call(tok, "198.51.100.7"); apperr.KindOf(err) != apperr.KindForbidden {
		t.Fatalf("outside address: kind %q (%v), want forbidden", apperr.KindOf(err), err)
	}
	free := issuer.Token(t, authztest.User{ID: restricted, Username: "r"})
	if err := call(free, "198.51.100.7"); err != nil {
		t.Fatalf("unrestricted token refused: %v", err)
	}
	lost := issuer.Token(t, authztest.User{ID: unknown, Username: "u", IPRestricted: true})
	if err := call(lost, "192.0.2.5"); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("no mirrored list: kind %q (%v), want unauthenticated", apperr.KindOf(err), err)
	}

	// Another replica's cache (a second RedisAllowLists) sees a change made
	// here only after its cache time; this one sees it at once.
	other := authz.NewRedisAllowLists(rdb)
	if _, err := other.Ranges(ctx, restricted); err != nil {
		t.Fatal(err)
	}
	if err := lists.Store(ctx, restricted, []access.IPRange{{From: netip.MustParseAddr("198.51.100.0"), To: netip.MustParseAddr("198.51.100.255")}}); err != nil {
		t.Fatal(err)
	}
	if err := call(tok, "198.51.100.7"); err != nil {
		t.Fatalf("after the change on this replica: %v", err)
	}
	if r, _ := other.Ranges(ctx, restricted); access.IPAllowed("198.51.100.7", r) {
		t.Fatal("the other replica's cache was not used")
	}
	if authz.AllowListCacheTTL > time.Minute {
		t.Fatalf("cache TTL %v exceeds the minute the issue allows", authz.AllowListCacheTTL)
	}
}
