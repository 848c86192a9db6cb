package bus

import (
	"context"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// The relay's and the consumers' metrics, in metrics.Registry. The schema
// label is the outbox's schema, which is its service's name (a label named
// service or job would clash with the target labels Prometheus adds).
var (
	outboxPublished = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "paygate_outbox_published_total",
		Help: "Events the outbox relay published to the event stream, by schema (the publishing service).",
	}, []string{"schema"})
	outboxFailures = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "paygate_outbox_publish_failures_total",
		Help: "Outbox relay passes that failed (Postgres or NATS unreachable, no acknowledgement); their events stay in the outbox and are tried again.",
	}, []string{"schema"})
	outboxPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "paygate_outbox_pending_events",
		Help: "Committed outbox events not yet published, as the relay last saw them (about every second while it runs; no series while no relay runs here).",
	}, []string{"schema"})
	outboxLag = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "paygate_outbox_lag_seconds",
		Help: "Age of the oldest committed outbox event not yet published (0 when none), as the relay last saw it.",
	}, []string{"schema"})
	outboxSampled = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "paygate_outbox_lag_sampled_timestamp_seconds",
		Help: "When the relay last measured its outbox (Unix time): a stale value means no relay runs (disabled job, no lock holder) or Postgres is unreachable.",
	}, []string{"schema"})
	consumerPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "paygate_consumer_pending_messages",
		Help: "Stream messages a durable consumer has not yet delivered (JetStream's num_pending), sampled from the consumer's info.",
	}, []string{"consumer"})
	consumerAckPending = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "paygate_consumer_ack_pending_messages",
		Help: "Messages delivered to a durable consumer and not yet acknowledged (JetStream's num_ack_pending), sampled from the consumer's info.",
	}, []string{"consumer"})
	consumerRedelivered = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "paygate_consumer_redelivered_messages",
		Help: "Messages of a durable consumer delivered more than once and not yet acknowledged (JetStream's num_redelivered), sampled from the consumer's info.",
	}, []string{"consumer"})
)

func init() {
	metrics.Registry.MustRegister(outboxPublished, outboxFailures, outboxPending, outboxLag, outboxSampled,
		consumerPending, consumerAckPending, consumerRedelivered)
}

// LagSampleInterval is how often SampleLag reads a consumer's info.
const LagSampleInterval = 15 * time.Second

// SampleLag sets the consumer lag gauges (paygate_consumer_pending_messages
// and its companions) of the durable consumer cons from its info, at once
// and then every interval (LagSampleInterval when 0), until ctx ends, and
// then removes them. A failed read is skipped: the gauges keep their last
// value. Run it beside
// the consumer, in its own goroutine.
func SampleLag(ctx context.Context, cons jetstream.Consumer, durable string, interval time.Duration) {
	if interval <= 0 {
		interval = LagSampleInterval
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		ictx, cancel := context.WithTimeout(ctx, interval)
		info, err := cons.Info(ictx)
		cancel()
		if err == nil {
			consumerPending.WithLabelValues(durable).Set(float64(info.NumPending))
			consumerAckPending.WithLabelValues(durable).Set(float64(info.NumAckPending))
			consumerRedelivered.WithLabelValues(durable).Set(float64(info.NumRedelivered))
		}
		select {
		case <-ctx.Done():
			// A consumer no longer sampled here must not leave a stale
			// value behind (the replica that samples it now reports it).
			consumerPending.DeleteLabelValues(durable)
			consumerAckPending.DeleteLabelValues(durable)
			consumerRedelivered.DeleteLabelValues(durable)
			return
		case <-t.C:
		}
	}
}

// StartLagSampler runs SampleLag in a goroutine and returns the function
// that stops it and waits for it.
func StartLagSampler(ctx context.Context, cons jetstream.Consumer, durable string, interval time.Duration) (stop func()) {
	sctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		SampleLag(sctx, cons, durable, interval)
	}()
	return func() {
		cancel()
		<-done
	}
}
