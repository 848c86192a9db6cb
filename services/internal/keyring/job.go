package keyring

import (
	"context"

	"github.com/paygate/paygate/services/internal/jobs"
)

// ResealRun is one run of a service's re-seal job: ResealAll over values,
// reported on run as the re-sealing of so many of what ("secrets", "signing
// keys").
func (k *Keyring) ResealRun(ctx context.Context, run *jobs.Run, what string, values []Stored,
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
