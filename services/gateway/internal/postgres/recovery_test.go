package postgres_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// TestClaimRecoveries checks the sweep's selection (Not Confirmed, older than
// the grace period, attempts left) and that the attempt limit holds across
// sweeps.
func TestClaimRecoveries(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	pay := postgres.NewPayments(pool)
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
	add := func(name string, status payment.Status, age time.Duration, attempts int) int64 {
		t.Helper()
		tx := base
		tx.ReferenceID, tx.Nonce, tx.Amount, tx.Currency = "REF-"+name, name, amount, "PHP"
		tx.DestinationAmount, tx.DestinationCurrency, tx.Type = amount, "PHP", payment.TypeDeposit
		tx.Status, tx.AccountData, tx.CreatedAt, tx.UpdatedAt = payment.StatusNotConfirmed, map[string]any{}, now, now
		tx.ProviderTags = []string{}
		created, err := pay.Create(ctx, tx, nil, func(payment.Transaction) []proto.Message { return nil })
		if err != nil {
			t.Fatalf("create %s: %v", name, err)
		}
		if _, err := pool.Exec(ctx, `UPDATE transactions SET status = $2, updated_at = $3, recovery_attempts = $4 WHERE id = $1`,
			created.ID, status, now.Add(-age), attempts); err != nil {
			t.Fatal(err)
		}
		return created.ID
	}
	stranded := add("stranded", payment.StatusNotConfirmed, 10*time.Minute, 0)
	add("in-flight", payment.StatusNotConfirmed, time.Second, 0)
	add("pending", payment.StatusPending, 10*time.Minute, 0)
	add("exhausted", payment.StatusNotConfirmed, 10*time.Minute, 1)

	entry := func(tx payment.Transaction, attempt int32) payment.LogEntry {
		return payment.LogEntry{At: now, Stage: payment.StageInitialization, Level: payment.LevelWarning,
			Message: fmt.Sprintf("recovery %d of %s", attempt, tx.ReferenceID)}
	}
	got, err := pay.ClaimRecoveries(ctx, now.Add(-time.Minute), 10, 1, entry)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0].Transaction.ID != stranded || got[0].Attempt != 1 {
		t.Fatalf("claimed %+v, want only transaction %d at attempt 1", got, stranded)
	}
	logs, err := pay.Logs(ctx, stranded)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 1 || logs[0].Message != "recovery 1 of REF-stranded" {
		t.Errorf("journal %+v, want the recovery entry", logs)
	}
	// The attempt is spent: a later sweep (after a crash) leaves it alone…
	if again, err := pay.ClaimRecoveries(ctx, now.Add(-time.Minute), 10, 1, entry); err != nil || len(again) != 0 {
		t.Fatalf("second sweep claimed %+v (%v), want nothing", again, err)
	}
	// …unless more attempts are allowed.
	more, err := pay.ClaimRecoveries(ctx, now.Add(-time.Minute), 10, 2, entry)
	if err != nil {
		t.Fatal(err)
	}
	if len(more) != 2 {
		t.Fatalf("sweep with 2 attempts claimed %d transactions, want stranded and exhausted", len(more))
	}
	for _, r := range more {
		if r.Attempt != 2 {
			t.Errorf("transaction %d claimed at attempt %d, want 2", r.Transaction.ID, r.Attempt)
		}
	}
	// A restart back to Not Confirmed gives the transaction its attempts back.
	if _, err := pool.Exec(ctx, `UPDATE transactions SET status = 3 WHERE id = $1`, stranded); err != nil {
		t.Fatal(err)
	}
	if _, err := pay.ChangeStatus(ctx, payment.StatusChange{ID: stranded, From: payment.StatusPending,
		To: payment.StatusNotConfirmed, Message: "restart", At: now.Add(-time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if back, err := pay.ClaimRecoveries(ctx, now.Add(-time.Minute), 10, 1, entry); err != nil || len(back) != 1 || back[0].Transaction.ID != stranded {
		t.Fatalf("after a restart the sweep claimed %+v (%v), want transaction %d", back, err, stranded)
	}
}
