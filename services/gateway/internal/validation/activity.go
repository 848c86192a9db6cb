package validation

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
)

// Keys of an endpoint's values in activity entries (the collab settings'
// PascalCase).
const (
	keyCollabID   = "CollabId"
	keyURL        = "Url"
	keyPriority   = "Priority"
	keyAwaitable  = "Awaitable"
	keyForCashIn  = "ForCashIn"
	keyForCashOut = "ForCashOut"
)

// keyOrder is the order of changes in a message.
var keyOrder = []string{keyCollabID, keyURL, keyPriority, keyAwaitable, keyForCashIn, keyForCashOut}

// values describes an endpoint for an activity entry.
func values(e Endpoint) map[string]any {
	return map[string]any{
		"Id": e.ID, keyCollabID: e.CollabID, keyURL: e.URL, keyPriority: e.Priority,
		keyAwaitable: e.Awaitable, keyForCashIn: e.ForCashIn, keyForCashOut: e.ForCashOut,
	}
}

// diff returns the values that differ between two states of an endpoint and
// their keys in message order.
func diff(before, after Endpoint) (map[string]any, map[string]any, []string) {
	b, a := values(before), values(after)
	old, neu := map[string]any{}, map[string]any{}
	var keys []string
	for _, k := range keyOrder {
		if b[k] != a[k] {
			old[k], neu[k] = b[k], a[k]
			keys = append(keys, k)
		}
	}
	return old, neu, keys
}

// describe lists an endpoint's settings for a message: "priority 1,
// awaitable, cash in".
func describe(e Endpoint) string {
	parts := []string{"priority " + strconv.Itoa(int(e.Priority))}
	if e.Awaitable {
		parts = append(parts, "awaitable")
	} else {
		parts = append(parts, "not awaitable")
	}
	switch {
	case e.ForCashIn && e.ForCashOut:
		parts = append(parts, "cash in and cash out")
	case e.ForCashIn:
		parts = append(parts, "cash in")
	case e.ForCashOut:
		parts = append(parts, "cash out")
	default:
		parts = append(parts, "no direction")
	}
	return strings.Join(parts, ", ")
}

// channelOf is the channel an endpoint concerns when it checks one direction
// only.
func channelOf(e Endpoint) string {
	switch {
	case e.ForCashIn && !e.ForCashOut:
		return activity.ChannelCashIn
	case e.ForCashOut && !e.ForCashIn:
		return activity.ChannelCashOut
	}
	return ""
}

// channelOfChange is the channel a change concerns: the one direction whose
// switch alone changed, else the endpoint's own channel when it is the same
// before and after.
func channelOfChange(before, after Endpoint, keys []string) string {
	if len(keys) == 1 {
		switch keys[0] {
		case keyForCashIn:
			return activity.ChannelCashIn
		case keyForCashOut:
			return activity.ChannelCashOut
		}
	}
	if c := channelOf(before); c == channelOf(after) {
		return c
	}
	return ""
}

// endpointActivity starts an entry about an endpoint of c.
func endpointActivity(c Collab) activity.Entry {
	return activity.Entry{
		MerchantID: c.MerchantID, MerchantName: c.MerchantName,
		ProviderID: c.ProviderID, ProviderName: c.ProviderName,
		CollabID: c.ID, ActionType: activity.ActionValidationEndpoint, Count: 1,
	}
}

// record writes the activity entry a, made by actor now, and queues its
// ActivityRecorded event in tx.
func (s *Service) record(ctx context.Context, tx Tx, actor activity.Actor, a activity.Entry) error {
	return activity.Record(ctx, tx, actor, a, s.now().UTC().Truncate(time.Microsecond))
}
