// Package simulator plays payment providers for demos and tests: it keeps
// the payments each provider was asked for in memory and decides their
// outcome (success, failed, pending then success or failed, or an error)
// and latency from the provider's configuration and the request's own
// sandbox: tags.
package simulator

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Outcome is how a simulated payment ends.
type Outcome string

// The outcomes.
const (
	OutcomeSuccess        Outcome = "success"
	OutcomeFailed         Outcome = "failed"
	OutcomePendingSuccess Outcome = "pending-success"
	OutcomePendingFailed  Outcome = "pending-failed"
	// OutcomeError answers the create call with HTTP 500.
	OutcomeError Outcome = "error"
)

// ParseOutcome reads an outcome name.
func ParseOutcome(s string) (Outcome, error) {
	o := Outcome(strings.ToLower(strings.TrimSpace(s)))
	switch o {
	case OutcomeSuccess, OutcomeFailed, OutcomePendingSuccess, OutcomePendingFailed, OutcomeError:
		return o, nil
	}
	return "", fmt.Errorf("unknown outcome %q (success, failed, pending-success, pending-failed, error)", s)
}

// Statuses a provider reports.
const (
	StatusSuccess = "success"
	StatusFailed  = "failed"
	StatusPending = "pending"
)

// Provider is one simulated provider.
type Provider struct {
	// Segment is its path segment, e.g. "govip".
	Segment string
	// Name is its display name.
	Name string
	// Balance is its reported balance, "" when it reports none.
	Balance, Currency string
}

// Providers are the providers the sandbox plays, by path segment.
var Providers = []Provider{
	{Segment: "govip", Name: "GoVip"},
	{Segment: "qrph", Name: "QRPh"},
	{Segment: "fbpay", Name: "FbPay", Balance: "250000.00", Currency: "PHP"},
	{Segment: "humpas", Name: "HumPas", Balance: "98000.50", Currency: "PHP"},
	{Segment: "crypto-manager", Name: "Crypto Manager", Balance: "15000.00", Currency: "USDT"},
	{Segment: "crypto-sender", Name: "Crypto Sender"},
	{Segment: "rollingpay", Name: "RollingPay", Balance: "510250.75", Currency: "PHP"},
}

// Behaviour is how a provider answers: its outcome, the latency of each
// answer and how long a pending payment stays pending.
type Behaviour struct {
	Outcome    Outcome
	Latency    time.Duration
	PendingFor time.Duration
	// Webhook pushes the final status of a pending payment.
	Webhook bool
}

// Request is a create-payment call.
type Request struct {
	Reference      string
	Type           string
	Amount         string
	Currency       string
	PayType        string
	Tags           []string
	AdditionalData map[string]any
}

// Payment is a simulated payment.
type Payment struct {
	ID        string
	Segment   string
	Reference string
	Amount    string
	Currency  string
	// Final is the status the payment ends with; ResolveAt is when it stops
	// being pending (zero for an immediate answer).
	Final     string
	ResolveAt time.Time
	Webhook   bool
	// WebhookSent is set once the final status was pushed.
	WebhookSent bool
	CreatedAt   time.Time
}

// StatusAt is the payment's status at now.
func (p Payment) StatusAt(now time.Time) string {
	if !p.ResolveAt.IsZero() && now.Before(p.ResolveAt) {
		return StatusPending
	}
	return p.Final
}

// Simulator keeps the payments of every provider.
type Simulator struct {
	mu        sync.Mutex
	defaults  Behaviour
	overrides map[string]Behaviour
	payments  map[string]*Payment
	// byRef finds a provider's payment by the gateway's reference
	// (segment + "\x00" + reference), which makes Create idempotent.
	byRef map[string]*Payment
	// owed are the payments that still owe a webhook, so that
	// DueWebhooks does not walk every payment ever made.
	owed []*Payment
	now  func() time.Time
}

// New returns a simulator with a default behaviour and per-provider ones
// (by segment); now is the clock (time.Now when nil).
func New(defaults Behaviour, overrides map[string]Behaviour, now func() time.Time) *Simulator {
	if now == nil {
		now = time.Now
	}
	return &Simulator{defaults: defaults, overrides: overrides, payments: map[string]*Payment{}, byRef: map[string]*Payment{}, now: now}
}

// Provider returns the provider with that segment.
func (s *Simulator) Provider(segment string) (Provider, bool) {
	i := slices.IndexFunc(Providers, func(p Provider) bool { return p.Segment == segment })
	if i < 0 {
		return Provider{}, false
	}
	return Providers[i], true
}

// Behaviour returns how a provider answers r: its configuration, then the
// request's "sandbox:<key>=<value>" tags or additional data keys (outcome,
// latency, pending, webhook=on|off).
func (s *Simulator) Behaviour(segment string, r Request) (Behaviour, error) {
	b := s.defaults
	if o, ok := s.overrides[segment]; ok {
		b = o
	}
	opts := map[string]string{}
	for k, v := range r.AdditionalData {
		if key, ok := strings.CutPrefix(k, "sandbox:"); ok {
			opts[key] = fmt.Sprint(v)
		}
	}
	for _, t := range r.Tags {
		if kv, ok := strings.CutPrefix(strings.TrimSpace(t), "sandbox:"); ok {
			k, v, _ := strings.Cut(kv, "=")
			opts[k] = v
		}
	}
	for k, v := range opts {
		var err error
		switch k {
		case "outcome":
			b.Outcome, err = ParseOutcome(v)
		case "latency":
			b.Latency, err = time.ParseDuration(v)
		case "pending":
			b.PendingFor, err = time.ParseDuration(v)
		case "webhook":
			b.Webhook = v != "off" && v != "false"
		default:
			err = fmt.Errorf("unknown sandbox option %q", k)
		}
		if err != nil {
			return b, err
		}
	}
	return b, nil
}

// Create records a payment with behaviour b. It returns nil for the error
// outcome (no payment is made). It is idempotent by reference, as real
// providers are: a second call with a reference the provider already holds
// answers the payment made first, unchanged.
func (s *Simulator) Create(segment string, r Request, b Behaviour) *Payment {
	if r.Reference != "" {
		s.mu.Lock()
		prev, ok := s.byRef[segment+"\x00"+r.Reference]
		var cp Payment
		if ok {
			cp = *prev
		}
		s.mu.Unlock()
		if ok {
			return &cp
		}
	}
	if b.Outcome == OutcomeError {
		return nil
	}
	now := s.now()
	p := &Payment{ID: newID(segment), Segment: segment, Reference: r.Reference, Amount: r.Amount, Currency: r.Currency, CreatedAt: now}
	switch b.Outcome {
	case OutcomeFailed:
		p.Final = StatusFailed
	case OutcomePendingSuccess, OutcomePendingFailed:
		p.Final, p.ResolveAt, p.Webhook = StatusSuccess, now.Add(b.PendingFor), b.Webhook
		if b.Outcome == OutcomePendingFailed {
			p.Final = StatusFailed
		}
	default:
		p.Final = StatusSuccess
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.Reference != "" {
		key := segment + "\x00" + r.Reference
		if prev, ok := s.byRef[key]; ok { // a concurrent call with the reference won
			cp := *prev
			return &cp
		}
		s.byRef[key] = p
	}
	s.payments[p.ID] = p
	if p.Webhook {
		s.owed = append(s.owed, p)
	}
	cp := *p
	return &cp
}

// Payment returns a provider's payment by id.
func (s *Simulator) Payment(segment, id string) (Payment, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	p, ok := s.payments[id]
	if !ok || p.Segment != segment {
		return Payment{}, false
	}
	return *p, true
}

// DueWebhooks returns the pending payments that resolved by now and still
// owe a webhook, marking them sent.
func (s *Simulator) DueWebhooks() []Payment {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []Payment
	s.owed = slices.DeleteFunc(s.owed, func(p *Payment) bool {
		if now.Before(p.ResolveAt) {
			return false
		}
		p.WebhookSent = true
		out = append(out, *p)
		return true
	})
	return out
}

func newID(segment string) string {
	b := make([]byte, 8)
	_, _ = rand.Read(b)
	return strings.ToUpper(strings.ReplaceAll(segment, "-", "")) + "-" + hex.EncodeToString(b)
}
