package secondfactor

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"fmt"
	"log/slog"
	"strconv"
	"time"

	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Messages of the second factor (docs/contracts-second-factor.md).
const (
	MsgChallengeRequired  = "challenge is required."
	MsgChallengeInvalid   = "The sign-in has expired or was already completed. Please sign in again."
	MsgCodeMissing        = "code or recoveryCode is required."
	MsgCodeAndRecovery    = "Give either code or recoveryCode, not both."
	MsgCodeFormat         = "code must be the 6 digits your authenticator app shows."
	MsgCodeWrong          = "The code is not valid. Check your authenticator app's time and try again."
	MsgRecoveryWrong      = "The recovery code is not valid or was already used."
	MsgTooManyCodes       = "Too many wrong codes. Try again later."
	MsgAlreadyEnrolled    = "A second factor is already enrolled; disable it first."
	MsgNoPendingEnrolment = "Start the enrolment first."
	MsgEnrolCodeWrong     = "code is not the current code of the new key. Check the time of your device and try again."
	MsgNotEnrolled        = "No second factor is enrolled."
	MsgProofCodeWrong     = "code is not valid."
	MsgProofRecoveryWrong = "recoveryCode is not valid or was already used."
	MsgProofMissing       = "code, recoveryCode or passkeyCredential is required."
	MsgProofTooMany       = "Give only one of code, recoveryCode and passkeyCredential."
	MsgPasskeyWrong       = "passkeyCredential is not a valid passkey of yours."
)

// Config tunes a Service. Zero values take the defaults of New.
type Config struct {
	// Issuer is the name authenticator apps show ("Paygate").
	Issuer string
	// CodeTTL and EnrolTTL are how long a sign-in challenge of each step
	// lives (5 and 15 minutes).
	CodeTTL  time.Duration
	EnrolTTL time.Duration
	// MaxWrongPerChallenge wrong codes spend a challenge (5).
	MaxWrongPerChallenge int
	// MaxWrongPerUser wrong codes of one user, or MaxWrongPerIP from one
	// address, within Window lock the code checks (5, 20, 15 minutes).
	MaxWrongPerUser int
	MaxWrongPerIP   int
	Window          time.Duration
}

// Service enrols, checks and removes second factors.
type Service struct {
	store    Store
	sealer   Sealer
	id       Identity
	throttle identity.Throttle
	passkeys PasskeyVerifier
	log      *slog.Logger
	now      func() time.Time
	cfg      Config
}

var _ identity.SecondStep = (*Service)(nil)

// New returns a Service. passkeys may be nil (a passkey then proves
// nothing); now may be nil for time.Now.
func New(store Store, sealer Sealer, id Identity, throttle identity.Throttle, passkeys PasskeyVerifier, log *slog.Logger, now func() time.Time, cfg Config) *Service {
	if cfg.Issuer == "" {
		cfg.Issuer = "Paygate"
	}
	if cfg.CodeTTL <= 0 {
		cfg.CodeTTL = 5 * time.Minute
	}
	if cfg.EnrolTTL <= 0 {
		cfg.EnrolTTL = 15 * time.Minute
	}
	if cfg.MaxWrongPerChallenge <= 0 {
		cfg.MaxWrongPerChallenge = 5
	}
	if cfg.MaxWrongPerUser <= 0 {
		cfg.MaxWrongPerUser = 5
	}
	if cfg.MaxWrongPerIP <= 0 {
		cfg.MaxWrongPerIP = 20
	}
	if cfg.Window <= 0 {
		cfg.Window = 15 * time.Minute
	}
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, sealer: sealer, id: id, throttle: throttle, passkeys: passkeys, log: log, now: now, cfg: cfg}
}

// aad binds a sealed secret to its user.
func aad(userID int64) string { return "totp:" + strconv.FormatInt(userID, 10) }

// AfterPassword implements identity.SecondStep: a user with a second factor
// gives a code; one the settings require to have one, and who has none,
// enrols; anyone else needs no second step.
func (s *Service) AfterPassword(ctx context.Context, u identity.User, st identity.Settings, _ identity.Client) (*identity.Challenge, error) {
	status, err := s.store.SecondFactorStatus(ctx, u.ID)
	if err != nil {
		return nil, err
	}
	step, ttl := identity.StepCode, s.cfg.CodeTTL
	switch {
	case status.Enrolled:
	case st.Requires(u):
		step, ttl = identity.StepEnrol, s.cfg.EnrolTTL
	default:
		return nil, nil
	}
	b := make([]byte, 32)
	if _, err := rand.Read(b); err != nil {
		return nil, fmt.Errorf("read challenge: %w", err)
	}
	token := base64.RawURLEncoding.EncodeToString(b)
	now := s.now()
	err = s.store.SecondFactorTx(ctx, func(tx Tx) error {
		return tx.InsertChallenge(ctx, Challenge{
			Hash: hashChallenge(token), UserID: u.ID, Step: step, CreatedAt: now, ExpiresAt: now.Add(ttl),
		})
	})
	if err != nil {
		return nil, err
	}
	return &identity.Challenge{Token: token, Step: step, ExpiresIn: ttl}, nil
}

// Throttle keys of the code checks, beside the password's.
func userKey(userID int64) string { return "code-user:" + strconv.FormatInt(userID, 10) }
func ipKey(ip string) string      { return "code-ip:" + ip }

// checkThrottle refuses a code check while the user or the address is
// locked.
func (s *Service) checkThrottle(ctx context.Context, userID int64, ip string) error {
	wait, err := s.throttle.Blocked(ctx, userKey(userID), s.cfg.MaxWrongPerUser)
	if err != nil {
		return fmt.Errorf("check code throttle: %w", err)
	}
	if ip != "" {
		ipWait, err := s.throttle.Blocked(ctx, ipKey(ip), s.cfg.MaxWrongPerIP)
		if err != nil {
			return fmt.Errorf("check code throttle: %w", err)
		}
		wait = max(wait, ipWait)
	}
	if wait > 0 {
		return apperr.TooManyRequests(wait, MsgTooManyCodes)
	}
	return nil
}

// recordWrong counts a wrong code for the user and the address.
func (s *Service) recordWrong(ctx context.Context, userID int64, ip string) {
	if err := s.throttle.Fail(ctx, userKey(userID), s.cfg.Window); err != nil {
		s.log.WarnContext(ctx, "count wrong code", "err", err)
	}
	if ip == "" {
		return
	}
	if err := s.throttle.Fail(ctx, ipKey(ip), s.cfg.Window); err != nil {
		s.log.WarnContext(ctx, "count wrong code", "err", err)
	}
}

// proof is what a user gives to show they hold the second factor: exactly
// one of a TOTP code and a recovery code (or a passkey, where allowed).
type proof struct {
	code     string
	recovery string
}

// checkProofFormat normalizes a code or a recovery code given alone.
// fieldMsgs are the refusals of a badly formed one.
func checkProofFormat(code, recovery, codeFormat, recoveryWrong string) (proof, error) {
	switch {
	case code == "" && recovery == "":
		return proof{}, apperr.Invalid(MsgCodeMissing)
	case code != "" && recovery != "":
		return proof{}, apperr.Invalid(MsgCodeAndRecovery)
	case code != "":
		c, ok := NormalizeCode(code)
		if !ok {
			return proof{}, apperr.Invalid("%s", codeFormat)
		}
		return proof{code: c}, nil
	}
	r, ok := NormalizeRecoveryCode(recovery)
	if !ok {
		return proof{}, apperr.Invalid("%s", recoveryWrong)
	}
	return proof{recovery: r}, nil
}

// verify checks p against userID's enrolled key (spending the code's step
// or the recovery code) within tx, and reports whether it held.
func (s *Service) verify(ctx context.Context, tx Tx, userID int64, p proof, now time.Time) (bool, error) {
	if p.recovery != "" {
		return tx.UseRecoveryCode(ctx, userID, hashRecoveryCode(userID, p.recovery), now)
	}
	key, err := tx.KeyForUpdate(ctx, userID)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && key.ConfirmedAt == nil) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return s.useCode(ctx, tx, key, p.code, now)
}

// useCode checks code against key and spends its step.
func (s *Service) useCode(ctx context.Context, tx Tx, key Key, code string, now time.Time) (bool, error) {
	secret, err := s.sealer.OpenID(key.KeyID, key.Sealed, aad(key.UserID))
	if err != nil {
		return false, fmt.Errorf("open totp secret of user %d: %w", key.UserID, err)
	}
	step, err := matchStep(secret, code, now)
	if err != nil || step == 0 {
		return false, err
	}
	return tx.UseStep(ctx, key.UserID, step)
}

// CompleteLogin completes a password sign-in waiting for a code: token is
// the challenge, and exactly one of code and recovery is given. It returns
// the session's token pair and how many recovery codes are left.
//
// Errors: Invalid (a field), Unauthenticated (challenge or code not valid),
// TooManyRequests (code throttle), Forbidden (disabled, IP not allowed).
func (s *Service) CompleteLogin(ctx context.Context, token, code, recovery string, c identity.Client) (identity.TokenPair, int, error) {
	if token == "" {
		return identity.TokenPair{}, 0, apperr.Invalid(MsgChallengeRequired)
	}
	p, err := checkProofFormat(code, recovery, MsgCodeFormat, MsgRecoveryWrong)
	if err != nil {
		return identity.TokenPair{}, 0, err
	}
	hash := hashChallenge(token)
	now := s.now()
	var (
		ch    Challenge
		ok    bool
		left  int
		wrong bool
	)
	err = s.store.SecondFactorTx(ctx, func(tx Tx) error {
		var err error
		if ch, err = s.liveChallenge(ctx, tx, hash, identity.StepCode, now); err != nil {
			return err
		}
		if err := s.checkThrottle(ctx, ch.UserID, c.IP); err != nil {
			return err
		}
		if ok, err = s.verify(ctx, tx, ch.UserID, p, now); err != nil {
			return err
		}
		if !ok {
			// Committed with the refusal: the wrong code counts, and enough
			// of them spend the challenge.
			wrong = true
			n, err := tx.CountWrongCode(ctx, hash)
			if err != nil {
				return err
			}
			if n >= s.cfg.MaxWrongPerChallenge {
				return tx.SpendChallenge(ctx, hash, now)
			}
			return nil
		}
		if err := tx.SpendChallenge(ctx, hash, now); err != nil {
			return err
		}
		if p.recovery != "" {
			if left, err = tx.RecoveryCodesLeft(ctx, ch.UserID); err != nil {
				return err
			}
			u, err := tx.UserByID(ctx, ch.UserID)
			if err != nil {
				return err
			}
			return s.id.Audit(ctx, tx, identity.Actor{User: u, IP: c.IP}, "second_factor.recovery_code_used", u.ID, u.Username,
				nil, map[string]any{"recoveryCodesLeft": left}, now)
		}
		left, err = tx.RecoveryCodesLeft(ctx, ch.UserID)
		return err
	})
	if err != nil {
		return identity.TokenPair{}, 0, err
	}
	if wrong {
		s.recordWrong(ctx, ch.UserID, c.IP)
		if p.recovery != "" {
			return identity.TokenPair{}, 0, apperr.Unauthenticated(MsgRecoveryWrong)
		}
		return identity.TokenPair{}, 0, apperr.Unauthenticated(MsgCodeWrong)
	}
	if err := s.throttle.Reset(ctx, userKey(ch.UserID)); err != nil {
		s.log.WarnContext(ctx, "reset code throttle", "err", err)
	}
	method := "password+totp"
	if p.recovery != "" {
		method = "password+recovery_code"
	}
	pair, err := s.id.FinishSignIn(ctx, ch.UserID, c, method)
	return pair, left, err
}

// liveChallenge returns and locks the challenge of hash when it is of step,
// unused and unexpired.
//
// Errors: Unauthenticated (MsgChallengeInvalid).
func (s *Service) liveChallenge(ctx context.Context, tx Tx, hash []byte, step identity.Step, now time.Time) (Challenge, error) {
	ch, err := tx.ChallengeForUpdate(ctx, hash)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return Challenge{}, apperr.Unauthenticated(MsgChallengeInvalid)
	}
	if err != nil {
		return Challenge{}, err
	}
	if ch.UsedAt != nil || !now.Before(ch.ExpiresAt) || ch.Step != step {
		return Challenge{}, apperr.Unauthenticated(MsgChallengeInvalid)
	}
	return ch, nil
}

// beginEnrolment stores a new pending key of u within tx and returns it.
//
// Errors: Conflict (already enrolled).
func (s *Service) beginEnrolment(ctx context.Context, tx Tx, u identity.User, now time.Time) (Enrolment, error) {
	cur, err := tx.KeyForUpdate(ctx, u.ID)
	if err == nil && cur.ConfirmedAt != nil {
		return Enrolment{}, apperr.Conflict(MsgAlreadyEnrolled)
	}
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return Enrolment{}, err
	}
	e, secret, err := newKey(s.cfg.Issuer, u.Username)
	if err != nil {
		return Enrolment{}, err
	}
	keyID, sealed, err := s.sealer.SealID(secret, aad(u.ID))
	if err != nil {
		return Enrolment{}, fmt.Errorf("seal totp secret: %w", err)
	}
	if err := tx.PutPendingKey(ctx, u.ID, keyID, sealed, now); err != nil {
		return Enrolment{}, err
	}
	return e, nil
}

// confirmEnrolment enrols u's pending key given its current code, makes the
// recovery codes and audits it, within tx; wrong reports a wrong code
// (nothing changed).
//
// Errors: Invalid (code format), Conflict (no pending key, or enrolled).
func (s *Service) confirmEnrolment(ctx context.Context, tx Tx, a identity.Actor, code string, now time.Time) (codes []string, wrong bool, err error) {
	c, ok := NormalizeCode(code)
	if !ok {
		return nil, false, apperr.Invalid(MsgCodeFormat)
	}
	key, err := tx.KeyForUpdate(ctx, a.ID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return nil, false, apperr.Conflict(MsgNoPendingEnrolment)
	}
	if err != nil {
		return nil, false, err
	}
	if key.ConfirmedAt != nil {
		return nil, false, apperr.Conflict(MsgAlreadyEnrolled)
	}
	secret, err := s.sealer.OpenID(key.KeyID, key.Sealed, aad(a.ID))
	if err != nil {
		return nil, false, fmt.Errorf("open totp secret of user %d: %w", a.ID, err)
	}
	step, err := matchStep(secret, c, now)
	if err != nil {
		return nil, false, err
	}
	if step == 0 {
		return nil, true, nil
	}
	if err := tx.ConfirmKey(ctx, a.ID, step, now); err != nil {
		return nil, false, err
	}
	codes, err = s.replaceCodes(ctx, tx, a.ID, now)
	if err != nil {
		return nil, false, err
	}
	return codes, false, s.id.Audit(ctx, tx, a, "second_factor.enrolled", a.ID, a.Username, nil, map[string]any{"method": "totp"}, now)
}

// replaceCodes makes and stores new recovery codes of userID.
func (s *Service) replaceCodes(ctx context.Context, tx Tx, userID int64, now time.Time) ([]string, error) {
	codes, err := newRecoveryCodes()
	if err != nil {
		return nil, err
	}
	hashes := make([][]byte, len(codes))
	for i, c := range codes {
		n, _ := NormalizeRecoveryCode(c)
		hashes[i] = hashRecoveryCode(userID, n)
	}
	return codes, tx.ReplaceRecoveryCodes(ctx, userID, hashes, now)
}

// BeginSignInEnrolment starts the enrolment a sign-in requires: token is a
// challenge of identity.StepEnrol.
//
// Errors: Invalid (no challenge), Unauthenticated (challenge not valid),
// Conflict (enrolled meanwhile).
func (s *Service) BeginSignInEnrolment(ctx context.Context, token string) (Enrolment, error) {
	if token == "" {
		return Enrolment{}, apperr.Invalid(MsgChallengeRequired)
	}
	now := s.now()
	var e Enrolment
	err := s.store.SecondFactorTx(ctx, func(tx Tx) error {
		ch, err := s.liveChallenge(ctx, tx, hashChallenge(token), identity.StepEnrol, now)
		if err != nil {
			return err
		}
		u, err := tx.UserByID(ctx, ch.UserID)
		if err != nil {
			return err
		}
		e, err = s.beginEnrolment(ctx, tx, u, now)
		return err
	})
	return e, err
}

// CompleteSignInEnrolment confirms the enrolment a sign-in required with the
// new key's first code, starts the session and returns its token pair and
// the recovery codes.
//
// Errors: Invalid (a field, a wrong code), Unauthenticated (challenge not
// valid), TooManyRequests (code throttle), Conflict (no pending key),
// Forbidden (disabled, IP not allowed).
func (s *Service) CompleteSignInEnrolment(ctx context.Context, token, code string, c identity.Client) (identity.TokenPair, []string, error) {
	if token == "" {
		return identity.TokenPair{}, nil, apperr.Invalid(MsgChallengeRequired)
	}
	hash := hashChallenge(token)
	now := s.now()
	var (
		ch    Challenge
		codes []string
		wrong bool
	)
	err := s.store.SecondFactorTx(ctx, func(tx Tx) error {
		var err error
		if ch, err = s.liveChallenge(ctx, tx, hash, identity.StepEnrol, now); err != nil {
			return err
		}
		if err := s.checkThrottle(ctx, ch.UserID, c.IP); err != nil {
			return err
		}
		u, err := tx.UserByID(ctx, ch.UserID)
		if err != nil {
			return err
		}
		codes, wrong, err = s.confirmEnrolment(ctx, tx, identity.Actor{User: u, IP: c.IP}, code, now)
		if err != nil || wrong {
			return err
		}
		return tx.SpendChallenge(ctx, hash, now)
	})
	if err != nil {
		return identity.TokenPair{}, nil, err
	}
	if wrong {
		s.recordWrong(ctx, ch.UserID, c.IP)
		return identity.TokenPair{}, nil, apperr.Invalid(MsgEnrolCodeWrong)
	}
	pair, err := s.id.FinishSignIn(ctx, ch.UserID, c, "password+totp_enrolment")
	return pair, codes, err
}

// Status describes the caller's second factor.
//
// Errors: Unauthenticated (session ended).
func (s *Service) Status(ctx context.Context, c *access.Claims) (Status, error) {
	a, err := s.id.Actor(ctx, c, "")
	if err != nil {
		return Status{}, err
	}
	st, err := s.store.SecondFactorStatus(ctx, a.ID)
	if err != nil {
		return Status{}, err
	}
	settings, err := s.id.Settings(ctx)
	if err != nil {
		return Status{}, err
	}
	st.Required = settings.Requires(a.User)
	return st, nil
}

// BeginEnrolment makes a new pending TOTP key for the caller.
//
// Errors: Unauthenticated (session ended), Conflict (already enrolled).
func (s *Service) BeginEnrolment(ctx context.Context, c *access.Claims) (Enrolment, error) {
	a, err := s.id.Actor(ctx, c, "")
	if err != nil {
		return Enrolment{}, err
	}
	now := s.now()
	var e Enrolment
	err = s.store.SecondFactorTx(ctx, func(tx Tx) error {
		e, err = s.beginEnrolment(ctx, tx, a.User, now)
		return err
	})
	return e, err
}

// ConfirmEnrolment enrols the caller's pending key given its current code
// and returns the recovery codes.
//
// Errors: Invalid (code format, wrong code), Unauthenticated (session
// ended), Conflict (no pending key, or enrolled).
func (s *Service) ConfirmEnrolment(ctx context.Context, c *access.Claims, code, ip string) ([]string, error) {
	a, err := s.id.Actor(ctx, c, ip)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var (
		codes []string
		wrong bool
	)
	err = s.store.SecondFactorTx(ctx, func(tx Tx) error {
		codes, wrong, err = s.confirmEnrolment(ctx, tx, a, code, now)
		return err
	})
	if err != nil {
		return nil, err
	}
	if wrong {
		return nil, apperr.Invalid(MsgEnrolCodeWrong)
	}
	s.log.InfoContext(ctx, "second factor enrolled", "user_id", a.ID)
	return codes, nil
}

// proveHolder checks, within tx, that the caller a holds its enrolled second
// factor by p (throttled like the sign-in's code step); wrong reports a
// wrong proof.
//
// Errors: Conflict (not enrolled), TooManyRequests.
func (s *Service) proveHolder(ctx context.Context, tx Tx, a identity.Actor, p proof, now time.Time) (wrong bool, err error) {
	key, err := tx.KeyForUpdate(ctx, a.ID)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && key.ConfirmedAt == nil) {
		return false, apperr.Conflict(MsgNotEnrolled)
	}
	if err != nil {
		return false, err
	}
	if err := s.checkThrottle(ctx, a.ID, a.IP); err != nil {
		return false, err
	}
	var ok bool
	if p.recovery != "" {
		ok, err = tx.UseRecoveryCode(ctx, a.ID, hashRecoveryCode(a.ID, p.recovery), now)
	} else {
		ok, err = s.useCode(ctx, tx, key, p.code, now)
	}
	return !ok, err
}

// wrongProof is the refusal of a wrong proof p, counted by the throttle.
func (s *Service) wrongProof(ctx context.Context, a identity.Actor, p proof) error {
	s.recordWrong(ctx, a.ID, a.IP)
	if p.recovery != "" {
		return apperr.Invalid(MsgProofRecoveryWrong)
	}
	return apperr.Invalid(MsgProofCodeWrong)
}

// RegenerateCodes replaces the caller's recovery codes, given a current code
// or a recovery code.
//
// Errors: Invalid (a field, a wrong proof), Unauthenticated (session
// ended), Conflict (not enrolled), TooManyRequests.
func (s *Service) RegenerateCodes(ctx context.Context, c *access.Claims, code, recovery, ip string) ([]string, error) {
	p, err := checkProofFormat(code, recovery, MsgProofCodeWrong, MsgProofRecoveryWrong)
	if err != nil {
		return nil, err
	}
	a, err := s.id.Actor(ctx, c, ip)
	if err != nil {
		return nil, err
	}
	now := s.now()
	var (
		codes []string
		wrong bool
	)
	err = s.store.SecondFactorTx(ctx, func(tx Tx) error {
		if wrong, err = s.proveHolder(ctx, tx, a, p, now); err != nil || wrong {
			return err
		}
		if codes, err = s.replaceCodes(ctx, tx, a.ID, now); err != nil {
			return err
		}
		return s.id.Audit(ctx, tx, a, "second_factor.recovery_codes_regenerated", a.ID, a.Username, nil, nil, now)
	})
	if err != nil {
		return nil, err
	}
	if wrong {
		return nil, s.wrongProof(ctx, a, p)
	}
	return codes, nil
}

// DisableProof is what DisableSecondFactor takes: exactly one of a code, a
// recovery code and a passkey assertion.
type DisableProof struct {
	Code     string
	Recovery string
	// Passkey is an AuthenticationResponseJSON (nil: none).
	Passkey []byte
}

// Disable removes the caller's second factor given proof, and ends the
// caller's other sessions.
//
// Errors: Invalid (a field, a wrong proof), Unauthenticated (session
// ended), Conflict (not enrolled), TooManyRequests.
func (s *Service) Disable(ctx context.Context, c *access.Claims, pr DisableProof, ip string) error {
	given := 0
	for _, ok := range []bool{pr.Code != "", pr.Recovery != "", len(pr.Passkey) > 0} {
		if ok {
			given++
		}
	}
	switch {
	case given == 0:
		return apperr.Invalid(MsgProofMissing)
	case given > 1:
		return apperr.Invalid(MsgProofTooMany)
	}
	a, err := s.id.Actor(ctx, c, ip)
	if err != nil {
		return err
	}
	method := "passkey"
	var p proof
	if len(pr.Passkey) > 0 {
		if err := s.provePasskey(ctx, a, pr.Passkey); err != nil {
			return err
		}
	} else {
		if p, err = checkProofFormat(pr.Code, pr.Recovery, MsgProofCodeWrong, MsgProofRecoveryWrong); err != nil {
			return err
		}
		method = "code"
		if p.recovery != "" {
			method = "recovery_code"
		}
	}
	now := s.now()
	var (
		wrong bool
		ended []string
	)
	err = s.store.SecondFactorTx(ctx, func(tx Tx) error {
		if method != "passkey" {
			if wrong, err = s.proveHolder(ctx, tx, a, p, now); err != nil || wrong {
				return err
			}
		} else if key, err := tx.KeyForUpdate(ctx, a.ID); apperr.KindOf(err) == apperr.KindNotFound || (err == nil && key.ConfirmedAt == nil) {
			return apperr.Conflict(MsgNotEnrolled)
		} else if err != nil {
			return err
		}
		if err := tx.DeleteSecondFactor(ctx, a.ID); err != nil {
			return err
		}
		if ended, err = s.id.EndSessions(ctx, tx, a.ID, a.SessionID, identity.ReasonSecondFactorDisabled, now); err != nil {
			return err
		}
		return s.id.Audit(ctx, tx, a, "second_factor.disabled", a.ID, a.Username,
			map[string]any{"method": method}, nil, now)
	})
	if err != nil {
		return err
	}
	if wrong {
		return s.wrongProof(ctx, a, p)
	}
	s.id.RevokeInCache(ctx, ended)
	s.log.InfoContext(ctx, "second factor disabled", "user_id", a.ID, "proof", method, "sessions_ended", len(ended))
	return nil
}

// provePasskey checks that credential is an assertion of one of a's own
// passkeys.
//
// Errors: Invalid (MsgPasskeyWrong).
func (s *Service) provePasskey(ctx context.Context, a identity.Actor, credential []byte) error {
	if s.passkeys == nil {
		return apperr.Invalid(MsgPasskeyWrong)
	}
	owner, err := s.passkeys.VerifyPasskey(ctx, credential)
	if apperr.KindOf(err) == apperr.KindUnauthenticated || (err == nil && owner != a.ID) {
		s.log.WarnContext(ctx, "passkey proof refused", "user_id", a.ID, "err", err)
		return apperr.Invalid(MsgPasskeyWrong)
	}
	return err
}

// Reset removes the second factor of a user in the actor's user scope (a
// lost device) and ends every session of that user.
//
// Errors: Unauthenticated (session ended), NotFound (user outside the
// scope), Conflict (not enrolled).
func (s *Service) Reset(ctx context.Context, c *access.Claims, userID int64, ip string) error {
	a, err := s.id.Actor(ctx, c, ip)
	if err != nil {
		return err
	}
	now := s.now()
	var ended []string
	err = s.store.SecondFactorTx(ctx, func(tx Tx) error {
		target, err := tx.ManagedUserForUpdate(ctx, userID)
		if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !a.UserScope().Contains(target)) {
			return apperr.NotFound(identity.MsgUserNotFound)
		}
		if err != nil {
			return err
		}
		key, err := tx.KeyForUpdate(ctx, userID)
		if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && key.ConfirmedAt == nil) {
			return apperr.Conflict(MsgNotEnrolled)
		}
		if err != nil {
			return err
		}
		if err := tx.DeleteSecondFactor(ctx, userID); err != nil {
			return err
		}
		if ended, err = s.id.EndSessions(ctx, tx, userID, "", identity.ReasonSecondFactorReset, now); err != nil {
			return err
		}
		return s.id.Audit(ctx, tx, a, "second_factor.reset", target.ID, target.Username,
			map[string]any{"hasSecondFactor": true}, map[string]any{"hasSecondFactor": false}, now)
	})
	if err != nil {
		return err
	}
	s.id.RevokeInCache(ctx, ended)
	s.log.InfoContext(ctx, "second factor reset", "user_id", userID, "by", a.ID, "sessions_ended", len(ended))
	return nil
}
