package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb"
)

// MerchantByHash implements payment.Store.
func (p *Payments) MerchantByHash(ctx context.Context, hash string) (merchant.Merchant, error) {
	m, err := scanMerchant(p.pool.QueryRow(ctx, `SELECT `+merchantColumns+` FROM merchants WHERE hash = $1`, hash))
	return m, pgdb.Translate(err, entityMerchant)
}

// MerchantSecret returns a merchant's id and its sealed API secrets that
// are not revoked and not expired, newest first, by its hash (not found
// when the merchant is unknown or has none).
func (p *Payments) MerchantSecret(ctx context.Context, hash string) (int32, []payment.SealedSecret, error) {
	rows, err := p.pool.Query(ctx, `
		SELECT m.id, s.id, s.secret_sealed, s.expires_at FROM merchants m JOIN merchant_api_secrets s ON s.merchant_id = m.id
		WHERE m.hash = $1 AND s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())
		ORDER BY s.id DESC`, hash)
	if err != nil {
		return 0, nil, fmt.Errorf("select api secrets of merchant %q: %w", hash, err)
	}
	var id int32
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (payment.SealedSecret, error) {
		var s payment.SealedSecret
		var expires *time.Time
		err := r.Scan(&id, &s.ID, &s.Sealed, &expires)
		if expires != nil {
			s.ExpiresAt = *expires
		}
		return s, err
	})
	if err != nil {
		return 0, nil, fmt.Errorf("read api secrets of merchant %q: %w", hash, err)
	}
	if len(out) == 0 {
		return 0, nil, pgdb.Translate(pgx.ErrNoRows, entityMerchant)
	}
	return id, out, nil
}

// MerchantSecretByID returns the sealed API secret a merchant's outgoing
// requests are signed with: its newest that does not expire, else its
// newest still accepted (not found when it has none).
func (p *Payments) MerchantSecretByID(ctx context.Context, merchantID int32) ([]byte, error) {
	var sealed []byte
	err := p.pool.QueryRow(ctx, `
		SELECT secret_sealed FROM merchant_api_secrets
		WHERE merchant_id = $1 AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > now())
		ORDER BY expires_at IS NULL DESC, id DESC LIMIT 1`, merchantID).Scan(&sealed)
	return sealed, pgdb.Translate(err, entityMerchant)
}

// SetMerchantSecret gives a merchant that has no API secret at all the
// sealed secret (the demo's seeding: a merchant whose secrets were rotated
// keeps them).
func (p *Payments) SetMerchantSecret(ctx context.Context, merchantID int32, sealed []byte) error {
	_, err := p.pool.Exec(ctx, `
		INSERT INTO merchant_api_secrets (merchant_id, secret_sealed, created_by)
		SELECT $1, $2, 'demo' WHERE NOT EXISTS (SELECT 1 FROM merchant_api_secrets WHERE merchant_id = $1)`, merchantID, sealed)
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
