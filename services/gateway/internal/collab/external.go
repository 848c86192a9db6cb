package collab

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// CallbackURLChange is a change to a callback URL, as the callbacks service
// (which owns callback URLs) announces it; the gateway writes it to its
// activity log once per ChangeID.
type CallbackURLChange struct {
	// ChangeID is unique per change.
	ChangeID string
	// Action is Created, Updated or Deleted.
	Action string
	// CallbackID is the callback URL's id.
	CallbackID int64
	// CollabID is the collab after the change.
	CollabID int32
	// Actor made the change (its Scope is unused).
	Actor activity.Actor
	// OldValue and NewValue are the callback URL before and after, as JSON
	// ("null" or empty for none).
	OldValue, NewValue string
	// At is when the change was made.
	At time.Time
}

// RecordCallbackURLChange writes ch to the activity log with its
// ActivityRecorded event; a change already recorded is skipped, so the
// event carrying it may be delivered any number of times.
func (s *Service) RecordCallbackURLChange(ctx context.Context, ch CallbackURLChange) error {
	if ch.ChangeID == "" {
		return apperr.Invalid("A callback URL change needs its change id.")
	}
	c, err := s.store.Collab(ctx, ch.CollabID)
	if err != nil && apperr.KindOf(err) != apperr.KindNotFound {
		return fmt.Errorf("collab %d of callback URL %d: %w", ch.CollabID, ch.CallbackID, err)
	}
	a := activity.Entry{CollabID: ch.CollabID, ActionType: activity.ActionCallbackURL}
	name := fmt.Sprintf("collab %d", ch.CollabID)
	if err == nil {
		a = collabActivity(c, activity.ActionCallbackURL)
		name = c.Name()
	}
	a.OldValue, a.NewValue = rawJSON(ch.OldValue), rawJSON(ch.NewValue)
	url := callbackURLOf(a.NewValue)
	if url == "" {
		url = callbackURLOf(a.OldValue)
	}
	switch ch.Action {
	case "Created":
		a.Message = fmt.Sprintf("Callback URL %d (%s) added to %s.", ch.CallbackID, url, name)
	case "Deleted":
		a.Message = fmt.Sprintf("Callback URL %d (%s) deleted from %s.", ch.CallbackID, url, name)
	default:
		a.Message = fmt.Sprintf("Callback URL %d (%s) of %s changed.", ch.CallbackID, url, name)
	}
	at := ch.At.UTC().Truncate(time.Microsecond)
	if ch.At.IsZero() {
		at = s.stamp()
	}
	return s.store.Tx(ctx, func(tx Tx) error {
		fresh, err := tx.MarkConsumed(ctx, "callback_url_changed:"+ch.ChangeID)
		if err != nil || !fresh {
			return err
		}
		return s.recordAt(ctx, tx, ch.Actor, a, at)
	})
}

// rawJSON returns v as raw JSON, nil for none or text that is not JSON.
func rawJSON(v string) json.RawMessage {
	if v == "" || v == "null" || !json.Valid([]byte(v)) {
		return nil
	}
	return json.RawMessage(v)
}

// callbackURLOf reads the callbackUrl of a callback URL's JSON.
func callbackURLOf(v json.RawMessage) string {
	var cb struct {
		CallbackURL string `json:"callbackUrl"`
	}
	if v == nil || json.Unmarshal(v, &cb) != nil {
		return ""
	}
	return cb.CallbackURL
}
