package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/settings"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Settings is the Postgres implementation of settings.Store (migration
// 0020).
type Settings struct {
	pool *pgxpool.Pool
}

var _ settings.Store = (*Settings)(nil)

// NewSettings returns the settings store on pool.
func NewSettings(pool *pgxpool.Pool) *Settings {
	return &Settings{pool: pool}
}

const settingColumns = `key, value, version, updated_at, updated_by`

// maxSettingRows bounds Values: the registry has a handful of keys, and
// only its keys are ever stored.
const maxSettingRows = 1000

func scanSetting(row pgx.Row) (settings.Value, error) {
	var v settings.Value
	var raw []byte
	err := row.Scan(&v.Key, &raw, &v.Version, &v.UpdatedAt, &v.UpdatedBy)
	v.JSON, v.UpdatedAt = json.RawMessage(raw), v.UpdatedAt.UTC()
	return v, err
}

// Values implements settings.Store.
func (s *Settings) Values(ctx context.Context) ([]settings.Value, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+settingColumns+` FROM settings ORDER BY key LIMIT $1`, maxSettingRows)
	if err != nil {
		return nil, fmt.Errorf("select settings: %w", err)
	}
	values, err := pgx.CollectRows(rows, func(row pgx.CollectableRow) (settings.Value, error) { return scanSetting(row) })
	if err != nil {
		return nil, fmt.Errorf("read settings: %w", err)
	}
	return values, nil
}

// SetValue implements settings.Store. Changes are serialized by a table
// lock that plain reads do not wait for: settings change rarely, and the
// old value of the activity entry must be the one replaced, even when two
// first values of a key are stored at once.
func (s *Settings) SetValue(ctx context.Context, key string, value json.RawMessage, by string,
	then func(ctx context.Context, j settings.Journal, old *settings.Value, stored settings.Value) error) (settings.Value, error) {
	var out settings.Value
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		if _, err := t.Exec(ctx, `LOCK TABLE settings IN SHARE ROW EXCLUSIVE MODE`); err != nil {
			return fmt.Errorf("lock settings: %w", err)
		}
		var old *settings.Value
		prev, err := scanSetting(t.QueryRow(ctx, `SELECT `+settingColumns+` FROM settings WHERE key = $1`, key))
		switch {
		case errors.Is(err, pgx.ErrNoRows):
		case err != nil:
			return fmt.Errorf("select setting %s: %w", key, err)
		default:
			old = &prev
		}
		out, err = scanSetting(t.QueryRow(ctx, `
			INSERT INTO settings AS s (key, value, version, updated_by) VALUES ($1, $2::jsonb, 1, $3)
			ON CONFLICT (key) DO UPDATE SET value = excluded.value, version = s.version + 1,
				updated_at = now(), updated_by = excluded.updated_by
			RETURNING `+settingColumns, key, string(value), by))
		if err != nil {
			return fmt.Errorf("store setting %s: %w", key, err)
		}
		return then(ctx, &tx{t: t}, old, out)
	})
	return out, err
}
