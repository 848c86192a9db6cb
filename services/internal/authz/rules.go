package authz

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Rule says who may call one RPC.
//
// Public rules need no token (a valid one is still put in the context).
// Every other rule needs a valid, unrevoked token; then, when Permissions is
// non-empty the caller needs one of them, and when Requires is set the
// caller must also meet it. A rule never names a role: where the spec does,
// Requires holds the rule restated in permissions and the scope flag
// (access.Requirements, docs/access.md). A rule that sets none of the fields
// is a mistake and refuses every call, so that forgetting to fill in a rule
// never opens a method: write Authenticated: true for "any signed-in user".
//
// Internal rules are for the other services of the deployment, not for
// users: the caller presents "authorization: Internal <token>" with the
// deployment's internal token (WithInternalToken; InternalCredentials on the
// client side), and the other fields are ignored. Internal methods have no
// REST route.
//
// A user who still holds a temporary password may call only the methods whose
// rule sets AllowTemporaryPassword (signing out, describing themselves,
// replacing the password): the console sends them to Change Password, and the
// server holds them there too.
type Rule struct {
	// Public lets anyone call, signed in or not.
	Public bool
	// Authenticated lets any signed-in user call (when Permissions and
	// Requires are empty).
	Authenticated bool
	// Permissions: the caller needs any one of them.
	Permissions []string
	// Requires: the caller must also meet it (one of access.Requirements).
	Requires access.Requirement
	// AllowTemporaryPassword lets a caller whose password is temporary in.
	AllowTemporaryPassword bool
	// Internal lets in only callers presenting the internal token (another
	// service), never a user's token.
	Internal bool
}

// Admits reports whether r lets the signed-in caller of c in, as the
// interceptor decides once the token is verified (and the allow-list
// passed): never for an empty or internal rule; always for a public one;
// otherwise not with a temporary password unless allowed, and then by
// Permissions and Requires. Tests of the rules tables use it.
func (r Rule) Admits(c *access.Claims) bool {
	switch {
	case r.empty() || r.Internal || c == nil:
		return false
	case r.Public:
		return true
	case c.IsTemporaryPassword && !r.AllowTemporaryPassword:
		return false
	}
	return r.admitsSignedIn(c)
}

// admitsSignedIn is the permission part of a rule.
func (r Rule) admitsSignedIn(c *access.Claims) bool {
	if len(r.Permissions) > 0 && !c.HasPermission(r.Permissions...) {
		return false
	}
	return r.Requires.IsZero() || r.Requires.MetBy(c)
}

func (r Rule) empty() bool {
	return !r.Public && !r.Authenticated && len(r.Permissions) == 0 && r.Requires.IsZero() && !r.Internal
}

// Rules maps full gRPC method names ("/paygate.auth.v1.AuthService/Login") to
// their rule.
type Rules map[string]Rule

// Revocations tells whether a session was revoked before its tokens expire.
type Revocations interface {
	// IsRevoked reports whether the session of a verified token (its
	// SessionID) was revoked, reading what the token's Version promises.
	// Errors are internal.
	IsRevoked(ctx context.Context, claims *access.Claims) (bool, error)
}

// alwaysAllowed says whether a method belongs to the infrastructure services
// that every server exposes without a token: gRPC health (probes) and server
// reflection (tooling).
func alwaysAllowed(fullMethod string) bool {
	return strings.HasPrefix(fullMethod, "/grpc.health.v1.Health/") ||
		strings.HasPrefix(fullMethod, "/grpc.reflection.")
}

// Messages shown to refused callers.
const (
	msgSignIn       = "Please sign in to continue."
	msgRevoked      = "Your session has ended. Please sign in again."
	msgNoRule       = "This operation is not available."
	msgNoPermission = "You do not have permission to do this."
	msgTemporary    = "Change your temporary password first."
)

// UnaryInterceptor enforces rules on every unary call. It denies by default:
// a method without a rule is refused as forbidden and logged at Error through
// slog's default logger, since it is a programming error. It reads the token
// from the "authorization: Bearer <token>" metadata, rejects a missing,
// invalid or revoked (when rev is non-nil) token as unauthenticated, a
// missing permission or unmet requirement as forbidden, and otherwise calls the handler
// with the claims in the context (see FromContext). Health and reflection
// methods pass without a rule.
//
// Options add to that: WithInternalToken admits the callers of Internal
// rules; WithAllowLists holds IP-restricted users to their allowed ranges.
func UnaryInterceptor(v Verifier, rules Rules, rev Revocations, opts ...Option) grpc.UnaryServerInterceptor {
	o := optionsOf(opts)
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		ctx, err := authorize(ctx, v, rules, rev, o, info.FullMethod)
		if err != nil {
			return nil, err
		}
		return handler(ctx, req)
	}
}

// StreamInterceptor is UnaryInterceptor for streaming calls.
func StreamInterceptor(v Verifier, rules Rules, rev Revocations, opts ...Option) grpc.StreamServerInterceptor {
	o := optionsOf(opts)
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		ctx, err := authorize(ss.Context(), v, rules, rev, o, info.FullMethod)
		if err != nil {
			return err
		}
		return handler(srv, &contextStream{ServerStream: ss, ctx: ctx})
	}
}

type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *contextStream) Context() context.Context { return s.ctx }

func authorize(ctx context.Context, v Verifier, rules Rules, rev Revocations, o options, method string) (context.Context, error) {
	rule, ok := rules[method]
	if !ok {
		if alwaysAllowed(method) {
			return ctx, nil
		}
		slog.Default().ErrorContext(ctx, "no authorization rule for method; call refused", "method", method)
		return ctx, apperr.Forbidden(msgNoRule)
	}
	if rule.empty() {
		slog.Default().ErrorContext(ctx, "empty authorization rule for method; call refused", "method", method)
		return ctx, apperr.Forbidden(msgNoRule)
	}
	if rule.Internal {
		return ctx, o.checkInternal(ctx, method)
	}

	token := bearerToken(ctx)
	if rule.Public {
		if token != "" {
			if claims, err := VerifyUnrevoked(ctx, v, rev, token); err == nil {
				ctx = access.NewContext(ctx, claims)
			}
		}
		return ctx, nil
	}
	if token == "" {
		return ctx, apperr.Unauthenticated(msgSignIn)
	}
	claims, err := VerifyUnrevoked(ctx, v, rev, token)
	if err != nil {
		return ctx, err
	}
	if err := o.checkAllowList(ctx, claims); err != nil {
		return ctx, err
	}
	if claims.IsTemporaryPassword && !rule.AllowTemporaryPassword {
		return ctx, apperr.Forbidden(msgTemporary)
	}
	if !rule.admitsSignedIn(claims) {
		return ctx, apperr.Forbidden(msgNoPermission)
	}
	return access.NewContext(ctx, claims), nil
}

// VerifyUnrevoked returns the claims of a valid token whose session was not
// revoked (rev nil skips that check): what every signed-in call passes, for
// the interceptors and for routes outside gRPC such as the gateway's stream.
// A refused token is KindUnauthenticated; a failed check is internal.
func VerifyUnrevoked(ctx context.Context, v Verifier, rev Revocations, token string) (*access.Claims, error) {
	claims, err := v.Verify(ctx, token)
	if err != nil {
		return nil, err
	}
	if rev != nil && claims.SessionID != "" {
		revoked, err := rev.IsRevoked(ctx, claims)
		if err != nil {
			return nil, fmt.Errorf("authorize: %w", err)
		}
		if revoked {
			return nil, apperr.Unauthenticated(msgRevoked)
		}
	}
	return claims, nil
}

// bearerToken returns the token of the "authorization: Bearer <token>"
// metadata, or "".
func bearerToken(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get("authorization") {
		scheme, token, ok := strings.Cut(strings.TrimSpace(v), " ")
		if ok && strings.EqualFold(scheme, "bearer") {
			if token = strings.TrimSpace(token); token != "" {
				return token
			}
		}
	}
	return ""
}

// BearerToken returns the bearer token of an incoming call, or "" (for
// handlers that need the raw token, such as logout).
func BearerToken(ctx context.Context) string { return bearerToken(ctx) }
