package jobs

import (
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// The runner's metrics, in metrics.Registry. A job's name starts with its
// service's, so the job_name label alone tells them apart (a label named job
// would clash with the scrape job's).
var (
	jobRuns = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "paygate_job_runs_total",
		Help: "Ended runs of a background job, by job and outcome (completed, or failed: an error or a panic).",
	}, []string{"job_name", "outcome"})
	jobRunDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "paygate_job_run_duration_seconds",
		Help:    "Duration of a background job's runs (a continuous job's run lasts about its lease).",
		Buckets: []float64{0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600},
	}, []string{"job_name"})
	jobLastSuccess = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "paygate_job_last_success_timestamp_seconds",
		Help: "When a background job's last completed run ended on this replica (Unix time).",
	}, []string{"job_name"})
)

func init() {
	metrics.Registry.MustRegister(jobRuns, jobRunDuration, jobLastSuccess)
}

// Outcome labels of paygate_job_runs_total.
const (
	outcomeCompleted = "completed"
	outcomeFailed    = "failed"
)

// initMetrics makes job's run counters exist at 0, so that its first
// failure is an increase Prometheus can see.
func initMetrics(job string) {
	jobRuns.WithLabelValues(job, outcomeCompleted)
	jobRuns.WithLabelValues(job, outcomeFailed)
}

// observeRun records a run of job that started at started, ended at ended
// and returned err.
func observeRun(job string, started, ended time.Time, err error) {
	jobRunDuration.WithLabelValues(job).Observe(max(ended.Sub(started).Seconds(), 0))
	if err != nil {
		jobRuns.WithLabelValues(job, outcomeFailed).Inc()
		return
	}
	jobRuns.WithLabelValues(job, outcomeCompleted).Inc()
	jobLastSuccess.WithLabelValues(job).Set(float64(ended.UnixNano()) / 1e9)
}
