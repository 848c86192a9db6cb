// Package resealjob is the body of the services' re-seal jobs: it re-seals
// stored values under a keyring's current key and reports on the job's run.
// It lives apart from keyring so that the keyring, which domain packages
// import, never links the job runner (and through it pgx and NATS).
package resealjob

import (
	"context"

	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
)

// Run is one run of a service's re-seal job: k.ResealAll over values,
// reported on run as the re-sealing of so many of what ("secrets", "signing
// keys").
func Run(ctx context.Context, k *keyring.Keyring, run *jobs.Run, what string, values []keyring.Stored,
	replace func(ctx context.Context, i int, sealed []byte) (bool, error)) error {
	n, err := k.ResealAll(ctx, values, replace)
	if err != nil {
		run.Notifyf(jobs.LevelError, "Re-sealed %d %s under key %q; the others could not be, the next run tries again.", n, what, k.Current())
		return jobs.Failed(err, "Some %s could not be re-sealed under key %q; the next run tries again.", what, k.Current())
	}
	if n > 0 {
		run.Notifyf(jobs.LevelInformation, "Re-sealed %d %s under key %q.", n, what, k.Current())
	}
	return nil
}
