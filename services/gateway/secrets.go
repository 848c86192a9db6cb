package main

import (
	"context"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/keyring/resealjob"
)

// secretsResealJob re-seals, every hour, the merchants' API secrets and
// providers' webhook secrets still sealed under an older key of
// PAYGATE_ENCRYPTION_KEYS under the current one (docs/operations.md,
// "Rotate keys").
func secretsResealJob(box *keyring.Keyring, store *postgres.Payments) jobs.Job {
	return jobs.Job{
		Name: "gateway.secrets-reseal",
		Description: "Re-seals merchants' API secrets and providers' webhook secrets still sealed under an older key of " +
			"PAYGATE_ENCRYPTION_KEYS under the current (first) key, every hour.",
		Every: time.Hour,
		Run: func(ctx context.Context, run *jobs.Run) error {
			return resealSecrets(ctx, run, box, store)
		},
	}
}

func resealSecrets(ctx context.Context, run *jobs.Run, box *keyring.Keyring, store *postgres.Payments) error {
	secrets, err := store.SealedSecrets(ctx)
	if err != nil {
		return jobs.Failed(err, "The sealed secrets could not be read; the next run tries again.")
	}
	stored := make([]keyring.Stored, len(secrets))
	for i, s := range secrets {
		stored[i] = s.Stored
	}
	return resealjob.Run(ctx, box, run, "secrets", stored, func(ctx context.Context, i int, sealed []byte) (bool, error) {
		return store.ReplaceSealedSecret(ctx, secrets[i], sealed)
	})
}
