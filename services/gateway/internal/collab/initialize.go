package collab

import (
	"context"
	"fmt"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// NewCollab is what Initialize needs to create a collab.
type NewCollab struct {
	// ProviderID is the provider's id.
	ProviderID int32
	// MerchantID is the merchant's id.
	MerchantID int32
	// PayTypeIDs are the provider's pay types to put on the collab.
	PayTypeIDs []int32
	// PayTypeSettings set the switches of selected pay types.
	PayTypeSettings []PayTypeChannels
	// Settings are settings by key; the others take their defaults.
	Settings map[string]string
}

// Initialize creates the collab of a merchant with a provider and returns
// it. Settings left out take DefaultSettings, except that a direction the
// provider lacks starts off; pay type switches left out follow what the pay
// type supports. A merchant outside the actor's scope, or an unknown merchant
// or provider, is not found; a second collab of the same merchant and
// provider is a conflict; a pay type the provider does not offer, or a
// direction it lacks, is invalid.
func (s *Service) Initialize(ctx context.Context, actor activity.Actor, nc NewCollab) (Collab, error) {
	if nc.ProviderID <= 0 || nc.MerchantID <= 0 {
		return Collab{}, apperr.Invalid("Choose both a merchant and a provider.")
	}
	if !actor.Scope.Includes(nc.MerchantID) {
		return Collab{}, apperr.NotFound(msgMerchantNotFound)
	}
	var out Collab
	err := s.store.Tx(ctx, func(tx Tx) error {
		m, err := tx.Merchant(ctx, nc.MerchantID)
		if err != nil {
			return notFoundAs(err, msgMerchantNotFound)
		}
		p, err := tx.Provider(ctx, nc.ProviderID)
		if err != nil {
			return notFoundAs(err, msgProviderNotFound)
		}
		ref := ProviderRef{ID: p.ID, Name: p.Name, IsEnabled: p.IsEnabled, SupportsCashIn: p.SupportsCashIn, SupportsCashOut: p.SupportsCashOut}

		start := DefaultSettings()
		start.IsCashInEnabled, start.IsCashOutEnabled = p.SupportsCashIn, p.SupportsCashOut
		settings, _, err := start.Apply(nc.Settings)
		if err != nil {
			return err
		}
		if err := checkDirections(ref, start, settings); err != nil {
			return err
		}

		c := Collab{Merchant: m, Provider: ref, Settings: settings}
		for _, id := range nc.PayTypeIDs {
			if _, dup := c.payType(id); dup {
				continue
			}
			ppt, ok := p.PayType(id)
			if !ok {
				return apperr.Invalid("%s does not offer pay type %d.", p.Name, id)
			}
			c.PayTypes = append(c.PayTypes, CollabPayType{ProviderPayType: ppt})
		}
		initial := make([]CollabPayType, len(c.PayTypes))
		for i, pt := range c.PayTypes {
			// Start from "off" so that explicit switches are checked against
			// what the pay type supports; then default the rest to it.
			initial[i] = pt
			c.PayTypes[i].IsCashInEnabled = pt.CashIn && p.SupportsCashIn
			c.PayTypes[i].IsCashOutEnabled = pt.CashOut && p.SupportsCashOut
		}
		seen := map[int32]bool{}
		for _, ch := range nc.PayTypeSettings {
			i, ok := c.payType(ch.PayTypeID)
			if !ok {
				return apperr.Invalid("Pay type settings name pay type %d, which is not among the selected pay types.", ch.PayTypeID)
			}
			if seen[ch.PayTypeID] {
				return apperr.Invalid("Pay type %d is listed twice in the pay type settings.", ch.PayTypeID)
			}
			seen[ch.PayTypeID] = true
			pt := c.PayTypes[i]
			if ch.IsCashInEnabled != nil {
				pt.IsCashInEnabled = *ch.IsCashInEnabled
			}
			if ch.IsCashOutEnabled != nil {
				pt.IsCashOutEnabled = *ch.IsCashOutEnabled
			}
			if err := checkPayTypeDirections(ref, initial[i], pt); err != nil {
				return err
			}
			c.PayTypes[i] = pt
		}

		id, err := tx.InsertCollab(ctx, c)
		if apperr.KindOf(err) == apperr.KindConflict {
			return apperr.New(apperr.KindConflict, err, "%s already has a collaboration with %s.", m.Name, p.Name)
		}
		if err != nil {
			return err
		}
		c.ID = id
		if len(c.PayTypes) > 0 {
			if err := tx.InsertCollabPayTypes(ctx, c.ID, p.ID, c.PayTypes); err != nil {
				return err
			}
		}

		a := collabActivity(c, activity.ActionConfiguration)
		labels := payTypeLabels(c.PayTypes)
		if len(labels) == 0 {
			a.Message = fmt.Sprintf("Collaboration %s created without pay types.", c.Name())
		} else {
			a.Message = fmt.Sprintf("Collaboration %s created with pay types %s.", c.Name(), strings.Join(labels, ", "))
		}
		if len(c.PayTypes) == 1 {
			setPayType(&a, c.PayTypes[0].PayType)
		}
		a.NewValue = activity.Value(map[string]any{"Settings": c.Settings.Map(), "PayTypes": payTypeValues(c.PayTypes)})
		a.Count = 1
		if err := s.record(ctx, tx, actor, a); err != nil {
			return err
		}
		out, err = tx.CollabForUpdate(ctx, c.ID)
		return err
	})
	if err != nil {
		return Collab{}, err
	}
	return out, nil
}
