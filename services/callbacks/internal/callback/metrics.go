package callback

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// The dispatcher's metrics, in metrics.Registry.
var (
	attemptsTotal = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "paygate_callback_attempts_total",
		Help: "Callback delivery attempts sent, by outcome: delivered (a 2xx answer), retried (failed, another attempt is queued) " +
			"or failed (failed, and it was the URL's last attempt: the delivery gave up).",
	}, []string{"outcome"})
	attemptDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "paygate_callback_attempt_duration_seconds",
		Help:    "Time from sending a callback delivery attempt to the receiver's answer (or the send's failure), by outcome.",
		Buckets: []float64{0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30},
	}, []string{"outcome"})
	deliveriesWaiting = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "paygate_callback_deliveries_waiting",
		Help: "Fresh callback deliveries waiting in memory, without a request slot, for a request to their callback URL to end " +
			"(the URL has PAYGATE_CALLBACK_URL_WORKERS in flight); one that waits 2 s is stored pending instead.",
	})
)

func init() {
	metrics.Registry.MustRegister(attemptsTotal, attemptDuration, deliveriesWaiting)
	// Every outcome's counter exists from the start, at 0, so that the
	// first failure is an increase Prometheus can see.
	for _, s := range []AttemptStatus{AttemptSuccess, AttemptRetried, AttemptFailed} {
		attemptsTotal.WithLabelValues(outcomeLabel(s))
	}
}

// outcomeLabel is the outcome label of an attempt's status.
func outcomeLabel(s AttemptStatus) string {
	switch s {
	case AttemptSuccess:
		return "delivered"
	case AttemptRetried:
		return "retried"
	default:
		return "failed"
	}
}
