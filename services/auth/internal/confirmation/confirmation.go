// Package confirmation is the auth service's side of action-bound
// confirmation (step-up) and four-eyes approval (docs/contracts-approvals.md):
// it re-describes a sensitive call the way its owning service did, binds a
// challenge to that exact description, checks the passkey assertion or TOTP
// code that answers it, and hands out a confirmation token, or parks the
// change as an approval request until another user approves it. It also
// holds the step-up setting, the approval policies and the proofs'
// re-verification. It knows nothing of gRPC or Postgres: its ports are below.
package confirmation

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/internal/sensitive"
)

// Lifetimes.
const (
	// ChallengeTTL is how long a begun confirmation may be finished.
	ChallengeTTL = 5 * time.Minute
	// TokenTTL is the lifetime of a confirmation token.
	TokenTTL = 2 * time.Minute
	// DefaultApprovalTTL is how long a request waits for approval.
	DefaultApprovalTTL = 24 * time.Hour
	// MaxPageSize bounds a page of approval requests.
	MaxPageSize = 100
)

// Step-up scopes.
const (
	ScopeAdminWide = "admin_wide"
	ScopeEveryone  = "everyone"
	ScopeNone      = "none"
)

// Approval request statuses ("approving" is internal: between the
// approver's compare-and-set and the owning service's answer).
const (
	StatusPending   = "pending"
	StatusApproving = "approving"
	StatusApproved  = "approved"
	StatusRejected  = "rejected"
	StatusExpired   = "expired"
	StatusFailed    = "failed"
)

// ApproveAction is the action of approving a request (always step-up).
const ApproveAction = "approval.approve"

// Audit actions (events.v1.UserAudited).
const (
	AuditStepUpUpdated = "step_up.updated"
	AuditPolicyCreated = "approval_policy.created"
	AuditPolicyUpdated = "approval_policy.updated"
	AuditPolicyDeleted = "approval_policy.deleted"
	AuditConfirmed     = "confirmation.finished"
	AuditRequested     = "approval.requested"
	AuditApproved      = "approval.approved"
	AuditRejected      = "approval.rejected"
	AuditExpired       = "approval.expired"
	AuditFailed        = "approval.failed"
)

// Messages shown to users.
const (
	MsgNoSecondFactor  = "This change needs a confirmation with a passkey or an authenticator code, and you have neither. Add one under Account Security, then try again."
	MsgNotFound        = "Confirmation not found."
	MsgUsed            = "This confirmation was used already. Start the change again."
	MsgExpired         = "This confirmation has expired. Start the change again."
	MsgAssertion       = "The passkey did not confirm this change. Please try again."
	MsgCode            = "The code is not valid. Enter the current code from your authenticator app."
	MsgRequestNotFound = "Approval request not found."
	MsgOwnRequest      = "You cannot approve or reject your own request; another user must."
	MsgNoPermission    = "You may not decide this request: it needs a user holding %q."
	MsgRequestExpired  = "This request has expired and can no longer be approved."
	MsgNotPending      = "This request was already decided (%s)."
	MsgNeedConfirm     = "This change needs your confirmation."
)

// Caller is the signed-in user, as stored now.
type Caller struct {
	ID          int64
	Username    string
	Global      bool
	Permissions []string
	IP          string
	// Bearer is the caller's access token (an approval is applied with
	// the approver's authority).
	Bearer string
}

// Settings is the step-up setting.
type Settings struct {
	Scope   string
	Actions []string
}

// DefaultSettings: every action of the catalogue, for admin-wide users.
func DefaultSettings() Settings {
	return Settings{Scope: ScopeAdminWide, Actions: sensitive.Names()}
}

// Policy is a four-eyes policy.
type Policy struct {
	ID                 int32
	Action             string
	ApproverPermission string
	// MinAmount is a decimal text ("" for none); Currency "" for any.
	MinAmount string
	Currency  string
	MinCount  int32
}

// Record is a begun confirmation.
type Record struct {
	ID                 string
	UserID             int64
	Action, Method     string
	Canonical          string
	Digest, Nonce      string
	Kind               string
	RequestKeyID       string
	RequestSealed      []byte
	Reason             string
	PolicyID           int32
	ApproverPermission string
	CreatedAt          time.Time
	ExpiresAt          time.Time
	UsedAt             *time.Time
}

// Request is an approval request.
type Request struct {
	ID                  int64
	ConfirmationID      string
	RequestedBy         int64
	RequestedByUsername string
	Action, Method      string
	Canonical           string
	Digest              string
	RequestKeyID        string
	RequestSealed       []byte
	Reason              string
	RequesterProof      sensitive.Proof
	ApproverPermission  string
	PolicyID            int32
	Status              string
	DecidedBy           int64
	DecidedByUsername   string
	DecidedAt           *time.Time
	Outcome             string
	ApproverProof       *sensitive.Proof
	ExpiresAt           time.Time
	CreatedAt           time.Time
}

// Decision is what a status change writes.
type Decision struct {
	By         int64
	ByUsername string
	At         time.Time
	Outcome    string
	Proof      *sensitive.Proof
}

// Query filters a list of approval requests: those the caller made or may
// approve (holds the permission).
type Query struct {
	Status, Action string
	Mine           bool
	CallerID       int64
	Permissions    []string
	BeforeID       int64
	Limit          int
	Now            time.Time
}

// Store keeps confirmations, requests, policies and the setting.
type Store interface {
	// StepUp returns the stored setting; ok false when none was stored.
	StepUp(ctx context.Context) (s Settings, ok bool, err error)
	// Policies lists the policies by id.
	Policies(ctx context.Context) ([]Policy, error)
	// InsertConfirmation stores a begun confirmation.
	InsertConfirmation(ctx context.Context, r Record) error
	// Confirmation returns one. Returns a not-found error when none.
	Confirmation(ctx context.Context, id string) (Record, error)
	// ProofKey returns the sealed HMAC key of TOTP proofs, storing the one
	// fresh makes when there is none yet.
	ProofKey(ctx context.Context, fresh func() (keyID string, sealed []byte, err error)) (keyID string, sealed []byte, err error)
	// Requests lists approval requests (Query), newest first, reading a
	// pending request past its expiry as expired.
	Requests(ctx context.Context, q Query) ([]Request, error)
	// Request returns one. Returns a not-found error when none.
	Request(ctx context.Context, id int64) (Request, error)
	// CountPending counts the pending, unexpired requests not made by
	// callerID whose permission is among perms.
	CountPending(ctx context.Context, callerID int64, perms []string, now time.Time) (int, error)
	// Tx runs fn in one transaction, committed when fn returns nil.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx is the set of writes inside Store.Tx.
type Tx interface {
	// UseConfirmation sets used_at of an unused confirmation of userID and
	// reports whether it did (compare-and-set).
	UseConfirmation(ctx context.Context, id string, userID int64, at time.Time) (bool, error)
	// SetConfirmationProof stores the proof of a finished confirmation.
	SetConfirmationProof(ctx context.Context, id string, p sensitive.Proof) error
	// InsertRequest stores a new pending request and returns it with its id.
	InsertRequest(ctx context.Context, r Request) (Request, error)
	// RequestForUpdate returns and locks a request. Not-found when none.
	RequestForUpdate(ctx context.Context, id int64) (Request, error)
	// SetStatus moves a request from one status to another, writing d,
	// and reports whether it was in from (compare-and-set).
	SetStatus(ctx context.Context, id int64, from, to string, d Decision) (bool, error)
	// ExpirePending marks the pending requests past their expiry expired
	// and returns them.
	ExpirePending(ctx context.Context, now time.Time) ([]Request, error)
	// UseJTI records a confirmation token auth accepted; false when it was
	// recorded already.
	UseJTI(ctx context.Context, jti string, at time.Time) (bool, error)
	// PutStepUp replaces the setting.
	PutStepUp(ctx context.Context, s Settings, by int64, at time.Time) error
	// InsertPolicy, UpdatePolicy and DeletePolicy edit the policies; the
	// last two return a not-found error for an unknown id and the old
	// values.
	InsertPolicy(ctx context.Context, p Policy, by int64, at time.Time) (Policy, error)
	UpdatePolicy(ctx context.Context, p Policy) (Policy, error)
	DeletePolicy(ctx context.Context, id int32) (Policy, error)
	// Publish queues an event to leave with the transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}

// Assertion is a verified WebAuthn assertion's raw parts.
type Assertion struct {
	CredentialID, AuthenticatorData, ClientDataJSON, Signature []byte
}

// Passkeys is what confirmation needs of the passkeys.
type Passkeys interface {
	// HasPasskey reports whether the user has a passkey.
	HasPasskey(ctx context.Context, userID int64) (bool, error)
	// RequestOptions returns the PublicKeyCredentialRequestOptions (JSON)
	// with challenge, restricted to the user's passkeys.
	RequestOptions(ctx context.Context, userID int64, username string, challenge []byte) ([]byte, error)
	// VerifyAssertion checks an AuthenticationResponseJSON answers
	// challenge with one of the user's passkeys (recording its use); a
	// refusal is an Unauthenticated error whose cause is for the log.
	VerifyAssertion(ctx context.Context, userID int64, challenge, response []byte) (Assertion, error)
	// PublicKey returns the owner and COSE public key of a credential id.
	// Returns a not-found error when none.
	PublicKey(ctx context.Context, credentialID []byte) (userID int64, cose []byte, err error)
	// RPID and Origins are the relying party's id and origins.
	RPID() string
	Origins() []string
}

// TOTP is what confirmation needs of the second factor.
type TOTP interface {
	// Enrolled reports whether the user has an enrolled TOTP key.
	Enrolled(ctx context.Context, userID int64) (bool, error)
	// VerifyCode checks a code (±1 step, never reused, throttled like the
	// sign-in's) and returns its step; a wrong code is an error.
	VerifyCode(ctx context.Context, userID int64, code, ip string) (int64, error)
	// CodeAt is the user's code of a step (re-verifying a proof). Returns
	// a not-found error when the user has no enrolled key.
	CodeAt(ctx context.Context, userID, step int64) (string, error)
}

// Sealer seals request bytes and the proof key (the service's keyring).
type Sealer interface {
	SealID(plain []byte, aad string) (keyID string, sealed []byte, err error)
	OpenID(keyID string, sealed []byte, aad string) ([]byte, error)
}

// Decoder decodes a method's request bytes into its request message.
type Decoder func(method string, request []byte) (proto.Message, error)

// Signer signs confirmation tokens with auth's current signing key.
type Signer func(c *sensitive.Claims) (string, error)

// Applier calls method on its owning service with request, the approver's
// bearer token and a confirmation token. A refusal by the owner is an
// apperr error carrying the owner's sentence.
type Applier func(ctx context.Context, method string, request []byte, bearer, token string) error
