package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/pgdb"
)

const transactionColumns = `id, reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
	provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message, error_message,
	amount::text, currency, destination_amount::text, destination_currency, COALESCE(provider_transaction_id, ''),
	provider_tags, provider_data, account_data, payment_ip_address, user_agent, payment_method_type,
	payment_method_value, COALESCE(applied_fee_id, 0), applied_fee_type, applied_fee_value::text,
	applied_fee_amount::text, applied_fee_currency, applied_fee_payer, callbacks_delivered, callbacks_total, callbacks_canceled,
	poll_attempts, next_poll_at, created_at, updated_at, status_version`

// TransactionColumns are the columns every read of a transaction selects
// (for services/gateway/cmd/getbyid).
const TransactionColumns = transactionColumns

func scanTransaction(row pgx.Row) (payment.Transaction, error) { return scanTransactionWith(row) }

// setAmounts sets t's amount, destination amount and fee amount from their
// stored texts (the fee's may be NULL).
func setAmounts(t *payment.Transaction, amount, dest string, fee *string) (err error) {
	if t.Amount, err = amountOf(&amount); err != nil {
		return err
	}
	if t.DestinationAmount, err = amountOf(&dest); err != nil {
		return err
	}
	t.Fee.Amount, err = amountOf(fee)
	return err
}

// scanTransactionWith scans transactionColumns followed by extra columns.
func scanTransactionWith(row pgx.Row, extra ...any) (payment.Transaction, error) {
	var t payment.Transaction
	var amount, dest string
	var feeValue, feeAmount *string
	var providerData, accountData []byte
	err := row.Scan(append([]any{&t.ID, &t.ReferenceID, &t.MerchantID, &t.CollabID, &t.ProviderID, &t.PayTypeID, &t.MerchantName,
		&t.ProviderName, &t.PayTypeName, &t.Nonce, &t.MerchantClientID, &t.Type, &t.Status, &t.StatusMessage,
		&t.ErrorMessage, &amount, &t.Currency, &dest, &t.DestinationCurrency, &t.ProviderTID, &t.ProviderTags,
		&providerData, &accountData, &t.PaymentIP, &t.UserAgent, &t.PaymentMethodType, &t.PaymentMethodValue,
		&t.Fee.ID, &t.Fee.Type, &feeValue, &feeAmount, &t.Fee.Currency, &t.Fee.Payer, &t.CallbacksDelivered, &t.CallbacksTotal,
		&t.CallbacksCanceled, &t.PollAttempts, &t.NextPollAt, &t.CreatedAt, &t.UpdatedAt, &t.Version}, extra...)...)
	if err != nil {
		return t, err
	}
	if err := setAmounts(&t, amount, dest, feeAmount); err != nil {
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

// createdAt is transaction id's created_at, read from its key: the updates
// by id name it beside the id, so that their plan is made for
// the one partition that holds the row (plan-time pruning). A condition
// that reads it in a subquery leaves the planner every partition to plan
// and prune at run time: on a dozen partitions that planning took 2 ms,
// against 0.3 ms for both statements here (docs/partitioning.md).
func createdAt(ctx context.Context, q pgdb.Querier, id int64) (time.Time, error) {
	var at time.Time
	err := q.QueryRow(ctx, `SELECT created_at FROM transaction_keys WHERE id = $1`, id).Scan(&at)
	return at, pgdb.Translate(err, entityTransaction)
}

// nonceNames are the unique constraints a reused nonce violates: the keys'
// (every transaction's), and the one the unpartitioned table kept, which a
// row written into the legacy partition meets first.
var nonceNames = map[string]bool{"transaction_keys_nonce_merchant_key": true, "transactions_nonce_merchant_key": true}

func (p *Payments) one(ctx context.Context, q pgdb.Querier, where string, args ...any) (payment.Transaction, error) {
	t, err := scanTransaction(q.QueryRow(ctx, `SELECT `+transactionColumns+` FROM transactions `+where, args...))
	return t, pgdb.Translate(err, entityTransaction)
}

// ByNonce implements payment.Store.
func (p *Payments) ByNonce(ctx context.Context, merchantID int32, nonce string) (payment.Transaction, error) {
	return p.one(ctx, p.pool, `WHERE (id, created_at) = (SELECT id, created_at FROM transaction_keys WHERE nonce = $2 AND merchant_id = $1)`,
		merchantID, nonce)
}

// Transaction implements payment.Store, in one statement: the key's
// created_at in a subquery, which the plan prunes the partitions by at run
// time. Its first executions on a connection plan every partition (custom
// plans know no more than a generic one here); from the sixth the
// connection's prepared statement runs the generic plan, planned no more.
// At 10 M rows on 23 partitions that is one round trip instead of two:
// p50 0.45-0.61 ms against 0.62-0.80 ms (bench/RESULTS.md, "GET by id").
func (p *Payments) Transaction(ctx context.Context, id int64) (payment.Transaction, error) {
	return p.one(ctx, p.pool, "WHERE (id, created_at) = (SELECT id, created_at FROM transaction_keys WHERE id = $1)", id)
}

// ByProviderTID implements payment.Store.
func (p *Payments) ByProviderTID(ctx context.Context, providerID int32, tid string) (payment.Transaction, error) {
	return p.one(ctx, p.pool, "WHERE provider_id = $1 AND provider_transaction_id = $2", providerID, tid)
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
