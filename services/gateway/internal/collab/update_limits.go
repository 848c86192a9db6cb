package collab

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// UpdateLimits changes a collab's limits and returns the collab afterwards.
// Negative amounts, or a minimum above its maximum once the change is
// applied, are invalid; a collab outside the actor's scope is not found.
func (s *Service) UpdateLimits(ctx context.Context, actor activity.Actor, collabID int32, ch LimitsChange) (Collab, error) {
	if collabID <= 0 {
		return Collab{}, apperr.Invalid("Give the collabId of the collaboration to change.")
	}
	return s.changeCollab(ctx, actor, collabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		next, err := c.Limits.Apply(ch)
		if err != nil {
			return nil, err
		}
		if next == c.Limits {
			return nil, nil
		}
		updated := c
		updated.Limits = next
		if err := tx.UpdateCollab(ctx, updated); err != nil {
			return nil, err
		}
		a := limitsActivity(collabActivity(c, activity.ActionLimits), "Limits of "+c.Name(), c.Limits, next)
		return &a, nil
	})
}

// UpdatePayTypeLimits changes the limits of one pay type of a collab and
// returns the collab afterwards. The rules are UpdateLimits'.
func (s *Service) UpdatePayTypeLimits(ctx context.Context, actor activity.Actor, collabPayTypeID int32, ch LimitsChange) (Collab, error) {
	if collabPayTypeID <= 0 {
		return Collab{}, apperr.Invalid("Give the collabPayTypeId of the pay type to change.")
	}
	lookup := func(ctx context.Context, tx Tx) (int32, error) {
		id, err := tx.CollabIDOfPayType(ctx, collabPayTypeID)
		return id, notFoundAs(err, msgCollabPayTypeNotFound)
	}
	return s.changeCollabBy(ctx, actor, lookup, msgCollabPayTypeNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		// The lookup ran before the lock: the pay type may have gone since.
		i := slices.IndexFunc(c.PayTypes, func(pt CollabPayType) bool { return pt.ID == collabPayTypeID })
		if i < 0 {
			return nil, apperr.NotFound(msgCollabPayTypeNotFound)
		}
		pt := c.PayTypes[i]
		next, err := pt.Limits.Apply(ch)
		if err != nil {
			return nil, err
		}
		if next == pt.Limits {
			return nil, nil
		}
		updated := pt
		updated.Limits = next
		if err := tx.UpdateCollabPayType(ctx, updated); err != nil {
			return nil, err
		}
		a := collabActivity(c, activity.ActionLimits)
		setPayType(&a, pt.PayType)
		a = limitsActivity(a, "Limits of "+pt.Label()+" on "+c.Name(), pt.Limits, next)
		return &a, nil
	})
}

// limitsActivity fills a limits entry: the message, values and channel.
func limitsActivity(a activity.Entry, subject string, before, after Limits) activity.Entry {
	old, neu, names := before.diff(after)
	var changes []string
	channels := map[string]bool{}
	for _, n := range names {
		changes = append(changes, fmt.Sprintf("%s %s → %s", n, show(old[n]), show(neu[n])))
		if strings.Contains(n, "Deposit") {
			channels[activity.ChannelCashIn] = true
		} else {
			channels[activity.ChannelCashOut] = true
		}
	}
	if len(channels) == 1 {
		for ch := range channels {
			a.Channel = ch
		}
	}
	a.Message = fmt.Sprintf("%s changed: %s.", subject, strings.Join(changes, ", "))
	a.OldValue, a.NewValue = activity.Value(old), activity.Value(neu)
	a.Count = int32(len(names))
	return a
}
