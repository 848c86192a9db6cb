// Package apperr defines the few kinds of error every Paygate service returns
// and the sentence-long messages shown to the people who caused them.
//
// Domain and storage code return *Error values (through the constructors
// below); the server runner maps their kinds to gRPC codes and HTTP statuses.
// An error that is not an *Error is internal: its text goes to the logs only,
// never to the caller.
package apperr

import (
	"errors"
	"fmt"
	"time"
)

// Kind classifies an error by what the caller can do about it. Its string
// value is the "code" of REST error bodies (docs/contracts.md).
type Kind string

// The kinds of error. Their values are the public codes of REST error bodies.
const (
	// KindInvalid means the request itself is wrong (HTTP 400).
	KindInvalid Kind = "invalid"
	// KindUnauthenticated means the caller is not signed in or the token is
	// not valid (HTTP 401).
	KindUnauthenticated Kind = "unauthenticated"
	// KindForbidden means the caller is signed in but may not do this (HTTP 403).
	KindForbidden Kind = "forbidden"
	// KindNotFound means the thing asked for does not exist or is outside the
	// caller's scope (HTTP 404).
	KindNotFound Kind = "not_found"
	// KindConflict means the request clashes with the current state: a
	// duplicate, or a stale compare-and-set (HTTP 409).
	KindConflict Kind = "conflict"
	// KindFailedPrecondition means the request is well formed but the system
	// is not in a state that allows it (HTTP 422).
	KindFailedPrecondition Kind = "failed_precondition"
	// KindTooManyRequests means the caller is throttled (HTTP 429, with
	// Retry-After).
	KindTooManyRequests Kind = "too_many_requests"
	// KindConfirmationRequired means the call is a sensitive change that the
	// caller must confirm first (HTTP 428, docs/contracts-approvals.md): the
	// error carries the described action (Error.Confirmation).
	KindConfirmationRequired Kind = "confirmation_required"
	// KindInternal means the fault is ours; its details are never shown (HTTP 500).
	KindInternal Kind = "internal"
)

// Kinds lists every kind, in the order of the table in docs/contracts.md.
var Kinds = []Kind{
	KindInvalid, KindUnauthenticated, KindForbidden, KindNotFound,
	KindConflict, KindFailedPrecondition, KindTooManyRequests, KindConfirmationRequired, KindInternal,
}

// InternalMessage is the only message callers see for internal errors.
const InternalMessage = "Something went wrong on our side. Please try again later."

// String returns the public code of the kind.
func (k Kind) String() string { return string(k) }

// HTTPStatus returns the HTTP status REST answers carry for the kind; unknown
// kinds are 500. The codes are written as numbers so that apperr, which every
// domain package imports, does not link net/http.
func (k Kind) HTTPStatus() int {
	switch k {
	case KindInvalid:
		return 400 // StatusBadRequest
	case KindUnauthenticated:
		return 401 // StatusUnauthorized
	case KindForbidden:
		return 403 // StatusForbidden
	case KindNotFound:
		return 404 // StatusNotFound
	case KindConflict:
		return 409 // StatusConflict
	case KindFailedPrecondition:
		return 422 // StatusUnprocessableEntity
	case KindTooManyRequests:
		return 429 // StatusTooManyRequests
	case KindConfirmationRequired:
		return 428 // StatusPreconditionRequired
	default:
		return 500 // StatusInternalServerError
	}
}

// ParseKind returns the kind whose public code is s, and false when there is
// none.
func ParseKind(s string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k) == s {
			return k, true
		}
	}
	return "", false
}

// Error is an error of a known kind. Find one in a chain with errors.As.
type Error struct {
	// Kind classifies the error.
	Kind Kind
	// Message is a sentence the caller can act on. For KindInternal it is
	// logged but never shown.
	Message string
	// RetryAfter is how long a throttled caller should wait (KindTooManyRequests).
	RetryAfter time.Duration
	// Cause is the underlying error, for logs only; it is never shown.
	Cause error
	// Confirmation is what a KindConfirmationRequired error asks the caller
	// to confirm.
	Confirmation *Confirmation
}

// Confirmation is the call a caller must confirm (docs/contracts-approvals.md,
// "Step-up: the flow"): the canonical description of the action and the
// request's protobuf bytes, which the caller hands to auth unchanged.
type Confirmation struct {
	// Action is the canonical JSON of the described action.
	Action string
	// Request is the request's protobuf encoding.
	Request []byte
}

// ConfirmationMessage is the sentence of a KindConfirmationRequired error.
const ConfirmationMessage = "This change needs your confirmation."

// ConfirmationRequired asks the caller to confirm the described action
// (canonical JSON) of the request whose protobuf bytes are request (HTTP 428).
func ConfirmationRequired(action string, request []byte) error {
	return &Error{Kind: KindConfirmationRequired, Message: ConfirmationMessage,
		Confirmation: &Confirmation{Action: action, Request: request}}
}

// Error returns the message, followed by the cause when there is one.
func (e *Error) Error() string {
	if e.Cause != nil {
		return e.Message + ": " + e.Cause.Error()
	}
	return e.Message
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// PublicMessage returns what the caller may see: the message, or
// InternalMessage for internal errors.
func (e *Error) PublicMessage() string {
	if e.Kind == KindInternal || e.Kind == "" || e.Message == "" {
		return InternalMessage
	}
	return e.Message
}

// New returns an error of the given kind with a cause kept for the logs.
func New(kind Kind, cause error, format string, args ...any) *Error {
	return &Error{Kind: kind, Message: sprintf(format, args), Cause: cause}
}

// Invalid reports a request that is wrong in itself (HTTP 400).
func Invalid(format string, args ...any) error { return newErr(KindInvalid, format, args) }

// Unauthenticated reports a caller who is not signed in or whose token is not
// valid (HTTP 401).
func Unauthenticated(format string, args ...any) error {
	return newErr(KindUnauthenticated, format, args)
}

// Forbidden reports a signed-in caller who may not do this (HTTP 403).
func Forbidden(format string, args ...any) error { return newErr(KindForbidden, format, args) }

// NotFound reports a missing thing, or one outside the caller's scope (HTTP 404).
func NotFound(format string, args ...any) error { return newErr(KindNotFound, format, args) }

// Conflict reports a duplicate or a stale compare-and-set (HTTP 409).
func Conflict(format string, args ...any) error { return newErr(KindConflict, format, args) }

// FailedPrecondition reports a valid request that the current state does not
// allow (HTTP 422).
func FailedPrecondition(format string, args ...any) error {
	return newErr(KindFailedPrecondition, format, args)
}

// Internal reports a fault of ours. The message is for the logs; callers see
// InternalMessage.
func Internal(format string, args ...any) error { return newErr(KindInternal, format, args) }

// TooManyRequests reports a throttled caller, who should wait retryAfter
// before trying again (HTTP 429 with Retry-After).
func TooManyRequests(retryAfter time.Duration, msg string) error {
	return &Error{Kind: KindTooManyRequests, Message: msg, RetryAfter: retryAfter}
}

// KindOf returns the kind of the first *Error in err's chain, KindInternal for
// any other error, and "" for nil.
func KindOf(err error) Kind {
	if err == nil {
		return ""
	}
	var e *Error
	if errors.As(err, &e) && e.Kind != "" {
		return e.Kind
	}
	return KindInternal
}

// As returns the first *Error in err's chain, or nil.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return nil
}

func newErr(kind Kind, format string, args []any) error {
	return &Error{Kind: kind, Message: sprintf(format, args)}
}

func sprintf(format string, args []any) string {
	if len(args) == 0 {
		return format
	}
	return fmt.Sprintf(format, args...)
}
