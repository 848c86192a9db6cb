// Package payment is the gateway's payment path: it starts deposits and
// withdrawals (limits, fee, provider), drives them to a final status through
// the provider's answer, its webhooks and polling, lets operators correct
// them, and journals every step.
//
// Every status change is compare-and-set on the status last seen and writes,
// in one store transaction, the new status, its journal entries and one event
// (TransactionUpdated, or TransactionFinalized for a final status) through
// the outbox. Nothing is written when a request is refused.
package payment

import (
	"strconv"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/money"
)

// Status is a transaction status code (spec 02 §4).
type Status int16

// The status codes.
const (
	StatusSuccess        Status = 4
	StatusPending        Status = 3
	StatusScheduled      Status = 2
	StatusNotConfirmed   Status = 1
	StatusUnknown        Status = 0
	StatusCancelled      Status = -1
	StatusPSPError       Status = -2
	StatusPSPGeneric     Status = -3
	StatusNetworkError   Status = -4
	StatusInternalError  Status = -5
	StatusValidationFail Status = -6
	StatusPendingArchive Status = 300
)

var statusNames = map[Status]string{
	StatusSuccess: "Success", StatusPending: "Pending", StatusScheduled: "Scheduled",
	StatusNotConfirmed: "Not Confirmed", StatusUnknown: "Unknown", StatusCancelled: "Cancelled",
	StatusPSPError: "PSP Error", StatusPSPGeneric: "PSP Generic", StatusNetworkError: "Network Error",
	StatusInternalError: "Internal Error", StatusValidationFail: "Validation Failed",
	StatusPendingArchive: "Pending (Archive)",
}

// Known reports whether s is one of the codes of spec 02 §4.
func (s Status) Known() bool { _, ok := statusNames[s]; return ok }

// String returns the status's display name.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return "Status " + strconv.Itoa(int(s))
}

// Final reports whether no provider answer changes s any more: success and
// every error status.
func (s Status) Final() bool { return s == StatusSuccess || (s < 0 && s.Known()) }

// Type is a transaction's direction.
type Type int16

// The directions.
const (
	TypeDeposit    Type = 1
	TypeWithdrawal Type = 2
)

// FeeType says how a fee's value is read.
type FeeType int16

// The fee types (spec 02 §4).
const (
	FeeNone    FeeType = 0
	FeePercent FeeType = 1
	FeeFixed   FeeType = 2
)

// Transaction is one payment.
type Transaction struct {
	ID                  int64
	ReferenceID         string
	MerchantID          int32
	CollabID            int32
	ProviderID          int32
	PayTypeID           int32
	MerchantName        string
	ProviderName        string
	PayTypeName         string
	Nonce               string
	MerchantClientID    string
	Type                Type
	Status              Status
	StatusMessage       string
	ErrorMessage        string
	Amount              money.Amount
	Currency            string
	DestinationAmount   money.Amount
	DestinationCurrency string
	ProviderTID         string
	ProviderTags        []string
	ProviderData        map[string]any
	AccountData         map[string]any
	PaymentIP           string
	UserAgent           string
	PaymentMethodType   int16
	PaymentMethodValue  string
	Fee                 AppliedFee
	// CallbacksDelivered of CallbacksTotal deliveries reached the merchant
	// (the callbacks service's tally).
	CallbacksDelivered int32
	CallbacksTotal     int32
	CallbacksCanceled  bool
	PollAttempts       int32
	NextPollAt         *time.Time
	CreatedAt          time.Time
	UpdatedAt          time.Time
	// Version is 1 when the transaction is made and one more at every
	// status change (the events' TransactionState.version).
	Version int64
}

// AppliedFee is the fee recorded on a transaction; ID 0 means none.
type AppliedFee struct {
	ID       int64
	Type     FeeType
	Value    Decimal4
	Amount   money.Amount
	Currency string
	Payer    int16
}

// Stage is a step of the payment path, as the Transaction Logs viewer
// groups entries.
type Stage string

// The stages.
const (
	StageInitialization     Stage = "Initialization"
	StageCreation           Stage = "Transaction Creation"
	StageAPIRequest         Stage = "API Request"
	StageAPIResponse        Stage = "API Response"
	StagePolling            Stage = "Polling"
	StageCallbackProcessing Stage = "Callback Processing"
	StageStatusChange       Stage = "Status Change"
	StageUIUpdate           Stage = "UI Update"
)

// Log levels of journal entries.
const (
	LevelInfo    = "Information"
	LevelWarning = "Warning"
	LevelError   = "Error"
)

// LogEntry is one journal entry (spec 02 §3 transaction log entries). The
// any fields hold JSON-shaped values (maps, slices, strings, numbers) with
// secrets already masked.
type LogEntry struct {
	ID                int64
	TransactionID     int64
	At                time.Time
	Stage             Stage
	Level             string
	Message           string
	SourceContext     string
	Application       string
	TransactionUpdate any
	Content           any
	Headers           any
	QueryParams       any
	AuthData          string
	WebhookRequest    any
	WebhookResponse   any
	WebhookHeaders    any
	Exception         *LogException
}

// LogException is the error of a journal entry.
type LogException struct {
	Type       string `json:"type"`
	Message    string `json:"message"`
	StackTrace string `json:"stackTrace,omitempty"`
}
