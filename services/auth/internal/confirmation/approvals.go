package confirmation

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/uuid"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// Page is one page of approval requests.
type Page struct {
	Requests     []Request
	NextBeforeID int64
}

// Effective is r's status as read now: a pending request past its expiry is
// expired.
func (r Request) Effective(now time.Time) string {
	if r.Status == StatusPending && !now.Before(r.ExpiresAt) {
		return StatusExpired
	}
	return r.Status
}

// visible reports whether c may see r: its own, or one it may approve.
func visible(c Caller, r Request) bool {
	return r.RequestedBy == c.ID || slices.Contains(deciding(c), r.ApproverPermission)
}

// deciding is the permissions by which c may see and decide other users'
// requests: an admin-wide caller's. A merchant-scoped user never decides
// another user's change: the change may reach beyond its merchants (it would
// be applied with the approver's authority), and its details are out of the
// user's scope; such a user sees its own requests only.
func deciding(c Caller) []string {
	if !c.Global {
		return nil
	}
	return c.Permissions
}

// CanDecide reports whether c may approve or reject r now.
func (s *Service) CanDecide(c Caller, r Request) bool {
	return r.Effective(s.now()) == StatusPending && r.RequestedBy != c.ID && slices.Contains(deciding(c), r.ApproverPermission)
}

// List lists the requests c made or may approve, newest first.
//
// Errors: Invalid (status, pageSize).
func (s *Service) List(ctx context.Context, c Caller, status, action string, mine bool, pageSize int, beforeID int64) (Page, error) {
	switch status {
	case "", StatusPending, StatusApproved, StatusRejected, StatusExpired, StatusFailed:
	default:
		return Page{}, apperr.Invalid("status must be one of pending, approved, rejected, expired and failed.")
	}
	if action != "" {
		if _, ok := sensitive.ByName(action); !ok {
			return Page{}, apperr.Invalid("action: %q is not a sensitive action.", action)
		}
	}
	if pageSize == 0 {
		pageSize = 25
	}
	if pageSize < 1 || pageSize > MaxPageSize {
		return Page{}, apperr.Invalid("pageSize must be between 1 and %d.", MaxPageSize)
	}
	if beforeID < 0 {
		return Page{}, apperr.Invalid("beforeId must not be negative.")
	}
	rs, err := s.store.Requests(ctx, Query{Status: status, Action: action, Mine: mine, CallerID: c.ID,
		Permissions: deciding(c), BeforeID: beforeID, Limit: pageSize + 1, Now: s.now()})
	if err != nil {
		return Page{}, err
	}
	p := Page{Requests: rs}
	if len(rs) > pageSize {
		p.Requests = rs[:pageSize]
		p.NextBeforeID = p.Requests[pageSize-1].ID
	}
	return p, nil
}

// Get returns one request c may see. Errors: NotFound.
func (s *Service) Get(ctx context.Context, c Caller, id int64) (Request, error) {
	r, err := s.store.Request(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !visible(c, r)) {
		return Request{}, apperr.NotFound(MsgRequestNotFound)
	}
	return r, err
}

// CountPending counts the pending requests c may approve.
func (s *Service) CountPending(ctx context.Context, c Caller) (int, error) {
	return s.store.CountPending(ctx, c.ID, deciding(c), s.now())
}

// errExpired marks a decision refused because the request expired (the
// expiry is committed, then the refusal returned).
var errExpired = errors.New("request expired")

// decide locks request id for a decision by c: it must be visible, not c's
// own, c must hold the permission, and it must be pending and unexpired (an
// expired one is marked so).
func (s *Service) decide(ctx context.Context, tx Tx, c Caller, id int64, now time.Time) (Request, error) {
	r, err := tx.RequestForUpdate(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound || (err == nil && !visible(c, r)) {
		return Request{}, apperr.NotFound(MsgRequestNotFound)
	}
	if err != nil {
		return Request{}, err
	}
	if r.RequestedBy == c.ID {
		return Request{}, apperr.Forbidden(MsgOwnRequest)
	}
	if !slices.Contains(deciding(c), r.ApproverPermission) {
		return Request{}, apperr.Forbidden(MsgNoPermission, r.ApproverPermission)
	}
	if r.Status == StatusPending && !now.Before(r.ExpiresAt) {
		if _, err := tx.SetStatus(ctx, r.ID, StatusPending, StatusExpired, Decision{At: now}); err != nil {
			return Request{}, err
		}
		r.Status = StatusExpired
		if err := s.publish(ctx, tx, Caller{}, AuditExpired, r, now); err != nil {
			return Request{}, err
		}
		return r, errExpired
	}
	if r.Status != StatusPending {
		return Request{}, apperr.Conflict(MsgNotPending, r.Status)
	}
	return r, nil
}

// Reject rejects a pending request with a reason.
//
// Errors: Invalid (reason), NotFound, Forbidden (own request, permission),
// Conflict (decided or expired).
func (s *Service) Reject(ctx context.Context, c Caller, id int64, reason string) (Request, error) {
	if reason == "" {
		return Request{}, apperr.Invalid("reason is required: say why the change is rejected.")
	}
	now := s.now()
	var expired bool
	err := s.store.Tx(ctx, func(tx Tx) error {
		r, err := s.decide(ctx, tx, c, id, now)
		if errors.Is(err, errExpired) {
			expired = true
			return nil
		}
		if err != nil {
			return err
		}
		if _, err := tx.SetStatus(ctx, id, StatusPending, StatusRejected, Decision{By: c.ID, ByUsername: c.Username, At: now, Outcome: reason}); err != nil {
			return err
		}
		r.Status, r.DecidedBy, r.Outcome = StatusRejected, c.ID, reason
		return s.publish(ctx, tx, c, AuditRejected, r, now)
	})
	if err != nil {
		return Request{}, err
	}
	if expired {
		return Request{}, apperr.Conflict(MsgRequestExpired)
	}
	return s.store.Request(ctx, id)
}

// CheckApproverToken checks that a verified confirmation token lets c
// approve request id: its subject is c, and its action is approval.approve
// of that request.
func CheckApproverToken(c Caller, id int64, claims *sensitive.Claims) error {
	if claims.Subject != strconv.FormatInt(c.ID, 10) {
		return apperr.Forbidden("This confirmation was made by another user.")
	}
	d, err := sensitive.Parse([]byte(claims.Action))
	if err != nil || d.Action != ApproveAction || fmt.Sprint(d.Values["id"]) != strconv.FormatInt(id, 10) {
		return apperr.Forbidden("This confirmation is for another change. Confirm the approval of this request.")
	}
	return nil
}

// Approve approves request id with the approver's verified confirmation
// token (claims), applies the change by calling its owning service with the
// stored request and a confirmation token carrying both proofs, and records
// the outcome: approved, or failed with the service's sentence.
//
// Errors: NotFound, Forbidden (own request, permission, token of another
// change), Conflict (decided, expired, token used).
func (s *Service) Approve(ctx context.Context, c Caller, id int64, claims *sensitive.Claims) (Request, error) {
	if err := CheckApproverToken(c, id, claims); err != nil {
		return Request{}, err
	}
	now := s.now()
	var (
		r       Request
		expired bool
	)
	approver := sensitive.Proof{Kind: claims.Proof, Role: sensitive.RoleApprover, UserID: c.ID, Username: c.Username}
	if len(claims.Proofs) > 0 {
		approver = claims.Proofs[0]
		approver.Role = sensitive.RoleApprover
	}
	err := s.store.Tx(ctx, func(tx Tx) error {
		var err error
		r, err = s.decide(ctx, tx, c, id, now)
		if errors.Is(err, errExpired) {
			expired = true
			return nil
		}
		if err != nil {
			return err
		}
		ok, err := tx.UseJTI(ctx, claims.ID, now)
		if err != nil {
			return err
		}
		if !ok {
			return apperr.Conflict("This confirmation was used already. Confirm the approval again.")
		}
		_, err = tx.SetStatus(ctx, id, StatusPending, StatusApproving, Decision{By: c.ID, ByUsername: c.Username, At: now, Proof: &approver})
		return err
	})
	if err != nil {
		return Request{}, err
	}
	if expired {
		return Request{}, apperr.Conflict(MsgRequestExpired)
	}
	outcome, applyErr := s.applyRequest(ctx, c, r, approver, now)
	status, audit := StatusApproved, AuditApproved
	if applyErr != nil {
		status, audit = StatusFailed, AuditFailed
		s.log.WarnContext(ctx, "approved request refused by its service", "request_id", r.ID, "method", r.Method, "err", applyErr)
	}
	done := s.now()
	err = s.store.Tx(ctx, func(tx Tx) error {
		if _, err := tx.SetStatus(ctx, id, StatusApproving, status, Decision{By: c.ID, ByUsername: c.Username, At: done, Outcome: outcome, Proof: &approver}); err != nil {
			return err
		}
		r.Status, r.DecidedBy, r.Outcome = status, c.ID, outcome
		return s.publish(ctx, tx, c, audit, r, done)
	})
	if err != nil {
		return Request{}, err
	}
	return s.store.Request(ctx, id)
}

// applyRequest calls the owning service; it returns the outcome sentence
// and the refusal.
func (s *Service) applyRequest(ctx context.Context, c Caller, r Request, approver sensitive.Proof, now time.Time) (string, error) {
	request, err := s.sealer.OpenID(r.RequestKeyID, r.RequestSealed, requestAAD(r.ConfirmationID))
	if err != nil {
		return "The stored request could not be read; nothing was applied.", fmt.Errorf("open request %d: %w", r.ID, err)
	}
	prf := weakest(r.RequesterProof.Kind, approver.Kind)
	token, err := s.sign(&sensitive.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Subject: strconv.FormatInt(c.ID, 10), ID: uuid.NewString(),
			IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(TokenTTL)),
		},
		Action: r.Canonical, Digest: r.Digest, Proof: prf, Proofs: []sensitive.Proof{r.RequesterProof, approver},
		ApprovalRequestID: r.ID, RequestedBy: r.RequestedBy,
	})
	if err != nil {
		return "The change could not be signed; nothing was applied.", err
	}
	if err := s.apply(ctx, r.Method, request, c.Bearer, token); err != nil {
		if e := apperr.As(err); e != nil && e.Kind != apperr.KindInternal {
			return e.Message, err
		}
		return "The service that owns this change could not apply it. Nothing was changed; ask for the change again.", err
	}
	return "", nil
}

// weakest is the weaker of two proof kinds.
func weakest(a, b string) string {
	rank := map[string]int{sensitive.ProofNone: 0, sensitive.ProofTOTP: 1, sensitive.ProofWebAuthn: 2}
	if rank[a] <= rank[b] {
		return a
	}
	return b
}

// Sweep marks the pending requests past their expiry expired, and returns
// how many.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	now := s.now()
	var n int
	err := s.store.Tx(ctx, func(tx Tx) error {
		rs, err := tx.ExpirePending(ctx, now)
		if err != nil {
			return err
		}
		n = len(rs)
		for _, r := range rs {
			r.Status = StatusExpired
			if err := s.publish(ctx, tx, Caller{}, AuditExpired, r, now); err != nil {
				return err
			}
		}
		return nil
	})
	return n, err
}

// publish queues the audit entry and the ApprovalChanged event of a
// request's transition.
func (s *Service) publish(ctx context.Context, tx Tx, c Caller, action string, r Request, at time.Time) error {
	if err := tx.Publish(ctx, auditEvent(c, action, r.RequestedBy, r.RequestedByUsername, nil, map[string]any{
		"requestId": strconv.FormatInt(r.ID, 10), "action": r.Action, "status": r.Status, "outcome": r.Outcome, "digest": r.Digest,
	}, at)); err != nil {
		return err
	}
	return tx.Publish(ctx, &eventsv1.ApprovalChanged{
		RequestId: r.ID, Action: r.Action, Status: r.Status, RequestedBy: r.RequestedBy,
		DecidedBy: r.DecidedBy, Outcome: r.Outcome, At: timestamppb.New(at),
	})
}

// auditEvent is an auth audit entry (events.v1.UserAudited) of actor c.
func auditEvent(c Caller, action string, targetID int64, targetName string, before, after map[string]any, at time.Time) *eventsv1.UserAudited {
	ev := &eventsv1.UserAudited{
		Id: uuid.NewString(), Action: action,
		ActorUserId: c.ID, ActorUsername: c.Username, ActorIp: c.IP,
		TargetUserId: targetID, TargetUsername: targetName,
		At: timestamppb.New(at),
	}
	if c.ID == 0 {
		ev.ActorUsername = "system"
	}
	if len(before) > 0 {
		ev.Before, _ = structpb.NewStruct(before)
	}
	if len(after) > 0 {
		ev.After, _ = structpb.NewStruct(after)
	}
	return ev
}
