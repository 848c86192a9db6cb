// Package httpapi serves the sandbox's provider APIs and its demo merchant
// over HTTP, and pushes status webhooks to the gateway.
//
//	POST /{provider}/payments        create a payment → {providerTransactionId, status, message}
//	GET  /{provider}/payments/{id}   its status       → same shape
//	GET  /{provider}/balance         the balance (providers that report one)
//	     /merchant/...               the demo merchant: validation answers and a callback receiver
//	                                 (merchantRoutes)
package httpapi

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/paygate/paygate/services/sandbox/internal/merchant"
	"github.com/paygate/paygate/services/sandbox/internal/simulator"
)

// HeaderWebhookSecret carries the shared webhook secret to the gateway.
const HeaderWebhookSecret = "X-Paygate-Webhook-Secret"

// Handler returns the provider APIs of sim and the demo merchant, which
// remembers the last merchant.DefaultCapacity callbacks it received.
func Handler(sim *simulator.Simulator, log *slog.Logger) http.Handler {
	mux := http.NewServeMux()
	merchantRoutes(mux, merchant.NewRecorder(merchant.DefaultCapacity), log, time.Now)
	mux.HandleFunc("POST /{provider}/payments", func(w http.ResponseWriter, r *http.Request) {
		p, ok := provider(w, r, sim)
		if !ok || !authorized(w, r) {
			return
		}
		var req struct {
			Reference      string         `json:"reference"`
			Type           string         `json:"type"`
			Amount         string         `json:"amount"`
			Currency       string         `json:"currency"`
			PayType        string         `json:"payType"`
			Tags           []string       `json:"tags"`
			AdditionalData map[string]any `json:"additionalData"`
		}
		if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 1<<20)).Decode(&req); err != nil || req.Reference == "" || req.Amount == "" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": "the body must be JSON with reference and amount"})
			return
		}
		sreq := simulator.Request{Reference: req.Reference, Type: req.Type, Amount: req.Amount, Currency: req.Currency,
			PayType: req.PayType, Tags: req.Tags, AdditionalData: req.AdditionalData}
		b, err := sim.Behaviour(p.Segment, sreq)
		if err != nil {
			writeJSON(w, http.StatusBadRequest, map[string]any{"error": err.Error()})
			return
		}
		if !sleep(r.Context(), b.Latency) {
			return
		}
		pay := sim.Create(p.Segment, sreq, b)
		if pay == nil {
			writeJSON(w, http.StatusInternalServerError, map[string]any{"error": "simulated provider error"})
			return
		}
		log.InfoContext(r.Context(), "payment created", "provider", p.Segment, "id", pay.ID, "reference", pay.Reference, "outcome", b.Outcome)
		writeJSON(w, http.StatusOK, answer(*pay, time.Now()))
	})
	mux.HandleFunc("GET /{provider}/payments/{id}", func(w http.ResponseWriter, r *http.Request) {
		p, ok := provider(w, r, sim)
		if !ok || !authorized(w, r) {
			return
		}
		pay, ok := sim.Payment(p.Segment, r.PathValue("id"))
		if !ok {
			writeJSON(w, http.StatusNotFound, map[string]any{"error": "no such payment"})
			return
		}
		writeJSON(w, http.StatusOK, answer(pay, time.Now()))
	})
	mux.HandleFunc("GET /{provider}/balance", func(w http.ResponseWriter, r *http.Request) {
		p, ok := provider(w, r, sim)
		if !ok {
			return
		}
		if p.Balance == "" {
			writeJSON(w, http.StatusNotFound, map[string]any{"error": p.Name + " reports no balance"})
			return
		}
		if !authorized(w, r) {
			return
		}
		creds, _ := credentials(r)
		writeJSON(w, http.StatusOK, balanceAnswer(p, creds, time.Now()))
	})
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	return mux
}

// HeaderCredentials carries the gateway's credentials of a collab: its
// credentials object as JSON, base64url without padding.
const HeaderCredentials = "X-Paygate-Credentials"

// authorized checks a call's credentials as a provider would: an apiKey
// starting with "invalid" is refused (401), and so is a header that cannot
// be read (400); a call without credentials passes (the demo collabs have
// none). It answers the refusal itself.
func authorized(w http.ResponseWriter, r *http.Request) bool {
	creds, err := credentials(r)
	if err != nil {
		writeJSON(w, http.StatusBadRequest, map[string]any{"success": false, "error": err.Error()})
		return false
	}
	if key, _ := creds["apiKey"].(string); strings.HasPrefix(key, "invalid") {
		writeJSON(w, http.StatusUnauthorized, map[string]any{"success": false, "error": "invalid API key"})
		return false
	}
	return true
}

// credentials decodes HeaderCredentials (empty when absent).
func credentials(r *http.Request) (map[string]any, error) {
	h := r.Header.Get(HeaderCredentials)
	if h == "" {
		return map[string]any{}, nil
	}
	raw, err := base64.RawURLEncoding.DecodeString(h)
	if err != nil {
		return nil, errors.New("the credentials header is not base64url")
	}
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, errors.New("the credentials header is not a JSON object")
	}
	return m, nil
}

// balanceAnswer is a provider's balance answer in the nested shapes real
// providers use (the gateway searches them to depth 3): FbPay and
// RollingPay nest a wallet under data, HumPas a balance object under
// result, Crypto Manager a list of assets. The account id comes from the
// credentials' merchantId or accountId when given, and the answer names
// the credential keys it was called with (never their values).
func balanceAnswer(p simulator.Provider, creds map[string]any, now time.Time) map[string]any {
	account := "SANDBOX-" + strings.ToUpper(p.Segment)
	for _, k := range []string{"merchantId", "accountId"} {
		if v, ok := creds[k]; ok && fmt.Sprint(v) != "" {
			account = fmt.Sprint(v)
			break
		}
	}
	keys := make([]string, 0, len(creds))
	for k := range creds {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	at := now.UTC().Format(time.RFC3339)
	reqID := fmt.Sprintf("%s-%d", p.Segment, now.UnixNano())
	switch p.Segment {
	case "humpas":
		return map[string]any{"status": "ok", "requestId": reqID, "result": map[string]any{
			"account": account, "environment": "sandbox", "timestamp": at,
			"balance":           map[string]any{"amount": p.Balance, "currency": p.Currency, "onHold": "0.00"},
			"authenticatedWith": keys}}
	case "crypto-manager":
		return map[string]any{"success": true, "requestId": reqID, "data": map[string]any{
			"accountId": account, "accountType": "Custody", "mode": "sandbox", "updatedAt": at,
			"assets": []any{
				map[string]any{"asset": "USDT", "availableBalance": p.Balance, "currency": p.Currency, "network": "TRC20"},
				map[string]any{"asset": "BTC", "pendingBalance": "0.0125", "currency": "BTC"},
			},
			"authenticatedWith": keys}}
	}
	return map[string]any{"success": true, "code": "OK", "requestId": reqID, "data": map[string]any{
		"merchantAccount": map[string]any{"accountId": account, "accountType": "Standard", "mode": "sandbox"},
		"wallet": map[string]any{"availableBalance": p.Balance, "currency": p.Currency,
			"pendingBalance": "1250.00", "reservedBalance": "0.00"},
		"updatedAt":         at,
		"authenticatedWith": keys}}
}

func provider(w http.ResponseWriter, r *http.Request, sim *simulator.Simulator) (simulator.Provider, bool) {
	p, ok := sim.Provider(r.PathValue("provider"))
	if !ok {
		writeJSON(w, http.StatusNotFound, map[string]any{"error": "unknown provider " + r.PathValue("provider")})
	}
	return p, ok
}

func answer(p simulator.Payment, now time.Time) map[string]any {
	st := p.StatusAt(now)
	msg := map[string]string{simulator.StatusSuccess: "Payment completed.", simulator.StatusFailed: "Payment declined by the sandbox.",
		simulator.StatusPending: "Payment is being processed."}[st]
	return map[string]any{"providerTransactionId": p.ID, "reference": p.Reference, "status": st, "message": msg,
		"amount": p.Amount, "currency": p.Currency}
}

func sleep(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// Notifier pushes the final status of resolved pending payments to the
// gateway: POST {gatewayURL}/api/v1/providers/{provider}/webhook.
type Notifier struct {
	Sim        *simulator.Simulator
	GatewayURL string
	Secret     string
	Client     *http.Client
	Log        *slog.Logger
	// Interval is how often resolved payments are looked for.
	Interval time.Duration
	// Concurrency is how many webhooks are pushed at once (1 when not
	// set); a real provider does not wait for one answer before the next.
	Concurrency int
}

// Run pushes webhooks until ctx ends. A failed push is logged, not retried
// (the gateway's polling still finds the status).
func (n *Notifier) Run(ctx context.Context) error {
	tick := time.NewTicker(n.Interval)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		var wg sync.WaitGroup
		slots := make(chan struct{}, max(n.Concurrency, 1))
		for _, p := range n.Sim.DueWebhooks() {
			slots <- struct{}{}
			wg.Go(func() {
				defer func() { <-slots }()
				if err := n.push(ctx, p); err != nil && ctx.Err() == nil {
					n.Log.WarnContext(ctx, "push webhook", "provider", p.Segment, "id", p.ID, "error", err)
				}
			})
		}
		wg.Wait()
	}
}

func (n *Notifier) push(ctx context.Context, p simulator.Payment) error {
	body, _ := json.Marshal(answer(p, time.Now()))
	url := strings.TrimRight(n.GatewayURL, "/") + "/api/v1/providers/" + p.Segment + "/webhook"
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(HeaderWebhookSecret, n.Secret)
	resp, err := n.Client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("%s answered %d", url, resp.StatusCode)
	}
	n.Log.InfoContext(ctx, "webhook pushed", "provider", p.Segment, "id", p.ID, "status", p.Final)
	return nil
}
