package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net/http"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Forwarded calls. The gateway host forwards some REST calls to the service
// that owns their data (callbacks, statistics, users and sessions) over gRPC.
// The owner then sees the gateway as its peer, so the gateway names the
// caller's address in metadata, vouched for by the deployment's internal
// token; a server trusts that address only with the token (Options
// InternalToken), so a client cannot choose its address by sending the
// header itself.
const (
	// ForwardedForHeader carries the client address the forwarder resolved.
	ForwardedForHeader = "x-paygate-client-ip"
	// ForwarderHeader carries the internal token of the forwarder.
	ForwarderHeader = "x-paygate-forwarder"
)

// ForwardClientIP returns the client interceptor of a forwarding connection:
// it resolves the caller's address from the X-Forwarded-For list grpc-gateway
// put in the outgoing metadata (the same rule as ClientInfo, trustedHops from
// the right) and sends it with the internal token.
func ForwardClientIP(trustedHops int, internalToken string) grpc.UnaryClientInterceptor {
	return func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		if internalToken != "" {
			md, _ := metadata.FromOutgoingContext(ctx)
			if ip := forwardedClient(md.Get("x-forwarded-for"), trustedHops); ip != "" {
				md = md.Copy()
				md.Set(ForwardedForHeader, ip)
				md.Set(ForwarderHeader, internalToken)
				ctx = metadata.NewOutgoingContext(ctx, md)
			}
		}
		return invoker(ctx, method, req, reply, cc, opts...)
	}
}

func forwardedClient(xff []string, trustedHops int) string {
	if len(xff) == 0 {
		return ""
	}
	return fromRight(splitChain(nil, xff[len(xff)-1]), trustedHops)
}

// splitChain appends the entries of one X-Forwarded-For value to chain.
func splitChain(chain []string, xff string) []string {
	for part := range strings.SplitSeq(xff, ",") {
		if part = strings.TrimSpace(part); part != "" {
			chain = append(chain, part)
		}
	}
	return chain
}

// fromRight picks the client of an address chain: the entry trustedHops
// from the right (our own proxies), or the leftmost; "" for an empty chain.
func fromRight(chain []string, trustedHops int) string {
	if len(chain) == 0 {
		return ""
	}
	return hostOf(chain[max(len(chain)-1-max(trustedHops, 0), 0)])
}

// clientResolver finds the caller's address of an incoming call.
type clientResolver struct {
	trustedHops int
	// forwarder is the SHA-256 of the internal token; nil trusts no
	// forwarded address.
	forwarder []byte
}

func newClientResolver(trustedHops int, internalToken string) clientResolver {
	r := clientResolver{trustedHops: trustedHops}
	if internalToken != "" {
		sum := sha256.Sum256([]byte(internalToken))
		r.forwarder = sum[:]
	}
	return r
}

func (r clientResolver) resolve(ctx context.Context) (ip, userAgent string) {
	ip, userAgent = resolveClient(ctx, r.trustedHops)
	if r.forwarder == nil || transportOf(ctx) == transportREST {
		return ip, userAgent
	}
	md, _ := metadata.FromIncomingContext(ctx)
	fwd, token := last(md.Get(ForwardedForHeader)), last(md.Get(ForwarderHeader))
	if fwd == "" || token == "" {
		return ip, userAgent
	}
	sum := sha256.Sum256([]byte(token))
	if subtle.ConstantTimeCompare(sum[:], r.forwarder) != 1 {
		return ip, userAgent
	}
	// grpc-gateway on the forwarder passed the browser's User-Agent on.
	if ua := last(md.Get("grpcgateway-user-agent")); ua != "" {
		userAgent = ua
	}
	return fwd, userAgent
}

// ClientIP returns the caller's address (see ClientInfo).
func ClientIP(ctx context.Context) string {
	ip, _ := ClientInfo(ctx)
	return ip
}

// RequestClientIP returns the caller's address of a plain HTTP request (one
// served by Handle, outside grpc-gateway) by the rule of ClientInfo: the
// X-Forwarded-For list plus the connection's address, trustedHops from the
// right.
func RequestClientIP(r *http.Request, trustedHops int) string {
	var chain []string
	for _, v := range r.Header.Values("X-Forwarded-For") {
		chain = splitChain(chain, v)
	}
	return fromRight(append(chain, r.RemoteAddr), trustedHops)
}
