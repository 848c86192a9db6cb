package callback

import (
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"go.opentelemetry.io/otel/trace"
)

// EventType is the "type" of every callback body.
const EventType = "transaction.finalized"

// Data is the "data" of a callback body: the transaction as the merchant
// sees it (docs/contracts-callbacks.md).
type Data struct {
	ID                       string `json:"id"`
	TransactionReferenceID   string `json:"transactionReferenceId"`
	MerchantClientID         string `json:"merchantClientId"`
	Nonce                    string `json:"nonce"`
	Amount                   string `json:"amount"`
	Currency                 string `json:"currency"`
	DestinationAmount        string `json:"destinationAmount"`
	DestinationCurrency      string `json:"destinationCurrency"`
	TransactionType          int32  `json:"transactionType"`
	TransactionStatus        int32  `json:"transactionStatus"`
	TransactionStatusMessage string `json:"transactionStatusMessage"`
	ProviderTransactionID    string `json:"providerTransactionId"`
	ErrorMessage             string `json:"errorMessage"`
	CreatedUtc               string `json:"createdUtc"`
	UpdatedUtc               string `json:"updatedUtc"`
	CollabID                 int32  `json:"collabId"`
	MerchantID               int32  `json:"merchantId"`
}

// Body is a callback's JSON body.
type Body struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Data      Data   `json:"data"`
}

// NewBody returns the JSON body of a delivery of d made at.
func NewBody(d Data, at time.Time) ([]byte, error) {
	b, err := json.Marshal(Body{Type: EventType, Timestamp: at.UTC().Format(time.RFC3339), Data: d})
	if err != nil {
		return nil, fmt.Errorf("marshal callback body of transaction %s: %w", d.ID, err)
	}
	return b, nil
}

// TransactionState is a transaction as the gateway's events carry it.
type TransactionState struct {
	ID                    int64
	ReferenceID           string
	MerchantID            int32
	CollabID              int32
	Nonce                 string
	Type                  int32
	Amount                string
	Currency              string
	Status                int32
	StatusMessage         string
	ProviderTransactionID string
	UpdatedAt             time.Time
	CallbacksCanceled     bool
	MerchantClientID      string
	DestinationAmount     string
	DestinationCurrency   string
	ErrorMessage          string
	CreatedAt             time.Time
}

// Data returns the callback body's data of s.
func (s TransactionState) Data() Data {
	return Data{
		ID:                       strconv.FormatInt(s.ID, 10),
		TransactionReferenceID:   s.ReferenceID,
		MerchantClientID:         s.MerchantClientID,
		Nonce:                    s.Nonce,
		Amount:                   s.Amount,
		Currency:                 s.Currency,
		DestinationAmount:        s.DestinationAmount,
		DestinationCurrency:      s.DestinationCurrency,
		TransactionType:          s.Type,
		TransactionStatus:        s.Status,
		TransactionStatusMessage: s.StatusMessage,
		ProviderTransactionID:    s.ProviderTransactionID,
		ErrorMessage:             s.ErrorMessage,
		CreatedUtc:               utc(s.CreatedAt),
		UpdatedUtc:               utc(s.UpdatedAt),
		CollabID:                 s.CollabID,
		MerchantID:               s.MerchantID,
	}
}

func utc(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339Nano)
}

// TransactionEvent is a gateway event about a transaction: a
// TransactionFinalized (Finalized) or a TransactionUpdated.
type TransactionEvent struct {
	// EventID is the event's id (its Nats-Msg-Id); deliveries are unique
	// per event and callback URL, so a redelivered event makes none twice.
	EventID string
	// Finalized is true for TransactionFinalized.
	Finalized bool
	// PreviousStatus is the status before the change.
	PreviousStatus int32
	// State is the transaction after the change.
	State TransactionState
	// MerchantCallbacksOff is set when the collab's merchant callbacks
	// (IsMerchantCallbackEnabled) were off as the status became final.
	MerchantCallbacksOff bool
	// Trace is the span context of the request that wrote the event (its
	// traceparent header), invalid when it carried none: the attempts of the
	// deliveries it makes are traced as its children (Delivery.Trace).
	Trace trace.SpanContext
}

// ShouldDeliver reports whether ev makes deliveries: a finalized event at a
// final status that changed the status (or that is the first the service
// sees of the transaction), for a transaction whose callbacks are not
// cancelled, on a collab whose merchant callbacks are on. An operator's
// callbacks cancel, published as a finalized event with the status
// unchanged, makes none.
func ShouldDeliver(ev TransactionEvent, firstSighting, cancelled bool) bool {
	return ev.Finalized && Final(ev.State.Status) && !cancelled && !ev.MerchantCallbacksOff &&
		(ev.State.Status != ev.PreviousStatus || firstSighting)
}
