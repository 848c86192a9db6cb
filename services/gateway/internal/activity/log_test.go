package activity_test

import (
	"context"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

type logStore struct {
	merchants map[int32]bool
	asked     []activity.Query
}

func (s *logStore) Activity(_ context.Context, q activity.Query) ([]activity.Entry, error) {
	s.asked = append(s.asked, q)
	return []activity.Entry{{Message: "m"}}, nil
}

func (s *logStore) MerchantExists(_ context.Context, id int32) (bool, error) {
	return s.merchants[id], nil
}

func TestLogKeepsToTheScope(t *testing.T) {
	t.Parallel()
	store := &logStore{merchants: map[int32]bool{1: true, 2: true}}
	log := activity.NewLog(store, time.Now)
	ctx := context.Background()
	mine := merchant.Scope{MerchantIDs: []int32{1}}
	if _, err := log.List(ctx, mine, activity.Request{MerchantID: 1}); err != nil {
		t.Fatalf("own merchant: %v", err)
	}
	for _, id := range []int32{2, 3} {
		_, err := log.List(ctx, mine, activity.Request{MerchantID: id})
		if e := apperr.As(err); e == nil || e.Kind != apperr.KindNotFound {
			t.Errorf("merchant %d: %v, want not found", id, err)
		}
	}
	if _, err := log.List(ctx, merchant.Scope{All: true}, activity.Request{MerchantID: 3}); apperr.As(err) == nil {
		t.Error("an unknown merchant was not refused for a global scope")
	}
	if len(store.asked) != 1 {
		t.Errorf("the log was read %d times, want once (refusals read nothing)", len(store.asked))
	}
}
