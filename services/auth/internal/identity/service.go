package identity

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log/slog"
	"runtime"
	"strings"
	"sync/atomic"
	"time"

	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Messages shown to users. The sign-in failure reads the same for an unknown
// username and a wrong password so that usernames cannot be probed.
const (
	MsgInvalidCredentials = "Invalid username or password"
	MsgMissingCredentials = "Please enter username and password"
	MsgTooManyAttempts    = "Too many failed sign-in attempts. Try again later."
	MsgIPNotAllowed       = "Sign-in from this IP address is not allowed for this user."
	MsgInvalidRefresh     = "The refresh token is invalid or has expired. Please sign in again."
	MsgRefreshReused      = "This refresh token was already used; the session has been ended. Please sign in again."
	MsgSessionEnded       = "The session has ended. Please sign in again."
)

// Password length bounds: MinPasswordLen is the lowest minimum a deployment
// may configure (Config.PasswordMinLen), MaxPasswordLen the longest password.
const (
	MinPasswordLen = 8
	MaxPasswordLen = 128
)

// Config tunes a Service. Zero values take the defaults of NewService.
type Config struct {
	AccessTTL  time.Duration // access token lifetime
	RefreshTTL time.Duration // refresh token lifetime, renewed on every rotation
	// RefreshGrace is how long a spent refresh token may still be presented
	// without revoking its session, so that two tabs refreshing at the same
	// moment do not sign the user out. At most 10 s.
	RefreshGrace time.Duration
	// MaxFailuresPerUser is how many failed sign-ins one username may have
	// within ThrottleWindow, from anywhere.
	MaxFailuresPerUser int
	// MaxFailuresPerIP is how many distinct usernames may fail to sign in
	// from one address within ThrottleWindow (password spraying); one
	// person's typos count once. A browser with a device cookie for the
	// username passes this lock.
	MaxFailuresPerIP int
	ThrottleWindow   time.Duration
	// DeviceTTL is how long a device cookie stays valid (180 days).
	DeviceTTL time.Duration
	Argon2    Argon2Params
	// AllowLists, when set, receives the allowed ranges of IP-restricted
	// users at every sign-in, refresh and change, for the verifiers of every
	// service (authz.WithAllowLists).
	AllowLists AllowListMirror
	// PasswordMinLen is the shortest new password allowed (CheckPassword);
	// DefaultPasswordMinLen when zero, never below MinPasswordLen.
	PasswordMinLen int
	// MaxLifetime is the session lifetime until an admin sets one
	// (Settings.MaxLifetime); DefaultMaxLifetime when zero. The idle
	// timeout's default is RefreshTTL.
	MaxLifetime time.Duration
	// HashQueue is how many password checks may wait for a hashing slot
	// (4 per core when zero), and HashWait how long one waits (1 s when
	// zero): beyond either, the check is refused at once with 429 and
	// Retry-After (MsgSignInBusy), so an overload is answered fast instead
	// of with a queue of timeouts.
	HashQueue int
	HashWait  time.Duration
}

// MsgSignInBusy refuses a password check that found no hashing slot in
// time (load shedding; nothing is counted against the user).
const MsgSignInBusy = "Too many sign-ins at once. Try again in a moment."

// AllowListMirror hands IP-restricted users' ranges to the verifiers.
type AllowListMirror interface {
	// Store replaces userID's mirrored ranges.
	Store(ctx context.Context, userID int64, ranges []IPRange) error
}

// Service implements sign-in, refresh, logout and password changes.
type Service struct {
	store    Store
	keys     *KeySet
	throttle Throttle
	revoker  Revoker
	allow    AllowListMirror
	log      *slog.Logger
	now      func() time.Time
	cfg      Config
	// dummyHash is verified against when the username is unknown, so that
	// the answer takes as long as for a wrong password.
	dummyHash string
	// hashSlots bounds the password checks running at once to the cores:
	// argon2id takes ~20 ms of a core and 19 MiB, so more at once only
	// makes every sign-in slower; the others wait their turn, and one whose
	// caller gave up never hashes.
	hashSlots chan struct{}
	// hashWaiting counts the checks waiting for a slot (Config.HashQueue).
	hashWaiting atomic.Int32
	// second decides the second step of a password sign-in (nil: none).
	second SecondStep
	// confirm computes the cfm claim of a user's tokens (nil: none).
	confirm func(ctx context.Context, global bool) ([]string, error)
}

// UseConfirmations makes every access token carry the cfm claim confirm
// computes from the user's admin-wide flag (docs/contracts-approvals.md).
// Call it before the service serves.
func (s *Service) UseConfirmations(confirm func(ctx context.Context, global bool) ([]string, error)) {
	s.confirm = confirm
}

// UseSecondStep makes Login ask second for the second step of every
// password sign-in. Call it before the service serves.
func (s *Service) UseSecondStep(second SecondStep) { s.second = second }

// NewService builds a Service. now may be nil for time.Now.
func NewService(store Store, keys *KeySet, throttle Throttle, revoker Revoker, log *slog.Logger, now func() time.Time, cfg Config) (*Service, error) {
	if cfg.AccessTTL <= 0 {
		cfg.AccessTTL = 5 * time.Minute
	}
	if cfg.RefreshTTL <= 0 {
		cfg.RefreshTTL = 24 * time.Hour
	}
	if cfg.RefreshGrace <= 0 || cfg.RefreshGrace > 10*time.Second {
		cfg.RefreshGrace = 10 * time.Second
	}
	if cfg.MaxFailuresPerUser <= 0 {
		cfg.MaxFailuresPerUser = 5
	}
	if cfg.MaxFailuresPerIP <= 0 {
		cfg.MaxFailuresPerIP = 20
	}
	if cfg.ThrottleWindow <= 0 {
		cfg.ThrottleWindow = 15 * time.Minute
	}
	if cfg.DeviceTTL <= 0 {
		cfg.DeviceTTL = 180 * 24 * time.Hour
	}
	if cfg.Argon2 == (Argon2Params{}) {
		cfg.Argon2 = DefaultArgon2
	}
	if cfg.MaxLifetime <= 0 {
		cfg.MaxLifetime = max(DefaultMaxLifetime, cfg.RefreshTTL)
	}
	if cfg.PasswordMinLen <= 0 {
		cfg.PasswordMinLen = DefaultPasswordMinLen
	}
	cfg.PasswordMinLen = max(cfg.PasswordMinLen, MinPasswordLen)
	if now == nil {
		now = time.Now
	}
	dummy, err := HashPassword(uuid.NewString(), cfg.Argon2)
	if err != nil {
		return nil, err
	}
	if cfg.HashQueue <= 0 {
		cfg.HashQueue = 4 * runtime.GOMAXPROCS(0)
	}
	if cfg.HashWait <= 0 {
		cfg.HashWait = time.Second
	}
	return &Service{hashSlots: make(chan struct{}, runtime.GOMAXPROCS(0)), store: store, keys: keys, throttle: throttle, revoker: revoker, allow: cfg.AllowLists, log: log, now: now, cfg: cfg, dummyHash: dummy}, nil
}

// AccessTTL is the lifetime of the access tokens the service issues.
func (s *Service) AccessTTL() time.Duration { return s.cfg.AccessTTL }

func userThrottleKey(username string) string { return "user:" + strings.ToLower(username) }
func ipThrottleKey(ip string) string         { return "ip-users:" + ip }
func deviceThrottleKey(id string) string     { return "device:" + id }

// Login checks a username and password and starts a session.
//
// Errors: Invalid (missing field), TooManyRequests (throttled),
// Unauthenticated (wrong username or password), Forbidden (IP not allowed).
func (s *Service) Login(ctx context.Context, username, password string, c Client) (TokenPair, error) {
	username = strings.TrimSpace(username)
	if username == "" || password == "" {
		return TokenPair{}, apperr.Invalid(MsgMissingCredentials)
	}
	if len(password) > MaxPasswordLen {
		// Never hash unbounded input; a password this long cannot be right.
		return TokenPair{}, apperr.Unauthenticated(MsgInvalidCredentials)
	}
	device := s.keys.verifyDevice(c.DeviceToken, username, s.now())
	if err := s.checkThrottle(ctx, username, c.IP, device); err != nil {
		return TokenPair{}, err
	}

	u, err := s.store.UserByUsername(ctx, username)
	found := err == nil
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return TokenPair{}, fmt.Errorf("look up user: %w", err)
	}
	hash := s.dummyHash
	if found {
		hash = u.PasswordHash
	}
	ok, err := s.verifyPassword(ctx, hash, password)
	if err != nil {
		return TokenPair{}, fmt.Errorf("verify password of user %d: %w", u.ID, err)
	}
	if !found || !ok {
		s.recordFailure(ctx, username, c.IP, device)
		return TokenPair{}, apperr.Unauthenticated(MsgInvalidCredentials)
	}
	if s.second != nil {
		if u.IsDisabled {
			return TokenPair{}, apperr.Forbidden(MsgUserDisabled)
		}
		st, err := s.Settings(ctx)
		if err != nil {
			return TokenPair{}, err
		}
		ch, err := s.second.AfterPassword(ctx, u, st, c)
		if err != nil {
			return TokenPair{}, err
		}
		if ch != nil {
			// The password was right: its throttle forgets the typos. The
			// device cookie waits for the whole sign-in.
			if err := s.throttle.Reset(ctx, userThrottleKey(username)); err != nil {
				s.log.WarnContext(ctx, "reset sign-in throttle", "err", err)
			}
			return TokenPair{Challenge: ch}, nil
		}
	}

	pair, err := s.startSession(ctx, u, c, "password")
	if err != nil {
		if apperr.KindOf(err) == apperr.KindForbidden {
			s.recordFailure(ctx, username, c.IP, device)
		}
		return TokenPair{}, err
	}
	if err := s.throttle.Reset(ctx, userThrottleKey(username)); err != nil {
		s.log.WarnContext(ctx, "reset sign-in throttle", "err", err)
	}
	if pair.DeviceToken, err = s.keys.signDevice(u.Username, s.now(), s.cfg.DeviceTTL); err != nil {
		s.log.WarnContext(ctx, "issue device cookie", "err", err)
	}
	return pair, nil
}

// verifyPassword checks password against hash once a hashing slot is free
// (waiters are served in arrival order), or gives up when ctx ends first.
// When HashQueue checks wait already, or no slot frees within HashWait, it
// refuses at once (MsgSignInBusy).
func (s *Service) verifyPassword(ctx context.Context, hash, password string) (bool, error) {
	select {
	case s.hashSlots <- struct{}{}:
	default:
		if err := s.waitForHashSlot(ctx); err != nil {
			return false, err
		}
	}
	defer func() { <-s.hashSlots }()
	if err := ctx.Err(); err != nil {
		return false, err
	}
	return VerifyPassword(hash, password)
}

// waitForHashSlot takes a hashing slot within the queue's bounds.
func (s *Service) waitForHashSlot(ctx context.Context) error {
	defer s.hashWaiting.Add(-1)
	if int(s.hashWaiting.Add(1)) > s.cfg.HashQueue {
		return apperr.TooManyRequests(time.Second, MsgSignInBusy)
	}
	timer := time.NewTimer(s.cfg.HashWait)
	defer timer.Stop()
	select {
	case s.hashSlots <- struct{}{}:
		return nil
	case <-timer.C:
		return apperr.TooManyRequests(time.Second, MsgSignInBusy)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// MsgUserDisabled is the refusal of a sign-in by a disabled user (given only
// after the credentials were right).
const MsgUserDisabled = "This account is disabled. Ask an administrator to enable it."

// startSession starts a session for u, whose credentials (password or
// passkey) the caller verified: a disabled user is refused, an IP-restricted
// one must come from an allowed range (and its list is mirrored for the
// verifiers), and the new session is announced through the outbox. method
// names the credential in logs ("password", "passkey").
//
// Errors: Forbidden (disabled, or IP not allowed).
func (s *Service) startSession(ctx context.Context, u User, c Client, method string) (TokenPair, error) {
	if u.IsDisabled {
		return TokenPair{}, apperr.Forbidden(MsgUserDisabled)
	}
	st, err := s.Settings(ctx)
	if err != nil {
		return TokenPair{}, err
	}
	now := s.now()
	end := st.sessionEnd(now, now)
	sid := uuid.NewString()
	var (
		pair   TokenPair
		ranges []IPRange
	)
	err = s.store.Tx(ctx, func(tx Tx) error {
		if u.IsIPRestricted {
			var err error
			ranges, err = tx.AllowedRanges(ctx, u.ID)
			if err != nil {
				return err
			}
			if !access.IPAllowed(c.IP, ranges) {
				return apperr.Forbidden(MsgIPNotAllowed)
			}
		}
		if err := tx.InsertSession(ctx, Session{
			ID: sid, UserID: u.ID, IP: c.IP, UserAgent: c.UserAgent,
			CreatedAt: now, LastSeenAt: now, RefreshExpiresAt: end,
		}); err != nil {
			return err
		}
		var err error
		pair, err = s.issue(ctx, tx, u, sid, now, end)
		if err != nil {
			return err
		}
		return tx.Publish(ctx, &eventsv1.SessionStarted{
			SessionId: sid, UserId: u.ID, Username: u.Username, Ip: c.IP, UserAgent: c.UserAgent,
			StartedAt: timestamppb.New(now),
		})
	})
	if err != nil {
		return TokenPair{}, err
	}
	if u.IsIPRestricted {
		s.mirrorAllowList(ctx, u.ID, ranges)
	}
	s.log.InfoContext(ctx, "session started", "user_id", u.ID, "session_id", sid, "method", method)
	return pair, nil
}

// SignInVerified starts a session for the user whose credential another
// part of the service verified (a passkey), with the same checks and the
// same token pair as a password sign-in.
//
// Errors: Unauthenticated (user gone), Forbidden (disabled, IP not allowed).
func (s *Service) SignInVerified(ctx context.Context, userID int64, c Client, method string) (TokenPair, error) {
	u, err := s.store.UserByID(ctx, userID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return TokenPair{}, apperr.Unauthenticated(MsgInvalidCredentials)
	}
	if err != nil {
		return TokenPair{}, err
	}
	return s.startSession(ctx, u, c, method)
}

// mirrorAllowList hands an IP-restricted user's ranges to the verifiers of
// every service (see authz.WithAllowLists). A failure is logged: the
// verifiers then answer 401 and the next refresh mirrors the list again.
func (s *Service) mirrorAllowList(ctx context.Context, userID int64, ranges []IPRange) {
	if s.allow == nil {
		return
	}
	if err := s.allow.Store(ctx, userID, ranges); err != nil {
		s.log.ErrorContext(ctx, "mirror allowed IPs", "user_id", userID, "err", err)
	}
}

// checkThrottle refuses a sign-in while its username is locked, or while its
// address is locked and the browser has no trusted device cookie for the
// username (device names the cookie, "" for none). A device cookie that
// failed as often as a username may is no longer trusted.
func (s *Service) checkThrottle(ctx context.Context, username, ip, device string) error {
	wait, err := s.throttle.Blocked(ctx, userThrottleKey(username), s.cfg.MaxFailuresPerUser)
	if err != nil {
		return fmt.Errorf("check user throttle: %w", err)
	}
	if device != "" {
		deviceWait, err := s.throttle.Blocked(ctx, deviceThrottleKey(device), s.cfg.MaxFailuresPerUser)
		if err != nil {
			return fmt.Errorf("check device throttle: %w", err)
		}
		if deviceWait > 0 {
			device = ""
		}
	}
	if ip != "" && device == "" {
		ipWait, err := s.throttle.BlockedDistinct(ctx, ipThrottleKey(ip), s.cfg.MaxFailuresPerIP)
		if err != nil {
			return fmt.Errorf("check ip throttle: %w", err)
		}
		wait = max(wait, ipWait)
	}
	if wait > 0 {
		return apperr.TooManyRequests(wait, MsgTooManyAttempts)
	}
	return nil
}

func (s *Service) recordFailure(ctx context.Context, username, ip, device string) {
	if err := s.throttle.Fail(ctx, userThrottleKey(username), s.cfg.ThrottleWindow); err != nil {
		s.log.WarnContext(ctx, "count failed sign-in", "err", err)
	}
	if device != "" {
		if err := s.throttle.Fail(ctx, deviceThrottleKey(device), s.cfg.ThrottleWindow); err != nil {
			s.log.WarnContext(ctx, "count failed sign-in", "err", err)
		}
	}
	if ip == "" {
		return
	}
	// The address counts usernames, not attempts: one person's typos are
	// one, a spray across many accounts is many.
	sum := sha256.Sum256([]byte(strings.ToLower(username)))
	if err := s.throttle.FailDistinct(ctx, ipThrottleKey(ip), hex.EncodeToString(sum[:12]), s.cfg.ThrottleWindow); err != nil {
		s.log.WarnContext(ctx, "count failed sign-in", "err", err)
	}
}

// issue signs an access token and stores a new refresh token for session
// sid, valid until refreshEnd.
func (s *Service) issue(ctx context.Context, tx Tx, u User, sid string, now, refreshEnd time.Time) (TokenPair, error) {
	pair, next, err := s.mint(ctx, u, sid, now, refreshEnd)
	if err != nil {
		return TokenPair{}, err
	}
	if err := tx.InsertRefreshToken(ctx, next); err != nil {
		return TokenPair{}, err
	}
	return pair, nil
}

// mint makes a token pair for user u's session sid, and the refresh token's
// row to store.
func (s *Service) mint(ctx context.Context, u User, sid string, now, refreshEnd time.Time) (TokenPair, RefreshToken, error) {
	var confirm []string
	if s.confirm != nil {
		// Cached by the confirmation service: no second connection waits
		// under a full pool but every few seconds.
		var err error
		if confirm, err = s.confirm(ctx, u.Global); err != nil {
			return TokenPair{}, RefreshToken{}, err
		}
	}
	access, err := s.keys.sign(u, sid, now, s.cfg.AccessTTL, confirm...)
	if err != nil {
		return TokenPair{}, RefreshToken{}, err
	}
	refresh, hash, err := newRefreshToken()
	if err != nil {
		return TokenPair{}, RefreshToken{}, err
	}
	return TokenPair{AccessToken: access, RefreshToken: refresh, ExpiresIn: s.cfg.AccessTTL},
		RefreshToken{Hash: hash, SessionID: sid, CreatedAt: now, ExpiresAt: refreshEnd}, nil
}

// Refresh spends a refresh token and returns a new pair for its session. A
// token spent more than RefreshGrace ago is a sign of theft: its session is
// revoked.
//
// The user's state is read again: a disabled user's refresh is refused, and
// an IP-restricted user's must come from an allowed address (its list is
// mirrored again for the verifiers).
//
// Errors: Invalid (empty token), Unauthenticated (unknown, expired, revoked or
// reused token), Forbidden (disabled user, IP not allowed).
func (s *Service) Refresh(ctx context.Context, token string, c Client) (TokenPair, error) {
	if token == "" {
		return TokenPair{}, apperr.Invalid("refreshToken is required.")
	}
	now := s.now()
	var (
		pair    TokenPair
		reused  bool
		ended   bool
		revoked Session
		user    User
		ranges  []IPRange
	)
	// One statement locks the token and its session and reads the user
	// and the settings; one more spends the token, touches the session and
	// stores the next token, sent with the COMMIT (issue 31: seven
	// statements became two, in two round trips).
	err := s.store.RefreshTx(ctx, hashRefreshToken(token), func(tx Tx, lock RefreshLock) (*Rotation, error) {
		rt, sess, u, st := lock.Token, lock.Session, lock.User, lock.Settings
		if !lock.SettingsStored {
			st = s.defaultSettings()
		}
		if sess.RevokedAt != nil || !now.Before(rt.ExpiresAt) || !now.Before(sess.RefreshExpiresAt) {
			return nil, apperr.Unauthenticated(MsgInvalidRefresh)
		}
		if rt.UsedAt != nil && now.Sub(*rt.UsedAt) > s.cfg.RefreshGrace {
			reused, revoked = true, sess
			if err := tx.RevokeSession(ctx, sess.ID, ReasonRefreshReuse, now); err != nil {
				return nil, err
			}
			return nil, tx.Publish(ctx, &eventsv1.SessionRevoked{
				SessionId: sess.ID, UserId: sess.UserID,
				Reason:    eventsv1.SessionRevokedReason_SESSION_REVOKED_REASON_REFRESH_TOKEN_REUSE,
				RevokedAt: timestamppb.New(now),
			})
		}
		// The session policy: idle for longer than the idle timeout, or older
		// than the lifetime (the settings may have shortened them since the
		// token was issued), the session ends here.
		if reason := st.endReason(sess, now); reason != "" {
			ended, revoked = true, sess
			return nil, tx.RevokeSession(ctx, sess.ID, reason, now)
		}
		if u.IsDisabled {
			return nil, apperr.Forbidden(MsgUserDisabled)
		}
		if u.IsIPRestricted {
			var err error
			if ranges, err = tx.AllowedRanges(ctx, u.ID); err != nil {
				return nil, err
			}
			if !access.IPAllowed(c.IP, ranges) {
				return nil, apperr.Forbidden(MsgIPNotAllowed)
			}
		}
		user = u
		end := st.sessionEnd(sess.CreatedAt, now)
		p, next, err := s.mint(ctx, u, sess.ID, now, end)
		if err != nil {
			return nil, err
		}
		pair = p
		// A token spent within the grace period is a concurrent refresh
		// from another tab: it gets a pair of its own (the spend leaves its
		// first use as it is), the session carries on.
		return &Rotation{Spent: rt.Hash, At: now, Next: next}, nil
	})
	if apperr.KindOf(err) == apperr.KindNotFound {
		return TokenPair{}, apperr.Unauthenticated(MsgInvalidRefresh)
	}
	if err != nil {
		return TokenPair{}, err
	}
	if reused {
		s.log.WarnContext(ctx, "refresh token reused; session revoked", "session_id", revoked.ID, "user_id", revoked.UserID)
		if err := s.revoker.Revoke(ctx, revoked.ID, s.cfg.AccessTTL); err != nil {
			s.log.ErrorContext(ctx, "revoke session in cache", "err", err)
		}
		return TokenPair{}, apperr.Unauthenticated(MsgRefreshReused)
	}
	if ended {
		s.log.InfoContext(ctx, "session ended by the session policy", "session_id", revoked.ID, "user_id", revoked.UserID)
		return TokenPair{}, apperr.Unauthenticated(MsgSessionEnded)
	}
	if user.IsIPRestricted {
		s.mirrorAllowList(ctx, user.ID, ranges)
	}
	return pair, nil
}

// Logout revokes the caller's session.
func (s *Service) Logout(ctx context.Context, c *access.Claims) error {
	now := s.now()
	err := s.store.Tx(ctx, func(tx Tx) error {
		sess, err := tx.SessionForUpdate(ctx, c.SessionID)
		if err != nil {
			return err
		}
		if sess.RevokedAt != nil {
			return nil
		}
		if err := tx.RevokeSession(ctx, sess.ID, ReasonLogout, now); err != nil {
			return err
		}
		return tx.Publish(ctx, &eventsv1.SessionRevoked{
			SessionId: sess.ID, UserId: sess.UserID,
			Reason:    eventsv1.SessionRevokedReason_SESSION_REVOKED_REASON_LOGOUT,
			RevokedAt: timestamppb.New(now),
		})
	})
	if apperr.KindOf(err) == apperr.KindNotFound {
		return apperr.Unauthenticated(MsgSessionEnded)
	}
	if err != nil {
		return err
	}
	return s.revoker.Revoke(ctx, c.SessionID, s.cfg.AccessTTL)
}

// CurrentUser returns the caller as stored now, provided their session is
// still alive.
//
// Errors: Unauthenticated (session revoked or user gone).
func (s *Service) CurrentUser(ctx context.Context, c *access.Claims) (User, error) {
	id, err := c.UserID()
	if err != nil {
		return User{}, apperr.Unauthenticated(MsgSessionEnded)
	}
	sess, err := s.store.Session(ctx, c.SessionID)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && (sess.RevokedAt != nil || sess.UserID != id)) {
		return User{}, apperr.Unauthenticated(MsgSessionEnded)
	}
	if err != nil {
		return User{}, err
	}
	u, err := s.store.UserByID(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return User{}, apperr.Unauthenticated(MsgSessionEnded)
	}
	return u, err
}

// Refusals of an own password change, naming the request's JSON fields.
const (
	MsgCurrentPasswordRequired = "currentPassword is required: enter the password you signed in with."
	MsgCurrentPasswordWrong    = "currentPassword is not your current password."
	MsgPasswordUnchanged       = "password must differ from your current password."
)

// ChangeOwnPassword replaces the caller's password with password, given the
// current one: the password rules of CheckPassword apply, and the new
// password must differ from the current one. It clears the temporary flag,
// ends the user's other sessions and returns a new pair for this one. ip is
// the caller's address, for the audit. A wrong current password counts as a
// failed sign-in of the user (the same throttle), so a stolen access token
// cannot be used to guess the password.
//
// Errors: Invalid (password rules, a missing or wrong current password, the
// same password), TooManyRequests (throttled), Unauthenticated (session
// ended).
func (s *Service) ChangeOwnPassword(ctx context.Context, c *access.Claims, current, password, ip string) (TokenPair, error) {
	if password == "" {
		return TokenPair{}, apperr.Invalid("password is required.")
	}
	u, err := s.CurrentUser(ctx, c)
	if err != nil {
		return TokenPair{}, err
	}
	if err := s.checkPassword("password", u.Username, password); err != nil {
		return TokenPair{}, err
	}
	if current == "" {
		return TokenPair{}, apperr.Invalid(MsgCurrentPasswordRequired)
	}
	if err := s.checkThrottle(ctx, u.Username, "", ""); err != nil {
		return TokenPair{}, err
	}
	ok := false
	if len(current) <= MaxPasswordLen*4 {
		if ok, err = s.verifyPassword(ctx, u.PasswordHash, current); err != nil {
			return TokenPair{}, fmt.Errorf("verify current password of user %d: %w", u.ID, err)
		}
	}
	if !ok {
		s.recordFailure(ctx, u.Username, "", "")
		return TokenPair{}, apperr.Invalid(MsgCurrentPasswordWrong)
	}
	if password == current {
		return TokenPair{}, apperr.Invalid(MsgPasswordUnchanged)
	}
	hash, err := HashPassword(password, s.cfg.Argon2)
	if err != nil {
		return TokenPair{}, err
	}
	st, err := s.Settings(ctx)
	if err != nil {
		return TokenPair{}, err
	}
	now := s.now()
	var (
		pair  TokenPair
		ended []string
	)
	err = s.store.Tx(ctx, func(tx Tx) error {
		if err := tx.SetPassword(ctx, u.ID, hash, false, now); err != nil {
			return err
		}
		ended, err = tx.RevokeOtherSessions(ctx, u.ID, c.SessionID, ReasonPassword, now)
		if err != nil {
			return err
		}
		for _, sid := range ended {
			if err := tx.Publish(ctx, &eventsv1.SessionRevoked{
				SessionId: sid, UserId: u.ID,
				Reason:    eventsv1.SessionRevokedReason_SESSION_REVOKED_REASON_TERMINATED,
				RevokedAt: timestamppb.New(now),
			}); err != nil {
				return err
			}
		}
		// The old refresh tokens carry the old claims' session forward; spend
		// them so only the new pair continues it.
		if err := tx.SpendRefreshTokens(ctx, c.SessionID, now); err != nil {
			return err
		}
		sess, err := tx.SessionForUpdate(ctx, c.SessionID)
		if err != nil {
			return err
		}
		wasTemporary := u.IsTemporaryPassword
		u.IsTemporaryPassword = false
		pair, err = s.issue(ctx, tx, u, c.SessionID, now, st.sessionEnd(sess.CreatedAt, now))
		if err != nil {
			return err
		}
		if err := tx.Publish(ctx, &eventsv1.PasswordChanged{
			UserId: u.ID, Username: u.Username, IsTemporary: false, ChangedAt: timestamppb.New(now),
		}); err != nil {
			return err
		}
		b, af := diffFields(map[string]any{"isTemporaryPassword": wasTemporary}, map[string]any{"isTemporaryPassword": false})
		return s.audit(ctx, tx, Actor{User: u, SessionID: c.SessionID, IP: ip}, "user.password_changed", u.ID, u.Username, b, af, now)
	})
	if err != nil {
		return TokenPair{}, err
	}
	s.revokeInCache(ctx, ended)
	return pair, nil
}
