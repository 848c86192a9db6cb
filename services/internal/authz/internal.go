package authz

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"log/slog"
	"strings"

	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"

	"github.com/paygate/paygate/services/internal/apperr"
)

// internalScheme is the authorization scheme of service-to-service calls:
// "authorization: Internal <token>".
const internalScheme = "Internal"

// Messages shown to refused internal callers.
const (
	msgInternalOnly  = "This operation is for the deployment's own services; present the internal token."
	msgInternalToken = "The internal token is not valid."
)

// Option changes what UnaryInterceptor and StreamInterceptor admit.
type Option func(*options)

type options struct {
	// internal is the SHA-256 of the internal token; nil when none is
	// configured (every Internal method is then refused).
	internal []byte
	// allowLists and clientIP check IP-restricted callers (WithAllowLists).
	allowLists AllowLists
	clientIP   func(ctx context.Context) string
}

func optionsOf(opts []Option) options {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	return o
}

// WithInternalToken admits to the methods whose rule is Internal the callers
// presenting token ("authorization: Internal <token>", see
// InternalCredentials). Without it, or with an empty token, every Internal
// method is refused.
func WithInternalToken(token string) Option {
	return func(o *options) {
		if token == "" {
			o.internal = nil
			return
		}
		sum := sha256.Sum256([]byte(token))
		o.internal = sum[:]
	}
}

// checkInternal admits a call to an Internal method: no internal token is
// unauthenticated; a wrong one, or a user's bearer token, is forbidden.
func (o options) checkInternal(ctx context.Context, method string) error {
	md, _ := metadata.FromIncomingContext(ctx)
	var presented string
	var sawAuth bool
	for _, v := range md.Get("authorization") {
		sawAuth = true
		scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
		if ok && strings.EqualFold(scheme, internalScheme) {
			presented = strings.TrimSpace(token)
			break
		}
	}
	switch {
	case presented == "" && !sawAuth:
		return apperr.Unauthenticated(msgInternalOnly)
	case presented == "":
		// A user's token: users never call internal methods.
		return apperr.Forbidden(msgInternalOnly)
	case o.internal == nil:
		slog.Default().ErrorContext(ctx, "internal method called but no internal token is configured; call refused", "method", method)
		return apperr.Forbidden(msgInternalToken)
	}
	// Comparing digests takes the same time whatever the lengths.
	sum := sha256.Sum256([]byte(presented))
	if subtle.ConstantTimeCompare(sum[:], o.internal) != 1 {
		return apperr.Forbidden(msgInternalToken)
	}
	return nil
}

// InternalCredentials returns the per-call credentials with which a service
// calls another's Internal methods: "authorization: Internal <token>" on
// every call. Pass it to grpc.NewClient with grpc.WithPerRPCCredentials. The
// deployment's services talk over its private network without TLS, so the
// credentials do not require transport security.
func InternalCredentials(token string) credentials.PerRPCCredentials {
	return internalCredentials(token)
}

type internalCredentials string

// GetRequestMetadata implements credentials.PerRPCCredentials.
func (c internalCredentials) GetRequestMetadata(context.Context, ...string) (map[string]string, error) {
	return map[string]string{"authorization": internalScheme + " " + string(c)}, nil
}

// RequireTransportSecurity implements credentials.PerRPCCredentials.
func (c internalCredentials) RequireTransportSecurity() bool { return false }
