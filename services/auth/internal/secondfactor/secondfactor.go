// Package secondfactor is the auth service's second factor: a TOTP key per
// user (RFC 6238: 30-second steps, 6 digits, a step of clock skew either
// way), ten single-use recovery codes, the code step of a password sign-in
// and the enrolment a sign-in may require (docs/contracts-second-factor.md).
// It runs inside the identity domain's sessions and audit, and knows nothing
// of gRPC, Postgres or Redis.
package secondfactor

import (
	"context"
	"time"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/access"
)

// TOTP parameters (RFC 6238 with the defaults every authenticator app
// knows).
const (
	Period     = 30 * time.Second
	Digits     = 6
	SecretSize = 20
	// Skew is how many steps before or after the server's clock a code may
	// belong to.
	Skew = 1
)

// RecoveryCodeCount is how many recovery codes an enrolment gives.
const RecoveryCodeCount = 10

// Key is a user's stored TOTP key.
type Key struct {
	UserID int64
	// KeyID names the keyring key the secret is sealed under.
	KeyID  string
	Sealed []byte
	// ConfirmedAt is nil while the enrolment waits for its first code.
	ConfirmedAt *time.Time
	// LastStep is the step of the last code accepted (0: none).
	LastStep int64
}

// Challenge is the stored side of an identity.Challenge.
type Challenge struct {
	Hash       []byte
	UserID     int64
	Step       identity.Step
	CreatedAt  time.Time
	ExpiresAt  time.Time
	UsedAt     *time.Time
	WrongCodes int
}

// Status describes a user's second factor.
type Status struct {
	Enrolled          bool
	EnrolledAt        time.Time
	RecoveryCodesLeft int
	// Required tells whether the settings require a second factor of the
	// user.
	Required bool
}

// Store reads a user's second factor and runs the writes of one operation
// in a transaction.
type Store interface {
	// SecondFactorStatus describes userID's second factor (Required unset).
	SecondFactorStatus(ctx context.Context, userID int64) (Status, error)
	// SecondFactorTx runs fn in one database transaction, committed when
	// fn returns nil.
	SecondFactorTx(ctx context.Context, fn func(Tx) error) error
}

// Tx is the set of writes (and locking reads) inside Store.SecondFactorTx,
// beside the identity domain's (sessions, outbox, users).
type Tx interface {
	identity.Tx
	// KeyForUpdate returns and locks userID's key, pending or enrolled.
	// Returns a not-found error when there is none.
	KeyForUpdate(ctx context.Context, userID int64) (Key, error)
	// PutPendingKey stores a pending key of userID, replacing a pending
	// one (never an enrolled one: the caller checked).
	PutPendingKey(ctx context.Context, userID int64, keyID string, sealed []byte, at time.Time) error
	// ConfirmKey enrols userID's pending key, whose first code was of step.
	ConfirmKey(ctx context.Context, userID, step int64, at time.Time) error
	// UseStep records step as userID's last used step when it is later
	// than the last one, and reports whether it was.
	UseStep(ctx context.Context, userID, step int64) (bool, error)
	// DeleteSecondFactor removes userID's key and recovery codes.
	DeleteSecondFactor(ctx context.Context, userID int64) error
	// ReplaceRecoveryCodes replaces userID's recovery codes by hashes.
	ReplaceRecoveryCodes(ctx context.Context, userID int64, hashes [][]byte, at time.Time) error
	// UseRecoveryCode spends the unused recovery code of hash and reports
	// whether there was one.
	UseRecoveryCode(ctx context.Context, userID int64, hash []byte, at time.Time) (bool, error)
	// RecoveryCodesLeft counts userID's unused recovery codes.
	RecoveryCodesLeft(ctx context.Context, userID int64) (int, error)
	// InsertChallenge stores a sign-in challenge.
	InsertChallenge(ctx context.Context, c Challenge) error
	// ChallengeForUpdate returns and locks a challenge by its hash.
	// Returns a not-found error when there is none.
	ChallengeForUpdate(ctx context.Context, hash []byte) (Challenge, error)
	// SpendChallenge marks a challenge used.
	SpendChallenge(ctx context.Context, hash []byte, at time.Time) error
	// CountWrongCode adds one wrong code to a challenge and returns the
	// count.
	CountWrongCode(ctx context.Context, hash []byte) (int, error)
}

// Sealer seals TOTP secrets at rest (the service's keyring).
type Sealer interface {
	// SealID seals plain bound to aad and returns the key's id beside it.
	SealID(plain []byte, aad string) (keyID string, sealed []byte, err error)
	// OpenID opens what SealID sealed.
	OpenID(keyID string, sealed []byte, aad string) ([]byte, error)
}

// Identity is what the second factor needs of the identity domain.
type Identity interface {
	// FinishSignIn starts the session of a sign-in whose second step was
	// verified.
	FinishSignIn(ctx context.Context, userID int64, c identity.Client, method string) (identity.TokenPair, error)
	// Actor returns the caller as stored now.
	Actor(ctx context.Context, c *access.Claims, ip string) (identity.Actor, error)
	// Settings returns the settings in force.
	Settings(ctx context.Context) (identity.Settings, error)
	// EndSessions revokes a user's live sessions but keep within tx.
	EndSessions(ctx context.Context, tx identity.Tx, userID int64, keep, reason string, now time.Time) ([]string, error)
	// RevokeInCache puts sessions on the revocation list.
	RevokeInCache(ctx context.Context, sessionIDs []string)
	// Audit publishes a UserAudited through tx.
	Audit(ctx context.Context, tx identity.Tx, a identity.Actor, action string, targetID int64, targetUsername string, before, after map[string]any, at time.Time) error
}

// PasskeyVerifier checks a passkey assertion without signing in.
type PasskeyVerifier interface {
	// VerifyPasskey verifies an assertion (AuthenticationResponseJSON) on
	// a sign-in challenge and returns the id of the passkey's owner. A
	// refused assertion is an Unauthenticated error.
	VerifyPasskey(ctx context.Context, credential []byte) (int64, error)
}
