// Package identity is the auth service's domain: users, their sessions and
// the tokens that prove them. It signs users in, rotates refresh tokens,
// revokes sessions and changes passwords. It knows nothing of gRPC, REST,
// Postgres or Redis; those live in the sibling packages.
package identity

import (
	"context"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/internal/access"
)

// User is an account that can sign in to the console.
type User struct {
	ID                  int64
	Username            string
	PasswordHash        string
	IsTemporaryPassword bool
	IsIPRestricted      bool
	// IsDisabled users cannot sign in; disabling ends their sessions.
	IsDisabled  bool
	Roles       []string
	Permissions []string
	// Global is the role's scope flag: the user sees every merchant.
	Global      bool
	MerchantIDs []int32
}

// IPRange is an inclusive range of addresses an IP-restricted user may sign
// in from (the type every verifier checks calls against).
type IPRange = access.IPRange

// Client describes where a request came from.
type Client struct {
	IP        string
	UserAgent string
	// DeviceToken is the signed device cookie the browser presented, if any
	// (IssueDeviceToken): a browser that signed in as the username before
	// passes the per-address sign-in lock.
	DeviceToken string
}

// Session is one sign-in of a user, alive while its refresh tokens are.
type Session struct {
	ID               string
	UserID           int64
	IP               string
	UserAgent        string
	CreatedAt        time.Time
	LastSeenAt       time.Time
	RefreshExpiresAt time.Time
	RevokedAt        *time.Time
}

// RefreshToken is the stored form of a refresh token: its hash only.
type RefreshToken struct {
	Hash      []byte
	SessionID string
	CreatedAt time.Time
	ExpiresAt time.Time
	UsedAt    *time.Time
}

// TokenPair is what a successful sign-in or refresh hands the client.
type TokenPair struct {
	AccessToken  string
	RefreshToken string
	ExpiresIn    time.Duration
	// DeviceToken is set by Login: the device cookie for this browser and
	// username.
	DeviceToken string
	// Challenge is set by Login instead of the tokens when the password was
	// right and a second step is needed (SecondStep).
	Challenge *Challenge
}

// Step is the second step a password sign-in needs.
type Step string

// The steps of a Challenge.
const (
	// StepCode: the user has a second factor and gives a code.
	StepCode Step = "code"
	// StepEnrol: the settings require a second factor of the user, who has
	// none, and must enrol one before any session starts.
	StepEnrol Step = "enrol"
)

// Challenge continues a password sign-in that needs a second step.
type Challenge struct {
	// Token is opaque and single use; it proves the password was right.
	Token     string
	Step      Step
	ExpiresIn time.Duration
}

// SecondStep decides, once a password was right, whether the sign-in needs a
// second step, and starts it.
type SecondStep interface {
	// AfterPassword returns the challenge of the second step u must take
	// under st, or nil when u needs none.
	AfterPassword(ctx context.Context, u User, st Settings, c Client) (*Challenge, error)
}

// Revocation reasons stored with a revoked session.
const (
	ReasonLogout       = "logout"
	ReasonRefreshReuse = "refresh_token_reuse"
	ReasonPassword     = "password_changed"
	// ReasonRoleChanged ends the sessions of a user who lost access: its
	// role lost a permission or its merchant-wide scope, or the user got a
	// narrower role or fewer merchants (docs/access.md).
	ReasonRoleChanged = "role_changed"
	// ReasonIdle and ReasonLifetime end a session at a refresh that comes
	// after the idle timeout or the lifetime of the settings.
	ReasonIdle     = "idle_timeout"
	ReasonLifetime = "lifetime"
	// ReasonSecondFactorReset ends every session of a user whose second
	// factor an admin reset; ReasonSecondFactorDisabled the other sessions
	// of a user who disabled their own.
	ReasonSecondFactorReset    = "second_factor_reset"
	ReasonSecondFactorDisabled = "second_factor_disabled"
)

// Store reads users and runs the writes of one operation in a transaction.
type Store interface {
	AdminStore
	SettingsStore
	// UserByUsername returns the user with that username, compared without
	// regard to case. Returns a not-found error when there is none.
	UserByUsername(ctx context.Context, username string) (User, error)
	// UserByID returns the user with that id. Returns a not-found error when
	// there is none.
	UserByID(ctx context.Context, id int64) (User, error)
	// Session returns the session with that id. Returns a not-found error
	// when there is none.
	Session(ctx context.Context, id string) (Session, error)
	// Tx runs fn in one database transaction, committed when fn returns nil.
	Tx(ctx context.Context, fn func(Tx) error) error
	// RefreshTx runs one refresh in a transaction: it locks the refresh
	// token with hash and its session, and reads the session's user and
	// the stored settings, in one statement (a not-found error when there
	// is no such token, without calling fn); fn decides on that lock,
	// writing through its Tx what else it must. When fn returns a
	// Rotation, one statement marks the token spent at At (unless it was
	// spent already), records the session's activity at At with Next's
	// expiry as its refresh expiry, and stores Next. The transaction
	// commits when fn returns nil.
	RefreshTx(ctx context.Context, hash []byte, fn func(Tx, RefreshLock) (*Rotation, error)) error
}

// Rotation is a refresh token's rotation: Spent is the hash of the token
// spent at At, Next the token that follows it.
type Rotation struct {
	Spent []byte
	At    time.Time
	Next  RefreshToken
}

// RefreshLock is what RefreshTx reads under its lock.
type RefreshLock struct {
	Token   RefreshToken
	Session Session
	// User is the session's user.
	User User
	// Settings are the stored settings; SettingsStored is false while
	// none were stored (the defaults apply).
	Settings       Settings
	SettingsStored bool
}

// Tx is the set of writes (and locking reads) available inside Store.Tx.
type Tx interface {
	// UserByID returns a user on the transaction's own connection (never a
	// second one: under a full pool that would wait for itself). Returns a
	// not-found error when there is none.
	UserByID(ctx context.Context, id int64) (User, error)
	AdminTx
	SettingsTx
	// AllowedRanges lists the address ranges of an IP-restricted user.
	AllowedRanges(ctx context.Context, userID int64) ([]IPRange, error)
	// InsertSession stores a new session.
	InsertSession(ctx context.Context, s Session) error
	// SessionForUpdate returns and locks a session. Returns a not-found error
	// when there is none.
	SessionForUpdate(ctx context.Context, id string) (Session, error)
	// RevokeSession marks a session revoked; revoking it twice keeps the
	// first time and reason.
	RevokeSession(ctx context.Context, id, reason string, at time.Time) error
	// RevokeOtherSessions revokes every live session of a user but keep and
	// returns the ids it revoked.
	RevokeOtherSessions(ctx context.Context, userID int64, keep, reason string, at time.Time) ([]string, error)
	// InsertRefreshToken stores a refresh token's hash.
	InsertRefreshToken(ctx context.Context, t RefreshToken) error
	// SpendRefreshTokens marks every unused refresh token of a session used.
	SpendRefreshTokens(ctx context.Context, sessionID string, at time.Time) error
	// SetPassword replaces a user's password hash and temporary flag.
	SetPassword(ctx context.Context, userID int64, hash string, temporary bool, at time.Time) error
	// Publish queues an event to leave with this transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}

// Throttle counts failed sign-ins per key within a window.
type Throttle interface {
	// Blocked returns how long key stays blocked, or zero when it has fewer
	// than limit failures in the current window.
	Blocked(ctx context.Context, key string, limit int) (time.Duration, error)
	// Fail counts one failure for key; the window starts at the first one.
	Fail(ctx context.Context, key string, window time.Duration) error
	// Reset forgets the failures of key.
	Reset(ctx context.Context, key string) error
	// FailDistinct counts member's failure under key, each member once;
	// the window starts at the first one.
	FailDistinct(ctx context.Context, key, member string, window time.Duration) error
	// BlockedDistinct returns how long key stays blocked, or zero when fewer
	// than limit distinct members failed in the current window.
	BlockedDistinct(ctx context.Context, key string, limit int) (time.Duration, error)
}

// Revoker makes access tokens of a session unusable at every service before
// they expire.
type Revoker interface {
	// Revoke marks a session revoked for ttl (the access token lifetime).
	Revoke(ctx context.Context, sessionID string, ttl time.Duration) error
}
