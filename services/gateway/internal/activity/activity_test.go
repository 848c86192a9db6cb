package activity

import (
	"context"
	"reflect"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

func TestActivityRequest(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 11, 22, 8, 0, 0, 0, time.UTC)
	scope := merchant.Scope{MerchantIDs: []int32{1}}
	q, err := Request{}.Query(scope, now)
	if err != nil || !q.To.Equal(now) || !q.From.Equal(now.Add(-7*24*time.Hour)) || q.Limit != 100 || !reflect.DeepEqual(q.Scope, scope) {
		t.Errorf("defaults = %+v, %v", q, err)
	}
	from := now.Add(-time.Hour)
	q, err = Request{To: from}.Query(scope, now)
	if err != nil || !q.From.Equal(from.Add(-7*24*time.Hour)) {
		t.Errorf("from defaults to a week before to: %+v, %v", q, err)
	}
	for _, bad := range []Request{
		{From: now, To: from}, {Limit: -1}, {Limit: MaxLimit + 1}, {CollabID: -1},
	} {
		if _, err := bad.Query(scope, now); apperr.KindOf(err) != apperr.KindInvalid {
			t.Errorf("query(%+v) = %v, want invalid", bad, err)
		}
	}
	if q, err := (Request{Limit: MaxLimit}).Query(scope, now); err != nil || q.Limit != MaxLimit {
		t.Errorf("the largest limit: %+v, %v", q, err)
	}
}

func TestStats(t *testing.T) {
	t.Parallel()
	entries := []Entry{
		{Username: "alice", Message: "Limits changed."},
		{Username: "Background Worker", Message: "ATTENTION: provider X disabled."},
		{Username: "auto-reconciler", Message: "Sensitive action performed: pay types removed."},
		{Username: "bob", Message: "ATTENTION: maintenance; Sensitive action performed"},
		{Username: "nightly-job", Message: "done"},
		{Username: "SYSTEM", Message: "done"},
	}
	want := Stats{Total: 6, User: 2, System: 4, Critical: 2, Sensitive: 2}
	if got := StatsOf(entries); got != want {
		t.Errorf("Stats = %+v, want %+v", got, want)
	}
}

type journal struct{ entries []Entry }

func (j *journal) InsertActivity(_ context.Context, e Entry) (int64, error) {
	j.entries = append(j.entries, e)
	return int64(len(j.entries)), nil
}

func (j *journal) Publish(context.Context, proto.Message) error { return nil }

func TestRecordCarriesTheConfirmation(t *testing.T) {
	t.Parallel()
	j := &journal{}
	now := time.Now()
	if err := Record(context.Background(), j, Actor{UserID: 1}, Entry{Message: "plain"}, now); err != nil {
		t.Fatal(err)
	}
	ctx, slot := WithConfirmation(context.Background(), Confirmation{ID: "c1", Action: "fee.update", Reason: "audit", Proofs: []byte(`[{"kind":"totp"}]`)})
	if slot.Recorded() {
		t.Fatal("recorded before any entry")
	}
	if err := Record(ctx, j, Actor{UserID: 1}, Entry{Message: "Fee 1 updated."}, now); err != nil {
		t.Fatal(err)
	}
	if !slot.Recorded() {
		t.Error("the slot does not know its entry was written")
	}
	plain, confirmed := j.entries[0], j.entries[1]
	if plain.ConfirmationID != "" || plain.Proofs != nil {
		t.Errorf("an unconfirmed entry carries %+v", plain)
	}
	if confirmed.ConfirmationID != "c1" || confirmed.Reason != "audit" || confirmed.SensitiveActionName != "fee.update" ||
		string(confirmed.Proofs) != `[{"kind":"totp"}]` {
		t.Errorf("confirmed entry = %+v", confirmed)
	}
}
