package activity

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// LogStore reads the activity log.
type LogStore interface {
	// Activity returns the entries q selects, newest first.
	Activity(ctx context.Context, q Query) ([]Entry, error)
	// MerchantExists reports whether merchant id exists.
	MerchantExists(ctx context.Context, id int32) (bool, error)
}

// Log reads the activity log (the Providers page's Recent Actions) within a
// caller's scope.
type Log struct {
	store LogStore
	now   func() time.Time
}

// NewLog returns the log on store with now the clock.
func NewLog(store LogStore, now func() time.Time) *Log {
	return &Log{store: store, now: now}
}

// msgMerchantNotFound answers a merchant outside the caller's scope and an
// unknown one alike, so that a scope cannot be probed.
const msgMerchantNotFound = "The merchant was not found."

// List returns the entries r asks for within scope, newest first. A merchant
// outside scope, or unknown, is not found; a bad range or limit is invalid.
func (l *Log) List(ctx context.Context, scope merchant.Scope, r Request) ([]Entry, error) {
	q, err := r.Query(scope, l.now())
	if err != nil {
		return nil, err
	}
	if q.MerchantID != 0 {
		if !scope.Includes(q.MerchantID) {
			return nil, apperr.NotFound(msgMerchantNotFound)
		}
		ok, err := l.store.MerchantExists(ctx, q.MerchantID)
		if err != nil {
			return nil, fmt.Errorf("look up merchant %d: %w", q.MerchantID, err)
		}
		if !ok {
			return nil, apperr.NotFound(msgMerchantNotFound)
		}
	}
	as, err := l.store.Activity(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return as, nil
}
