package server

import (
	"context"
	"net"
	"net/http/httptest"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
)

// forwardedCall is the incoming context of a direct gRPC call from the
// gateway (peer 10.1.1.1) carrying the given metadata.
func forwardedCall(md metadata.MD) context.Context {
	ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP("10.1.1.1"), Port: 5000}})
	return metadata.NewIncomingContext(ctx, md)
}

func TestForwardedClientAddressNeedsTheInternalToken(t *testing.T) {
	t.Parallel()
	const token = "internal-token-for-tests"
	r := newClientResolver(0, token)
	for _, tc := range []struct {
		name string
		md   metadata.MD
		want string
	}{
		{"vouched", metadata.Pairs(ForwardedForHeader, "203.0.113.9", ForwarderHeader, token), "203.0.113.9"},
		{"wrong token", metadata.Pairs(ForwardedForHeader, "203.0.113.9", ForwarderHeader, "guess"), "10.1.1.1"},
		{"no token", metadata.Pairs(ForwardedForHeader, "203.0.113.9"), "10.1.1.1"},
		{"nothing forwarded", metadata.MD{}, "10.1.1.1"},
	} {
		if ip, _ := r.resolve(forwardedCall(tc.md)); ip != tc.want {
			t.Errorf("%s: ip %q, want %q", tc.name, ip, tc.want)
		}
	}
	// Without a configured token no forwarded address is trusted at all.
	if ip, _ := newClientResolver(0, "").resolve(forwardedCall(metadata.Pairs(ForwardedForHeader, "203.0.113.9", ForwarderHeader, ""))); ip != "10.1.1.1" {
		t.Errorf("no configured token: ip %q, want the peer", ip)
	}
}

func TestForwardClientIPSendsTheResolvedAddress(t *testing.T) {
	t.Parallel()
	var got metadata.MD
	invoker := func(ctx context.Context, _ string, _, _ any, _ *grpc.ClientConn, _ ...grpc.CallOption) error {
		got, _ = metadata.FromOutgoingContext(ctx)
		return nil
	}
	// grpc-gateway's list: what the client claimed, then the proxy's entry
	// for the client, then the connection (our proxy) — one trusted hop.
	ctx := metadata.NewOutgoingContext(context.Background(), metadata.Pairs("x-forwarded-for", "6.6.6.6, 198.51.100.4, 10.0.0.2"))
	if err := ForwardClientIP(1, "tok")(ctx, "/x.S/M", nil, nil, nil, invoker); err != nil {
		t.Fatal(err)
	}
	if ip := got.Get(ForwardedForHeader); len(ip) != 1 || ip[0] != "198.51.100.4" {
		t.Fatalf("forwarded ip = %v, want 198.51.100.4", ip)
	}
	if tok := got.Get(ForwarderHeader); len(tok) != 1 || tok[0] != "tok" {
		t.Fatalf("forwarder = %v", tok)
	}
	// No token configured: nothing is vouched for.
	if err := ForwardClientIP(1, "")(ctx, "/x.S/M", nil, nil, nil, invoker); err != nil {
		t.Fatal(err)
	}
	if len(got.Get(ForwarderHeader)) != 0 {
		t.Fatal("forwarder header sent without a token")
	}
}

func TestRequestClientIP(t *testing.T) {
	t.Parallel()
	r := httptest.NewRequest("GET", "/api/v1/transactions/stream", nil)
	r.RemoteAddr = "10.0.0.2:4444"
	r.Header.Set("X-Forwarded-For", "6.6.6.6, 198.51.100.4")
	if ip := RequestClientIP(r, 0); ip != "10.0.0.2" {
		t.Errorf("no trusted hop: %q", ip)
	}
	if ip := RequestClientIP(r, 1); ip != "198.51.100.4" {
		t.Errorf("one trusted hop: %q", ip)
	}
	if ip := RequestClientIP(r, 5); ip != "6.6.6.6" {
		t.Errorf("more hops than entries: %q", ip)
	}
}
