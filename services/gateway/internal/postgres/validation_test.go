package postgres_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// TestValidations checks the validation store against Postgres: endpoints
// with their activity entries and events in one transaction, results in the
// order asked, answers that do not override an operator, the progress a
// Not Confirmed transaction gets from an answer, and results that outlive
// their endpoint.
func TestValidations(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	v := postgres.NewValidations(pool)
	var collabID, otherCollab int32
	if err := pool.QueryRow(ctx, `SELECT min(id), max(id) FROM collabs`).Scan(&collabID, &otherCollab); err != nil {
		t.Fatal(err)
	}
	count := func(sql string, args ...any) int {
		t.Helper()
		var n int
		if err := pool.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Endpoints: a write and its activity entry and event commit together…
	var e1, e2 validation.Endpoint
	err := v.Tx(ctx, func(tx validation.Tx) error {
		c, err := tx.CollabForUpdate(ctx, collabID)
		if err != nil {
			return err
		}
		if e1, err = tx.InsertEndpoint(ctx, validation.Endpoint{CollabID: collabID, URL: "https://a.example/v", Priority: 20, Awaitable: true, ForCashIn: true}); err != nil {
			return err
		}
		if e2, err = tx.InsertEndpoint(ctx, validation.Endpoint{CollabID: collabID, URL: "https://b.example/v", Priority: 10, ForCashOut: true}); err != nil {
			return err
		}
		if _, err := tx.InsertActivity(ctx, activity.Entry{At: time.Now(), CollabID: c.ID, MerchantID: c.MerchantID,
			ActionType: activity.ActionValidationEndpoint, Message: "added"}); err != nil {
			return err
		}
		return tx.Publish(ctx, &eventsv1.ActivityRecorded{Message: "added"})
	})
	if err != nil {
		t.Fatal(err)
	}
	if e1.ID == 0 || e1.MerchantID == 0 || e1.Priority != 20 || !e1.Awaitable || !e1.ForCashIn || e1.ForCashOut || e1.CreatedAt.IsZero() {
		t.Errorf("inserted %+v", e1)
	}
	es, err := v.Endpoints(ctx, collabID)
	if err != nil || len(es) != 2 || es[0].ID != e2.ID || es[1].ID != e1.ID {
		t.Fatalf("Endpoints = %+v, %v; want by priority", es, err)
	}
	if n := count(`SELECT count(*) FROM activity_log WHERE action_type = 'Validation Endpoint'`); n != 1 {
		t.Errorf("%d activity entries", n)
	}
	if n := count(`SELECT count(*) FROM outbox WHERE subject = $1`, bus.Subject(&eventsv1.ActivityRecorded{})); n != 1 {
		t.Errorf("%d outbox events", n)
	}
	// …and roll back together.
	err = v.Tx(ctx, func(tx validation.Tx) error {
		if _, err := tx.InsertEndpoint(ctx, validation.Endpoint{CollabID: collabID, URL: "https://c.example/v", Priority: 1}); err != nil {
			return err
		}
		return apperr.Invalid("refused")
	})
	if apperr.KindOf(err) != apperr.KindInvalid || count(`SELECT count(*) FROM validation_endpoints`) != 2 {
		t.Errorf("a failed change left rows: %v", err)
	}
	err = v.Tx(ctx, func(tx validation.Tx) error {
		_, err := tx.InsertEndpoint(ctx, validation.Endpoint{CollabID: collabID, URL: "https://c.example/v", Priority: 101})
		return err
	})
	if apperr.KindOf(err) != apperr.KindInvalid {
		t.Errorf("priority 101 in the database: %v, want invalid", err)
	}
	err = v.Tx(ctx, func(tx validation.Tx) error {
		e := e2
		e.CollabID, e.Priority = otherCollab, 3
		got, err := tx.UpdateEndpoint(ctx, e)
		if err != nil || got.CollabID != otherCollab || got.Priority != 3 {
			t.Errorf("UpdateEndpoint = %+v, %v", got, err)
		}
		if n, err := tx.CountEndpoints(ctx, collabID); err != nil || n != 1 {
			t.Errorf("CountEndpoints = %d, %v", n, err)
		}
		if _, err := tx.UpdateEndpoint(ctx, validation.Endpoint{ID: 999, CollabID: collabID, URL: "x", Priority: 1}); apperr.KindOf(err) != apperr.KindNotFound {
			t.Errorf("update of an unknown endpoint: %v", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}

	// Results.
	pay := postgres.NewPayments(pool)
	tx := newTransaction(ctx, t, pool, pay, "validated")
	at := time.Now().UTC().Truncate(time.Microsecond)
	old := at.Add(-time.Hour)
	if _, err := pool.Exec(ctx, `UPDATE transactions SET updated_at = $2 WHERE id = $1`, tx.ID, old); err != nil {
		t.Fatal(err)
	}
	pending := validation.Pending([]validation.Endpoint{e1, e2}, true)
	entry := payment.LogEntry{TransactionID: tx.ID, At: at, Stage: payment.StageInitialization, Level: payment.LevelInfo, Message: "to ask"}
	rs, err := v.CreateResults(ctx, tx.ID, pending, at, []payment.LogEntry{entry})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) != 1 || rs[0].EndpointID != e1.ID || rs[0].URL != e1.URL || rs[0].Priority != 20 || !rs[0].Awaitable ||
		rs[0].Status != validation.StatusPending || rs[0].TransactionID != tx.ID || !rs[0].UpdatedAt.Equal(at) {
		t.Fatalf("created %+v", rs)
	}
	r := rs[0]

	answer := func(status validation.Status, onlyPending bool, msg string) validation.Result {
		t.Helper()
		got, err := v.RecordAnswer(ctx, payment.Answer{ResultID: r.ID, TransactionID: tx.ID, Status: status, ResponseCode: 200,
			Message: msg, At: at, OnlyPending: onlyPending, Logs: []payment.LogEntry{{TransactionID: tx.ID, At: at,
				Stage: payment.StageAPIResponse, Level: payment.LevelInfo, Message: msg}}})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	got := answer(validation.StatusFailed, true, "declined")
	if got.Status != validation.StatusFailed || got.Attempts != 1 || got.ResponseCode != 200 || got.Message != "declined" {
		t.Errorf("after the answer %+v", got)
	}
	var updated time.Time
	if err := pool.QueryRow(ctx, `SELECT updated_at FROM transactions WHERE id = $1`, tx.ID).Scan(&updated); err != nil || !updated.Equal(at) {
		t.Errorf("a Not Confirmed transaction's updated_at is %v, want the answer's time %v (progress)", updated, at)
	}
	// An answer does not override a decided result, but counts the attempt.
	if got := answer(validation.StatusSuccess, true, "late"); got.Status != validation.StatusFailed || got.Message != "declined" || got.Attempts != 2 {
		t.Errorf("a late answer changed a decided result: %+v", got)
	}
	// A retry does.
	if got := answer(validation.StatusSuccess, false, "approved"); got.Status != validation.StatusSuccess || got.Message != "approved" || got.Attempts != 3 {
		t.Errorf("a retry's answer: %+v", got)
	}
	set, err := v.SetResultStatus(ctx, r.ID, validation.StatusFailed, at, []payment.LogEntry{{TransactionID: tx.ID, At: at,
		Stage: payment.StageUIUpdate, Level: payment.LevelInfo, Message: "set"}})
	if err != nil || set.Status != validation.StatusFailed || set.Attempts != 3 {
		t.Errorf("SetResultStatus = %+v, %v", set, err)
	}
	if _, err := v.SetResultStatus(ctx, 999, validation.StatusFailed, at, nil); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("set of an unknown result: %v", err)
	}
	if _, err := v.Result(ctx, 999); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("unknown result: %v", err)
	}
	if n := count(`SELECT count(*) FROM transaction_logs WHERE transaction_id = $1`, tx.ID); n != 5 {
		t.Errorf("%d journal entries, want 5 (plan, 3 answers, set)", n)
	}

	// A final transaction is not touched by an answer.
	if _, err := pool.Exec(ctx, `UPDATE transactions SET status = 4, updated_at = $2 WHERE id = $1`, tx.ID, old); err != nil {
		t.Fatal(err)
	}
	answer(validation.StatusSuccess, false, "again")
	if err := pool.QueryRow(ctx, `SELECT updated_at FROM transactions WHERE id = $1`, tx.ID).Scan(&updated); err != nil || !updated.Equal(old) {
		t.Errorf("a final transaction's updated_at moved to %v", updated)
	}

	// Results outlive their endpoint.
	if err := v.Tx(ctx, func(tx validation.Tx) error { return tx.DeleteEndpoint(ctx, e1.ID) }); err != nil {
		t.Fatal(err)
	}
	if err := v.Tx(ctx, func(tx validation.Tx) error { return tx.DeleteEndpoint(ctx, e1.ID) }); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("second delete: %v", err)
	}
	after, err := v.Results(ctx, tx.ID)
	if err != nil || len(after) != 1 || after[0].EndpointID != 0 || after[0].URL != e1.URL || !after[0].Awaitable || after[0].Priority != 20 {
		t.Errorf("after the endpoint's deletion: %+v, %v", after, err)
	}
}

// newTransaction creates a Not Confirmed transaction of the first demo collab.
func newTransaction(ctx context.Context, t *testing.T, pool *pgxpool.Pool, pay *postgres.Payments, nonce string) payment.Transaction {
	t.Helper()
	var base payment.Transaction
	if err := pool.QueryRow(ctx, `SELECT c.id, c.merchant_id, c.provider_id, p.pay_type_id FROM collabs c
		JOIN collab_pay_types p ON p.collab_id = c.id ORDER BY c.id, p.id LIMIT 1`).
		Scan(&base.CollabID, &base.MerchantID, &base.ProviderID, &base.PayTypeID); err != nil {
		t.Fatal(err)
	}
	amount, err := payment.ParseAmount("10.00")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	base.ReferenceID, base.Nonce, base.Amount, base.Currency = "REF-"+nonce, nonce, amount, "PHP"
	base.DestinationAmount, base.DestinationCurrency, base.Type = amount, "PHP", payment.TypeDeposit
	base.Status, base.AccountData, base.CreatedAt, base.UpdatedAt = payment.StatusNotConfirmed, map[string]any{}, now, now
	base.ProviderTags = []string{}
	created, err := pay.Create(ctx, base, nil, func(payment.Transaction) []proto.Message { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return created
}
