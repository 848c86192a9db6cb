package fraud

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Thresholds are the detection rules' numbers (docs/contracts-frauds.md,
// "Rules"). They are the settings key FraudDetection: a JSON object with
// exactly these field names.
type Thresholds struct {
	// VelocityMaxPayments flags a merchant client id or an IP address with
	// at least this many payments within VelocityWindowMinutes.
	VelocityMaxPayments int `json:"velocityMaxPayments"`
	// VelocityWindowMinutes is the velocity rule's window.
	VelocityWindowMinutes int `json:"velocityWindowMinutes"`
	// AmountSpikeFactor flags a payment of at least this many times the
	// client's average earlier payment in the same currency.
	AmountSpikeFactor float64 `json:"amountSpikeFactor"`
	// AmountSpikeMinHistory is how many earlier payments the client needs
	// before the amount-spike rule judges it.
	AmountSpikeMinHistory int `json:"amountSpikeMinHistory"`
	// FailuresBeforeSuccess flags a merchant client id with at least this
	// many failed payments followed by a successful one within
	// FailuresWindowMinutes.
	FailuresBeforeSuccess int `json:"failuresBeforeSuccess"`
	// FailuresWindowMinutes is that rule's window.
	FailuresWindowMinutes int `json:"failuresWindowMinutes"`
	// SharedIdentityMinClients flags one user agent or IP address used by
	// at least this many merchant client ids within
	// SharedIdentityWindowMinutes.
	SharedIdentityMinClients int `json:"sharedIdentityMinClients"`
	// SharedIdentityWindowMinutes is that rule's window.
	SharedIdentityWindowMinutes int `json:"sharedIdentityWindowMinutes"`
}

// DefaultThresholds are the thresholds until an operator sets others.
func DefaultThresholds() Thresholds {
	return Thresholds{
		VelocityMaxPayments: 20, VelocityWindowMinutes: 10,
		AmountSpikeFactor: 5, AmountSpikeMinHistory: 5,
		FailuresBeforeSuccess: 5, FailuresWindowMinutes: 30,
		SharedIdentityMinClients: 5, SharedIdentityWindowMinutes: 60,
	}
}

// MaxWindowMinutes is the longest window a rule may have (a day).
const MaxWindowMinutes = 24 * 60

// Check reports every bad threshold at once (invalid), naming each by its
// JSON name.
func (t Thresholds) Check() error {
	var bad []string
	atLeast := func(name string, v, lowest int) {
		if v < lowest {
			bad = append(bad, fmt.Sprintf("%s must be at least %d", name, lowest))
		}
	}
	window := func(name string, v int) {
		if v < 1 || v > MaxWindowMinutes {
			bad = append(bad, fmt.Sprintf("%s must be from 1 to %d", name, MaxWindowMinutes))
		}
	}
	atLeast("velocityMaxPayments", t.VelocityMaxPayments, 2)
	window("velocityWindowMinutes", t.VelocityWindowMinutes)
	if !(t.AmountSpikeFactor > 1) || t.AmountSpikeFactor > 1e6 {
		bad = append(bad, "amountSpikeFactor must be more than 1 (and at most 1000000)")
	}
	atLeast("amountSpikeMinHistory", t.AmountSpikeMinHistory, 1)
	atLeast("failuresBeforeSuccess", t.FailuresBeforeSuccess, 1)
	window("failuresWindowMinutes", t.FailuresWindowMinutes)
	atLeast("sharedIdentityMinClients", t.SharedIdentityMinClients, 2)
	window("sharedIdentityWindowMinutes", t.SharedIdentityWindowMinutes)
	if len(bad) > 0 {
		return apperr.Invalid("The fraud detection thresholds are wrong: %s.", strings.Join(bad, "; "))
	}
	return nil
}

// ParseThresholds reads a FraudDetection JSON object over the defaults
// (absent fields keep their default) and checks it.
func ParseThresholds(raw string) (Thresholds, error) {
	t := DefaultThresholds()
	if strings.TrimSpace(raw) == "" {
		return t, nil
	}
	dec := json.NewDecoder(strings.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&t); err != nil {
		return t, apperr.Invalid("The fraud detection thresholds must be a JSON object with the fields velocityMaxPayments, velocityWindowMinutes, amountSpikeFactor, amountSpikeMinHistory, failuresBeforeSuccess, failuresWindowMinutes, sharedIdentityMinClients and sharedIdentityWindowMinutes.")
	}
	return t, t.Check()
}

// Level cut-offs: a flag's level grows with how far what the rule measured
// is over its threshold (observed / threshold).
const (
	// MediumRatio and above is level 2 (Medium).
	MediumRatio = 1.5
	// HighRatio and above is level 3 (High).
	HighRatio = 2
	// CriticalRatio and above is level 4 (Critical).
	CriticalRatio = 3
)

// LevelOf is the level of a flag that measured observed against threshold
// (observed >= threshold > 0): 1 Low, 2 Medium, 3 High, 4 Critical.
func LevelOf(observed, threshold float64) int32 {
	r := observed / threshold
	switch {
	case r >= CriticalRatio:
		return 4
	case r >= HighRatio:
		return 3
	case r >= MediumRatio:
		return 2
	}
	return 1
}

// DetectReport is what one detection pass did.
type DetectReport struct {
	// From and To bound the creation times of the transactions it moved the
	// watermark over.
	From, To time.Time
	// Scanned counts the transactions it read (the new ones and the
	// windows they reopen).
	Scanned int64
	// Flagged counts the frauds it created; Updated those it raised.
	Flagged, Updated int64
	// Linked counts the transactions it added to frauds.
	Linked int64
	// Steps are how long each step took, summed over the passes (for
	// benchmarks and slow-run diagnosis).
	Steps map[string]time.Duration
}

// Add sums r and o.
func (r *DetectReport) Add(o DetectReport) {
	if r.From.IsZero() {
		r.From = o.From
	}
	r.To = o.To
	r.Scanned += o.Scanned
	r.Flagged += o.Flagged
	r.Updated += o.Updated
	r.Linked += o.Linked
	for k, v := range o.Steps {
		if r.Steps == nil {
			r.Steps = map[string]time.Duration{}
		}
		r.Steps[k] += v
	}
}

// Detector scans transactions by creation time.
type Detector interface {
	// DetectOnce scans the transactions created after the watermark, at
	// most span of them by creation time and none created at or after
	// until, flags what th says, and moves the watermark, all in one store
	// transaction. A first pass starts at until minus firstLookback. done is
	// true when the watermark reached until.
	DetectOnce(ctx context.Context, th Thresholds, until time.Time, span, firstLookback time.Duration) (rep DetectReport, done bool, err error)
}

// DetectOptions configure Detect.
type DetectOptions struct {
	// Thresholds reads the thresholds; it is called on every run.
	Thresholds func(context.Context) (Thresholds, error)
	// Settle is how long a transaction is left to commit before the job
	// reads its creation time range (default 5s).
	Settle time.Duration
	// Span is the most creation time one store transaction scans (default
	// 6h): a backlog is scanned in several.
	Span time.Duration
	// FirstLookback is how far back the first run starts (default 24h).
	FirstLookback time.Duration
}

// Detect runs the detection until the watermark is Settle before now,
// reading the thresholds once.
func Detect(ctx context.Context, d Detector, opts DetectOptions, now time.Time) (DetectReport, error) {
	if opts.Settle <= 0 {
		opts.Settle = 5 * time.Second
	}
	if opts.Span <= 0 {
		opts.Span = 6 * time.Hour
	}
	if opts.FirstLookback <= 0 {
		opts.FirstLookback = 24 * time.Hour
	}
	th := DefaultThresholds()
	if opts.Thresholds != nil {
		var err error
		if th, err = opts.Thresholds(ctx); err != nil {
			return DetectReport{}, fmt.Errorf("read the fraud detection thresholds: %w", err)
		}
	}
	if err := th.Check(); err != nil {
		return DetectReport{}, err
	}
	until := now.Add(-opts.Settle)
	var total DetectReport
	for {
		rep, done, err := d.DetectOnce(ctx, th, until, opts.Span, opts.FirstLookback)
		total.Add(rep)
		if err != nil || done {
			return total, err
		}
	}
}
