package jobs

import (
	"context"

	"github.com/paygate/paygate/services/internal/bus"
)

// OutboxRelay is the job "<service>.outbox-relay": relay publishes the
// service's outbox, continuously, and each run says how many events went
// out. The job's own events go through the same outbox; a run writes two
// (started, then completed), so they never feed a loop.
//
// Disabling it stops every event of the service, its job events included,
// until it is enabled again: nothing is lost, the outbox keeps them.
func OutboxRelay(service string, relay *bus.Relay) Job {
	return Job{
		Name: service + ".outbox-relay",
		Description: "Publishes the " + service + " service's events from its outbox to the event stream as soon as they are committed, " +
			"and prunes published ones after a day.",
		Continuous: true,
		Run: func(ctx context.Context, run *Run) error {
			rep, err := relay.RunUntil(ctx, run.Stopping())
			if err != nil {
				return Failed(err, "The outbox relay stopped on an error; the next run starts it again.")
			}
			if rep.Published > 0 {
				run.Notifyf(LevelInformation, "Published %d events.", rep.Published)
			}
			if rep.Failures > 0 {
				run.NotifyErr(LevelError, rep.LastError, "%d publish passes failed and are tried again.", rep.Failures)
			}
			return nil
		},
	}
}
