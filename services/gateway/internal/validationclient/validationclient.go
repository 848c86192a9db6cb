// Package validationclient is the gateway's client of merchants'
// validation endpoints: it posts the signed validation request and reports
// the exchange (answer, status, timing) for the validation result.
package validationclient

import (
	"bytes"
	"context"
	"maps"
	"net/http"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/internal/callfailure"
	"github.com/paygate/paygate/services/internal/netguard"
)

// Caller posts validation requests through netguard's client: no
// proxy, every connected address checked against the policy (so DNS
// rebinding and redirects cannot reach private addresses), at most
// netguard.DefaultResponseLimit of an answer read.
type Caller struct {
	hc *http.Client
}

var _ validation.Caller = (*Caller)(nil)

// New returns a caller under policy; timeout bounds a call (the caller's
// context may bound it more).
func New(policy netguard.Policy, timeout time.Duration) *Caller {
	return &Caller{hc: policy.Client(timeout)}
}

// CloseIdleConnections closes the connections kept for reuse.
func (c *Caller) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// Call implements validation.Caller.
func (c *Caller) Call(ctx context.Context, url string, body []byte, headers map[string]string) validation.Exchange {
	start := time.Now()
	ex := c.call(ctx, url, body, headers)
	ex.Elapsed = time.Since(start)
	return ex
}

func (c *Caller) call(ctx context.Context, url string, body []byte, headers map[string]string) validation.Exchange {
	ex := validation.Exchange{Method: http.MethodPost, URL: url, RequestHeaders: map[string]string{
		"Content-Type": "application/json", "Accept": "application/json", "User-Agent": "Paygate-Validation/1",
	}}
	maps.Copy(ex.RequestHeaders, headers)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		failed(&ex, err)
		return ex
	}
	for k, v := range ex.RequestHeaders {
		req.Header.Set(k, v)
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		failed(&ex, err)
		return ex
	}
	defer resp.Body.Close()
	ex.StatusCode = resp.StatusCode
	ex.ResponseBody, err = netguard.ReadLimited(resp.Body, netguard.DefaultResponseLimit)
	if err != nil {
		failed(&ex, err)
	}
	return ex
}

// failed records err in ex: the error itself for the log, and the sentence
// of its class (callfailure) for the result and the journal.
func failed(ex *validation.Exchange, err error) {
	f := callfailure.Of(err)
	f.Limit = netguard.DefaultResponseLimit
	ex.Err, ex.Failure, ex.Timeout = err, f.Sentence("endpoint"), f.Class == callfailure.ClassTimeout
}
