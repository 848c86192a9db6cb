package simulator

import (
	"testing"
	"time"
)

func TestBehaviourAndLifecycle(t *testing.T) {
	t.Parallel()
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	s := New(Behaviour{Outcome: OutcomeSuccess, PendingFor: time.Second, Webhook: true},
		map[string]Behaviour{"qrph": {Outcome: OutcomeFailed}}, clock)

	tests := []struct {
		name    string
		segment string
		req     Request
		want    Outcome
		webhook bool
		latency time.Duration
	}{
		{"default", "govip", Request{}, OutcomeSuccess, true, 0},
		{"provider override", "qrph", Request{}, OutcomeFailed, false, 0},
		{"tag", "govip", Request{Tags: []string{" sandbox:outcome=pending-failed", "sandbox:webhook=off", "sandbox:latency=5ms"}}, OutcomePendingFailed, false, 5 * time.Millisecond},
		{"additional data", "qrph", Request{AdditionalData: map[string]any{"sandbox:outcome": "error"}}, OutcomeError, false, 0},
	}
	for _, tt := range tests {
		b, err := s.Behaviour(tt.segment, tt.req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if b.Outcome != tt.want || b.Webhook != tt.webhook || b.Latency != tt.latency {
			t.Errorf("%s: behaviour %+v", tt.name, b)
		}
	}
	if _, err := s.Behaviour("govip", Request{Tags: []string{"sandbox:outcome=maybe"}}); err == nil {
		t.Error("accepted an unknown outcome")
	}
	if _, err := s.Behaviour("govip", Request{Tags: []string{"sandbox:colour=red"}}); err == nil {
		t.Error("accepted an unknown option")
	}

	if p := s.Create("govip", Request{}, Behaviour{Outcome: OutcomeError}); p != nil {
		t.Errorf("error outcome made a payment %+v", p)
	}
	p := s.Create("govip", Request{Reference: "R1"}, Behaviour{Outcome: OutcomePendingSuccess, PendingFor: time.Second, Webhook: true})
	if got := p.StatusAt(now); got != StatusPending {
		t.Fatalf("status at creation = %s", got)
	}
	if due := s.DueWebhooks(); len(due) != 0 {
		t.Fatalf("webhooks due before resolution: %v", due)
	}
	if _, ok := s.Payment("qrph", p.ID); ok {
		t.Error("found a payment under another provider")
	}
	now = now.Add(time.Second)
	got, _ := s.Payment("govip", p.ID)
	if got.StatusAt(now) != StatusSuccess {
		t.Errorf("status after pending = %s", got.StatusAt(now))
	}
	if due := s.DueWebhooks(); len(due) != 1 || due[0].ID != p.ID {
		t.Fatalf("due webhooks = %v", due)
	}
	if due := s.DueWebhooks(); len(due) != 0 {
		t.Fatalf("webhook due twice: %v", due)
	}
}

func TestCreateIsIdempotentByReference(t *testing.T) {
	s := New(Behaviour{Outcome: OutcomeSuccess}, nil, nil)
	first := s.Create("govip", Request{Reference: "PGREF1", Amount: "10.00"}, Behaviour{Outcome: OutcomePendingSuccess, PendingFor: time.Minute})
	again := s.Create("govip", Request{Reference: "PGREF1", Amount: "10.00"}, Behaviour{Outcome: OutcomeFailed})
	if again == nil || again.ID != first.ID || again.Final != first.Final {
		t.Fatalf("second create with the same reference = %+v, want the first %+v", again, first)
	}
	if errAgain := s.Create("govip", Request{Reference: "PGREF1"}, Behaviour{Outcome: OutcomeError}); errAgain == nil || errAgain.ID != first.ID {
		t.Fatalf("a known reference with the error outcome = %+v, want the first payment", errAgain)
	}
	other := s.Create("qrph", Request{Reference: "PGREF1"}, Behaviour{Outcome: OutcomeSuccess})
	if other == nil || other.ID == first.ID {
		t.Fatalf("another provider shares the reference's payment: %+v", other)
	}
	if p := s.Create("govip", Request{Reference: "PGREF2"}, Behaviour{Outcome: OutcomeError}); p != nil {
		t.Fatalf("error outcome made a payment %+v", p)
	}
	if p := s.Create("govip", Request{Reference: "PGREF2"}, Behaviour{Outcome: OutcomeSuccess}); p == nil || p.ID == first.ID {
		t.Fatalf("a reference refused with an error could not be retried: %+v", p)
	}
}
