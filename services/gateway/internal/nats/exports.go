package nats

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/internal/bus"
)

// ExportConsumer is the durable consumer of the export requests of group
// (the schema): the gateways of one schema share it, so each request goes
// to one of them at a time.
func ExportConsumer(group string) string { return group + "-file-exports" }

// ExportOptions configure RunFileExports.
type ExportOptions struct {
	// Workers is how many files this process writes at once (1).
	Workers int
	// Logger logs what the workers do.
	Logger *slog.Logger
}

// RunFileExports consumes the FileExportRequested events of group with
// worker until ctx ends: each worker goroutine asks the durable consumer
// for one request at a time (never holding requests another replica could
// take), processes it, and only then acknowledges it; while a file is
// written its request is kept (InProgress) at every lease renewal, and the
// consumer's AckWait is the worker's lease, so a request whose worker died
// returns to another worker about when the file's claim lapses. A request
// to try later is handed back with a delay of one lease.
func RunFileExports(ctx context.Context, js jetstream.JetStream, group string, worker *export.Worker, o ExportOptions) error {
	if o.Workers < 1 {
		o.Workers = 1
	}
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	durable := ExportConsumer(group)
	log = log.With("consumer", durable)
	cons, err := js.CreateOrUpdateConsumer(ctx, bus.StreamName, jetstream.ConsumerConfig{
		Durable:       durable,
		FilterSubject: bus.Subject(&eventsv1.FileExportRequested{}),
		AckPolicy:     jetstream.AckExplicitPolicy,
		AckWait:       worker.Lease(),
		DeliverPolicy: jetstream.DeliverAllPolicy,
		MaxDeliver:    -1,
		MaxAckPending: 1000,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return fmt.Errorf("consumer %s: %w", durable, err)
	}
	defer bus.StartLagSampler(ctx, cons, durable, 0)()
	done := make(chan struct{}, o.Workers)
	for range o.Workers {
		go func() {
			defer func() { done <- struct{}{} }()
			for ctx.Err() == nil {
				fctx, cancel := context.WithTimeout(ctx, 30*time.Second)
				msg, err := cons.Next(jetstream.FetchContext(fctx))
				cancel()
				if err != nil {
					if ctx.Err() == nil && !errors.Is(err, jetstream.ErrNoMessages) && !errors.Is(err, context.DeadlineExceeded) {
						log.WarnContext(ctx, "fetch an export request", "error", err)
						sleep(ctx, time.Second)
					}
					continue
				}
				handleExport(ctx, log, worker, msg)
			}
		}()
	}
	for range o.Workers {
		<-done
	}
	return nil
}

func handleExport(ctx context.Context, log *slog.Logger, worker *export.Worker, msg jetstream.Msg) {
	var ev eventsv1.FileExportRequested
	if err := bus.Decode(msg, &ev); err != nil {
		log.ErrorContext(ctx, "export request dropped: it cannot be read", "error", err)
		_ = msg.Term()
		return
	}
	var at time.Time
	if ev.GetRequestedAt() != nil {
		at = ev.GetRequestedAt().AsTime()
	}
	disp, err := worker.Process(ctx, ev.GetFileId(), at, func() { _ = msg.InProgress() })
	if err != nil && ctx.Err() == nil {
		log.WarnContext(ctx, "export request failed; it comes back later", "file_id", ev.GetFileId(), "error", err)
	}
	if disp == export.Done && err == nil {
		if err := msg.Ack(); err != nil && ctx.Err() == nil {
			log.WarnContext(ctx, "ack an export request", "file_id", ev.GetFileId(), "error", err)
		}
		return
	}
	delay := worker.Lease()
	if ctx.Err() != nil {
		delay = 0 // stopping: another replica takes it at once
	}
	if err := msg.NakWithDelay(delay); err != nil && ctx.Err() == nil {
		log.WarnContext(ctx, "hand an export request back", "file_id", ev.GetFileId(), "error", err)
	}
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}
