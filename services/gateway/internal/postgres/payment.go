package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Payments is the Postgres implementation of payment.Store.
type Payments struct {
	pool    *pgxpool.Pool
	creates *group[createIn, payment.Transaction]
	changes *group[payment.StatusChange, payment.Transaction]
	appends *group[[]payment.LogEntry, struct{}]
	ids     idBlock
	// fallbacks counts the batches written again one payment at a time.
	fallbacks atomic.Int64
}

// BatchFallbacks returns how many batches of writes failed as a whole and
// were written again one payment at a time (a reused nonce, a stale
// configuration view, a status that moved, or an error).
func (p *Payments) BatchFallbacks() int64 { return p.fallbacks.Load() }

var _ payment.Store = (*Payments)(nil)

// NewPayments returns the payment store on pool.
func NewPayments(pool *pgxpool.Pool) *Payments {
	p := &Payments{pool: pool}
	p.creates = newGroup(batchWriters, p.createBatch)
	p.changes = newGroup(batchWriters, p.changeBatch)
	p.appends = newGroup(batchWriters, p.appendBatch)
	return p
}

const entityTransaction = "The transaction"

// MerchantByHash implements payment.Store.
func (p *Payments) MerchantByHash(ctx context.Context, hash string) (merchant.Merchant, error) {
	var m merchant.Merchant
	err := p.pool.QueryRow(ctx, `SELECT id, name, hash FROM merchants WHERE hash = $1`, hash).Scan(&m.ID, &m.Name, &m.Hash)
	return m, pgdb.Translate(err, entityMerchant)
}

// MerchantSecret returns a merchant's id and sealed API secret by its hash
// (not found when either is missing).
func (p *Payments) MerchantSecret(ctx context.Context, hash string) (int32, []byte, error) {
	var id int32
	var sealed []byte
	err := p.pool.QueryRow(ctx, `
		SELECT m.id, s.secret_sealed FROM merchants m JOIN merchant_api_secrets s ON s.merchant_id = m.id
		WHERE m.hash = $1`, hash).Scan(&id, &sealed)
	return id, sealed, pgdb.Translate(err, entityMerchant)
}

// MerchantSecretByID returns a merchant's sealed API secret (not found when
// it has none).
func (p *Payments) MerchantSecretByID(ctx context.Context, merchantID int32) ([]byte, error) {
	var sealed []byte
	err := p.pool.QueryRow(ctx, `SELECT secret_sealed FROM merchant_api_secrets WHERE merchant_id = $1`, merchantID).Scan(&sealed)
	return sealed, pgdb.Translate(err, entityMerchant)
}

// SetMerchantSecret stores a merchant's sealed API secret.
func (p *Payments) SetMerchantSecret(ctx context.Context, merchantID int32, sealed []byte) error {
	_, err := p.pool.Exec(ctx, `
		INSERT INTO merchant_api_secrets (merchant_id, secret_sealed) VALUES ($1, $2)
		ON CONFLICT (merchant_id) DO UPDATE SET secret_sealed = EXCLUDED.secret_sealed, created_at = now()`, merchantID, sealed)
	if err != nil {
		return fmt.Errorf("set api secret of merchant %d: %w", merchantID, err)
	}
	return nil
}

// SetConnection stores how to reach a provider.
func (p *Payments) SetConnection(ctx context.Context, providerID int32, baseURL string, sealedSecret []byte) error {
	_, err := p.pool.Exec(ctx, `
		INSERT INTO provider_connections (provider_id, base_url, webhook_secret_sealed) VALUES ($1, $2, $3)
		ON CONFLICT (provider_id) DO UPDATE SET base_url = EXCLUDED.base_url,
			webhook_secret_sealed = EXCLUDED.webhook_secret_sealed, updated_at = now()`, providerID, baseURL, sealedSecret)
	if err != nil {
		return fmt.Errorf("set connection of provider %d: %w", providerID, err)
	}
	return nil
}

// MerchantCollab implements payment.Store.
func (p *Payments) MerchantCollab(ctx context.Context, merchantID, providerID int32) (payment.Collab, error) {
	cs, err := collabs(ctx, p.pool, "WHERE c.merchant_id = $1 AND c.provider_id = $2", merchantID, providerID)
	if err != nil {
		return payment.Collab{}, err
	}
	if len(cs) == 0 {
		return payment.Collab{}, apperr.NotFound("The collaboration was not found.")
	}
	return paymentCollab(cs[0]), nil
}

// paymentCollab is what a payment needs of c.
func paymentCollab(c collab.Collab) payment.Collab {
	limits := func(l collab.Limits) payment.Limits {
		return payment.Limits{MinDeposit: l.MinDeposit, MaxDeposit: l.MaxDeposit, MinWithdraw: l.MinWithdraw, MaxWithdraw: l.MaxWithdraw}
	}
	out := payment.Collab{
		ID: c.ID, MerchantName: c.Merchant.Name, ProviderName: c.Provider.Name, ProviderID: c.Provider.ID,
		ProviderEnabled: c.Provider.IsEnabled, Enabled: c.Settings.IsEnabled,
		Deposits: c.SupportsDeposits(), Withdrawals: c.SupportsWithdrawals(),
		ValidateDeposits: c.Settings.ValidateCashIn, ValidateWithdrawals: c.Settings.ValidateCashOut,
		Callbacks: c.Settings.IsMerchantCallbackEnabled, Limits: limits(c.Limits),
		PayTypes: make([]payment.CollabPayType, len(c.PayTypes)),
	}
	switch c.Settings.Mode {
	case collab.ModeAlwaysSuccess:
		out.Forced = payment.ForcedSuccess
	case collab.ModeAlwaysFailed:
		out.Forced = payment.ForcedFailure
	}
	for i, pt := range c.PayTypes {
		out.PayTypes[i] = payment.CollabPayType{
			PayTypeID: pt.PayType.ID, Name: pt.Name, Code: pt.Code, Limits: limits(pt.Limits),
			Deposits:    c.PayTypeSupportsDeposits(pt) && pt.IsCashInEnabled,
			Withdrawals: c.PayTypeSupportsWithdrawals(pt) && pt.IsCashOutEnabled,
		}
	}
	return out
}

const connectionSelect = `
	SELECT p.id, p.name, p.path_segment, p.supports_polling, c.base_url, c.webhook_secret_sealed
	FROM providers p JOIN provider_connections c ON c.provider_id = p.id `

func (p *Payments) connection(ctx context.Context, where string, arg any) (payment.Connection, error) {
	var c payment.Connection
	err := p.pool.QueryRow(ctx, connectionSelect+where, arg).Scan(&c.ProviderID, &c.ProviderName, &c.PathSegment,
		&c.SupportsPolling, &c.BaseURL, &c.WebhookSecretSealed)
	return c, pgdb.Translate(err, entityProvider)
}

// Connection implements payment.Store.
func (p *Payments) Connection(ctx context.Context, providerID int32) (payment.Connection, error) {
	return p.connection(ctx, "WHERE p.id = $1", providerID)
}

// ConnectionBySegment implements payment.Store.
func (p *Payments) ConnectionBySegment(ctx context.Context, segment string) (payment.Connection, error) {
	return p.connection(ctx, "WHERE p.path_segment = $1", segment)
}

// Fees implements payment.Store.
func (p *Payments) Fees(ctx context.Context, currency string) ([]payment.Fee, error) {
	rows, err := p.pool.Query(ctx, `
		SELECT id, COALESCE(collab_id, 0), COALESCE(transaction_type, 0), COALESCE(pay_type_id, 0), currency_from,
			currency_to, amount_min::text, amount_max::text, fee_type, value::text, payer, priority, enabled
		FROM fees WHERE enabled AND currency_from = $1 AND currency_to = $1`, currency)
	if err != nil {
		return nil, fmt.Errorf("select fees: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Fee, error) {
		var f payment.Fee
		var lo, hi *string
		var value string
		if err := row.Scan(&f.ID, &f.CollabID, &f.Type, &f.PayTypeID, &f.CurrencyFrom, &f.CurrencyTo, &lo, &hi,
			&f.FeeType, &value, &f.Payer, &f.Priority, &f.Enabled); err != nil {
			return f, err
		}
		var err error
		if f.AmountMin, err = amountOf(lo); err != nil {
			return f, err
		}
		if f.AmountMax, err = amountOf(hi); err != nil {
			return f, err
		}
		f.Value, err = payment.ParseDecimal4(value)
		return f, err
	})
}

const transactionColumns = `id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
	provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message, error_message,
	amount::text, currency, destination_amount::text, destination_currency, COALESCE(provider_transaction_id, ''),
	provider_tags, provider_data, account_data, payment_ip_address, user_agent, payment_method_type,
	payment_method_value, COALESCE(applied_fee_id, 0), applied_fee_type, applied_fee_value::text,
	applied_fee_amount::text, applied_fee_currency, applied_fee_payer, callbacks_delivered, callbacks_total, callbacks_canceled,
	poll_attempts, next_poll_at, created_at, updated_at, status_version`

func scanTransaction(row pgx.Row) (payment.Transaction, error) {
	var t payment.Transaction
	var amount, dest string
	var feeValue, feeAmount *string
	var providerData, accountData []byte
	err := row.Scan(&t.ID, &t.ReferenceID, &t.MerchantID, &t.CollabID, &t.ProviderID, &t.PayTypeID, &t.MerchantName,
		&t.ProviderName, &t.PayTypeName, &t.Nonce, &t.MerchantClientID, &t.Type, &t.Status, &t.StatusMessage,
		&t.ErrorMessage, &amount, &t.Currency, &dest, &t.DestinationCurrency, &t.ProviderTID, &t.ProviderTags,
		&providerData, &accountData, &t.PaymentIP, &t.UserAgent, &t.PaymentMethodType, &t.PaymentMethodValue,
		&t.Fee.ID, &t.Fee.Type, &feeValue, &feeAmount, &t.Fee.Currency, &t.Fee.Payer, &t.CallbacksDelivered, &t.CallbacksTotal,
		&t.CallbacksCanceled, &t.PollAttempts, &t.NextPollAt, &t.CreatedAt, &t.UpdatedAt, &t.Version)
	if err != nil {
		return t, err
	}
	if t.Amount, err = amountOf(&amount); err != nil {
		return t, err
	}
	if t.DestinationAmount, err = amountOf(&dest); err != nil {
		return t, err
	}
	if t.Fee.Amount, err = amountOf(feeAmount); err != nil {
		return t, err
	}
	if feeValue != nil {
		if t.Fee.Value, err = payment.ParseDecimal4(*feeValue); err != nil {
			return t, err
		}
	}
	if err := json.Unmarshal(providerData, &t.ProviderData); err != nil {
		return t, fmt.Errorf("provider data: %w", err)
	}
	if err := json.Unmarshal(accountData, &t.AccountData); err != nil {
		return t, fmt.Errorf("account data: %w", err)
	}
	t.CreatedAt, t.UpdatedAt = t.CreatedAt.UTC(), t.UpdatedAt.UTC()
	return t, nil
}

// createdAt is transaction id's created_at, read from its key: the lookups
// and updates by id name it beside the id, so that their plan is made for
// the one partition that holds the row (plan-time pruning). A condition
// that reads it in a subquery leaves the planner every partition to plan
// and prune at run time: on a dozen partitions that planning took 2 ms,
// against 0.3 ms for both statements here (docs/partitioning.md).
func createdAt(ctx context.Context, q querier, id int64) (time.Time, error) {
	var at time.Time
	err := q.QueryRow(ctx, `SELECT created_at FROM transaction_keys WHERE id = $1`, id).Scan(&at)
	return at, pgdb.Translate(err, entityTransaction)
}

// nonceNames are the unique constraints a reused nonce violates: the keys'
// (every transaction's), and the one the unpartitioned table kept, which a
// row written into the legacy partition meets first.
var nonceNames = map[string]bool{"transaction_keys_nonce_merchant_key": true, "transactions_nonce_merchant_key": true}

func (p *Payments) one(ctx context.Context, q querier, where string, args ...any) (payment.Transaction, error) {
	t, err := scanTransaction(q.QueryRow(ctx, `SELECT `+transactionColumns+` FROM transactions `+where, args...))
	return t, pgdb.Translate(err, entityTransaction)
}

// ByNonce implements payment.Store.
func (p *Payments) ByNonce(ctx context.Context, merchantID int32, nonce string) (payment.Transaction, error) {
	return p.one(ctx, p.pool, `WHERE (id, created_at) = (SELECT id, created_at FROM transaction_keys WHERE nonce = $2 AND merchant_id = $1)`,
		merchantID, nonce)
}

// Transaction implements payment.Store.
func (p *Payments) Transaction(ctx context.Context, id int64) (payment.Transaction, error) {
	at, err := createdAt(ctx, p.pool, id)
	if err != nil {
		return payment.Transaction{}, err
	}
	return p.one(ctx, p.pool, "WHERE id = $1 AND created_at = $2", id, at)
}

// ByProviderTID implements payment.Store.
func (p *Payments) ByProviderTID(ctx context.Context, providerID int32, tid string) (payment.Transaction, error) {
	return p.one(ctx, p.pool, "WHERE provider_id = $1 AND provider_transaction_id = $2", providerID, tid)
}

func jsonb(v any) ([]byte, error) {
	if v == nil {
		return nil, nil
	}
	return json.Marshal(v)
}

// Create implements payment.Store. Concurrent creations are written
// together (createBatch).
func (p *Payments) Create(ctx context.Context, t payment.Transaction, logs []payment.LogEntry, events func(payment.Transaction) []proto.Message) (payment.Transaction, error) {
	return p.creates.do(ctx, createIn{t: t, logs: logs, events: events, view: viewVersion(ctx)})
}

// createOne writes one creation in a Postgres transaction of its own.
func (p *Payments) createOne(ctx context.Context, in createIn) (payment.Transaction, error) {
	t, logs, events := in.t, slices.Clone(in.logs), in.events
	var out payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		if in.view != 0 {
			var version int64
			if err := tx.QueryRow(ctx, `SELECT version FROM config_version`).Scan(&version); err != nil {
				return fmt.Errorf("read configuration version: %w", err)
			}
			if in.view < version {
				return payment.ErrStaleView
			}
		}
		accountData, err := accountDataDoc(t.AccountData)
		if err != nil {
			return err
		}
		var feeID, feeValue, feeAmount any
		if t.Fee.ID != 0 {
			feeID, feeValue, feeAmount = t.Fee.ID, t.Fee.Value.String(), t.Fee.Amount.String()
		}
		out, err = scanTransaction(tx.QueryRow(ctx, `
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
				provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
				amount, currency, destination_amount, destination_currency, provider_tags, account_data,
				payment_ip_address, user_agent, applied_fee_id, applied_fee_type, applied_fee_value, applied_fee_amount,
				applied_fee_currency, applied_fee_payer, created_at, updated_at)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21,
				$22, $23, $24, $25, $26, $27, $28, $28)
			RETURNING `+transactionColumns,
			t.ReferenceID, t.MerchantID, t.CollabID, t.ProviderID, t.PayTypeID, t.MerchantName, t.ProviderName,
			t.PayTypeName, t.Nonce, t.MerchantClientID, t.Type, t.Status, t.StatusMessage, t.Amount.String(), t.Currency,
			t.DestinationAmount.String(), t.DestinationCurrency, t.ProviderTags, accountData, t.PaymentIP, t.UserAgent,
			feeID, t.Fee.Type, feeValue, feeAmount, t.Fee.Currency, t.Fee.Payer, t.CreatedAt))
		if err != nil {
			return translateTransactionWrite(fmt.Errorf("insert transaction: %w", err))
		}
		for i := range logs {
			logs[i].TransactionID = out.ID
			if logs[i].At.IsZero() {
				logs[i].At = t.CreatedAt
			}
		}
		if err := insertLogs(ctx, tx, logs); err != nil {
			return err
		}
		return publish(ctx, tx, events(out))
	})
	return out, err
}

func translateTransactionWrite(err error) error {
	if code, constraint, ok := pgdb.ConstraintViolation(err); ok && code == "23505" && nonceNames[constraint] {
		return apperr.New(apperr.KindConflict, err, "The nonce was already used by this merchant.")
	}
	return pgdb.Translate(err, entityTransaction)
}

func publish(ctx context.Context, tx pgx.Tx, events []proto.Message) error {
	for _, ev := range events {
		if _, err := bus.Enqueue(ctx, tx, bus.Subject(ev), ev); err != nil {
			return fmt.Errorf("enqueue %s: %w", proto.MessageName(ev), err)
		}
	}
	return nil
}

// ChangeStatus implements payment.Store. Concurrent changes with Seen are
// written together (changeBatch).
func (p *Payments) ChangeStatus(ctx context.Context, c payment.StatusChange) (payment.Transaction, error) {
	if c.Seen == nil {
		return p.changeOne(ctx, c)
	}
	return p.changes.do(ctx, c)
}

// changeOne writes one status change in a Postgres transaction of its own.
func (p *Payments) changeOne(ctx context.Context, c payment.StatusChange) (payment.Transaction, error) {
	var out payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		var providerData []byte
		if c.ProviderData != nil {
			var err error
			if providerData, err = json.Marshal(c.ProviderData); err != nil {
				return fmt.Errorf("provider data: %w", err)
			}
		}
		at, err := createdAt(ctx, tx, c.ID)
		if err != nil {
			return err
		}
		out, err = scanTransaction(tx.QueryRow(ctx, `
			UPDATE transactions SET status = $3, status_message = $4,
				error_message = CASE WHEN $5 <> '' THEN $5 ELSE error_message END,
				provider_transaction_id = COALESCE(NULLIF($6, ''), provider_transaction_id),
				provider_data = COALESCE($7::jsonb, provider_data), next_poll_at = $8, updated_at = $9,
				callbacks_canceled = callbacks_canceled OR $10,
				recovery_attempts = CASE WHEN $3::smallint = 1 THEN 0 ELSE recovery_attempts END,
				status_version = status_version + CASE WHEN status <> $3::smallint THEN 1 ELSE 0 END
			WHERE id = $1 AND created_at = $11 AND status = $2
			RETURNING `+transactionColumns,
			c.ID, c.From, c.To, c.Message, c.ErrorMessage, c.ProviderTID, providerData, c.NextPollAt, c.At, c.CancelCallbacks, at))
		if errors.Is(err, pgx.ErrNoRows) {
			var cur int16
			if err := tx.QueryRow(ctx, `SELECT status FROM transactions WHERE id = $1 AND created_at = $2`, c.ID, at).Scan(&cur); err != nil {
				return pgdb.Translate(err, entityTransaction)
			}
			return apperr.Conflict("Transaction with id %d status changed (it is now %s). Reload and try again.", c.ID, payment.Status(cur))
		}
		if err != nil {
			return fmt.Errorf("update transaction %d: %w", c.ID, err)
		}
		if err := insertLogs(ctx, tx, c.Logs); err != nil {
			return err
		}
		if c.Events != nil {
			return publish(ctx, tx, c.Events(out))
		}
		return nil
	})
	return out, err
}

// AppendLogs implements payment.Store. Concurrent calls (a provider's
// webhooks for transactions already final, polls that change nothing) are
// written together, as one statement; the entries of one call are written
// all or none.
func (p *Payments) AppendLogs(ctx context.Context, logs ...payment.LogEntry) error {
	if len(logs) == 0 {
		return nil
	}
	_, err := p.appends.do(ctx, logs)
	return err
}

// appendBatch writes the journal entries of items in one statement, its own
// transaction. When that fails (an entry of a transaction that does not
// exist), each item's entries are written on their own, so that only the
// faulty call fails.
func (p *Payments) appendBatch(ctx context.Context, items []*groupItem[[]payment.LogEntry, struct{}]) {
	if len(items) > 1 {
		var all []payment.LogEntry
		for _, it := range items {
			all = append(all, it.in...)
		}
		if err := insertLogs(ctx, p.pool, all); err == nil {
			return
		}
		p.fallbacks.Add(1)
	}
	for _, it := range items {
		it.err = insertLogs(ctx, p.pool, it.in)
	}
}

func insertLogs(ctx context.Context, q querier, logs []payment.LogEntry) error {
	if len(logs) == 0 {
		return nil
	}
	args, err := logArgs(logs)
	if err != nil {
		return err
	}
	if _, err := q.Exec(ctx, logBatchSQL, args...); err != nil {
		return fmt.Errorf("insert %d log entries of transaction %d: %w", len(logs), logs[0].TransactionID, err)
	}
	return nil
}

// Logs implements payment.Store.
func (p *Payments) Logs(ctx context.Context, transactionID int64) ([]payment.LogEntry, error) {
	rows, err := p.pool.Query(ctx, `
		SELECT id, transaction_id, at, stage, level, message, source_context, application, transaction_update, content,
			headers, query_params, auth_data, webhook_request, webhook_response, webhook_headers, exception
		FROM transaction_logs WHERE transaction_id = $1 ORDER BY id`, transactionID)
	if err != nil {
		return nil, fmt.Errorf("select logs: %w", err)
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.LogEntry, error) {
		var e payment.LogEntry
		var raw [8][]byte
		if err := row.Scan(&e.ID, &e.TransactionID, &e.At, &e.Stage, &e.Level, &e.Message, &e.SourceContext,
			&e.Application, &raw[0], &raw[1], &raw[2], &raw[3], &e.AuthData, &raw[4], &raw[5], &raw[6], &raw[7]); err != nil {
			return e, err
		}
		e.At = e.At.UTC()
		dst := []*any{&e.TransactionUpdate, &e.Content, &e.Headers, &e.QueryParams, &e.WebhookRequest, &e.WebhookResponse, &e.WebhookHeaders}
		for i, d := range dst {
			if raw[i] != nil {
				if err := json.Unmarshal(raw[i], d); err != nil {
					return e, fmt.Errorf("log %d: %w", e.ID, err)
				}
			}
		}
		if raw[7] != nil {
			e.Exception = &payment.LogException{}
			if err := json.Unmarshal(raw[7], e.Exception); err != nil {
				return e, fmt.Errorf("log %d exception: %w", e.ID, err)
			}
		}
		return e, nil
	})
}

// ClaimPolls implements payment.Store.
func (p *Payments) ClaimPolls(ctx context.Context, now time.Time, limit int, backoff func(int32) time.Duration, maxAttempts int32) ([]payment.Transaction, error) {
	var out []payment.Transaction
	err := pgdb.InTx(ctx, p.pool, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT `+transactionColumns+` FROM transactions
			WHERE next_poll_at <= $1 ORDER BY next_poll_at LIMIT $2 FOR UPDATE SKIP LOCKED`, now, limit)
		if err != nil {
			return fmt.Errorf("select due polls: %w", err)
		}
		ts, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (payment.Transaction, error) { return scanTransaction(row) })
		if err != nil {
			return fmt.Errorf("read due polls: %w", err)
		}
		for i := range ts {
			t := &ts[i]
			t.PollAttempts++
			var next *time.Time
			if t.PollAttempts < maxAttempts && !t.Status.Final() {
				n := now.Add(backoff(t.PollAttempts + 1))
				next = &n
			}
			if _, err := tx.Exec(ctx, `UPDATE transactions SET poll_attempts = $2, next_poll_at = $3 WHERE id = $1 AND created_at = $4`,
				t.ID, t.PollAttempts, next, t.CreatedAt); err != nil {
				return fmt.Errorf("schedule poll of %d: %w", t.ID, err)
			}
			t.NextPollAt = next
		}
		out = ts
		return nil
	})
	return out, err
}

// SeedPaymentsDemo gives the demo merchants their API secrets
// (payment.DemoMerchantSecret), points every demo provider at the sandbox
// (sandboxURL + "/" + path segment, webhook secret
// payment.DemoWebhookSecret), adds the demo fees when there are no fees
// yet, and the demo currency rates (SeedRatesDemo). Running it again
// refreshes the secrets and addresses.
func (p *Payments) SeedPaymentsDemo(ctx context.Context, box *keyring.Keyring, sandboxURL string) error {
	for _, m := range merchant.Demo() {
		sealed, err := box.Seal([]byte(payment.DemoMerchantSecret(m.ID)), payment.MerchantSecretOwner(m.ID))
		if err != nil {
			return err
		}
		if err := p.SetMerchantSecret(ctx, m.ID, sealed); err != nil {
			return err
		}
	}
	for _, pr := range collab.DemoProviders() {
		sealed, err := box.Seal([]byte(payment.DemoWebhookSecret), payment.ProviderSecretOwner(pr.ID))
		if err != nil {
			return err
		}
		if err := p.SetConnection(ctx, pr.ID, sandboxURL+"/"+pr.PathSegment, sealed); err != nil {
			return err
		}
	}
	_, err := p.pool.Exec(ctx, `
		INSERT INTO fees (collab_id, transaction_type, pay_type_id, currency_from, currency_to, amount_min, amount_max,
			fee_type, value, payer, priority)
		SELECT * FROM (VALUES
			(NULL::integer, 1::smallint, NULL::integer, 'PHP', 'PHP', NULL::numeric, NULL::numeric, 1::smallint, 1.5, 2::smallint, 0),
			(NULL::integer, 2::smallint, NULL::integer, 'PHP', 'PHP', NULL::numeric, NULL::numeric, 2::smallint, 15.00, 1::smallint, 0)
		) AS v
		WHERE NOT EXISTS (SELECT 1 FROM fees)`)
	if err != nil {
		return fmt.Errorf("seed demo fees: %w", err)
	}
	return NewCurrencies(p.pool).SeedRatesDemo(ctx)
}
