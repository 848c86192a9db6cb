package httpapi

import (
	"encoding/json"
	"log/slog"
	"net/http"
	"strings"

	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/server"
)

// HeaderWebhookSecret carries a provider's shared webhook secret.
const HeaderWebhookSecret = "X-Paygate-Webhook-Secret"

// WebhookPattern is the route of providers' status webhooks.
const WebhookPattern = "POST /api/v1/providers/{segment}/webhook"

// webhookBody is what a provider reports.
type webhookBody struct {
	ProviderTransactionID string `json:"providerTransactionId"`
	Reference             string `json:"reference"`
	Status                string `json:"status"`
	Message               string `json:"message"`
}

// WebhookHandler serves WebhookPattern: it authenticates the provider by
// its shared secret and applies the reported status.
func WebhookHandler(svc *payment.Service, log *slog.Logger) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The secret before the body's fields: the edge (server.guardBody)
		// has only bounded the body and checked that it is JSON.
		from, err := svc.AuthenticateWebhook(r.Context(), r.PathValue("segment"), r.Header.Get(HeaderWebhookSecret))
		if err != nil {
			if apperr.KindOf(err) == apperr.KindInternal {
				log.ErrorContext(r.Context(), "provider webhook", "segment", r.PathValue("segment"), "error", err)
			}
			writeError(w, err)
			return
		}
		raw, ok := server.ReadBody(w, r)
		if !ok {
			return
		}
		var b webhookBody
		var generic any
		if err := json.Unmarshal(raw, &b); err != nil || json.Unmarshal(raw, &generic) != nil {
			writeError(w, apperr.Invalid("The body must be a JSON object with providerTransactionId and status."))
			return
		}
		headers := map[string]string{}
		for k, v := range r.Header {
			headers[k] = strings.Join(v, ", ")
		}
		t, err := svc.HandleWebhook(r.Context(), from, payment.Webhook{
			ProviderTID: b.ProviderTransactionID, Reference: b.Reference,
			Outcome: payment.Outcome(strings.ToLower(b.Status)), Message: b.Message,
			Body: generic, Headers: headers,
		})
		if err != nil {
			if apperr.KindOf(err) == apperr.KindInternal {
				log.ErrorContext(r.Context(), "provider webhook", "segment", r.PathValue("segment"), "error", err)
			}
			writeError(w, err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]any{"received": true, "transactionStatus": int(t.Status)})
	})
}
