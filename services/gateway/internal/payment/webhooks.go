package payment

import (
	"context"
	"crypto/subtle"
	"fmt"
	"strconv"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Webhook is a provider's status report as the webhook endpoint received it.
type Webhook struct {
	ProviderTID string
	Reference   string
	Outcome     Outcome
	Message     string
	Body        any
	Headers     map[string]string
}

// WebhookSender is a provider that proved its shared secret
// (AuthenticateWebhook); only such a sender's report is read.
type WebhookSender struct {
	conn Connection
}

// AuthenticateWebhook checks a webhook's provider (by its route segment) and
// shared secret, before anything of the report is read, so that an
// unauthenticated caller costs no parsing. An unknown provider is not found;
// a wrong or missing secret is unauthenticated.
func (s *Service) AuthenticateWebhook(ctx context.Context, segment, secret string) (WebhookSender, error) {
	conn, err := s.store.ConnectionBySegment(ctx, segment)
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return WebhookSender{}, apperr.New(apperr.KindNotFound, err, "The provider was not found.")
		}
		return WebhookSender{}, err
	}
	want, err := s.box.Open(conn.WebhookSecretSealed, ProviderSecretOwner(conn.ProviderID))
	if err != nil {
		return WebhookSender{}, fmt.Errorf("open webhook secret of provider %d: %w", conn.ProviderID, err)
	}
	if secret == "" || subtle.ConstantTimeCompare(want, []byte(secret)) != 1 {
		return WebhookSender{}, apperr.Unauthenticated("The webhook secret is missing or wrong.")
	}
	return WebhookSender{conn: conn}, nil
}

// HandleWebhook applies an authenticated provider's status report. An
// unknown transaction is not found; a report on a final transaction is
// journaled and ignored.
func (s *Service) HandleWebhook(ctx context.Context, from WebhookSender, w Webhook) (Transaction, error) {
	conn := from.conn
	var (
		t   Transaction
		err error
	)
	switch {
	case w.ProviderTID != "":
		t, err = s.store.ByProviderTID(ctx, conn.ProviderID, w.ProviderTID)
	default:
		err = apperr.NotFound(msgTransactionNotFound)
	}
	if err != nil {
		if apperr.KindOf(err) == apperr.KindNotFound {
			return Transaction{}, apperr.New(apperr.KindNotFound, err, msgTransactionNotFound)
		}
		return Transaction{}, err
	}
	for attempt := 0; ; attempt++ {
		entry := LogEntry{Stage: StageCallbackProcessing, Level: LevelInfo, SourceContext: "payment.HandleWebhook",
			Message:        fmt.Sprintf("Webhook from %s: %s.", conn.ProviderName, w.Outcome),
			WebhookRequest: Mask(w.Body), WebhookHeaders: MaskHeaders(w.Headers), AuthData: "provider " + conn.PathSegment + " (shared secret verified)",
			WebhookResponse: map[string]any{"status": 200}}
		if t.Status.Final() {
			entry.Level, entry.Message = LevelWarning, entry.Message+fmt.Sprintf(" Ignored: the transaction is already final (%s).", t.Status)
			return t, s.store.AppendLogs(ctx, withTx(entry, t.ID, s.stamp()))
		}
		ex := Exchange{Outcome: w.Outcome, ProviderMessage: w.Message, ResponseBody: w.Body}
		ch := s.outcomeChange(t, conn, ex, "payment.HandleWebhook")
		ch.ProviderTID = ""
		ch.Logs = []LogEntry{entry}
		after, err := s.change(ctx, t, SourceWebhook, ch)
		if apperr.KindOf(err) != apperr.KindConflict || attempt > 2 {
			return after, err
		}
		// The status moved under us (polling): decide again on the new one.
		if t, err = s.store.Transaction(ctx, t.ID); err != nil {
			return Transaction{}, err
		}
	}
}

// ProviderSecretOwner is the aesgcm owner of a provider's webhook secret.
func ProviderSecretOwner(providerID int32) string { return "provider:" + strconv.Itoa(int(providerID)) }
