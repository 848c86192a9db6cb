package collab

import (
	"context"
	"fmt"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
)

// Activity returns the activity log entries r asks for within scope, newest
// first. A merchant outside scope, or unknown, is not found; a bad range or
// limit is invalid.
func (s *Service) Activity(ctx context.Context, scope merchant.Scope, r activity.Request) ([]activity.Entry, error) {
	q, err := r.Query(scope, s.now())
	if err != nil {
		return nil, err
	}
	if q.MerchantID != 0 {
		if err := s.checkMerchant(ctx, scope, q.MerchantID); err != nil {
			return nil, err
		}
	}
	as, err := s.store.Activity(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return as, nil
}
