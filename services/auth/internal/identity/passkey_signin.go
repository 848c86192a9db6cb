package identity

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/services/internal/apperr"
)

// MsgInvalidPasskey is the refusal of a passkey sign-in, whatever failed
// (unknown passkey, used or expired challenge, wrong origin, bad signature,
// counter gone back), so that a refusal tells nothing about accounts.
const MsgInvalidPasskey = "Invalid passkey or authentication failed"

// PasskeyAttempt is one passkey sign-in, as the passkey package hands it
// over: whose passkey was presented, and how to verify it.
type PasskeyAttempt struct {
	// UserID owns the presented passkey; 0 when no stored passkey matched.
	UserID int64
	// CredentialKey identifies the presented credential (a hash of its id)
	// for the address's failure count when no user is known.
	CredentialKey string
	// Verify checks the assertion (challenge, origin, relying party,
	// signature, counter) and records the passkey's use. A refusal is an
	// Unauthenticated error whose cause says why (for the log); any other
	// error is a fault.
	Verify func(ctx context.Context) error
}

// SignInWithPasskey signs a user in with a passkey, throttled like a
// password sign-in: a locked address (or the passkey owner's locked
// username) is refused before verification, and a refused passkey counts a
// failure for the address and, when the passkey is known, for its owner's
// username. A verified passkey starts a session through startSession (so a
// disabled user or an address outside an IP-restricted user's ranges is
// refused) and gets the same token pair as a password sign-in.
//
// Errors: Unauthenticated (MsgInvalidPasskey), TooManyRequests (throttled),
// Forbidden (disabled, IP not allowed).
func (s *Service) SignInWithPasskey(ctx context.Context, a PasskeyAttempt, c Client) (TokenPair, error) {
	var u User
	if a.UserID != 0 {
		var err error
		u, err = s.store.UserByID(ctx, a.UserID)
		if apperr.KindOf(err) == apperr.KindNotFound {
			u = User{}
		} else if err != nil {
			return TokenPair{}, fmt.Errorf("look up owner of passkey: %w", err)
		}
	}
	if err := s.checkPasskeyThrottle(ctx, u.Username, c.IP); err != nil {
		return TokenPair{}, err
	}
	if err := a.Verify(ctx); err != nil {
		if apperr.KindOf(err) != apperr.KindUnauthenticated {
			return TokenPair{}, err
		}
		s.log.WarnContext(ctx, "passkey sign-in refused", "user_id", u.ID, "ip", c.IP, "err", err)
		s.recordPasskeyFailure(ctx, u.Username, c.IP, a.CredentialKey)
		return TokenPair{}, apperr.New(apperr.KindUnauthenticated, err, MsgInvalidPasskey)
	}
	if u.ID == 0 {
		// Verify accepted a passkey without an owner: never expected.
		return TokenPair{}, apperr.Internal("passkey verified without a known owner")
	}
	pair, err := s.startSession(ctx, u, c, "passkey")
	if err != nil {
		if apperr.KindOf(err) == apperr.KindForbidden {
			s.recordFailure(ctx, u.Username, c.IP, "")
		}
		return TokenPair{}, err
	}
	if err := s.throttle.Reset(ctx, userThrottleKey(u.Username)); err != nil {
		s.log.WarnContext(ctx, "reset sign-in throttle", "err", err)
	}
	return pair, nil
}

// checkPasskeyThrottle is checkThrottle for a passkey sign-in, whose
// username is known only when the presented passkey is ("" otherwise: then
// only the address is checked).
func (s *Service) checkPasskeyThrottle(ctx context.Context, username, ip string) error {
	if username != "" {
		return s.checkThrottle(ctx, username, ip, "")
	}
	if ip == "" {
		return nil
	}
	wait, err := s.throttle.BlockedDistinct(ctx, ipThrottleKey(ip), s.cfg.MaxFailuresPerIP)
	if err != nil {
		return fmt.Errorf("check ip throttle: %w", err)
	}
	if wait > 0 {
		return apperr.TooManyRequests(wait, MsgTooManyAttempts)
	}
	return nil
}

// recordPasskeyFailure counts a refused passkey: as a failed sign-in of the
// username when the passkey is known, else for the address only, the
// presented credential standing in for the username (the same unknown
// passkey tried again counts once, many different ones count many).
func (s *Service) recordPasskeyFailure(ctx context.Context, username, ip, credentialKey string) {
	if username != "" {
		s.recordFailure(ctx, username, ip, "")
		return
	}
	if ip == "" {
		return
	}
	if err := s.throttle.FailDistinct(ctx, ipThrottleKey(ip), "passkey:"+credentialKey, s.cfg.ThrottleWindow); err != nil {
		s.log.WarnContext(ctx, "count failed sign-in", "err", err)
	}
}
