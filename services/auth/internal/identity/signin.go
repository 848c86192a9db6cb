package identity

import (
	"context"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// The parts of a sign-in and of a user's sessions that the second factor
// (package secondfactor) runs inside its own transactions.

// FinishSignIn starts the session of a password sign-in whose second step
// another part of the service verified: the checks and the token pair of
// startSession, the password throttle of the username forgotten, and the
// device cookie of the browser issued.
//
// Errors: Unauthenticated (user gone), Forbidden (disabled, IP not allowed).
func (s *Service) FinishSignIn(ctx context.Context, userID int64, c Client, method string) (TokenPair, error) {
	u, err := s.store.UserByID(ctx, userID)
	if apperr.KindOf(err) == apperr.KindNotFound {
		return TokenPair{}, apperr.Unauthenticated(MsgInvalidCredentials)
	}
	if err != nil {
		return TokenPair{}, err
	}
	pair, err := s.startSession(ctx, u, c, method)
	if err != nil {
		return TokenPair{}, err
	}
	if err := s.throttle.Reset(ctx, userThrottleKey(u.Username)); err != nil {
		s.log.WarnContext(ctx, "reset sign-in throttle", "err", err)
	}
	if pair.DeviceToken, err = s.keys.signDevice(u.Username, s.now(), s.cfg.DeviceTTL); err != nil {
		s.log.WarnContext(ctx, "issue device cookie", "err", err)
	}
	return pair, nil
}

// EndSessions revokes within tx every live session of a user but keep ("":
// none) for reason, announces each, and returns their ids; the caller hands
// them to RevokeInCache once tx committed.
func (s *Service) EndSessions(ctx context.Context, tx Tx, userID int64, keep, reason string, now time.Time) ([]string, error) {
	if keep == "" {
		return s.endSessions(ctx, tx, userID, reason, now)
	}
	ended, err := tx.RevokeOtherSessions(ctx, userID, keep, reason, now)
	if err != nil {
		return nil, err
	}
	return ended, s.announceEnded(ctx, tx, userID, ended, now)
}

// RevokeInCache puts sessions on the revocation list every service checks.
func (s *Service) RevokeInCache(ctx context.Context, sessionIDs []string) {
	s.revokeInCache(ctx, sessionIDs)
}

// Audit publishes through tx's outbox that actor a did action to the target
// user (0 and "" for none), with the changed values before and after (never
// a secret).
func (s *Service) Audit(ctx context.Context, tx Tx, a Actor, action string, targetID int64, targetUsername string, before, after map[string]any, at time.Time) error {
	return s.audit(ctx, tx, a, action, targetID, targetUsername, before, after, at)
}
