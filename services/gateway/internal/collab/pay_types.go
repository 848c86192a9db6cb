package collab

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// NewPayType is a pay type to add to a collab.
type NewPayType struct {
	// PayTypeChannels are its id and switches (nil: what it supports).
	PayTypeChannels
	// Limits are its limits; nil amounts are none.
	Limits LimitsChange
}

// AddPayTypes adds pay types of the collab's provider to a collab and returns
// the collab afterwards. A pay type the provider does not offer, a direction
// it lacks, bad limits or an empty list are invalid; a pay type already on
// the collab is a conflict; a collab outside the actor's scope is not found.
func (s *Service) AddPayTypes(ctx context.Context, actor activity.Actor, collabID int32, add []NewPayType) (Collab, error) {
	if len(add) == 0 {
		return Collab{}, apperr.Invalid("Choose a pay type to add.")
	}
	return s.changeCollab(ctx, actor, collabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		p, err := tx.Provider(ctx, c.Provider.ID)
		if err != nil {
			return nil, err
		}
		var added []CollabPayType
		seen := map[int32]bool{}
		for _, n := range add {
			ppt, ok := p.PayType(n.PayTypeID)
			if !ok {
				return nil, apperr.Invalid("%s does not offer pay type %d.", p.Name, n.PayTypeID)
			}
			if seen[n.PayTypeID] {
				return nil, apperr.Invalid("%s is listed twice.", ppt.Label())
			}
			seen[n.PayTypeID] = true
			if _, on := c.payType(n.PayTypeID); on {
				return nil, apperr.Conflict("%s is already on this collaboration.", ppt.Label())
			}
			off := CollabPayType{ProviderPayType: ppt}
			pt := off
			pt.IsCashInEnabled = ppt.CashIn && c.Provider.SupportsCashIn
			pt.IsCashOutEnabled = ppt.CashOut && c.Provider.SupportsCashOut
			if n.IsCashInEnabled != nil {
				pt.IsCashInEnabled = *n.IsCashInEnabled
			}
			if n.IsCashOutEnabled != nil {
				pt.IsCashOutEnabled = *n.IsCashOutEnabled
			}
			if err := checkPayTypeDirections(c.Provider, off, pt); err != nil {
				return nil, err
			}
			if pt.Limits, err = (Limits{}).Apply(n.Limits); err != nil {
				return nil, err
			}
			added = append(added, pt)
		}
		if err := tx.InsertCollabPayTypes(ctx, c.ID, c.Provider.ID, added); err != nil {
			if apperr.KindOf(err) == apperr.KindConflict {
				return nil, apperr.New(apperr.KindConflict, err, "A pay type is already on this collaboration. Reload and try again.")
			}
			return nil, err
		}
		a := collabActivity(c, activity.ActionConfiguration)
		a.Message = fmt.Sprintf("Pay types added to %s: %s.", c.Name(), strings.Join(payTypeLabels(added), ", "))
		if len(added) == 1 {
			setPayType(&a, added[0].PayType)
		}
		a.NewValue = activity.Value(payTypeValues(added))
		a.Count = int32(len(added))
		return &a, nil
	})
}

// RemovePayTypes removes pay types from a collab and returns the collab
// afterwards. A pay type not on the collab or an empty list is invalid; a
// collab outside the actor's scope is not found.
func (s *Service) RemovePayTypes(ctx context.Context, actor activity.Actor, collabID int32, payTypeIDs []int32) (Collab, error) {
	if len(payTypeIDs) == 0 {
		return Collab{}, apperr.Invalid("Choose a pay type to remove.")
	}
	return s.changeCollab(ctx, actor, collabID, msgCollabNotFound, func(tx Tx, c Collab) (*activity.Entry, error) {
		var removed []CollabPayType
		var ids []int32
		for _, id := range payTypeIDs {
			if slices.Contains(ids, id) {
				continue
			}
			i, ok := c.payType(id)
			if !ok {
				return nil, apperr.Invalid("Pay type %d is not on this collaboration.", id)
			}
			removed = append(removed, c.PayTypes[i])
			ids = append(ids, id)
		}
		if err := tx.DeleteCollabPayTypes(ctx, c.ID, ids); err != nil {
			return nil, err
		}
		a := collabActivity(c, activity.ActionConfiguration)
		a.Message = fmt.Sprintf("%s: pay types removed from %s: %s.", activity.SensitiveMarker, c.Name(), strings.Join(payTypeLabels(removed), ", "))
		a.SensitiveActionName = "Pay type removed"
		if len(removed) == 1 {
			setPayType(&a, removed[0].PayType)
		}
		a.OldValue = activity.Value(payTypeValues(removed))
		a.Count = int32(len(removed))
		return &a, nil
	})
}

// setPayType names pt in entry a.
func setPayType(a *activity.Entry, pt PayType) {
	a.PayTypeID, a.PayTypeName, a.PayTypeCode = pt.ID, pt.Name, pt.Code
}

func payTypeLabels(pts []CollabPayType) []string {
	out := make([]string, len(pts))
	for i, pt := range pts {
		out[i] = pt.Label()
	}
	return out
}

// payTypeValues describes pay types for an activity entry's values.
func payTypeValues(pts []CollabPayType) []map[string]any {
	out := make([]map[string]any, len(pts))
	for i, pt := range pts {
		v := map[string]any{
			"PayTypeId":        pt.PayType.ID,
			"Name":             pt.Name,
			"Code":             pt.Code,
			"IsCashInEnabled":  pt.IsCashInEnabled,
			"IsCashOutEnabled": pt.IsCashOutEnabled,
		}
		for _, f := range pt.Limits.fields() {
			if f.amount.IsSet() {
				v[f.name] = f.amount.String()
			}
		}
		out[i] = v
	}
	return out
}
