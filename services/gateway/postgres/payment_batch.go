package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/payment"
	"github.com/paygate/paygate/services/internal/bus"
)

// The payment path's writes are group-committed (group): the creations of
// concurrent payments are written as one pipelined batch of a few
// multi-row statements (transactions, journal, outbox) that Postgres runs as
// one implicit transaction, in one round trip; so are the providers'
// answers. Each payment keeps what its own transaction guaranteed: its row,
// journal entries and events commit together or not at all, the status
// change is compare-and-set, a reused nonce writes nothing. Any failure
// (a reused nonce, a stale configuration view, a status that moved, a bad
// row) rolls the whole batch back, and its payments are then written one
// at a time by the exact single-payment path, which reports each one's own
// outcome.

// batchWriters is how many batches of one kind may be written at once. One:
// the next batch gathers while one is written; with two, the batches were
// half as big and the payment path slower (bench/initbench).
const batchWriters = 1

type createIn struct {
	t      payment.Transaction
	logs   []payment.LogEntry
	events func(payment.Transaction) []proto.Message
	// view is the configuration version the payment was decided on (0:
	// none).
	view int64
}

// createRow is a transaction as the batched insert reads it.
type createRow struct {
	ID               int64     `json:"id"`
	ReferenceID      string    `json:"reference_id"`
	MerchantID       int32     `json:"merchant_id"`
	CollabID         int32     `json:"collab_id"`
	ProviderID       int32     `json:"provider_id"`
	PayTypeID        int32     `json:"pay_type_id"`
	MerchantName     string    `json:"merchant_name"`
	ProviderName     string    `json:"provider_name"`
	PayTypeName      string    `json:"pay_type_name"`
	Nonce            string    `json:"nonce"`
	MerchantClientID string    `json:"merchant_client_id"`
	Type             int16     `json:"transaction_type"`
	Status           int16     `json:"status"`
	StatusMessage    string    `json:"status_message"`
	Amount           string    `json:"amount"`
	Currency         string    `json:"currency"`
	DestAmount       string    `json:"destination_amount"`
	DestCurrency     string    `json:"destination_currency"`
	ProviderTags     []string  `json:"provider_tags"`
	AccountData      any       `json:"account_data"`
	PaymentIP        string    `json:"payment_ip_address"`
	UserAgent        string    `json:"user_agent"`
	FeeID            *int64    `json:"applied_fee_id"`
	FeeType          int16     `json:"applied_fee_type"`
	FeeValue         *string   `json:"applied_fee_value"`
	FeeAmount        *string   `json:"applied_fee_amount"`
	FeeCurrency      string    `json:"applied_fee_currency"`
	FeePayer         int16     `json:"applied_fee_payer"`
	CreatedAt        time.Time `json:"created_at"`
}

const createBatchSQL = `
	INSERT INTO transactions (id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
		provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
		amount, currency, destination_amount, destination_currency, provider_tags, account_data,
		payment_ip_address, user_agent, applied_fee_id, applied_fee_type, applied_fee_value, applied_fee_amount,
		applied_fee_currency, applied_fee_payer, created_at, updated_at)
	OVERRIDING SYSTEM VALUE
	SELECT id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
		provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
		amount, currency, destination_amount, destination_currency, provider_tags, account_data,
		payment_ip_address, user_agent, applied_fee_id, applied_fee_type, applied_fee_value, applied_fee_amount,
		applied_fee_currency, applied_fee_payer, created_at, created_at
	FROM jsonb_to_recordset($1::jsonb) AS r(id bigint, reference_id text, merchant_id integer, collab_id integer,
		provider_id integer, pay_type_id integer, merchant_name text, provider_name text, pay_type_name text,
		nonce text, merchant_client_id text, transaction_type smallint, status smallint, status_message text,
		amount numeric, currency text, destination_amount numeric, destination_currency text, provider_tags text[],
		account_data jsonb, payment_ip_address text, user_agent text, applied_fee_id bigint, applied_fee_type smallint,
		applied_fee_value numeric, applied_fee_amount numeric, applied_fee_currency text, applied_fee_payer smallint,
		created_at timestamptz)`

// createBatch writes the creations of items in one round trip. The
// transactions' ids are taken from the sequence beforehand (ids), so that
// their events can be made before the rows are written.
func (p *Payments) createBatch(ctx context.Context, items []*groupItem[createIn, payment.Transaction]) {
	if err := p.tryCreateBatch(ctx, items); err != nil {
		p.fallbacks.Add(1)
		for _, it := range items {
			it.out, it.err = p.createOne(ctx, it.in)
		}
	}
}

func (p *Payments) tryCreateBatch(ctx context.Context, items []*groupItem[createIn, payment.Transaction]) error {
	ids, err := p.ids.take(ctx, p.pool, len(items))
	if err != nil {
		return err
	}
	var (
		rows   = make([]createRow, len(items))
		outs   = make([]payment.Transaction, len(items))
		logs   []payment.LogEntry
		events []proto.Message
		view   int64
	)
	for i, it := range items {
		t := it.in.t
		t.ID, t.UpdatedAt = ids[i], t.CreatedAt
		if t.ProviderTags == nil {
			t.ProviderTags = []string{}
		}
		if t.ProviderData == nil {
			t.ProviderData = map[string]any{}
		}
		outs[i] = t
		rows[i] = newCreateRow(t)
		for _, e := range it.in.logs {
			e.TransactionID = t.ID
			if e.At.IsZero() {
				e.At = t.CreatedAt
			}
			logs = append(logs, e)
		}
		events = append(events, it.in.events(t)...)
		if v := it.in.view; v != 0 && (view == 0 || v < view) {
			view = v
		}
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("encode transactions: %w", err)
	}
	b := &pgx.Batch{}
	if view != 0 {
		b.Queue(`SELECT batch_assert($1 >= version, 'the configuration changed since the payments were decided') FROM config_version`, view)
	}
	b.Queue(createBatchSQL, doc)
	if err := queueLogs(b, logs); err != nil {
		return err
	}
	if _, err := bus.QueueEnqueue(b, events...); err != nil {
		return err
	}
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("create %d transactions: %w", len(items), err)
	}
	for i, it := range items {
		it.out = outs[i]
	}
	return nil
}

func newCreateRow(t payment.Transaction) createRow {
	r := createRow{
		ID: t.ID, ReferenceID: t.ReferenceID, MerchantID: t.MerchantID, CollabID: t.CollabID, ProviderID: t.ProviderID,
		PayTypeID: t.PayTypeID, MerchantName: t.MerchantName, ProviderName: t.ProviderName, PayTypeName: t.PayTypeName,
		Nonce: t.Nonce, MerchantClientID: t.MerchantClientID, Type: int16(t.Type), Status: int16(t.Status),
		StatusMessage: t.StatusMessage, Amount: t.Amount.String(), Currency: t.Currency,
		DestAmount: t.DestinationAmount.String(), DestCurrency: t.DestinationCurrency, ProviderTags: t.ProviderTags,
		AccountData: t.AccountData, PaymentIP: t.PaymentIP, UserAgent: t.UserAgent, FeeType: int16(t.Fee.Type),
		FeeCurrency: t.Fee.Currency, FeePayer: int16(t.Fee.Payer), CreatedAt: t.CreatedAt,
	}
	if t.Fee.ID != 0 {
		id, value, amount := t.Fee.ID, t.Fee.Value.String(), t.Fee.Amount.String()
		r.FeeID, r.FeeValue, r.FeeAmount = &id, &value, &amount
	}
	return r
}

// logRow is a journal entry as the batched insert reads it.
type logRow struct {
	TransactionID     int64     `json:"transaction_id"`
	At                time.Time `json:"at"`
	Stage             string    `json:"stage"`
	Level             string    `json:"level"`
	Message           string    `json:"message"`
	SourceContext     string    `json:"source_context"`
	Application       string    `json:"application"`
	TransactionUpdate any       `json:"transaction_update"`
	Content           any       `json:"content"`
	Headers           any       `json:"headers"`
	QueryParams       any       `json:"query_params"`
	AuthData          string    `json:"auth_data"`
	WebhookRequest    any       `json:"webhook_request"`
	WebhookResponse   any       `json:"webhook_response"`
	WebhookHeaders    any       `json:"webhook_headers"`
	Exception         any       `json:"exception"`
	// N orders the entries (their ids follow it).
	N int `json:"n"`
}

// logRows encodes journal entries for logBatchSQL.
func logRows(logs []payment.LogEntry) ([]byte, error) {
	rows := make([]logRow, len(logs))
	for i, e := range logs {
		app := e.Application
		if app == "" {
			app = "paygate-gateway"
		}
		r := logRow{TransactionID: e.TransactionID, At: e.At, Stage: string(e.Stage), Level: e.Level, Message: e.Message,
			SourceContext: e.SourceContext, Application: app, TransactionUpdate: e.TransactionUpdate, Content: e.Content,
			Headers: e.Headers, QueryParams: e.QueryParams, AuthData: e.AuthData, WebhookRequest: e.WebhookRequest,
			WebhookResponse: e.WebhookResponse, WebhookHeaders: e.WebhookHeaders, N: i}
		if e.Exception != nil {
			r.Exception = e.Exception
		}
		rows[i] = r
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return nil, fmt.Errorf("encode log entries: %w", err)
	}
	return doc, nil
}

// logBatchSQL adds journal entries in one statement, in order.
const logBatchSQL = `
	INSERT INTO transaction_logs (transaction_id, at, stage, level, message, source_context, application,
		transaction_update, content, headers, query_params, auth_data, webhook_request, webhook_response,
		webhook_headers, exception)
	SELECT transaction_id, at, stage, level, message, source_context, application, transaction_update, content,
		headers, query_params, auth_data, webhook_request, webhook_response, webhook_headers, exception
	FROM jsonb_to_recordset($1::jsonb) AS r(transaction_id bigint, at timestamptz, stage text,
		level text, message text, source_context text, application text, transaction_update jsonb, content jsonb,
		headers jsonb, query_params jsonb, auth_data text, webhook_request jsonb, webhook_response jsonb,
		webhook_headers jsonb, exception jsonb, n integer)
	ORDER BY n`

// queueLogs queues the insert of journal entries on b.
func queueLogs(b *pgx.Batch, logs []payment.LogEntry) error {
	if len(logs) == 0 {
		return nil
	}
	doc, err := logRows(logs)
	if err != nil {
		return err
	}
	b.Queue(logBatchSQL, doc)
	return nil
}

// changeRow is a status change as the batched update reads it, with the
// row as the change was decided on (x_seen_*).
type changeRow struct {
	ID              int64          `json:"x_id"`
	From            int16          `json:"x_from"`
	To              int16          `json:"x_to"`
	Message         string         `json:"x_message"`
	ErrorMessage    string         `json:"x_error_message"`
	ProviderTID     string         `json:"x_provider_tid"`
	ProviderData    map[string]any `json:"x_provider_data"`
	NextPollAt      *time.Time     `json:"x_next_poll_at"`
	At              time.Time      `json:"x_at"`
	CancelCallbacks bool           `json:"x_cancel_callbacks"`
	SeenCanceled    bool           `json:"x_seen_canceled"`
	SeenError       string         `json:"x_seen_error"`
	SeenTID         string         `json:"x_seen_tid"`
}

const changeBatchSQL = `
	WITH changed AS (
		UPDATE transactions SET status = x_to, status_message = x_message,
			error_message = CASE WHEN x_error_message <> '' THEN x_error_message ELSE error_message END,
			provider_transaction_id = COALESCE(NULLIF(x_provider_tid, ''), provider_transaction_id),
			provider_data = COALESCE(x_provider_data, provider_data), next_poll_at = x_next_poll_at, updated_at = x_at,
			callbacks_canceled = callbacks_canceled OR x_cancel_callbacks,
			recovery_attempts = CASE WHEN x_to = 1 THEN 0 ELSE recovery_attempts END
		FROM jsonb_to_recordset($1::jsonb) AS r(x_id bigint, x_from smallint, x_to smallint, x_message text,
			x_error_message text, x_provider_tid text, x_provider_data jsonb, x_next_poll_at timestamptz,
			x_at timestamptz, x_cancel_callbacks boolean, x_seen_canceled boolean, x_seen_error text, x_seen_tid text)
		-- id = ANY($3) makes the plan look the rows up by primary key (the
		-- planner guesses 100 rows from jsonb_to_recordset, and its generic
		-- plan would otherwise scan the table to hash-join them).
		WHERE id = ANY($3) AND id = x_id AND status = x_from AND callbacks_canceled = x_seen_canceled AND error_message = x_seen_error
			AND COALESCE(provider_transaction_id, '') = x_seen_tid
		RETURNING id)
	SELECT batch_assert(count(*) = $2, 'a transaction changed since its status change was decided') FROM changed`

// changeBatch writes the status changes of items (each with Seen) in one
// round trip, deriving the transactions after them from Seen.
func (p *Payments) changeBatch(ctx context.Context, items []*groupItem[payment.StatusChange, payment.Transaction]) {
	if err := p.tryChangeBatch(ctx, items); err != nil {
		p.fallbacks.Add(1)
		for _, it := range items {
			it.out, it.err = p.changeOne(ctx, it.in)
		}
	}
}

func (p *Payments) tryChangeBatch(ctx context.Context, items []*groupItem[payment.StatusChange, payment.Transaction]) error {
	var (
		rows   = make([]changeRow, len(items))
		ids    = make([]int64, len(items))
		outs   = make([]payment.Transaction, len(items))
		logs   []payment.LogEntry
		events []proto.Message
	)
	for i, it := range items {
		c, seen := it.in, it.in.Seen
		rows[i] = changeRow{ID: c.ID, From: int16(c.From), To: int16(c.To), Message: c.Message, ErrorMessage: c.ErrorMessage,
			ProviderTID: c.ProviderTID, ProviderData: c.ProviderData, NextPollAt: c.NextPollAt, At: c.At,
			CancelCallbacks: c.CancelCallbacks, SeenCanceled: seen.CallbacksCanceled, SeenError: seen.ErrorMessage,
			SeenTID: seen.ProviderTID}
		ids[i], outs[i] = c.ID, applied(*seen, c)
		logs = append(logs, c.Logs...)
		if c.Events != nil {
			events = append(events, c.Events(outs[i])...)
		}
	}
	doc, err := json.Marshal(rows)
	if err != nil {
		return fmt.Errorf("encode status changes: %w", err)
	}
	b := &pgx.Batch{}
	b.Queue(changeBatchSQL, doc, len(items), ids)
	if err := queueLogs(b, logs); err != nil {
		return err
	}
	if _, err := bus.QueueEnqueue(b, events...); err != nil {
		return err
	}
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("change %d transactions: %w", len(items), err)
	}
	for i, it := range items {
		it.out = outs[i]
	}
	return nil
}

// applied is seen after the change c, as changeBatchSQL writes it.
func applied(seen payment.Transaction, c payment.StatusChange) payment.Transaction {
	t := seen
	t.Status, t.StatusMessage = c.To, c.Message
	if c.ErrorMessage != "" {
		t.ErrorMessage = c.ErrorMessage
	}
	if c.ProviderTID != "" {
		t.ProviderTID = c.ProviderTID
	}
	if c.ProviderData != nil {
		t.ProviderData = c.ProviderData
	}
	t.NextPollAt, t.UpdatedAt = c.NextPollAt, c.At
	t.CallbacksCanceled = t.CallbacksCanceled || c.CancelCallbacks
	return t
}

// idBlock hands out transaction ids taken from the table's sequence in
// blocks, so that a batch knows its ids before writing.
type idBlock struct {
	mu   sync.Mutex
	next []int64
}

// idBlockSize is how many ids one read of the sequence takes.
const idBlockSize = 256

func (b *idBlock) take(ctx context.Context, pool querier, n int) ([]int64, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.next) < n {
		rows, err := pool.Query(ctx, `SELECT nextval(pg_get_serial_sequence('transactions', 'id')) FROM generate_series(1, $1)`,
			max(n-len(b.next), idBlockSize))
		if err != nil {
			return nil, fmt.Errorf("take transaction ids: %w", err)
		}
		more, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return nil, fmt.Errorf("take transaction ids: %w", err)
		}
		b.next = append(b.next, more...)
	}
	ids := b.next[:n:n]
	b.next = b.next[n:]
	return ids, nil
}
