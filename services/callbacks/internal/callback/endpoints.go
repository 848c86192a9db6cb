package callback

import (
	"context"
	"fmt"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// HealthWindow is the span EndpointHealth covers.
const HealthWindow = 24 * time.Hour

// EndpointHealth is one callback URL's health over HealthWindow
// (docs/contracts-callbacks.md, "Endpoint health").
type EndpointHealth struct {
	URL                 URL
	Attempts, Successes int64
	// P95 is the 95th percentile of the attempts' durations; HasP95 is
	// false when none was measured.
	P95     time.Duration
	HasP95  bool
	Breaker Breaker
}

// HealthStore reads endpoint health.
type HealthStore interface {
	// EndpointHealth returns the health of every callback URL of a merchant
	// since since, oldest URL first, in one statement.
	EndpointHealth(ctx context.Context, merchantID int32, since time.Time) ([]EndpointHealth, error)
}

// Recoverer starts a bulk retry of a callback URL's failed deliveries since
// a time, for actor, and returns the run's id.
type Recoverer func(ctx context.Context, a Actor, urlID int64, since time.Time) (int64, error)

// Endpoints serves the CallbackEndpointService calls.
type Endpoints struct {
	svc     *Service
	health  HealthStore
	recover Recoverer
}

// NewEndpoints returns the endpoint calls over svc; recover (nil: refused)
// starts the "recover since disabled" runs.
func NewEndpoints(svc *Service, health HealthStore, recover Recoverer) *Endpoints {
	return &Endpoints{svc: svc, health: health, recover: recover}
}

// Enable enables a callback URL (closing its breaker when it was disabled
// automatically); recover also starts a bulk retry of its deliveries that
// failed since it was disabled automatically, and its run id is returned.
func (e *Endpoints) Enable(ctx context.Context, a Actor, id int64, recover bool) (URL, int64, error) {
	old, err := e.svc.visibleURL(ctx, a.Scope, id)
	if err != nil {
		return URL{}, 0, err
	}
	if recover && old.DisabledAt.IsZero() {
		return URL{}, 0, apperr.Invalid("recoverSinceDisabled needs a callback URL that was disabled automatically.")
	}
	enabled := true
	u, err := e.svc.Update(ctx, a, id, Input{Enabled: &enabled})
	if err != nil {
		return URL{}, 0, err
	}
	e.svc.wake()
	if !recover {
		return u, 0, nil
	}
	if e.recover == nil {
		return u, 0, apperr.FailedPrecondition("Recovering deliveries is not available on this deployment.")
	}
	runID, err := e.recover(ctx, a, id, old.DisabledAt)
	if err != nil {
		return u, 0, fmt.Errorf("recover callback url %d since %s: %w", id, old.DisabledAt.Format(time.RFC3339), err)
	}
	return u, runID, nil
}

// SetHeaders replaces a callback URL's custom headers with in (empty:
// none); a secret header sent without a value keeps its stored value.
func (e *Endpoints) SetHeaders(ctx context.Context, a Actor, id int64, in []HeaderInput) (URL, error) {
	if in == nil {
		in = []HeaderInput{}
	}
	return e.svc.Update(ctx, a, id, Input{Headers: &in})
}

// Health returns the health of a merchant's callback URLs (not found
// outside the caller's scope).
func (e *Endpoints) Health(ctx context.Context, scope Scope, merchantID int32) ([]EndpointHealth, error) {
	if !scope.Includes(merchantID) {
		return nil, apperr.NotFound(msgMerchant)
	}
	hs, err := e.health.EndpointHealth(ctx, merchantID, e.svc.now().Add(-HealthWindow))
	if err != nil {
		return nil, fmt.Errorf("endpoint health of merchant %d: %w", merchantID, err)
	}
	return hs, nil
}
