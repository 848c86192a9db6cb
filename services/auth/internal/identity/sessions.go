package identity

import (
	"context"
	"strings"

	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/apperr"
)

// MsgSessionNotFound answers for a session that does not exist, ended, or
// lies outside the caller's scope.
const MsgSessionNotFound = "Session not found."

// ListActiveSessions returns a page of the live sessions in the actor's
// listing scope (Actor.SessionListScope): the actor's current session first
// when it matches the filters, however old, then the others newest sign-in
// first; no page repeats the current one.
//
// Errors: NotFound (merchant filter outside the actor's merchants).
func (s *Service) ListActiveSessions(ctx context.Context, a Actor, search string, merchantID int32, offset, limit int) (SessionPage, error) {
	if err := a.checkMerchantFilter(merchantID); err != nil {
		return SessionPage{}, err
	}
	q := SessionQuery{
		Scope: a.SessionListScope(), Search: strings.TrimSpace(search), MerchantID: merchantID,
		Now: s.now(), Offset: offset, Limit: limit,
	}
	if a.SessionID == "" {
		return s.store.ListSessions(ctx, q)
	}
	pin := q
	pin.OnlyID, pin.Offset, pin.Limit = a.SessionID, 0, 1
	current, err := s.store.ListSessions(ctx, pin)
	if err != nil || len(current.Sessions) == 0 {
		if err != nil {
			return SessionPage{}, err
		}
		return s.store.ListSessions(ctx, q)
	}
	// The current session takes the first place of the first page; the
	// others shift one place down.
	q.ExceptID = a.SessionID
	if offset == 0 {
		q.Limit = limit - 1
	} else {
		q.Offset = offset - 1
	}
	rest, err := s.store.ListSessions(ctx, q)
	if err != nil {
		return SessionPage{}, err
	}
	page := SessionPage{Sessions: rest.Sessions, Total: rest.Total + 1}
	if offset == 0 {
		page.Sessions = append(current.Sessions[:1], rest.Sessions...)
	}
	return page, nil
}

// TerminateSession ends a live session in the actor's ending scope
// (Actor.SessionEndScope, its own always included): its refresh tokens stop
// working and its access token is refused at the next call.
//
// Errors: NotFound (no such live session in scope).
func (s *Service) TerminateSession(ctx context.Context, a Actor, id string) error {
	now := s.now()
	var sess Session
	err := s.store.Tx(ctx, func(tx Tx) error {
		var err error
		sess, err = tx.SessionForUpdate(ctx, id)
		if apperr.KindOf(err) == apperr.KindNotFound {
			return apperr.NotFound(MsgSessionNotFound)
		}
		if err != nil {
			return err
		}
		if sess.RevokedAt != nil || !now.Before(sess.RefreshExpiresAt) {
			return apperr.NotFound(MsgSessionNotFound)
		}
		// Read, not locked: a user update locks the user before its
		// sessions, and this call holds a session already.
		owner, err := tx.ManagedUser(ctx, sess.UserID)
		if err != nil {
			return err
		}
		if !a.SessionEndScope().Contains(owner) {
			return apperr.NotFound(MsgSessionNotFound)
		}
		if err := tx.RevokeSession(ctx, sess.ID, ReasonTerminated, now); err != nil {
			return err
		}
		if err := tx.Publish(ctx, &eventsv1.SessionRevoked{
			SessionId: sess.ID, UserId: sess.UserID,
			Reason:    eventsv1.SessionRevokedReason_SESSION_REVOKED_REASON_TERMINATED,
			RevokedAt: timestamppb.New(now),
		}); err != nil {
			return err
		}
		return s.audit(ctx, tx, a, "session.terminated", owner.ID, owner.Username,
			map[string]any{"sessionId": sess.ID, "ip": sess.IP, "userAgent": sess.UserAgent}, nil, now)
	})
	if err != nil {
		return err
	}
	s.revokeInCache(ctx, []string{sess.ID})
	s.log.InfoContext(ctx, "session terminated", "session_id", sess.ID, "user_id", sess.UserID, "by", a.ID)
	return nil
}
