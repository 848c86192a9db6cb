package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/gateway/internal/balance"
	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/providers"
	gwredis "github.com/paygate/paygate/services/gateway/internal/redis"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
)

// credentialKeys returns the keyring of providers' credentials:
// PAYGATE_CREDENTIALS_KEYS when set, otherwise the gateway's encryption
// keyring box (PAYGATE_ENCRYPTION_KEYS, by default PAYGATE_ENCRYPTION_KEY or
// the demo key under credential.DefaultKeyID).
func (c Config) credentialKeys(box *keyring.Keyring) (*credential.Keyring, error) {
	if c.CredentialsKeys != "" {
		k, err := credential.ParseKeyring(c.CredentialsKeys)
		if err != nil {
			return nil, fmt.Errorf("PAYGATE_CREDENTIALS_KEYS: %w", err)
		}
		return k, nil
	}
	return credential.FromRing(box), nil
}

// credentialService builds the credentials service: providers'
// credentials sealed in Postgres under the keyring of credentialKeys. The
// payment path and the balances ask it for a collab's credentials.
func credentialService(cfg Config, pool *pgxpool.Pool, box *keyring.Keyring) (*credential.Service, error) {
	keys, err := cfg.credentialKeys(box)
	if err != nil {
		return nil, err
	}
	return credential.NewService(postgres.NewCredentials(pool), keys, time.Now), nil
}

// balanceService builds the balances service: balances asked of the
// providers with the collab's credentials and cached in Redis for cacheTTL
// (the BalanceCacheSeconds setting, whose default is
// PAYGATE_BALANCE_CACHE_TTL).
func balanceService(cfg Config, pool *pgxpool.Pool, rdb *redis.Client, transport http.RoundTripper,
	credentials *credential.Service, cacheTTL func(context.Context) time.Duration) *balance.Service {
	balances := balance.NewService(postgres.NewCredentials(pool),
		func(ctx context.Context, collabID int32) (map[string]any, error) {
			return credentials.Of(ctx, collabID)
		},
		providers.NewClient(&http.Client{Transport: transport, Timeout: cfg.ProviderTimeout}),
		gwredis.NewBalanceCache(rdb, cfg.Schema),
		balance.Options{TTL: cacheTTL, Timeout: cfg.ProviderTimeout})
	// New credentials: the next balance is asked with them, not read from the cache.
	credentials.OnChange(balances.Forget)
	return balances
}

// credentialsResealJob re-seals, every hour, the credentials still sealed
// under an older key of PAYGATE_CREDENTIALS_KEYS under the current one
// (docs/contracts-credentials.md, "Rotating the key").
func credentialsResealJob(credentials *credential.Service) jobs.Job {
	return jobs.Job{
		Name:        "gateway.credentials-reseal",
		Description: "Re-seals providers' credentials still sealed under an older key of PAYGATE_CREDENTIALS_KEYS under the current (first) key, every hour.",
		Every:       time.Hour,
		Run: func(ctx context.Context, run *jobs.Run) error {
			total := 0
			for {
				n, more, err := credentials.Reseal(ctx, 100)
				total += n
				if err != nil {
					run.Notifyf(jobs.LevelError, "Re-sealed %d collabs' credentials, then stopped.", total)
					return jobs.Failed(err, "Some credentials could not be re-sealed under the current key; the next run tries again.")
				}
				if !more || n == 0 {
					break
				}
			}
			if total > 0 {
				run.Notifyf(jobs.LevelInformation, "Re-sealed %d collabs' credentials under the current key.", total)
			}
			return nil
		},
	}
}
