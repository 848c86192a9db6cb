package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/activity"
)

// InsertActivity implements collab.Tx.
func (x *tx) InsertActivity(ctx context.Context, a activity.Entry) (int64, error) {
	var id int64
	err := x.t.QueryRow(ctx, `
		INSERT INTO activity_log (at, user_id, username, ip, user_agent, merchant_id, merchant_name,
			provider_id, provider_name, collab_id, pay_type_id, pay_type_name, pay_type_code, channel,
			action_type, message, sensitive_action_name, old_value, new_value, reason, count,
			confirmation_id, proofs)
		VALUES ($1, NULLIF($2::bigint, 0), $3, $4, $5, NULLIF($6::integer, 0), $7,
			NULLIF($8::integer, 0), $9, NULLIF($10::integer, 0), NULLIF($11::integer, 0), $12, $13, $14,
			$15, $16, $17, $18::jsonb, $19::jsonb, $20, $21, $22, $23::jsonb)
		RETURNING id`,
		a.At, a.UserID, a.Username, a.IP, a.UserAgent, a.MerchantID, a.MerchantName,
		a.ProviderID, a.ProviderName, a.CollabID, a.PayTypeID, a.PayTypeName, a.PayTypeCode, a.Channel,
		string(a.ActionType), a.Message, a.SensitiveActionName, jsonArg(a.OldValue), jsonArg(a.NewValue), a.Reason, a.Count,
		a.ConfirmationID, jsonArg(a.Proofs),
	).Scan(&id)
	if err != nil {
		return 0, fmt.Errorf("insert activity: %w", err)
	}
	return id, nil
}

// jsonArg returns raw JSON as a query argument, nil for none.
func jsonArg(v []byte) any {
	if v == nil {
		return nil
	}
	return string(v)
}

const activityColumns = `a.id, a.at, COALESCE(a.user_id, 0), a.username, a.ip, a.user_agent,
	COALESCE(a.merchant_id, 0), a.merchant_name, COALESCE(a.provider_id, 0), a.provider_name,
	COALESCE(a.collab_id, 0), COALESCE(a.pay_type_id, 0), a.pay_type_name, a.pay_type_code, a.channel,
	a.action_type, a.message, a.sensitive_action_name, a.old_value::text, a.new_value::text, a.reason, a.count,
	a.confirmation_id, a.proofs::text`

// Activity implements collab.Store.
func (s *Store) Activity(ctx context.Context, q activity.Query) ([]activity.Entry, error) {
	sql, args := activityQuery(q)
	if sql == "" {
		return []activity.Entry{}, nil
	}
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("select activity: %w", err)
	}
	as, err := pgx.CollectRows(rows, scanActivity)
	if err != nil {
		return nil, fmt.Errorf("read activity: %w", err)
	}
	return as, nil
}

// activityQuery returns the query that q needs, or "" when it selects
// nothing. Each shape walks one index newest first and stops at the limit: a
// collab's entries the collab index, one merchant's the merchant index,
// everything the time index, and a merchant user's several merchants one
// merchant-index walk per merchant, merged.
func activityQuery(q activity.Query) (string, []any) {
	args := []any{q.From, q.To, q.Limit}
	if q.CollabID == 0 && q.MerchantID == 0 && !q.Scope.All {
		if len(q.Scope.MerchantIDs) == 0 {
			return "", nil
		}
		args = append(args, q.Scope.MerchantIDs)
		return `SELECT ` + activityColumns + `
			FROM unnest($4::integer[]) AS s(merchant_id)
			CROSS JOIN LATERAL (
				SELECT * FROM activity_log l
				WHERE l.merchant_id = s.merchant_id AND l.at >= $1 AND l.at <= $2
				ORDER BY l.at DESC, l.id DESC LIMIT $3
			) a
			ORDER BY a.at DESC, a.id DESC LIMIT $3`, args
	}
	where := "a.at >= $1 AND a.at <= $2"
	if q.CollabID != 0 {
		args = append(args, q.CollabID)
		where += fmt.Sprintf(" AND a.collab_id = $%d", len(args))
	}
	if q.MerchantID != 0 {
		args = append(args, q.MerchantID)
		where += fmt.Sprintf(" AND a.merchant_id = $%d", len(args))
	}
	if !q.Scope.All {
		args = append(args, q.Scope.MerchantIDs)
		where += fmt.Sprintf(" AND a.merchant_id = ANY($%d)", len(args))
	}
	return `SELECT ` + activityColumns + ` FROM activity_log a WHERE ` + where + ` ORDER BY a.at DESC, a.id DESC LIMIT $3`, args
}

func scanActivity(row pgx.CollectableRow) (activity.Entry, error) {
	var a activity.Entry
	var action string
	var oldValue, newValue, proofs *string
	err := row.Scan(&a.ID, &a.At, &a.UserID, &a.Username, &a.IP, &a.UserAgent,
		&a.MerchantID, &a.MerchantName, &a.ProviderID, &a.ProviderName,
		&a.CollabID, &a.PayTypeID, &a.PayTypeName, &a.PayTypeCode, &a.Channel,
		&action, &a.Message, &a.SensitiveActionName, &oldValue, &newValue, &a.Reason, &a.Count,
		&a.ConfirmationID, &proofs)
	if proofs != nil {
		a.Proofs = []byte(*proofs)
	}
	a.ActionType = activity.ActionType(action)
	if oldValue != nil {
		a.OldValue = []byte(*oldValue)
	}
	if newValue != nil {
		a.NewValue = []byte(*newValue)
	}
	return a, err
}
