package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/keyring"
)

// sealedSecretColumns are the tables and columns holding values sealed
// with the gateway's encryption keyring (PAYGATE_ENCRYPTION_KEYS), each
// with its key column and how its owner (the sealing's associated data) is
// named. Providers' credentials are not here: they keep their key id in a
// column of their own and have their own job (credential.Service.Reseal).
var sealedSecretColumns = []struct {
	table, key, column, name string
	owner                    func(int32) string
}{
	{"merchant_api_secrets", "merchant_id", "secret_sealed", "API secret of merchant", payment.MerchantSecretOwner},
	{"provider_connections", "provider_id", "webhook_secret_sealed", "webhook secret of provider", payment.ProviderSecretOwner},
}

// SealedSecret is one value sealed with the encryption keyring, as read by
// SealedSecrets.
type SealedSecret struct {
	keyring.Stored
	table int
	id    int32
}

// SealedSecrets returns every merchant API secret and provider webhook
// secret as stored (a few rows per merchant and provider: read at once).
func (p *Payments) SealedSecrets(ctx context.Context) ([]SealedSecret, error) {
	var out []SealedSecret
	for i, c := range sealedSecretColumns {
		rows, err := p.pool.Query(ctx, fmt.Sprintf(`SELECT %s, %s FROM %s ORDER BY 1`, c.key, c.column, c.table))
		if err != nil {
			return nil, fmt.Errorf("select %s: %w", c.table, err)
		}
		got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (SealedSecret, error) {
			s := SealedSecret{table: i}
			err := r.Scan(&s.id, &s.Sealed)
			s.Name = fmt.Sprintf("%s %d", c.name, s.id)
			s.AAD = c.owner(s.id)
			return s, err
		})
		if err != nil {
			return nil, fmt.Errorf("select %s: %w", c.table, err)
		}
		out = append(out, got...)
	}
	return out, nil
}

// ReplaceSealedSecret stores sealed in place of s when the stored value is
// still s's, and reports whether it did (false: it changed meanwhile).
func (p *Payments) ReplaceSealedSecret(ctx context.Context, s SealedSecret, sealed []byte) (bool, error) {
	c := sealedSecretColumns[s.table]
	tag, err := p.pool.Exec(ctx, fmt.Sprintf(`UPDATE %s SET %s = $1 WHERE %s = $2 AND %s = $3`, c.table, c.column, c.key, c.column),
		sealed, s.id, s.Sealed)
	if err != nil {
		return false, fmt.Errorf("update %s: %w", s.Name, err)
	}
	return tag.RowsAffected() == 1, nil
}
