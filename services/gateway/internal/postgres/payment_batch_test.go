package postgres_test

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

// paymentFixture is a schema with the demo merchants, providers and collabs,
// and a transaction template on one of the collabs.
func paymentFixture(t *testing.T) (*pgxpool.Pool, payment.Transaction) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, _ := pgtest.Schema(t, postgres.Migrations)
	if err := postgres.NewStore(pool).SeedDemo(ctx); err != nil {
		t.Fatal(err)
	}
	var tx payment.Transaction
	err := pool.QueryRow(ctx, `
		SELECT c.id, c.merchant_id, c.provider_id, cpt.pay_type_id FROM collabs c
		JOIN collab_pay_types cpt ON cpt.collab_id = c.id ORDER BY c.id, cpt.id LIMIT 1`).
		Scan(&tx.CollabID, &tx.MerchantID, &tx.ProviderID, &tx.PayTypeID)
	if err != nil {
		t.Fatal(err)
	}
	amount, err := payment.ParseAmount("10.00")
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC().Truncate(time.Microsecond)
	tx.MerchantName, tx.ProviderName, tx.PayTypeName = "M", "P", "PT"
	tx.Type, tx.Status, tx.StatusMessage = payment.TypeDeposit, payment.StatusNotConfirmed, "Not Confirmed"
	tx.Amount, tx.DestinationAmount, tx.Currency, tx.DestinationCurrency = amount, amount, "PHP", "PHP"
	tx.AccountData, tx.ProviderTags, tx.CreatedAt, tx.UpdatedAt = map[string]any{"k": "v"}, []string{}, now, now
	return pool, tx
}

func created(after payment.Transaction) []proto.Message {
	return []proto.Message{&eventsv1.TransactionCreated{Transaction: &eventsv1.TransactionState{TransactionId: after.ID}}}
}

func count(t *testing.T, pool *pgxpool.Pool, sql string, args ...any) int {
	t.Helper()
	var n int
	if err := pool.QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return n
}

// Concurrent creations and status changes are written in batches, and each
// keeps its own outcome: its row, journal and event, a reused nonce
// refused alone, a change on a moved status refused alone.
func TestBatchedWrites(t *testing.T) {
	t.Parallel()
	pool, tmpl := paymentFixture(t)
	store := postgres.NewPayments(pool)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	const n = 40
	outs := make([]payment.Transaction, n+1)
	errs := make([]error, n+1)
	var wg sync.WaitGroup
	for i := range n + 1 {
		wg.Go(func() {
			tx := tmpl
			tx.ReferenceID = fmt.Sprintf("REF-%d", i)
			tx.Nonce = fmt.Sprintf("nonce-%d", min(i, n-1)) // the last two share a nonce
			logs := []payment.LogEntry{
				{Stage: payment.StageInitialization, Level: payment.LevelInfo, Message: "accepted", Content: map[string]any{"i": i}},
				{Stage: payment.StageCreation, Level: payment.LevelInfo, Message: "created"},
			}
			outs[i], errs[i] = store.Create(ctx, tx, logs, created)
		})
	}
	wg.Wait()
	conflicts := 0
	for i, err := range errs {
		switch {
		case apperr.KindOf(err) == apperr.KindConflict:
			conflicts++
		case err != nil:
			t.Fatalf("create %d: %v", i, err)
		case outs[i].ID == 0 || outs[i].Nonce == "":
			t.Errorf("create %d returned %+v", i, outs[i])
		}
	}
	if conflicts != 1 {
		t.Fatalf("%d conflicts, want 1 (the reused nonce)", conflicts)
	}
	if got := count(t, pool, `SELECT count(*) FROM transactions`); got != n {
		t.Errorf("%d transactions, want %d", got, n)
	}
	if got := count(t, pool, `SELECT count(*) FROM transaction_logs`); got != 2*n {
		t.Errorf("%d log entries, want %d", got, 2*n)
	}
	if got := count(t, pool, `SELECT count(*) FROM outbox`); got != n {
		t.Errorf("%d events, want %d", got, n)
	}
	for i, out := range outs {
		if errs[i] != nil {
			continue
		}
		db, err := store.Transaction(ctx, out.ID)
		if err != nil {
			t.Fatal(err)
		}
		if db.ReferenceID != out.ReferenceID || db.Amount != out.Amount || !db.CreatedAt.Equal(out.CreatedAt) ||
			!db.UpdatedAt.Equal(out.UpdatedAt) || db.Status != out.Status {
			t.Errorf("create %d returned %+v, the row is %+v", i, out, db)
		}
		if got := count(t, pool, `SELECT count(*) FROM transaction_logs WHERE transaction_id = $1`, out.ID); got != 2 {
			t.Errorf("transaction %d has %d log entries", out.ID, got)
		}
	}

	// Status changes decided on the rows as created.
	var live []payment.Transaction
	for i, out := range outs {
		if errs[i] == nil {
			live = append(live, out)
		}
	}
	at := time.Now().UTC().Truncate(time.Microsecond)
	changed := make([]payment.Transaction, len(live))
	changeErrs := make([]error, len(live))
	for i, tx := range live {
		wg.Go(func() {
			changed[i], changeErrs[i] = store.ChangeStatus(ctx, payment.StatusChange{
				ID: tx.ID, From: tx.Status, To: payment.StatusSuccess, Message: "ok", ProviderTID: fmt.Sprintf("P-%d", tx.ID),
				At: at, Seen: &tx, Logs: []payment.LogEntry{{TransactionID: tx.ID, At: at, Stage: payment.StageAPIResponse,
					Level: payment.LevelInfo, Message: "answered"}},
				Events: func(after payment.Transaction) []proto.Message {
					return []proto.Message{&eventsv1.TransactionFinalized{Transaction: &eventsv1.TransactionState{TransactionId: after.ID}}}
				},
			})
		})
	}
	wg.Wait()
	for i, err := range changeErrs {
		if err != nil {
			t.Fatalf("change %d: %v", i, err)
		}
		db, err := store.Transaction(ctx, live[i].ID)
		if err != nil {
			t.Fatal(err)
		}
		got := changed[i]
		if db.Status != payment.StatusSuccess || got.Status != db.Status || got.ProviderTID != db.ProviderTID ||
			got.StatusMessage != db.StatusMessage || !got.UpdatedAt.Equal(db.UpdatedAt) || got.Version != db.Version || db.Version != 2 {
			t.Errorf("change %d returned %+v, the row is %+v", i, got, db)
		}
	}
	if got := count(t, pool, `SELECT count(*) FROM outbox`); got != 2*n {
		t.Errorf("%d events after the changes, want %d", got, 2*n)
	}
	if got := count(t, pool, `SELECT count(*) FROM transaction_logs`); got != 3*n {
		t.Errorf("%d log entries after the changes, want %d", got, 3*n)
	}

	// A change decided on a status that moved since writes nothing.
	stale := live[0]
	_, err := store.ChangeStatus(ctx, payment.StatusChange{ID: stale.ID, From: stale.Status, To: payment.StatusPSPError,
		Message: "late", At: at, Seen: &stale, Logs: []payment.LogEntry{{TransactionID: stale.ID, At: at,
			Stage: payment.StageAPIResponse, Level: payment.LevelInfo, Message: "late"}}})
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Errorf("stale change: %v, want a conflict", err)
	}
	if got := count(t, pool, `SELECT count(*) FROM transaction_logs`); got != 3*n {
		t.Errorf("the stale change wrote %d log entries", got-3*n)
	}
}

// A payment decided on a view of the configuration that changed since is
// not written; a fresh view sees the change.
func TestConfigCacheViews(t *testing.T) {
	t.Parallel()
	pool, tmpl := paymentFixture(t)
	cache := postgres.NewConfigCache(pool)
	store := cache.Payments(postgres.NewPayments(pool))
	views := store.(payment.Views)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	vctx, err := views.View(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if on, err := cache.MaintenanceEnabled(vctx); err != nil || on {
		t.Fatalf("maintenance = %v, %v", on, err)
	}
	if _, err := pool.Exec(ctx, `UPDATE maintenance SET is_enabled = true`); err != nil {
		t.Fatal(err)
	}
	// The view still answers from memory, but it is no longer current.
	if on, err := cache.MaintenanceEnabled(vctx); err != nil || on {
		t.Fatalf("maintenance in the old view = %v, %v", on, err)
	}
	if current, err := views.Current(vctx); err != nil || current {
		t.Errorf("Current = %v, %v; want false after a change", current, err)
	}
	tx := tmpl
	tx.ReferenceID, tx.Nonce = "REF-stale", "nonce-stale"
	if _, err := store.Create(vctx, tx, nil, created); !errors.Is(err, payment.ErrStaleView) {
		t.Errorf("create on a stale view: %v, want ErrStaleView", err)
	}
	if got := count(t, pool, `SELECT count(*) FROM transactions`); got != 0 {
		t.Errorf("the stale create wrote %d transactions", got)
	}

	fresh, err := views.View(ctx, true)
	if err != nil {
		t.Fatal(err)
	}
	if on, err := cache.MaintenanceEnabled(fresh); err != nil || !on {
		t.Errorf("maintenance in a fresh view = %v, %v", on, err)
	}
	if current, err := views.Current(fresh); err != nil || !current {
		t.Errorf("Current(fresh) = %v, %v", current, err)
	}
	if _, err := store.Create(fresh, tx, nil, created); err != nil {
		t.Errorf("create on a fresh view: %v", err)
	}

	// The merchant's signing secret by id: none yet (not found), then the
	// one a fresh view sees once it is stored.
	if _, err := cache.MerchantSecretByID(fresh, tmpl.MerchantID); apperr.KindOf(err) != apperr.KindNotFound {
		t.Fatalf("secret of a merchant without one: %v, want not found", err)
	}
	if _, err := pool.Exec(ctx, `INSERT INTO merchant_api_secrets (merchant_id, secret_sealed) VALUES ($1, 'sealed')`, tmpl.MerchantID); err != nil {
		t.Fatal(err)
	}
	if fresh, err = views.View(ctx, true); err != nil {
		t.Fatal(err)
	}
	if sealed, err := cache.MerchantSecretByID(fresh, tmpl.MerchantID); err != nil || string(sealed) != "sealed" {
		t.Errorf("secret in a fresh view = %q, %v", sealed, err)
	}
}

// What the batched writes store reads back as written: every column the
// creation and a status change set, and every journal field, NULLs
// included.
func TestBatchedWritesRoundTrip(t *testing.T) {
	t.Parallel()
	pool, tx := paymentFixture(t)
	store := postgres.NewPayments(pool)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	tx.ReferenceID, tx.Nonce, tx.MerchantClientID = "REF-RT", "nonce-rt", "client \"7\""
	tx.ProviderTags = []string{"vip", `quoted "tag", with comma`, "ünïcode"}
	tx.AccountData = map[string]any{"account": "09171234567", "nested": map[string]any{"n": 1.5, "list": []any{"a", nil}}}
	tx.PaymentIP, tx.UserAgent = "203.0.113.9", "agent/1.0"
	value, err := payment.ParseDecimal4("1.2500")
	if err != nil {
		t.Fatal(err)
	}
	fee, err := payment.ParseAmount("0.13")
	if err != nil {
		t.Fatal(err)
	}
	tx.Fee = payment.AppliedFee{ID: 42, Type: payment.FeePercent, Value: value, Amount: fee, Currency: "PHP", Payer: 1}
	logs := []payment.LogEntry{
		{Stage: payment.StageInitialization, Level: payment.LevelInfo, Message: "accepted", SourceContext: "ctx",
			Content: map[string]any{"amount": "10.00", "html": "<b>&</b>"}, Headers: map[string]any{"X-A": []any{"1"}},
			QueryParams: map[string]any{"q": "v"}, AuthData: "merchant 1", TransactionUpdate: map[string]any{"status": 1},
			WebhookRequest: []any{1, "two"}, WebhookResponse: "text", WebhookHeaders: map[string]any{}},
		{Stage: payment.StageCreation, Level: payment.LevelError, Message: "failed", Application: "other-app",
			Content: map[string]any(nil), Exception: &payment.LogException{Type: "Timeout", Message: "slow", StackTrace: "at x"}},
	}
	out, err := store.Create(ctx, tx, logs, created)
	if err != nil {
		t.Fatal(err)
	}
	poll := out.CreatedAt.Add(time.Minute)
	at := out.CreatedAt.Add(time.Second)
	changed, err := store.ChangeStatus(ctx, payment.StatusChange{ID: out.ID, From: out.Status, To: payment.StatusPending,
		Message: "Pending", ProviderTID: "PT-1", ProviderData: map[string]any{"raw": map[string]any{"id": "PT-1"}},
		NextPollAt: &poll, At: at, Seen: &out})
	if err != nil {
		t.Fatal(err)
	}
	db, err := store.Transaction(ctx, out.ID)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name      string
		got, want any
	}{
		{"provider tags", db.ProviderTags, tx.ProviderTags},
		{"account data", db.AccountData, tx.AccountData},
		{"fee", db.Fee, tx.Fee},
		{"client id", db.MerchantClientID, tx.MerchantClientID},
		{"ip and agent", db.PaymentIP + " " + db.UserAgent, tx.PaymentIP + " " + tx.UserAgent},
		{"provider data", db.ProviderData, changed.ProviderData},
		{"provider tid", db.ProviderTID, "PT-1"},
		{"status", db.Status, payment.StatusPending},
		{"next poll", db.NextPollAt.UTC(), poll},
		{"updated at", db.UpdatedAt.UTC(), at},
		{"version as created", out.Version, int64(1)},
		{"version after the change", db.Version, int64(2)},
		{"version derived from Seen", changed.Version, db.Version},
	} {
		if !reflect.DeepEqual(c.got, c.want) {
			t.Errorf("%s: read %#v, wrote %#v", c.name, c.got, c.want)
		}
	}

	got, err := store.Logs(ctx, out.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(logs) {
		t.Fatalf("%d log entries, want %d", len(got), len(logs))
	}
	for i, want := range logs {
		want.ID, want.TransactionID, want.At = got[i].ID, out.ID, out.CreatedAt
		want.Application = cmp.Or(want.Application, "paygate-gateway")
		// JSON documents come back decoded: numbers as float64, and a
		// document that encodes as JSON null as none.
		want.TransactionUpdate, want.Content, want.Headers, want.QueryParams = roundTrip(t, want.TransactionUpdate),
			roundTrip(t, want.Content), roundTrip(t, want.Headers), roundTrip(t, want.QueryParams)
		want.WebhookRequest, want.WebhookResponse, want.WebhookHeaders = roundTrip(t, want.WebhookRequest),
			roundTrip(t, want.WebhookResponse), roundTrip(t, want.WebhookHeaders)
		got[i].At = got[i].At.UTC()
		if !reflect.DeepEqual(got[i], want) {
			t.Errorf("log entry %d:\nread  %#v\nwrote %#v", i, got[i], want)
		}
	}
}

// roundTrip is v as JSON decodes it into an any; nil for JSON null.
func roundTrip(t *testing.T, v any) any {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		t.Fatal(err)
	}
	return out
}

// Concurrent journal appends (webhooks and polls that change nothing) are
// written together, each call all or none: a call naming a transaction
// that does not exist fails alone, and every other call's entries are kept
// in their order.
func TestBatchedAppendLogs(t *testing.T) {
	t.Parallel()
	pool, tmpl := paymentFixture(t)
	store := postgres.NewPayments(pool)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tmpl.Nonce, tmpl.ReferenceID = "append-logs", "REF-APPEND-LOGS"
	tx, err := store.Create(ctx, tmpl, nil, created)
	if err != nil {
		t.Fatal(err)
	}
	const n = 30
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			id := tx.ID
			if i == n/2 {
				id = tx.ID + 1_000_000 // no such transaction
			}
			at := time.Now().UTC()
			errs[i] = store.AppendLogs(ctx,
				payment.LogEntry{TransactionID: id, At: at, Stage: payment.StageCallbackProcessing, Level: payment.LevelInfo, Message: fmt.Sprintf("call %d first", i)},
				payment.LogEntry{TransactionID: id, At: at, Stage: payment.StagePolling, Level: payment.LevelInfo, Message: fmt.Sprintf("call %d second", i)})
		})
	}
	wg.Wait()
	for i, err := range errs {
		if (err != nil) != (i == n/2) {
			t.Errorf("call %d: %v", i, err)
		}
	}
	logs, err := store.Logs(ctx, tx.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(logs) != 2*(n-1) {
		t.Fatalf("%d entries, want %d", len(logs), 2*(n-1))
	}
	seen := map[string]int{}
	for i, e := range logs {
		seen[e.Message] = i + 1
	}
	for i := range n {
		first, second := fmt.Sprintf("call %d first", i), fmt.Sprintf("call %d second", i)
		if i == n/2 {
			if seen[first] != 0 || seen[second] != 0 {
				t.Errorf("the failed call's entries were written")
			}
			continue
		}
		if seen[first] == 0 || seen[second] <= seen[first] {
			t.Errorf("call %d: entries missing or out of order (%d, %d)", i, seen[first], seen[second])
		}
	}
	if err := store.AppendLogs(ctx); err != nil {
		t.Errorf("no entries: %v", err)
	}
}

// A change whose Seen holds the row's status but an older version (the
// status moved away and back since) is not applied by the batch, which
// derives the version from Seen; the single path writes it and reads the
// version back.
func TestBatchedChangeComparesVersion(t *testing.T) {
	t.Parallel()
	pool, tx := paymentFixture(t)
	store := postgres.NewPayments(pool)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tx.ReferenceID, tx.Nonce = "REF-V", "nonce-v"
	out, err := store.Create(ctx, tx, nil, created)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, `UPDATE transactions SET status_version = 5 WHERE id = $1`, out.ID); err != nil {
		t.Fatal(err)
	}
	before := store.BatchFallbacks()
	at := out.CreatedAt.Add(time.Second)
	changed, err := store.ChangeStatus(ctx, payment.StatusChange{ID: out.ID, From: out.Status, To: payment.StatusPending,
		Message: "Pending", At: at, Seen: &out})
	if err != nil {
		t.Fatal(err)
	}
	if store.BatchFallbacks() != before+1 {
		t.Errorf("the batch applied a change decided on version %d of a row at version 5", out.Version)
	}
	if changed.Version != 6 {
		t.Errorf("version after the change = %d, want 6", changed.Version)
	}
}

// The payment path's credentials come from the configuration cache: none
// (kept as none), then, after they are stored, the view it answered from is
// stale and a fresh one reads them; a change after that is seen by the
// next fresh view (migration 0037 moves the configuration version).
func TestConfigCacheCredentials(t *testing.T) {
	t.Parallel()
	pool, tmpl := paymentFixture(t)
	cache := postgres.NewConfigCache(pool)
	views := cache.Payments(postgres.NewPayments(pool)).(payment.Views)
	creds := cache.Credentials(postgres.NewCredentials(pool))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	view := func() context.Context {
		t.Helper()
		v, err := views.View(ctx, true)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	collabID := tmpl.CollabID

	first := view()
	if _, ok, err := creds.Sealed(first, collabID); err != nil || ok {
		t.Fatalf("credentials of a collab without any: ok %v, %v", ok, err)
	}
	store := func(data string) {
		t.Helper()
		if _, err := pool.Exec(ctx, `INSERT INTO collab_credentials (collab_id, key_id, sealed, updated_by) VALUES ($1, 'k1', $2, 'test')
			ON CONFLICT (collab_id) DO UPDATE SET sealed = excluded.sealed`, collabID, []byte(data)); err != nil {
			t.Fatal(err)
		}
	}
	store("sealed-1")
	if current, err := views.Current(first); err != nil || current {
		t.Errorf("Current after the credentials changed = %v, %v; want false", current, err)
	}
	if _, ok, _ := creds.Sealed(first, collabID); ok {
		t.Error("the old view read credentials it did not have")
	}
	second := view()
	if s, ok, err := creds.Sealed(second, collabID); err != nil || !ok || string(s.Data) != "sealed-1" || s.KeyID != "k1" {
		t.Fatalf("credentials in a fresh view = %+v, %v, %v", s, ok, err)
	}
	store("sealed-2")
	if s, _, _ := creds.Sealed(second, collabID); string(s.Data) != "sealed-1" {
		t.Errorf("the view's answer changed under it: %q", s.Data)
	}
	if s, ok, err := creds.Sealed(view(), collabID); err != nil || !ok || string(s.Data) != "sealed-2" {
		t.Errorf("credentials after a change = %+v, %v, %v; want sealed-2", s, ok, err)
	}
}
