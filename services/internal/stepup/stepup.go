// Package stepup is the owning service's side of action-bound confirmation
// (docs/contracts-approvals.md, "Step-up: the flow", steps 1 and 4).
//
// A Guard's unary interceptor runs after authz's (it reads the caller's
// *access.Claims). For a method of sensitive.Catalogue it:
//
//   - passes the call straight through when the caller's token does not list
//     the action in cfm, the action is not AlwaysStepUp and the call carries
//     no confirmation;
//   - refuses a call without a confirmation with KindConfirmationRequired
//     (HTTP 428): the described action (canonical JSON, with the target's
//     values as the method's Observer reads them now) and the request's
//     protobuf bytes, which the caller takes to auth;
//   - with a confirmation (metadata sensitive.Header, REST
//     X-Paygate-Confirmation): verifies the token (auth's keys, audience,
//     expiry), that it was given by the caller, that the call described with
//     the token's observed values and reason is the token's action byte for
//     byte, that the target still has the observed values (compare-and-set:
//     409 when it moved), records the token's id in the Store (a second use:
//     409), and runs the handler with the token's claims in the context
//     (FromContext), for the audit entry.
//
// When the handler fails, the token's id is forgotten again, so that the user
// may retry with the same token while it is valid (≤ 2 minutes): nothing was
// applied, and a token is single-use per applied change, not per attempt.
package stepup

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// Sentences answered to refused callers.
const (
	MsgMismatch    = "The confirmation does not match this change."
	MsgOtherUser   = "This confirmation was given by another user."
	MsgUsed        = "This confirmation has already been used."
	MsgMoved       = "The target of this change changed since the request was made. Reload and confirm the change again."
	MsgNeedsReason = "A reason (reason) is required for this change: confirm it again and give one."
	msgSignIn      = "Please sign in to continue."
)

// ErrUsed is what a Store answers for a confirmation id it already holds.
var ErrUsed = errors.New("confirmation already used")

// Observer reads the current values of the target of a call of one method
// (the "observed" of a described action): what the requester sees, and what
// must still hold when the confirmed call is applied. It is called once per
// call, before the handler.
type Observer func(ctx context.Context, req proto.Message) (map[string]any, error)

// Use is one applied confirmation, as a Store records it.
type Use struct {
	// ID is the token's id (jti), the confirmation id.
	ID string
	// UserID is the caller who applied it.
	UserID int64
	// Action is the action's name; Canonical the description signed; Digest its hex SHA-256.
	Action, Canonical, Digest string
	// Proof is the weakest proof kind; Proofs the proofs themselves.
	Proof  string
	Proofs []sensitive.Proof
	// ApprovalRequestID is the approved request the token applies (0 for none).
	ApprovalRequestID int64
	// ExpiresAt is the token's expiry.
	ExpiresAt time.Time
}

// Store remembers the confirmations applied (the used_confirmations table).
type Store interface {
	// Record stores u; ErrUsed when its id is already stored.
	Record(ctx context.Context, u Use) error
	// Forget removes the confirmation id (its handler failed).
	Forget(ctx context.Context, id string) error
}

// Config is what a Guard needs.
type Config struct {
	// Tokens verifies confirmation tokens (authz.Confirmations over the
	// service's access-token verifier).
	Tokens authz.ConfirmationVerifier
	// Store records the confirmations applied.
	Store Store
	// Log receives the failures that do not reach the caller (nil: slog's default).
	Log *slog.Logger
}

// Guard asks for and checks the confirmations of sensitive calls.
type Guard struct {
	tokens authz.ConfirmationVerifier
	store  Store
	log    *slog.Logger

	mu        sync.RWMutex
	observers map[string]Observer
}

// New returns a Guard.
func New(c Config) *Guard {
	log := c.Log
	if log == nil {
		log = slog.Default()
	}
	return &Guard{tokens: c.Tokens, store: c.Store, log: log, observers: map[string]Observer{}}
}

// Observe registers the observer of a full gRPC method. A method without one
// is described with no observed values.
func (g *Guard) Observe(method string, fn Observer) {
	if _, ok := sensitive.ByMethod(method); !ok {
		panic(fmt.Sprintf("stepup: %s is not a sensitive method", method))
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.observers[method] = fn
}

func (g *Guard) observe(ctx context.Context, method string, req proto.Message) (map[string]any, error) {
	g.mu.RLock()
	fn := g.observers[method]
	g.mu.RUnlock()
	if fn == nil {
		return nil, nil
	}
	return fn(ctx, req)
}

type claimsKey struct{}

// FromContext returns the confirmation a sensitive call was applied with.
func FromContext(ctx context.Context) (*sensitive.Claims, bool) {
	c, ok := ctx.Value(claimsKey{}).(*sensitive.Claims)
	return c, ok && c != nil
}

// NewContext returns ctx carrying the confirmation c (the interceptor does
// this; tests of handlers may too).
func NewContext(ctx context.Context, c *sensitive.Claims) context.Context {
	return context.WithValue(ctx, claimsKey{}, c)
}

// Unary returns the interceptor; place it after authz's in the chain.
func (g *Guard) Unary() grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		a, ok := sensitive.ByMethod(info.FullMethod)
		if !ok {
			return handler(ctx, req)
		}
		msg, ok := req.(proto.Message)
		if !ok {
			return nil, fmt.Errorf("stepup: %s: request %T is not a protobuf message", info.FullMethod, req)
		}
		caller, _ := access.FromContext(ctx)
		token := tokenOf(ctx)
		if token == "" {
			if !a.AlwaysStepUp && (caller == nil || !caller.MustConfirm(a.Name)) {
				return handler(ctx, req)
			}
			return nil, g.ask(ctx, a, msg)
		}
		c, err := g.check(ctx, a, caller, msg, token)
		if err != nil {
			return nil, err
		}
		resp, err := handler(NewContext(ctx, c), req)
		if err != nil {
			if ferr := g.store.Forget(context.WithoutCancel(ctx), c.ID); ferr != nil {
				g.log.ErrorContext(ctx, "forget a confirmation whose change failed", "confirmation_id", c.ID, "error", ferr)
			}
		}
		return resp, err
	}
}

// tokenOf returns the confirmation token of an incoming call, or "".
func tokenOf(ctx context.Context) string {
	md, _ := metadata.FromIncomingContext(ctx)
	for _, v := range md.Get(sensitive.Header) {
		if v = strings.TrimSpace(v); v != "" {
			return v
		}
	}
	return ""
}

// ask describes the call and refuses it with KindConfirmationRequired.
func (g *Guard) ask(ctx context.Context, a sensitive.Action, req proto.Message) error {
	observed, err := g.observe(ctx, a.Method, req)
	if err != nil {
		return err
	}
	d, err := sensitive.Describe(a, req, observed, "")
	if err != nil {
		return fmt.Errorf("stepup: %w", err)
	}
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(req)
	if err != nil {
		return fmt.Errorf("stepup: marshal %s request: %w", a.Name, err)
	}
	return apperr.ConfirmationRequired(string(d.Canonical()), raw)
}

// check verifies a confirmation token for this call and records its use.
func (g *Guard) check(ctx context.Context, a sensitive.Action, caller *access.Claims, req proto.Message, token string) (*sensitive.Claims, error) {
	if caller == nil {
		return nil, apperr.Unauthenticated(msgSignIn)
	}
	userID, err := caller.UserID()
	if err != nil {
		return nil, apperr.New(apperr.KindUnauthenticated, err, msgSignIn)
	}
	c, err := g.tokens.VerifyConfirmation(ctx, token)
	if err != nil {
		return nil, err
	}
	if c.Subject != strconv.FormatInt(userID, 10) {
		return nil, apperr.Forbidden(MsgOtherUser)
	}
	signed, err := sensitive.Parse([]byte(c.Action))
	if err != nil {
		return nil, apperr.New(apperr.KindForbidden, err, MsgMismatch)
	}
	d, err := sensitive.Describe(a, req, signed.Observed, signed.Reason)
	if err != nil {
		return nil, fmt.Errorf("stepup: %w", err)
	}
	canonical := d.Canonical()
	if !bytes.Equal(canonical, []byte(c.Action)) || c.Digest != sensitive.Digest(canonical) {
		return nil, apperr.Forbidden(MsgMismatch)
	}
	if a.ReasonRequired && strings.TrimSpace(signed.Reason) == "" {
		return nil, apperr.Invalid(MsgNeedsReason)
	}
	u := Use{ID: c.ID, UserID: userID, Action: a.Name, Canonical: c.Action, Digest: c.Digest, Proof: c.Proof,
		Proofs: c.Proofs, ApprovalRequestID: c.ApprovalRequestID}
	if c.ExpiresAt != nil {
		u.ExpiresAt = c.ExpiresAt.Time
	}
	// Recorded first, so that a token already applied is refused as used
	// even though its target has moved since (it moved by its own change).
	if err := g.store.Record(ctx, u); err != nil {
		if errors.Is(err, ErrUsed) {
			return nil, apperr.Conflict(MsgUsed)
		}
		return nil, fmt.Errorf("stepup: record confirmation %s: %w", c.ID, err)
	}
	if err := g.unmoved(ctx, a, req, signed.Reason, canonical); err != nil {
		if ferr := g.store.Forget(context.WithoutCancel(ctx), c.ID); ferr != nil {
			g.log.ErrorContext(ctx, "forget a refused confirmation", "confirmation_id", c.ID, "error", ferr)
		}
		return nil, err
	}
	return c, nil
}

// unmoved checks that the target still has the values the confirmation
// signed (compare-and-set).
func (g *Guard) unmoved(ctx context.Context, a sensitive.Action, req proto.Message, reason string, canonical []byte) error {
	now, err := g.observe(ctx, a.Method, req)
	if err != nil {
		return err
	}
	current, err := sensitive.Describe(a, req, now, reason)
	if err != nil {
		return fmt.Errorf("stepup: %w", err)
	}
	if !bytes.Equal(current.Canonical(), canonical) {
		return apperr.Conflict(MsgMoved)
	}
	return nil
}

// Reason returns the reason a confirmation's described action carries ("" for none).
func Reason(c *sensitive.Claims) string {
	d, err := sensitive.Parse([]byte(c.Action))
	if err != nil {
		return ""
	}
	return d.Reason
}
