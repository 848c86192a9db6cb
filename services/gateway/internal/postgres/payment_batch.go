package postgres

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/protobuf/proto"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/pgdb"
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

// The batched statements take one array per column and read the rows back
// with unnest: pgx sends the arrays in Postgres's binary format, and each
// JSON document is parsed once, into its jsonb column. (Rows encoded as one
// JSON document and read with jsonb_to_recordset have their nested documents
// printed and parsed again: 5,000 journal entries took 243-259 ms that way
// and 70-79 ms from arrays; bench/RESULTS.md.)

const createBatchSQL = `
	INSERT INTO transactions (id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
		provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
		amount, currency, destination_amount, destination_currency, provider_tags, account_data,
		payment_ip_address, user_agent, applied_fee_id, applied_fee_type, applied_fee_value, applied_fee_amount,
		applied_fee_currency, applied_fee_payer, created_at, updated_at)
	OVERRIDING SYSTEM VALUE
	SELECT id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
		provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
		amount::numeric, currency, destination_amount::numeric, destination_currency,
		ARRAY(SELECT jsonb_array_elements_text(provider_tags)), account_data,
		payment_ip_address, user_agent, applied_fee_id, applied_fee_type, applied_fee_value::numeric,
		applied_fee_amount::numeric, applied_fee_currency, applied_fee_payer, created_at, created_at
	FROM unnest($1::bigint[], $2::text[], $3::integer[], $4::integer[], $5::integer[], $6::integer[], $7::text[],
		$8::text[], $9::text[], $10::text[], $11::text[], $12::smallint[], $13::smallint[], $14::text[],
		$15::text[], $16::text[], $17::text[], $18::text[], $19::jsonb[], $20::jsonb[],
		$21::text[], $22::text[], $23::bigint[], $24::smallint[], $25::text[], $26::text[],
		$27::text[], $28::smallint[], $29::timestamptz[])
		AS r(id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
		provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
		amount, currency, destination_amount, destination_currency, provider_tags, account_data,
		payment_ip_address, user_agent, applied_fee_id, applied_fee_type, applied_fee_value, applied_fee_amount,
		applied_fee_currency, applied_fee_payer, created_at)`

// createArgs is createBatchSQL's parameters for ts.
func createArgs(ts []payment.Transaction) ([]any, error) {
	n := len(ts)
	var (
		ids, feeIDs                                      = make([]int64, n), make([]*int64, n)
		merchants, collabs, providers, payTypes          = make([]int32, n), make([]int32, n), make([]int32, n), make([]int32, n)
		types, statuses, feeTypes, feePayers             = make([]int16, n), make([]int16, n), make([]int16, n), make([]int16, n)
		refs, merchantNames, providerNames, payTypeNames = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		nonces, clientIDs, messages, amounts             = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		currencies, destAmounts, destCurrencies, ips     = make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		userAgents, feeCurrencies                        = make([]string, n), make([]string, n)
		feeValues, feeAmounts                            = make([]*string, n), make([]*string, n)
		tags, accounts                                   = make([]json.RawMessage, n), make([]json.RawMessage, n)
		created                                          = make([]time.Time, n)
	)
	for i, t := range ts {
		ids[i], refs[i], merchants[i], collabs[i], providers[i], payTypes[i] = t.ID, t.ReferenceID, t.MerchantID, t.CollabID, t.ProviderID, t.PayTypeID
		merchantNames[i], providerNames[i], payTypeNames[i] = t.MerchantName, t.ProviderName, t.PayTypeName
		nonces[i], clientIDs[i], types[i], statuses[i], messages[i] = t.Nonce, t.MerchantClientID, int16(t.Type), int16(t.Status), t.StatusMessage
		amounts[i], currencies[i] = t.Amount.String(), t.Currency
		destAmounts[i], destCurrencies[i] = t.DestinationAmount.String(), t.DestinationCurrency
		ips[i], userAgents[i], created[i] = t.PaymentIP, t.UserAgent, t.CreatedAt
		feeTypes[i], feeCurrencies[i], feePayers[i] = int16(t.Fee.Type), t.Fee.Currency, int16(t.Fee.Payer)
		if t.Fee.ID != 0 {
			id, value, amount := t.Fee.ID, t.Fee.Value.String(), t.Fee.Amount.String()
			feeIDs[i], feeValues[i], feeAmounts[i] = &id, &value, &amount
		}
		var err error
		if tags[i], err = json.Marshal(t.ProviderTags); err != nil {
			return nil, fmt.Errorf("encode provider tags: %w", err)
		}
		if accounts[i], err = accountDataDoc(t.AccountData); err != nil {
			return nil, err
		}
	}
	return []any{ids, refs, merchants, collabs, providers, payTypes, merchantNames, providerNames, payTypeNames,
		nonces, clientIDs, types, statuses, messages, amounts, currencies, destAmounts, destCurrencies, tags, accounts,
		ips, userAgents, feeIDs, feeTypes, feeValues, feeAmounts, feeCurrencies, feePayers, created}, nil
}

// accountDataDoc is a transaction's account data as the account_data
// parameter of both creation paths: the column's default {} when there is
// none.
func accountDataDoc(data map[string]any) (json.RawMessage, error) {
	doc, err := jsonDoc(data)
	if err != nil {
		return nil, fmt.Errorf("encode account data: %w", err)
	}
	if doc == nil {
		doc = json.RawMessage(`{}`)
	}
	return doc, nil
}

// jsonDoc is v as a jsonb parameter: nil (SQL NULL) when v is nil or
// encodes as JSON null.
func jsonDoc(v any) (json.RawMessage, error) {
	if v == nil {
		return nil, nil
	}
	b, err := json.Marshal(v)
	if err != nil || string(b) == "null" {
		return nil, err
	}
	return b, nil
}

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
		outs    = make([]payment.Transaction, len(items))
		logs    []payment.LogEntry
		events  []proto.Message
		origins []context.Context // each event's request, for its trace
		view    int64
	)
	for i, it := range items {
		t := it.in.t
		t.ID, t.UpdatedAt, t.Version = ids[i], t.CreatedAt, 1
		if t.ProviderTags == nil {
			t.ProviderTags = []string{}
		}
		if t.ProviderData == nil {
			t.ProviderData = map[string]any{}
		}
		outs[i] = t
		for _, e := range it.in.logs {
			e.TransactionID = t.ID
			if e.At.IsZero() {
				e.At = t.CreatedAt
			}
			logs = append(logs, e)
		}
		evs := it.in.events(t)
		events = append(events, evs...)
		for range evs {
			origins = append(origins, it.ctx)
		}
		if v := it.in.view; v != 0 && (view == 0 || v < view) {
			view = v
		}
	}
	args, err := createArgs(outs)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	if view != 0 {
		b.Queue(`SELECT batch_assert($1 >= version, 'the configuration changed since the payments were decided') FROM config_version`, view)
	}
	b.Queue(createBatchSQL, args...)
	return p.sendBatch(ctx, b, logs, events, origins, "create", len(items), func() {
		for i, it := range items {
			it.out = outs[i]
		}
	})
}

// sendBatch queues the journal entries and events after b's own statements
// and runs b as one implicit transaction; done hands the batch's callers
// their transactions once it committed. origins[i] is the context of the
// request that made events[i], whose trace the event carries.
func (p *Payments) sendBatch(ctx context.Context, b *pgx.Batch, logs []payment.LogEntry, events []proto.Message, origins []context.Context, verb string, n int, done func()) error {
	if err := queueLogs(b, logs); err != nil {
		return err
	}
	if _, err := bus.QueueEnqueueTraced(b, origins, events); err != nil {
		return err
	}
	if err := p.pool.SendBatch(ctx, b).Close(); err != nil {
		return fmt.Errorf("%s %d transactions: %w", verb, n, err)
	}
	done()
	return nil
}

// logBatchSQL adds journal entries in one statement, in order.
const logBatchSQL = `
	INSERT INTO transaction_logs (transaction_id, at, stage, level, message, source_context, application,
		transaction_update, content, headers, query_params, auth_data, webhook_request, webhook_response,
		webhook_headers, exception)
	SELECT transaction_id, at, stage, level, message, source_context, application, transaction_update, content,
		headers, query_params, auth_data, webhook_request, webhook_response, webhook_headers, exception
	FROM unnest($1::bigint[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[],
		$8::jsonb[], $9::jsonb[], $10::jsonb[], $11::jsonb[], $12::text[], $13::jsonb[], $14::jsonb[],
		$15::jsonb[], $16::jsonb[])
		WITH ORDINALITY AS r(transaction_id, at, stage, level, message, source_context, application,
		transaction_update, content, headers, query_params, auth_data, webhook_request, webhook_response,
		webhook_headers, exception, n)
	ORDER BY n`

// logArgs is logBatchSQL's parameters for logs.
func logArgs(logs []payment.LogEntry) ([]any, error) {
	n := len(logs)
	var (
		txIDs                                          = make([]int64, n)
		ats                                            = make([]time.Time, n)
		stages, levels, messages, sources, apps, auths = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		// transaction_update, content, headers, query_params,
		// webhook_request, webhook_response, webhook_headers, exception
		docs [8][]json.RawMessage
	)
	for j := range docs {
		docs[j] = make([]json.RawMessage, n)
	}
	for i, e := range logs {
		txIDs[i], ats[i], stages[i], levels[i], messages[i] = e.TransactionID, e.At, string(e.Stage), e.Level, e.Message
		sources[i], apps[i], auths[i] = e.SourceContext, cmp.Or(e.Application, "paygate-gateway"), e.AuthData
		values := [8]any{e.TransactionUpdate, e.Content, e.Headers, e.QueryParams, e.WebhookRequest, e.WebhookResponse,
			e.WebhookHeaders, nil}
		if e.Exception != nil {
			values[7] = e.Exception
		}
		for j, v := range values {
			doc, err := jsonDoc(v)
			if err != nil {
				return nil, fmt.Errorf("encode log entries: %w", err)
			}
			docs[j][i] = doc
		}
	}
	return []any{txIDs, ats, stages, levels, messages, sources, apps, docs[0], docs[1], docs[2], docs[3], auths,
		docs[4], docs[5], docs[6], docs[7]}, nil
}

// queueLogs queues the insert of journal entries on b.
func queueLogs(b *pgx.Batch, logs []payment.LogEntry) error {
	if len(logs) == 0 {
		return nil
	}
	args, err := logArgs(logs)
	if err != nil {
		return err
	}
	b.Queue(logBatchSQL, args...)
	return nil
}

const changeBatchSQL = `
	WITH changed AS (
		UPDATE transactions SET status = x_to, status_message = x_message,
			error_message = CASE WHEN x_error_message <> '' THEN x_error_message ELSE error_message END,
			provider_transaction_id = COALESCE(NULLIF(x_provider_tid, ''), provider_transaction_id),
			provider_data = COALESCE(x_provider_data, provider_data), next_poll_at = x_next_poll_at, updated_at = x_at,
			callbacks_canceled = callbacks_canceled OR x_cancel_callbacks,
			recovery_attempts = CASE WHEN x_to = 1 THEN 0 ELSE recovery_attempts END,
			status_version = status_version + CASE WHEN status <> x_to THEN 1 ELSE 0 END
		FROM unnest($1::bigint[], $2::smallint[], $3::smallint[], $4::text[], $5::text[], $6::text[], $7::jsonb[],
			$8::timestamptz[], $9::timestamptz[], $10::boolean[], $11::boolean[], $12::text[], $13::text[], $14::bigint[],
			$15::timestamptz[])
			AS r(x_id, x_from, x_to, x_message, x_error_message, x_provider_tid, x_provider_data, x_next_poll_at,
			x_at, x_cancel_callbacks, x_seen_canceled, x_seen_error, x_seen_tid, x_seen_version, x_created)
		-- id = ANY($1) makes the plan look the rows up by primary key (the
		-- planner guesses 100 rows from unnest, and its generic plan would
		-- otherwise scan the table to hash-join them).
		-- created_at = ANY($15) keeps the lookups to the partitions of those
		-- days (docs/partitioning.md).
		WHERE id = ANY($1) AND created_at = ANY($15) AND id = x_id AND created_at = x_created AND status = x_from AND callbacks_canceled = x_seen_canceled AND error_message = x_seen_error
			AND COALESCE(provider_transaction_id, '') = x_seen_tid AND status_version = x_seen_version
		RETURNING id)
	SELECT batch_assert(count(*) = cardinality($1), 'a transaction changed since its status change was decided') FROM changed`

// changeArgs is changeBatchSQL's parameters for changes, each with Seen.
func changeArgs(changes []payment.StatusChange) ([]any, error) {
	n := len(changes)
	var (
		ids                   = make([]int64, n)
		froms, tos            = make([]int16, n), make([]int16, n)
		messages, errs, tids  = make([]string, n), make([]string, n), make([]string, n)
		data                  = make([]json.RawMessage, n)
		polls                 = make([]*time.Time, n)
		ats                   = make([]time.Time, n)
		cancels, seenCanceled = make([]bool, n), make([]bool, n)
		seenErrors, seenTIDs  = make([]string, n), make([]string, n)
		seenVersions          = make([]int64, n)
		created               = make([]time.Time, n)
	)
	for i, c := range changes {
		ids[i], froms[i], tos[i], messages[i], errs[i], tids[i] = c.ID, int16(c.From), int16(c.To), c.Message, c.ErrorMessage, c.ProviderTID
		polls[i], ats[i], cancels[i] = c.NextPollAt, c.At, c.CancelCallbacks
		seenCanceled[i], seenErrors[i], seenTIDs[i] = c.Seen.CallbacksCanceled, c.Seen.ErrorMessage, c.Seen.ProviderTID
		seenVersions[i], created[i] = c.Seen.Version, c.Seen.CreatedAt
		if c.ProviderData != nil {
			var err error
			if data[i], err = jsonDoc(c.ProviderData); err != nil {
				return nil, fmt.Errorf("encode provider data: %w", err)
			}
		}
	}
	return []any{ids, froms, tos, messages, errs, tids, data, polls, ats, cancels, seenCanceled, seenErrors, seenTIDs, seenVersions, created}, nil
}

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
		changes = make([]payment.StatusChange, len(items))
		outs    = make([]payment.Transaction, len(items))
		logs    []payment.LogEntry
		events  []proto.Message
		origins []context.Context // each event's request, for its trace
	)
	for i, it := range items {
		c := it.in
		changes[i], outs[i] = c, applied(*c.Seen, c)
		logs = append(logs, c.Logs...)
		if c.Events != nil {
			evs := c.Events(outs[i])
			events = append(events, evs...)
			for range evs {
				origins = append(origins, it.ctx)
			}
		}
	}
	args, err := changeArgs(changes)
	if err != nil {
		return err
	}
	b := &pgx.Batch{}
	b.Queue(changeBatchSQL, args...)
	return p.sendBatch(ctx, b, logs, events, origins, "change", len(items), func() {
		for i, it := range items {
			it.out = outs[i]
		}
	})
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
	if c.To != seen.Status {
		// changeBatchSQL applies the change only while the row still holds
		// seen's version, so the row's version after it is this one.
		t.Version = seen.Version + 1
	}
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

func (b *idBlock) take(ctx context.Context, pool pgdb.Querier, n int) ([]int64, error) {
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
