// Package validation holds merchants' validation endpoints and their
// results: the URLs a collab's merchant wants asked before a transaction
// reaches its provider (spec 02 §3, §5), the rules for adding and changing
// them, the request the gateway posts and how an answer is read.
//
// Endpoints belong to a collab. Changing one runs in a store transaction that
// locks the collab (and the endpoint), writes the change, one activity log
// entry (action type "Validation Endpoint") with the old and new values, and
// an ActivityRecorded event through the outbox. A caller outside the collab's
// merchant scope gets not found, and nothing is written on any error.
//
// The payment path (package payment) asks the endpoints and records one
// Result per endpoint and transaction; results keep the URL, priority and
// awaitable flag as asked and outlive their endpoint.
package validation

import (
	"strconv"
	"time"
)

// Priority bounds: lower numbers are asked first.
const (
	MinPriority     = 1
	MaxPriority     = 100
	DefaultPriority = 1
)

// MaxURLLength bounds an endpoint's URL.
const MaxURLLength = 2048

// MaxEndpointsPerCollab bounds how many endpoints one collab has: each
// awaitable one can hold a payment for the validation timeout.
const MaxEndpointsPerCollab = 20

// Collab is what validation needs of the collab an endpoint belongs to:
// whose it is, for the caller's scope, and the names the activity log gives
// it. The store reads it from the collab's own tables.
type Collab struct {
	// ID is the collab's id.
	ID int32
	// MerchantID and MerchantName are the collab's merchant.
	MerchantID   int32
	MerchantName string
	// ProviderID and ProviderName are the collab's provider.
	ProviderID   int32
	ProviderName string
}

// Name returns "Merchant × Provider", as activity messages name a collab.
func (c Collab) Name() string { return c.MerchantName + " × " + c.ProviderName }

// Endpoint is a merchant URL that checks a collab's transactions.
type Endpoint struct {
	// ID is the endpoint's id, given by the store.
	ID int64
	// CollabID is the collab whose transactions it checks.
	CollabID int32
	// MerchantID is the collab's merchant (read from the collab).
	MerchantID int32
	// URL is where the check is posted (http or https).
	URL string
	// Priority orders the endpoints, lower first (1 to 100).
	Priority int32
	// Awaitable endpoints are asked before the provider, and a veto fails
	// the transaction; the others are told without waiting.
	Awaitable bool
	// ForCashIn endpoints check deposits.
	ForCashIn bool
	// ForCashOut endpoints check withdrawals.
	ForCashOut bool
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt, UpdatedAt time.Time
}

// Checks reports whether the endpoint checks transactions of the direction:
// deposits when deposit is true, withdrawals otherwise.
func (e Endpoint) Checks(deposit bool) bool {
	if deposit {
		return e.ForCashIn
	}
	return e.ForCashOut
}

// Status is a validation result's status (spec 02 §4).
type Status int16

// The statuses.
const (
	StatusSuccess Status = 1
	StatusPending Status = 0
	StatusFailed  Status = -1
)

// Known reports whether s is one of the three statuses.
func (s Status) Known() bool {
	return s == StatusSuccess || s == StatusPending || s == StatusFailed
}

// String returns the status's display name.
func (s Status) String() string {
	switch s {
	case StatusSuccess:
		return "Success"
	case StatusPending:
		return "Pending"
	case StatusFailed:
		return "Failed"
	}
	return "Status " + strconv.Itoa(int(s))
}

// Result is one endpoint's answer for one transaction.
type Result struct {
	// ID is the result's id (the validationId sent to the endpoint).
	ID int64
	// TransactionID is the transaction checked.
	TransactionID int64
	// EndpointID is the endpoint asked; 0 once it is deleted.
	EndpointID int64
	// URL, Priority and Awaitable are the endpoint's when it was asked.
	URL       string
	Priority  int32
	Awaitable bool
	// Status is Pending until the endpoint answers or an operator decides.
	Status Status
	// ResponseCode is the endpoint's last HTTP status, 0 when it did not
	// answer.
	ResponseCode int32
	// Message is the endpoint's reason, or why the call failed.
	Message string
	// Attempts counts how many times the endpoint was asked.
	Attempts int32
	// CreatedAt and UpdatedAt are set by the store.
	CreatedAt, UpdatedAt time.Time
}

// Label is how the console shows a result: AVR-<id> when awaitable, VR-<id>
// otherwise.
func (r Result) Label() string {
	if r.Awaitable {
		return "AVR-" + strconv.FormatInt(r.ID, 10)
	}
	return "VR-" + strconv.FormatInt(r.ID, 10)
}

// Pending returns the pending results of endpoints, in the order they are
// asked: the awaitable ones first, then the others, each by priority and
// then id. Only endpoints that check the direction (deposit or not) are
// kept.
func Pending(endpoints []Endpoint, deposit bool) []Result {
	var awaitable, told []Result
	for _, e := range sortedEndpoints(endpoints) {
		if !e.Checks(deposit) {
			continue
		}
		r := Result{EndpointID: e.ID, URL: e.URL, Priority: e.Priority, Awaitable: e.Awaitable, Status: StatusPending}
		if e.Awaitable {
			awaitable = append(awaitable, r)
		} else {
			told = append(told, r)
		}
	}
	return append(awaitable, told...)
}
