package validation

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Messages of refusals (the dialog's own texts where spec 02 §5 gives them).
// Missing things and things outside the caller's scope share a message, so
// that a scope cannot be probed.
const (
	MsgURLRequired      = "Endpoint URL is required."
	MsgCollabRequired   = "Collaboration is required."
	MsgPriorityRequired = "Priority is required."
	MsgPriorityRange    = "Priority must be between 1 and 100."
	msgCollabNotFound   = "The collaboration was not found."
	msgEndpointNotFound = "The validation endpoint was not found."
)

// URLPolicy checks a URL a user supplies (netguard.Policy): its errors are
// invalid, with a sentence saying what is wrong.
type URLPolicy interface {
	CheckURL(ctx context.Context, raw string) (*url.URL, error)
}

// Store reads validation endpoints and runs the writes of one change in a
// transaction.
type Store interface {
	// Endpoints returns a collab's endpoints ordered by priority, then id.
	Endpoints(ctx context.Context, collabID int32) ([]Endpoint, error)
	// Collab returns one collab. Returns a not-found error when there is
	// none.
	Collab(ctx context.Context, id int32) (Collab, error)
	// Endpoint returns one endpoint. Returns a not-found error when there
	// is none.
	Endpoint(ctx context.Context, id int64) (Endpoint, error)
	// Tx runs fn in one database transaction, committed when fn returns
	// nil. fn's error is returned as it is.
	Tx(ctx context.Context, fn func(Tx) error) error
}

// Tx is the set of locking reads and writes available inside Store.Tx.
type Tx interface {
	// CollabForUpdate returns one collab, locking its row until the
	// transaction ends. Returns a not-found error when there is none.
	CollabForUpdate(ctx context.Context, id int32) (Collab, error)
	// EndpointForUpdate returns one endpoint, locking its row until the
	// transaction ends. Returns a not-found error when there is none.
	EndpointForUpdate(ctx context.Context, id int64) (Endpoint, error)
	// CountEndpoints counts a collab's endpoints.
	CountEndpoints(ctx context.Context, collabID int32) (int, error)
	// InsertEndpoint stores a new endpoint and returns it as stored.
	InsertEndpoint(ctx context.Context, e Endpoint) (Endpoint, error)
	// UpdateEndpoint stores an endpoint's fields and returns it as stored.
	// Returns a not-found error when it is gone.
	UpdateEndpoint(ctx context.Context, e Endpoint) (Endpoint, error)
	// DeleteEndpoint removes an endpoint; its results stay. Returns a
	// not-found error when it is gone.
	DeleteEndpoint(ctx context.Context, id int64) error
	// InsertActivity stores an activity log entry and returns its id.
	InsertActivity(ctx context.Context, a activity.Entry) (int64, error)
	// Publish queues an event to leave with this transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}

// Service lists and changes validation endpoints, recording every change in
// the activity log.
type Service struct {
	store  Store
	policy URLPolicy
	now    func() time.Time
}

// NewService returns a service on store; policy checks URLs before they are
// saved; now is the clock (time.Now when nil).
func NewService(store Store, policy URLPolicy, now func() time.Time) *Service {
	if now == nil {
		now = time.Now
	}
	return &Service{store: store, policy: policy, now: now}
}

// Endpoints returns a collab's endpoints by priority (then id). A collab
// outside scope, or unknown, is not found.
func (s *Service) Endpoints(ctx context.Context, scope merchant.Scope, collabID int32) ([]Endpoint, error) {
	if collabID <= 0 {
		return nil, apperr.Invalid(MsgCollabRequired)
	}
	c, err := s.store.Collab(ctx, collabID)
	if err != nil {
		return nil, notFoundAs(err, msgCollabNotFound)
	}
	if !scope.Includes(c.MerchantID) {
		return nil, apperr.NotFound(msgCollabNotFound)
	}
	es, err := s.store.Endpoints(ctx, collabID)
	if err != nil {
		return nil, fmt.Errorf("endpoints of collab %d: %w", collabID, err)
	}
	return es, nil
}

// NewEndpoint is the "Add Validation Endpoint" dialog's payload.
type NewEndpoint struct {
	CollabID int32
	URL      string
	// Priority is 1 to 100; nil takes DefaultPriority.
	Priority                         *int32
	Awaitable, ForCashIn, ForCashOut bool
}

// Create adds an endpoint to a collab and returns it. A missing URL or
// collab, a priority of 0 or outside 1 to 100, or a URL the policy refuses
// is invalid (every problem in one message); a collab outside the actor's
// scope, or unknown, is not found; a collab with MaxEndpointsPerCollab
// endpoints is a failed precondition.
func (s *Service) Create(ctx context.Context, actor activity.Actor, n NewEndpoint) (Endpoint, error) {
	e := Endpoint{CollabID: n.CollabID, URL: strings.TrimSpace(n.URL), Priority: DefaultPriority,
		Awaitable: n.Awaitable, ForCashIn: n.ForCashIn, ForCashOut: n.ForCashOut}
	if n.Priority != nil {
		e.Priority = *n.Priority
	}
	var problems []string
	if e.URL == "" {
		problems = append(problems, MsgURLRequired)
	}
	if e.CollabID <= 0 {
		problems = append(problems, MsgCollabRequired)
	}
	problems = append(problems, priorityProblems(e.Priority)...)
	if e.URL != "" {
		problems = append(problems, s.urlProblems(ctx, e.URL)...)
	}
	if len(problems) > 0 {
		return Endpoint{}, apperr.Invalid("%s", strings.Join(problems, " "))
	}
	var out Endpoint
	err := s.store.Tx(ctx, func(tx Tx) error {
		c, err := s.lockCollab(ctx, tx, actor, e.CollabID)
		if err != nil {
			return err
		}
		if err := checkRoom(ctx, tx, c); err != nil {
			return err
		}
		out, err = tx.InsertEndpoint(ctx, e)
		if err != nil {
			return err
		}
		a := endpointActivity(c)
		a.Message = fmt.Sprintf("Validation endpoint %d added to %s: %s (%s).", out.ID, c.Name(), out.URL, describe(out))
		a.Channel = channelOf(out)
		a.NewValue = activity.Value(values(out))
		return s.record(ctx, tx, actor, a)
	})
	if err != nil {
		return Endpoint{}, err
	}
	return out, nil
}

// Change is a row edit; nil fields stay as they are.
type Change struct {
	ID int64
	// CollabID moves the endpoint to another collab of the actor's scope.
	CollabID                         *int32
	URL                              *string
	Priority                         *int32
	Awaitable, ForCashIn, ForCashOut *bool
}

// Update changes an endpoint and returns it afterwards. The rules are
// Create's; an endpoint outside the actor's scope, or unknown, is not found,
// and so is a collab it would move to. A change that changes nothing records
// nothing. A move is recorded on both collabs.
func (s *Service) Update(ctx context.Context, actor activity.Actor, ch Change) (Endpoint, error) {
	if ch.ID <= 0 {
		return Endpoint{}, apperr.NotFound(msgEndpointNotFound)
	}
	var problems []string
	if ch.URL != nil && strings.TrimSpace(*ch.URL) == "" {
		problems = append(problems, MsgURLRequired)
	}
	if ch.CollabID != nil && *ch.CollabID <= 0 {
		problems = append(problems, MsgCollabRequired)
	}
	if ch.Priority != nil {
		problems = append(problems, priorityProblems(*ch.Priority)...)
	}
	if len(problems) > 0 {
		return Endpoint{}, apperr.Invalid("%s", strings.Join(problems, " "))
	}
	// The URL is checked (which may resolve its host) before any lock is
	// taken; one saved before is not checked again, so that an endpoint
	// stays editable.
	if ch.URL != nil {
		cur, err := s.store.Endpoint(ctx, ch.ID)
		if err != nil {
			return Endpoint{}, notFoundAs(err, msgEndpointNotFound)
		}
		if !actor.Scope.Includes(cur.MerchantID) {
			return Endpoint{}, apperr.NotFound(msgEndpointNotFound)
		}
		if u := strings.TrimSpace(*ch.URL); u != cur.URL {
			if p := s.urlProblems(ctx, u); len(p) > 0 {
				return Endpoint{}, apperr.Invalid("%s", strings.Join(p, " "))
			}
		}
	}
	var out Endpoint
	err := s.store.Tx(ctx, func(tx Tx) error {
		old, err := tx.EndpointForUpdate(ctx, ch.ID)
		if err != nil {
			return notFoundAs(err, msgEndpointNotFound)
		}
		next := apply(old, ch)
		from, to, err := s.lockCollabs(ctx, tx, actor, old.CollabID, next.CollabID)
		if err != nil {
			return err
		}
		before, after, keys := diff(old, next)
		if len(keys) == 0 {
			out = old
			return nil
		}
		if from.ID != to.ID {
			if err := checkRoom(ctx, tx, to); err != nil {
				return err
			}
		}
		out, err = tx.UpdateEndpoint(ctx, next)
		if err != nil {
			return notFoundAs(err, msgEndpointNotFound)
		}
		changes := make([]string, len(keys))
		for i, k := range keys {
			changes[i] = fmt.Sprintf("%s %v → %v", k, before[k], after[k])
		}
		a := endpointActivity(to)
		a.Message = fmt.Sprintf("Validation endpoint %d of %s changed: %s.", out.ID, to.Name(), strings.Join(changes, ", "))
		if from.ID != to.ID {
			a.Message = fmt.Sprintf("Validation endpoint %d moved from %s to %s: %s.", out.ID, from.Name(), to.Name(), strings.Join(changes, ", "))
		}
		a.Channel = channelOfChange(old, out, keys)
		a.OldValue, a.NewValue = activity.Value(before), activity.Value(after)
		a.Count = int32(len(keys))
		if err := s.record(ctx, tx, actor, a); err != nil {
			return err
		}
		if from.ID != to.ID {
			// The collab it left keeps a trace too: its merchant may differ.
			left := endpointActivity(from)
			left.Message = a.Message
			left.Channel, left.OldValue, left.NewValue, left.Count = a.Channel, a.OldValue, a.NewValue, a.Count
			return s.record(ctx, tx, actor, left)
		}
		return nil
	})
	if err != nil {
		return Endpoint{}, err
	}
	return out, nil
}

// Delete removes an endpoint; the results it gave stay on their
// transactions. An endpoint outside the actor's scope, or unknown, is not
// found.
func (s *Service) Delete(ctx context.Context, actor activity.Actor, id int64) error {
	if id <= 0 {
		return apperr.NotFound(msgEndpointNotFound)
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		e, err := tx.EndpointForUpdate(ctx, id)
		if err != nil {
			return notFoundAs(err, msgEndpointNotFound)
		}
		c, err := tx.CollabForUpdate(ctx, e.CollabID)
		if err != nil {
			return fmt.Errorf("collab %d of validation endpoint %d: %w", e.CollabID, id, err)
		}
		if !actor.Scope.Includes(c.MerchantID) {
			return apperr.NotFound(msgEndpointNotFound)
		}
		if err := tx.DeleteEndpoint(ctx, id); err != nil {
			return notFoundAs(err, msgEndpointNotFound)
		}
		a := endpointActivity(c)
		a.Message = fmt.Sprintf("%s: validation endpoint %d removed from %s: %s (%s).", activity.SensitiveMarker, e.ID, c.Name(), e.URL, describe(e))
		a.SensitiveActionName = "Validation endpoint removed"
		a.Channel = channelOf(e)
		a.OldValue = activity.Value(values(e))
		return s.record(ctx, tx, actor, a)
	})
}

// lockCollab locks a collab within the actor's scope.
func (s *Service) lockCollab(ctx context.Context, tx Tx, actor activity.Actor, id int32) (Collab, error) {
	c, err := tx.CollabForUpdate(ctx, id)
	if err != nil {
		return Collab{}, notFoundAs(err, msgCollabNotFound)
	}
	if !actor.Scope.Includes(c.MerchantID) {
		return Collab{}, apperr.NotFound(msgCollabNotFound)
	}
	return c, nil
}

// lockCollabs locks an endpoint's collab and the one it moves to (the same
// one when it stays), in id order so that two moves cannot deadlock. The
// endpoint's own collab outside scope makes the endpoint not found.
func (s *Service) lockCollabs(ctx context.Context, tx Tx, actor activity.Actor, fromID, toID int32) (Collab, Collab, error) {
	ids := []int32{fromID, toID}
	slices.Sort(ids)
	ids = slices.Compact(ids)
	locked := map[int32]Collab{}
	for _, id := range ids {
		c, err := tx.CollabForUpdate(ctx, id)
		if err != nil {
			if id == fromID {
				return Collab{}, Collab{}, fmt.Errorf("collab %d of a validation endpoint: %w", id, err)
			}
			return Collab{}, Collab{}, notFoundAs(err, msgCollabNotFound)
		}
		locked[id] = c
	}
	from, to := locked[fromID], locked[toID]
	if !actor.Scope.Includes(from.MerchantID) {
		return Collab{}, Collab{}, apperr.NotFound(msgEndpointNotFound)
	}
	if !actor.Scope.Includes(to.MerchantID) {
		return Collab{}, Collab{}, apperr.NotFound(msgCollabNotFound)
	}
	return from, to, nil
}

// checkRoom refuses one more endpoint on a full collab.
func checkRoom(ctx context.Context, tx Tx, c Collab) error {
	n, err := tx.CountEndpoints(ctx, c.ID)
	if err != nil {
		return err
	}
	if n >= MaxEndpointsPerCollab {
		return apperr.FailedPrecondition("%s already has %d validation endpoints, the most a collaboration can have; remove one first.", c.Name(), n)
	}
	return nil
}

func priorityProblems(p int32) []string {
	switch {
	case p == 0:
		return []string{MsgPriorityRequired}
	case p < MinPriority || p > MaxPriority:
		return []string{MsgPriorityRange}
	}
	return nil
}

// urlProblems returns why the policy refuses raw, if it does.
func (s *Service) urlProblems(ctx context.Context, raw string) []string {
	if len(raw) > MaxURLLength {
		return []string{fmt.Sprintf("The endpoint URL must be at most %d characters.", MaxURLLength)}
	}
	if _, err := s.policy.CheckURL(ctx, raw); err != nil {
		var ae *apperr.Error
		if errors.As(err, &ae) && ae.Kind == apperr.KindInvalid {
			return []string{ae.Message}
		}
		return []string{"The endpoint URL could not be checked; try again."}
	}
	return nil
}

// apply returns e with the change's fields set.
func apply(e Endpoint, ch Change) Endpoint {
	if ch.CollabID != nil {
		e.CollabID = *ch.CollabID
	}
	if ch.URL != nil {
		e.URL = strings.TrimSpace(*ch.URL)
	}
	if ch.Priority != nil {
		e.Priority = *ch.Priority
	}
	for _, f := range []struct {
		dst *bool
		src *bool
	}{{&e.Awaitable, ch.Awaitable}, {&e.ForCashIn, ch.ForCashIn}, {&e.ForCashOut, ch.ForCashOut}} {
		if f.src != nil {
			*f.dst = *f.src
		}
	}
	return e
}

// sortedEndpoints returns endpoints ordered by priority, then id.
func sortedEndpoints(es []Endpoint) []Endpoint {
	out := slices.Clone(es)
	slices.SortStableFunc(out, func(a, b Endpoint) int {
		return cmp.Or(cmp.Compare(a.Priority, b.Priority), cmp.Compare(a.ID, b.ID))
	})
	return out
}

// notFoundAs replaces the message of a not-found error with msg and leaves
// other errors alone.
func notFoundAs(err error, msg string) error {
	if apperr.KindOf(err) == apperr.KindNotFound {
		return apperr.New(apperr.KindNotFound, err, "%s", msg)
	}
	return err
}
