// Package metrics holds the process-wide Prometheus registry of Paygate's
// shared plumbing. It is apart from telemetry (tracing set-up, gRPC
// interceptors and the OTLP exporter) so that a domain package that counts
// something links only the Prometheus client, not gRPC.
package metrics

import "github.com/prometheus/client_golang/prometheus"

// Registry is the registry of the process-wide metrics of Paygate's shared
// plumbing: the outbox relay and the event consumers (services/internal/bus),
// the job runner (services/internal/jobs) and the callbacks dispatcher. They
// are package-level, as a process runs one relay, one runner and one set of
// consumers; their labels (service, consumer, job) tell instances apart when
// tests run several services in one process. Every service's /metrics serves
// it beside the server's own registry (services/internal/server).
var Registry = prometheus.NewRegistry()

// Value returns the value of the series name{labels} in Registry
// (labels as name, value pairs; the series must have exactly those labels):
// a counter's or gauge's value, a histogram's count of observations. It
// returns 0 for a series that does not exist (yet). Tests read the metrics
// through it.
func Value(name string, labels ...string) float64 {
	families, err := Registry.Gather()
	if err != nil {
		return 0
	}
	want := map[string]string{}
	for i := 0; i+1 < len(labels); i += 2 {
		want[labels[i]] = labels[i+1]
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	series:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(want) {
				continue
			}
			for _, l := range m.GetLabel() {
				if v, ok := want[l.GetName()]; !ok || v != l.GetValue() {
					continue series
				}
			}
			switch {
			case m.GetCounter() != nil:
				return m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				return m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				return float64(m.GetHistogram().GetSampleCount())
			}
		}
	}
	return 0
}
