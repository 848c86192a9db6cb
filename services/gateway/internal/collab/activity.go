package collab

import (
	"encoding/json"
	"strings"
	"time"

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

// Activity is one entry of the activity log: who changed what, when, from
// where, and the values before and after.
type Activity struct {
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
}

// IsCritical reports an entry whose message carries CriticalPrefix.
func (a Activity) IsCritical() bool {
	return strings.Contains(a.Message, strings.TrimSpace(CriticalPrefix))
}

// IsSensitive reports an entry whose message carries SensitiveMarker.
func (a Activity) IsSensitive() bool { return strings.Contains(a.Message, SensitiveMarker) }

// IsSystem reports an entry made by a background job: its user name contains
// background, job, system or auto.
func (a Activity) IsSystem() bool {
	name := strings.ToLower(a.Username)
	for _, w := range []string{"background", "job", "system", "auto"} {
		if strings.Contains(name, w) {
			return true
		}
	}
	return false
}

// ActivityStats counts entries by kind.
type ActivityStats struct {
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

// Stats counts entries by kind.
func Stats(entries []Activity) ActivityStats {
	var s ActivityStats
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

// Activity query bounds.
const (
	// DefaultActivityLimit is the number of entries returned when none is asked.
	DefaultActivityLimit = 100
	// MaxActivityLimit is the most entries one query returns.
	MaxActivityLimit = 5000
	// DefaultActivityRange is the time range when no start is given.
	DefaultActivityRange = 7 * 24 * time.Hour
)

// ActivityRequest asks for activity log entries.
type ActivityRequest struct {
	// MerchantID, when not 0, asks for one merchant's entries.
	MerchantID int32
	// CollabID, when not 0, asks for one collab's entries.
	CollabID int32
	// From is the start of the time range (inclusive); zero: DefaultActivityRange before To.
	From time.Time
	// To is the end of the time range (inclusive); zero: now.
	To time.Time
	// Limit is the most entries to return; 0: DefaultActivityLimit.
	Limit int
}

// ActivityQuery is what the store reads: an ActivityRequest with its
// defaults applied and the caller's scope.
type ActivityQuery struct {
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

// query validates r and applies its defaults. Errors are invalid.
func (r ActivityRequest) query(scope merchant.Scope, now time.Time) (ActivityQuery, error) {
	q := ActivityQuery{Scope: scope, MerchantID: r.MerchantID, CollabID: r.CollabID, From: r.From, To: r.To, Limit: r.Limit}
	if q.To.IsZero() {
		q.To = now
	}
	if q.From.IsZero() {
		q.From = q.To.Add(-DefaultActivityRange)
	}
	if q.From.After(q.To) {
		return q, apperr.Invalid("The start of the time range (from) must not be after its end (to).")
	}
	switch {
	case q.Limit == 0:
		q.Limit = DefaultActivityLimit
	case q.Limit < 0 || q.Limit > MaxActivityLimit:
		return q, apperr.Invalid("The limit must be from 1 to %d.", MaxActivityLimit)
	}
	if q.CollabID < 0 || q.MerchantID < 0 {
		return q, apperr.Invalid("Ids must be positive numbers.")
	}
	return q, nil
}

// jsonValue marshals v for an activity entry; nil stays nil.
func jsonValue(v any) json.RawMessage {
	if v == nil {
		return nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		// The values are maps of strings and booleans, which always marshal.
		panic("collab: marshal activity value: " + err.Error())
	}
	return b
}
