package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/merchantadmin"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// Merchants is the Postgres implementation of merchantadmin.Store
// (migration 0036): merchants and their API secrets.
type Merchants struct {
	pool *pgxpool.Pool
}

var _ merchantadmin.Store = (*Merchants)(nil)

// NewMerchants returns the store on pool.
func NewMerchants(pool *pgxpool.Pool) *Merchants { return &Merchants{pool: pool} }

func merchantNotFound(err error, id int32) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return apperr.New(apperr.KindNotFound, err, "Merchant %d was not found.", id)
	}
	return fmt.Errorf("select merchant %d: %w", id, err)
}

// Merchant implements merchantadmin.Store.
func (s *Merchants) Merchant(ctx context.Context, id int32) (merchant.Merchant, error) {
	m, err := scanMerchant(s.pool.QueryRow(ctx, `SELECT `+merchantColumns+` FROM merchants WHERE id = $1`, id))
	if err != nil {
		return m, merchantNotFound(err, id)
	}
	return m, nil
}

func sameName(ctx context.Context, t pgx.Tx, name string, id int32) error {
	var taken bool
	if err := t.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM merchants WHERE lower(name) = lower($1) AND id <> $2)`,
		name, id).Scan(&taken); err != nil {
		return fmt.Errorf("look for merchant %q: %w", name, err)
	}
	if taken {
		return apperr.Conflict("A merchant named %q already exists.", name)
	}
	return nil
}

// CreateMerchant implements merchantadmin.Store: the new id is one more
// than the largest, taken under a lock that serializes additions.
func (s *Merchants) CreateMerchant(ctx context.Context, m merchant.Merchant,
	record func(ctx context.Context, j activity.Journal, m merchant.Merchant) error) (merchant.Merchant, error) {
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		if _, err := t.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('gateway.merchants.create'))`); err != nil {
			return fmt.Errorf("lock merchant creation: %w", err)
		}
		if err := sameName(ctx, t, m.Name, 0); err != nil {
			return err
		}
		err := t.QueryRow(ctx, `
			INSERT INTO merchants (id, name, hash, contact_name, contact_email, disabled)
			SELECT COALESCE(max(id), 0) + 1, $1, $2, $3, $4, $5 FROM merchants
			RETURNING id`, m.Name, m.Hash, m.ContactName, m.ContactEmail, m.Disabled).Scan(&m.ID)
		if err != nil {
			return pgdb.Translate(fmt.Errorf("insert merchant: %w", err), entityMerchant)
		}
		return record(ctx, &tx{t: t}, m)
	})
	return m, err
}

// UpdateMerchant implements merchantadmin.Store.
func (s *Merchants) UpdateMerchant(ctx context.Context, id int32,
	change func(ctx context.Context, j activity.Journal, old merchant.Merchant) (merchant.Merchant, error)) (merchant.Merchant, error) {
	var next merchant.Merchant
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		old, err := scanMerchant(t.QueryRow(ctx, `SELECT `+merchantColumns+` FROM merchants WHERE id = $1 FOR UPDATE`, id))
		if err != nil {
			return merchantNotFound(err, id)
		}
		if next, err = change(ctx, &tx{t: t}, old); err != nil {
			return err
		}
		if next.Name != old.Name {
			if err := sameName(ctx, t, next.Name, id); err != nil {
				return err
			}
		}
		_, err = t.Exec(ctx, `
			UPDATE merchants SET name = $2, contact_name = $3, contact_email = $4, disabled = $5, updated_at = now()
			WHERE id = $1`, id, next.Name, next.ContactName, next.ContactEmail, next.Disabled)
		if err != nil {
			return fmt.Errorf("update merchant %d: %w", id, err)
		}
		return nil
	})
	return next, err
}

const secretColumns = `s.id, s.merchant_id, s.created_at, s.created_by, u.last_used_at, s.expires_at, s.revoked_at`

const secretFrom = ` FROM merchant_api_secrets s LEFT JOIN merchant_api_secret_uses u ON u.secret_id = s.id `

func scanSecret(row pgx.Row) (merchantadmin.Secret, error) {
	var sec merchantadmin.Secret
	var used, expires, revoked *time.Time
	err := row.Scan(&sec.ID, &sec.MerchantID, &sec.CreatedAt, &sec.CreatedBy, &used, &expires, &revoked)
	for _, f := range []struct {
		from *time.Time
		to   *time.Time
	}{{used, &sec.LastUsedAt}, {expires, &sec.ExpiresAt}, {revoked, &sec.RevokedAt}} {
		if f.from != nil {
			*f.to = *f.from
		}
	}
	return sec, err
}

func secrets(ctx context.Context, q pgdb.Querier, merchantID int32) ([]merchantadmin.Secret, error) {
	rows, err := q.Query(ctx, `SELECT `+secretColumns+secretFrom+`WHERE s.merchant_id = $1 ORDER BY s.id DESC`, merchantID)
	if err != nil {
		return nil, fmt.Errorf("select secrets of merchant %d: %w", merchantID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (merchantadmin.Secret, error) { return scanSecret(r) })
	if err != nil {
		return nil, fmt.Errorf("read secrets of merchant %d: %w", merchantID, err)
	}
	return out, nil
}

// Secrets implements merchantadmin.Store.
func (s *Merchants) Secrets(ctx context.Context, merchantID int32) ([]merchantadmin.Secret, error) {
	return secrets(ctx, s.pool, merchantID)
}

// CreateSecret implements merchantadmin.Store.
func (s *Merchants) CreateSecret(ctx context.Context, merchantID int32, by string,
	change func(ctx context.Context, j activity.Journal, m merchant.Merchant, secrets []merchantadmin.Secret) ([]byte, []int64, time.Time, error)) (merchantadmin.Secret, error) {
	var sec merchantadmin.Secret
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		m, err := scanMerchant(t.QueryRow(ctx, `SELECT `+merchantColumns+` FROM merchants WHERE id = $1 FOR NO KEY UPDATE`, merchantID))
		if err != nil {
			return merchantNotFound(err, merchantID)
		}
		old, err := secrets(ctx, t, merchantID)
		if err != nil {
			return err
		}
		sealed, expire, expiresAt, err := change(ctx, &tx{t: t}, m, old)
		if err != nil {
			return err
		}
		if len(expire) > 0 {
			if _, err := t.Exec(ctx, `UPDATE merchant_api_secrets SET expires_at = $3 WHERE merchant_id = $1 AND id = ANY($2)`,
				merchantID, expire, expiresAt); err != nil {
				return fmt.Errorf("expire secrets of merchant %d: %w", merchantID, err)
			}
		}
		var id int64
		if err := t.QueryRow(ctx, `INSERT INTO merchant_api_secrets (merchant_id, secret_sealed, created_by) VALUES ($1, $2, $3) RETURNING id`,
			merchantID, sealed, by).Scan(&id); err != nil {
			return fmt.Errorf("insert secret of merchant %d: %w", merchantID, err)
		}
		sec, err = scanSecret(t.QueryRow(ctx, `SELECT `+secretColumns+secretFrom+`WHERE s.id = $1`, id))
		return err
	})
	return sec, err
}

// RevokeSecret implements merchantadmin.Store.
func (s *Merchants) RevokeSecret(ctx context.Context, merchantID int32, secretID int64, at time.Time,
	check func(ctx context.Context, j activity.Journal, m merchant.Merchant, s merchantadmin.Secret) error) (merchantadmin.Secret, error) {
	var sec merchantadmin.Secret
	err := pgdb.InTx(ctx, s.pool, func(t pgx.Tx) error {
		m, err := scanMerchant(t.QueryRow(ctx, `SELECT `+merchantColumns+` FROM merchants WHERE id = $1 FOR NO KEY UPDATE`, merchantID))
		if err != nil {
			return merchantNotFound(err, merchantID)
		}
		sec, err = scanSecret(t.QueryRow(ctx, `SELECT `+secretColumns+secretFrom+`WHERE s.id = $1 AND s.merchant_id = $2`, secretID, merchantID))
		if errors.Is(err, pgx.ErrNoRows) {
			return apperr.NotFound("Secret %d of merchant %d was not found.", secretID, merchantID)
		}
		if err != nil {
			return fmt.Errorf("select secret %d: %w", secretID, err)
		}
		if err := check(ctx, &tx{t: t}, m, sec); err != nil {
			return err
		}
		if _, err := t.Exec(ctx, `UPDATE merchant_api_secrets SET revoked_at = $2 WHERE id = $1`, secretID, at); err != nil {
			return fmt.Errorf("revoke secret %d: %w", secretID, err)
		}
		sec.RevokedAt = at
		return nil
	})
	if errors.Is(err, merchantadmin.ErrUnchanged) {
		return sec, nil
	}
	return sec, err
}

// TouchSecret records that secret id verified a signature at at (a later
// time only).
func (p *Payments) TouchSecret(ctx context.Context, id int64, at time.Time) error {
	_, err := p.pool.Exec(ctx, `
		INSERT INTO merchant_api_secret_uses (secret_id, last_used_at) VALUES ($1, $2)
		ON CONFLICT (secret_id) DO UPDATE SET last_used_at = GREATEST(merchant_api_secret_uses.last_used_at, EXCLUDED.last_used_at)`,
		id, at)
	if err != nil {
		return fmt.Errorf("record use of secret %d: %w", id, err)
	}
	return nil
}
