// Package providers is the gateway's client of the payment providers' APIs
// (the sandbox speaks them): it creates payments and asks their status over
// HTTP, and reports each exchange for the transaction's log; it asks for a
// collab's balance with the collab's credentials.
package providers

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/balance"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/callfailure"
)

// Client is the HTTP client of the providers' APIs: POST {base}/payments,
// GET {base}/payments/{id}.
type Client struct {
	hc *http.Client
}

var (
	_ payment.ProviderClient = (*Client)(nil)
	_ balance.Provider       = (*Client)(nil)
)

// NewClient returns a client using hc (its Timeout bounds a call).
func NewClient(hc *http.Client) *Client { return &Client{hc: hc} }

// providerAnswer is a provider's answer to both calls.
type providerAnswer struct {
	ProviderTransactionID string `json:"providerTransactionId"`
	Status                string `json:"status"`
	Message               string `json:"message"`
}

// CreatePayment implements payment.ProviderClient.
func (c *Client) CreatePayment(ctx context.Context, conn payment.Connection, req payment.ProviderRequest) payment.Exchange {
	typ := "deposit"
	if req.Type == payment.TypeWithdrawal {
		typ = "withdrawal"
	}
	body := map[string]any{
		"reference": req.Reference, "type": typ, "amount": req.Amount.String(), "currency": req.Currency,
		"payType": req.PayTypeCode, "tags": req.Tags, "clientId": req.ClientID, "additionalData": req.AdditionalData,
	}
	return c.call(ctx, http.MethodPost, strings.TrimRight(conn.BaseURL, "/")+"/payments", conn.Credentials, body)
}

// PaymentStatus implements payment.ProviderClient.
func (c *Client) PaymentStatus(ctx context.Context, conn payment.Connection, providerTID string) payment.Exchange {
	return c.call(ctx, http.MethodGet, strings.TrimRight(conn.BaseURL, "/")+"/payments/"+url.PathEscape(providerTID), conn.Credentials, nil)
}

// call makes one call to a provider. The credentials go in
// HeaderCredentials, which is not among the exchange's recorded headers:
// the transaction's log never holds them.
func (c *Client) call(ctx context.Context, method, u string, credentials map[string]any, body any) payment.Exchange {
	ex := payment.Exchange{Method: method, URL: u, RequestBody: body, RequestHeaders: map[string]string{"Accept": "application/json"}}
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			ex.Err, ex.Failure = fmt.Errorf("encode request: %w", err), "The request to the provider could not be encoded."
			return ex
		}
		rd = bytes.NewReader(raw)
		ex.RequestHeaders["Content-Type"] = "application/json"
	}
	req, err := http.NewRequestWithContext(ctx, method, u, rd)
	if err != nil {
		ex.Err, ex.Failure = fmt.Errorf("build request: %w", err), callfailure.Of(err).Sentence("provider")
		return ex
	}
	for k, v := range ex.RequestHeaders {
		req.Header.Set(k, v)
	}
	if err := setCredentials(req, credentials); err != nil {
		ex.Err, ex.Failure = err, "The collab's credentials could not be sent to the provider."
		return ex
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		ex.Err, ex.Network, ex.Failure = err, true, c.failure(err)
		return ex
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	ex.StatusCode = resp.StatusCode
	if err != nil {
		ex.Err, ex.Network, ex.Failure = fmt.Errorf("read answer: %w", err), true, c.failure(err)
		return ex
	}
	var generic any
	if json.Unmarshal(raw, &generic) == nil {
		ex.ResponseBody = generic
	} else {
		ex.ResponseBody = string(raw)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		ex.Err = fmt.Errorf("the provider answered HTTP %d", resp.StatusCode)
		ex.Failure = fmt.Sprintf("The provider answered HTTP %d.", resp.StatusCode)
		return ex
	}
	var a providerAnswer
	if err := json.Unmarshal(raw, &a); err != nil {
		ex.Err, ex.Failure = fmt.Errorf("the provider's answer is not JSON: %w", err), "The provider's answer is not JSON."
		return ex
	}
	ex.ProviderTID, ex.Outcome, ex.ProviderMessage = a.ProviderTransactionID, payment.Outcome(strings.ToLower(a.Status)), a.Message
	return ex
}

// HeaderCredentials carries a collab's credentials to its provider: the
// credentials object as JSON, base64url-encoded without padding. The
// adapter never logs it.
const HeaderCredentials = "X-Paygate-Credentials"

// MaxBalanceAnswer bounds a balance answer read from a provider.
const MaxBalanceAnswer = 256 << 10

// Balance implements balance.Provider: GET {base}/balance with the
// collab's credentials in HeaderCredentials (absent when it has none).
func (c *Client) Balance(ctx context.Context, baseURL string, credentials map[string]any) (balance.Answer, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(baseURL, "/")+"/balance", nil)
	if err != nil {
		return balance.Answer{}, fmt.Errorf("build balance request: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	if err := setCredentials(req, credentials); err != nil {
		return balance.Answer{}, err
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return balance.Answer{}, fmt.Errorf("ask balance: %w", err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, MaxBalanceAnswer))
	if err != nil {
		return balance.Answer{}, fmt.Errorf("read balance answer: %w", err)
	}
	return balance.Answer{StatusCode: resp.StatusCode, Body: body}, nil
}

// failure words a client error for the transaction (callfailure): its own
// text can name internal addresses.
func (c *Client) failure(err error) string {
	f := callfailure.Of(err)
	f.Timeout = c.hc.Timeout
	return f.Sentence("provider")
}

// setCredentials puts a collab's credentials in HeaderCredentials (nothing
// when it has none).
func setCredentials(req *http.Request, credentials map[string]any) error {
	if len(credentials) == 0 {
		return nil
	}
	raw, err := json.Marshal(credentials)
	if err != nil {
		return fmt.Errorf("encode credentials: %w", err)
	}
	req.Header.Set(HeaderCredentials, base64.RawURLEncoding.EncodeToString(raw))
	return nil
}
