// Package activity holds the gateway's activity journal: the entries that
// record who changed what, when and from where, with the values before and
// after (docs/contracts-providers.md, "Activity log"); the actor behind a
// change; the queries the log answers; and Record, which every change of
// the gateway's configuration calls to write its entry and queue its
// ActivityRecorded event in the change's own store transaction.
package activity

import (
	"context"
	"encoding/json"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// ActionType is the category of an activity log entry, as the console's
// filter names them.
type ActionType string

// The categories.
const (
	ActionCallbackURL        ActionType = "Callback URL"
	ActionValidationEndpoint ActionType = "Validation Endpoint"
	ActionLimits             ActionType = "Limits"
	ActionSettings           ActionType = "Settings"
	ActionCredentials        ActionType = "Credentials"
	ActionStatus             ActionType = "Status"
	ActionConfiguration      ActionType = "Configuration"
	ActionSensitive          ActionType = "Sensitive"
	ActionOther              ActionType = "Other"
)

// Markers the console classifies entries by (spec 01 §4).
const (
	// CriticalPrefix starts the message of a critical entry.
	CriticalPrefix = "ATTENTION: "
	// SensitiveMarker is contained in the message of a sensitive entry.
	SensitiveMarker = "Sensitive action performed"
)

// Channel names of activity entries.
const (
	ChannelCashIn  = "Cash In"
	ChannelCashOut = "Cash Out"
)

// Entry is one entry of the activity log: who changed what, when, from
// where, and the values before and after.
type Entry struct {
	// ID is the entry's id, given by the store.
	ID int64
	// At is when the change was made.
	At time.Time
	// UserID is the id of the user who made it (0 for the system).
	UserID int64
	// Username is that user's name.
	Username string
	// IP is the client's address.
	IP string
	// UserAgent is the client's user agent.
	UserAgent string
	// MerchantID is the merchant concerned (0 for none).
	MerchantID int32
	// MerchantName is its name at the time.
	MerchantName string
	// ProviderID is the provider concerned (0 for none).
	ProviderID int32
	// ProviderName is its name at the time.
	ProviderName string
	// CollabID is the collab concerned (0 for none).
	CollabID int32
	// PayTypeID is the pay type concerned (0 for none or several).
	PayTypeID int32
	// PayTypeName is its name.
	PayTypeName string
	// PayTypeCode is its code.
	PayTypeCode string
	// Channel is ChannelCashIn or ChannelCashOut when the change concerns one
	// direction only.
	Channel string
	// ActionType is the entry's category.
	ActionType ActionType
	// Message says what happened in a sentence.
	Message string
	// SensitiveActionName names a sensitive action.
	SensitiveActionName string
	// OldValue is the JSON of the values before, nil for none.
	OldValue json.RawMessage
	// NewValue is the JSON of the values after, nil for none.
	NewValue json.RawMessage
	// Reason says why, when given.
	Reason string
	// Count is how many values changed.
	Count int32
	// ConfirmationID is the id of the confirmation a sensitive change was
	// applied with ("" for none; docs/contracts-approvals.md).
	ConfirmationID string
	// Proofs is the JSON list of that confirmation's proofs, nil for none.
	Proofs json.RawMessage
}

// Confirmation is the confirmation a sensitive change is applied with: the
// entry that Record writes for the change carries it.
type Confirmation struct {
	// ID is the confirmation id (the token's jti).
	ID string
	// Action is the sensitive action's name.
	Action string
	// Reason is the reason the confirmation signed.
	Reason string
	// Proofs is the JSON list of its proofs.
	Proofs json.RawMessage
}

// ConfirmationSlot holds a change's confirmation in its context and says
// whether an entry carried it.
type ConfirmationSlot struct {
	c        Confirmation
	recorded atomic.Bool
}

// Recorded reports whether Record wrote an entry carrying the confirmation.
func (s *ConfirmationSlot) Recorded() bool { return s.recorded.Load() }

type confirmationKey struct{}

// WithConfirmation returns ctx carrying c: every entry Record writes with
// that context (the change's own entry, in the change's transaction)
// carries c's id, reason and proofs.
func WithConfirmation(ctx context.Context, c Confirmation) (context.Context, *ConfirmationSlot) {
	slot := &ConfirmationSlot{c: c}
	return context.WithValue(ctx, confirmationKey{}, slot), slot
}

// withConfirmation adds the confirmation of ctx, if any, to e.
func withConfirmation(ctx context.Context, e Entry) Entry {
	slot, ok := ctx.Value(confirmationKey{}).(*ConfirmationSlot)
	if !ok {
		return e
	}
	e.ConfirmationID, e.Proofs = slot.c.ID, slot.c.Proofs
	if e.Reason == "" {
		e.Reason = slot.c.Reason
	}
	if e.SensitiveActionName == "" {
		e.SensitiveActionName = slot.c.Action
	}
	return e
}

// IsCritical reports an entry whose message carries CriticalPrefix.
func (a Entry) IsCritical() bool {
	return strings.Contains(a.Message, strings.TrimSpace(CriticalPrefix))
}

// IsSensitive reports an entry whose message carries SensitiveMarker.
func (a Entry) IsSensitive() bool { return strings.Contains(a.Message, SensitiveMarker) }

// IsSystem reports an entry made by a background job: its user name contains
// background, job, system or auto.
func (a Entry) IsSystem() bool {
	name := strings.ToLower(a.Username)
	for _, w := range []string{"background", "job", "system", "auto"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// Stats counts entries by kind.
type Stats struct {
	// Total counts every entry.
	Total int
	// User counts entries made by people.
	User int
	// System counts entries made by background jobs.
	System int
	// Critical counts critical entries.
	Critical int
	// Sensitive counts sensitive entries.
	Sensitive int
}

// StatsOf counts entries by kind.
func StatsOf(entries []Entry) Stats {
	var s Stats
	for _, a := range entries {
		s.Total++
		if a.IsSystem() {
			s.System++
		} else {
			s.User++
		}
		if a.IsCritical() {
			s.Critical++
		}
		if a.IsSensitive() {
			s.Sensitive++
		}
	}
	return s
}

// Query bounds.
const (
	// DefaultLimit is the number of entries returned when none is asked.
	DefaultLimit = 100
	// MaxLimit is the most entries one query returns.
	MaxLimit = 5000
	// DefaultRange is the time range when no start is given.
	DefaultRange = 7 * 24 * time.Hour
)

// Request asks for activity log entries.
type Request struct {
	// MerchantID, when not 0, asks for one merchant's entries.
	MerchantID int32
	// CollabID, when not 0, asks for one collab's entries.
	CollabID int32
	// From is the start of the time range (inclusive); zero: DefaultRange before To.
	From time.Time
	// To is the end of the time range (inclusive); zero: now.
	To time.Time
	// Limit is the most entries to return; 0: DefaultLimit.
	Limit int
}

// Query is what the store reads: a Request with its defaults applied and
// the caller's scope.
type Query struct {
	// Scope limits the merchants; entries without a merchant are only in a
	// global scope.
	Scope merchant.Scope
	// MerchantID, when not 0, selects one merchant's entries.
	MerchantID int32
	// CollabID, when not 0, selects one collab's entries.
	CollabID int32
	// From and To bound the entries' time, both inclusive.
	From, To time.Time
	// Limit is the most entries to return.
	Limit int
}

// Query validates r and applies its defaults for a caller with scope at
// now. Errors are invalid.
func (r Request) Query(scope merchant.Scope, now time.Time) (Query, error) {
	q := Query{Scope: scope, MerchantID: r.MerchantID, CollabID: r.CollabID, From: r.From, To: r.To, Limit: r.Limit}
	if q.To.IsZero() {
		q.To = now
	}
	if q.From.IsZero() {
		q.From = q.To.Add(-DefaultRange)
	}
	if q.From.After(q.To) {
		return q, apperr.Invalid("The start of the time range (from) must not be after its end (to).")
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultLimit
	case q.Limit < 0 || q.Limit > MaxLimit:
		return q, apperr.Invalid("The limit must be from 1 to %d.", MaxLimit)
	}
	if q.CollabID < 0 || q.MerchantID < 0 {
		return q, apperr.Invalid("Ids must be positive numbers.")
	}
	return q, nil
}

// Actor is the person (or job) behind a call: who they are for the activity
// log, where they called from, and which merchants they may see.
type Actor struct {
	// UserID is the user's id.
	UserID int64
	// Username is the user's name.
	Username string
	// IP is the client's address.
	IP string
	// UserAgent is the client's user agent.
	UserAgent string
	// Scope is the set of merchants the user may see and change.
	Scope merchant.Scope
}

// Journal is where a change writes its entry: the store transaction of the
// change, so that the entry and its event commit with it or not at all.
type Journal interface {
	// InsertActivity stores an activity log entry and returns its id.
	InsertActivity(ctx context.Context, e Entry) (int64, error)
	// Publish queues an event to leave with this transaction (outbox).
	Publish(ctx context.Context, event proto.Message) error
}

// Record writes the entry e, made by actor at at, to j and queues its
// ActivityRecorded event there. An entry without an action type is Other.
// Made for a confirmed sensitive change (WithConfirmation), the entry
// carries the confirmation's id, reason and proofs.
func Record(ctx context.Context, j Journal, actor Actor, e Entry, at time.Time) error {
	e = withConfirmation(ctx, e)
	e.At = at
	e.UserID, e.Username, e.IP, e.UserAgent = actor.UserID, actor.Username, actor.IP, actor.UserAgent
	if e.ActionType == "" {
		e.ActionType = ActionOther
	}
	id, err := j.InsertActivity(ctx, e)
	if err != nil {
		return err
	}
	if slot, ok := ctx.Value(confirmationKey{}).(*ConfirmationSlot); ok {
		slot.recorded.Store(true)
	}
	e.ID = id
	return j.Publish(ctx, Event(e))
}

// Event returns the event that announces entry e.
func Event(e Entry) *eventsv1.ActivityRecorded {
	text := func(v []byte) string {
		if v == nil {
			return "null"
		}
		return string(v)
	}
	return &eventsv1.ActivityRecorded{
		ActivityId:          e.ID,
		RecordedAt:          timestamppb.New(e.At),
		UserId:              e.UserID,
		Username:            e.Username,
		Ip:                  e.IP,
		UserAgent:           e.UserAgent,
		MerchantId:          e.MerchantID,
		ProviderId:          e.ProviderID,
		CollabId:            e.CollabID,
		PayTypeId:           e.PayTypeID,
		Channel:             e.Channel,
		ActionType:          string(e.ActionType),
		Message:             e.Message,
		SensitiveActionName: e.SensitiveActionName,
		OldValue:            text(e.OldValue),
		NewValue:            text(e.NewValue),
		Reason:              e.Reason,
	}
}

// Value marshals an entry's values (maps and slices of strings, numbers and
// booleans, which always marshal); nil stays nil.
func Value(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		panic("activity: marshal an entry's value: " + err.Error())
	}
	return b
}
