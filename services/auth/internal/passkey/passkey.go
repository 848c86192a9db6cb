// Package passkey registers passkeys (WebAuthn credentials) and signs users
// in with them: the WebAuthn ceremonies, the rules of their challenges
// (single-use, five minutes), and the Store they need. The ceremonies'
// cryptography is go-webauthn's; the session a sign-in starts is identity's,
// with the same throttling and checks as a password sign-in.
//
// Sign-in uses discoverable credentials only: its options name no
// credential, so they reveal nothing about any username. Authenticators see a
// random per-user handle, never the numeric user id.
package passkey

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/auth/internal/identity"
)

// Messages shown to users.
const (
	// MsgNotVerified refuses a registration whose answer did not verify
	// (wrong origin or relying party, unknown or used challenge, bad
	// attestation); the details go to the log.
	MsgNotVerified = "The passkey could not be verified. Please try again."
	// MsgNotFound answers a passkey id the caller does not own.
	MsgNotFound = "Passkey not found."
	// MsgAlreadyRegistered refuses a credential that is stored already.
	MsgAlreadyRegistered = "This passkey is already registered."
)

// Name rules of a passkey (its description).
const (
	// DefaultName names a passkey registered without a name.
	DefaultName = "Passkey"
	// MaxNameLen is the most characters a passkey name may have.
	MaxNameLen = 64
)

// ChallengeTTL is how long a ceremony's challenge may be answered.
const ChallengeTTL = 5 * time.Minute

// Audit actions published as events.v1.UserAudited.
const (
	ActionRegistered = "passkey.registered"
	ActionDeleted    = "passkey.deleted"
)

// Kind is the ceremony a challenge belongs to.
type Kind string

// The ceremonies.
const (
	KindRegister Kind = "register"
	KindLogin    Kind = "login"
)

// Flags are the authenticator data flags kept with a credential.
type Flags struct {
	UserPresent    bool
	UserVerified   bool
	BackupEligible bool
	BackupState    bool
}

// Credential is a stored passkey.
type Credential struct {
	// ID is the passkey's numeric id (the API's id).
	ID     int64
	UserID int64
	// CredentialID is the authenticator's credential id.
	CredentialID []byte
	// PublicKey is the COSE-encoded credential public key.
	PublicKey         []byte
	AttestationType   string
	AttestationFormat string
	AAGUID            []byte
	// SignCount is the last signature counter the authenticator reported.
	SignCount  uint32
	Transports []string
	Flags      Flags
	// Description is the name given at registration.
	Description string
	CreatedAt   time.Time
	// LastUsedAt is when the passkey last signed in; nil when never.
	LastUsedAt *time.Time
}

// Challenge is a ceremony waiting for its answer.
type Challenge struct {
	// Challenge is the base64url (unpadded) challenge, the key of the row.
	Challenge string
	Kind      Kind
	// UserID is the registering user; 0 for a sign-in.
	UserID int64
	// SessionData is go-webauthn's session data, as JSON.
	SessionData []byte
	// DisplayName is the name of the passkey being registered.
	DisplayName string
	ExpiresAt   time.Time
}

// Store keeps passkeys, user handles and challenges.
type Store interface {
	// UserHandle returns the user's handle, storing newHandle as the
	// handle first when the user has none.
	UserHandle(ctx context.Context, userID int64, newHandle []byte) ([]byte, error)
	// UserIDByHandle returns the user whose handle it is. Returns a
	// not-found error when there is none.
	UserIDByHandle(ctx context.Context, handle []byte) (int64, error)
	// Credentials lists a user's passkeys, oldest first.
	Credentials(ctx context.Context, userID int64) ([]Credential, error)
	// CredentialByCredentialID returns the passkey with that authenticator
	// credential id. Returns a not-found error when there is none.
	CredentialByCredentialID(ctx context.Context, credentialID []byte) (Credential, error)
	// SaveChallenge stores a new challenge and purges the expired ones
	// (those that expired before now).
	SaveChallenge(ctx context.Context, c Challenge, now time.Time) error
	// ConsumeChallenge deletes and returns the challenge of that kind (and,
	// for a registration, of that user: userID 0 for a sign-in), so that it
	// is answered once at most. Returns a not-found error when there is
	// none; expiry is the caller's to check.
	ConsumeChallenge(ctx context.Context, challenge string, kind Kind, userID int64) (Challenge, error)
	// RecordUse stores a sign-in's signature counter, flags and time,
	// provided the counter advanced past the stored one (or both are 0). It
	// reports false when it did not, which a concurrent sign-in with a
	// cloned authenticator can cause.
	RecordUse(ctx context.Context, id int64, signCount uint32, flags Flags, at time.Time) (bool, error)
	// Tx runs fn in one database transaction, committed when fn returns nil.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx is the set of writes available inside Store.Tx.
type Tx interface {
	// InsertCredential stores a new passkey and returns it with its id and
	// creation time. Returns a conflict error when its credential id is
	// stored already.
	InsertCredential(ctx context.Context, c Credential) (Credential, error)
	// DeleteCredential deletes the user's passkey with that id and returns
	// it. Returns a not-found error when the user has no such passkey.
	DeleteCredential(ctx context.Context, userID, id int64) (Credential, error)
	// Publish queues an event to leave with this transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}

// SignIn starts the session of a passkey sign-in (identity.Service): it
// throttles like a password sign-in, runs the verification, and applies the
// disabled and IP-restriction checks.
type SignIn interface {
	// SignInWithPasskey verifies the attempt and starts a session.
	SignInWithPasskey(ctx context.Context, a identity.PasskeyAttempt, c identity.Client) (identity.TokenPair, error)
}

var _ SignIn = (*identity.Service)(nil)

// Caller is the signed-in user a registration, list or deletion is for.
type Caller struct {
	UserID   int64
	Username string
	// IP is the caller's address (audit events).
	IP string
}
