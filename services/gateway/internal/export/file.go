package export

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// Status is a file's status (spec 02 §4 File status).
type Status int16

// The statuses. A file moves Scheduled → In Progress → Success or Failed;
// Scheduled or In Progress → Cancelled (deleted before it was written);
// Success, Failed or Cancelled → Deleted (by its owner or the retention
// job), after which it stays listed.
const (
	StatusScheduled  Status = 0
	StatusInProgress Status = 1
	StatusSuccess    Status = 2
	StatusFailed     Status = -1
	StatusCancelled  Status = -2
	StatusDeleted    Status = -3
)

var statusNames = map[Status]string{
	StatusScheduled: "Scheduled", StatusInProgress: "In Progress", StatusSuccess: "Success",
	StatusFailed: "Failed", StatusCancelled: "Cancelled", StatusDeleted: "Deleted",
}

// String returns the status's name as the console shows it.
func (s Status) String() string {
	if n, ok := statusNames[s]; ok {
		return n
	}
	return "Unknown"
}

// Processing reports Scheduled and In Progress.
func (s Status) Processing() bool { return s == StatusScheduled || s == StatusInProgress }

// Filter is the export's filter as the caller gave it: the advanced list's
// filters (spec 02 §3 Export request), kept as text so that the worker reads
// it with the list's own parser.
type Filter struct {
	Type               int32    `json:"type,omitempty"`
	Statuses           []string `json:"statuses,omitempty"`
	ProviderTID        string   `json:"providerTid,omitempty"`
	MerchantCID        string   `json:"merchantCid,omitempty"`
	Nonce              string   `json:"nonce,omitempty"`
	From               string   `json:"from,omitempty"`
	To                 string   `json:"to,omitempty"`
	MinAmount          string   `json:"minAmount,omitempty"`
	MaxAmount          string   `json:"maxAmount,omitempty"`
	Currency           string   `json:"currency,omitempty"`
	PaymentMethodValue string   `json:"paymentMethodValue,omitempty"`
	PaymentMethodType  int32    `json:"paymentMethodType,omitempty"`
	PaymentIP          string   `json:"paymentIpAddress,omitempty"`
}

// ListQuery is the transaction list query f stands for, on collab collabID
// (0: every collab in scope).
func (f Filter) ListQuery(collabID int32) payment.ListQuery {
	return payment.ListQuery{
		CollabID: collabID, Type: f.Type, Statuses: f.Statuses, ProviderTID: f.ProviderTID, MerchantCID: f.MerchantCID,
		Nonce: f.Nonce, From: f.From, To: f.To, MinAmount: f.MinAmount, MaxAmount: f.MaxAmount, Currency: f.Currency,
		PaymentMethodValue: f.PaymentMethodValue, PaymentMethodType: f.PaymentMethodType, PaymentIP: f.PaymentIP,
	}
}

// ColumnChoice is one column of a file: the field and its header.
type ColumnChoice struct {
	Field string `json:"field"`
	Name  string `json:"name"`
}

// Request is what a file is to hold, validated (Service.Export): it is
// stored with the file, and the worker writes the file from it.
type Request struct {
	CollabID int32            `json:"collabId"`
	Filter   Filter           `json:"filter"`
	Type     Type             `json:"exportType"`
	Format   exportfmt.Format `json:"fileType"`
	Columns  []ColumnChoice   `json:"columns"`
	TimeZone string           `json:"timeZone"`
}

// Manifest is what the worker writes beside a finished file (and into its
// row): enough for an auditor to check the file later.
type Manifest struct {
	FileID     int64          `json:"fileId"`
	Name       string         `json:"name"`
	Filter     map[string]any `json:"filter"`
	Columns    []ColumnChoice `json:"columns"`
	RowCount   int64          `json:"rowCount"`
	ByteSize   int64          `json:"byteSize"`
	SHA256     string         `json:"sha256"`
	CreatedUTC time.Time      `json:"createdUtc"`
	// FinishedUTC is when the worker committed the file.
	FinishedUTC time.Time `json:"finishedUtc"`
	Attempt     int32     `json:"attempt"`
}

// File is an export file (spec 02 §3 File).
type File struct {
	ID            int64
	Name          string
	Status        Status
	Request       Request
	CreatedBy     string
	CreatedByID   int64
	Scope         merchant.Scope
	CreatedAt     time.Time
	UpdatedAt     time.Time
	StatusMessage string
	ErrorMessage  string
	// Worker, LeaseUntil and Attempt are the claim (In Progress).
	Worker     string
	LeaseUntil *time.Time
	Attempt    int32
	// StorageKey is where a Success file's bytes are.
	StorageKey  string
	RecordCount int64
	SizeBytes   int64
	SHA256      string
	Manifest    *Manifest
}

// FilterView is the filter as the file's info shows it: the collab, the
// filter fields given, the scope, the time zone.
func (f File) FilterView() map[string]any {
	out := map[string]any{}
	raw, _ := json.Marshal(f.Request.Filter)
	_ = json.Unmarshal(raw, &out)
	out["collabId"] = f.Request.CollabID
	out["timeZone"] = f.Request.TimeZone
	if f.Scope.All {
		out["scope"] = "all"
	} else {
		ids := make([]any, 0, len(f.Scope.MerchantIDs))
		for _, id := range f.Scope.MerchantIDs {
			ids = append(ids, id)
		}
		out["scope"] = ids
	}
	return out
}

// Viewer is who looks at files: the user and its merchant scope.
type Viewer struct {
	UserID int64
	Scope  merchant.Scope
}

// Sees reports whether v may see file f: a global caller sees every file; a
// merchant user sees the files requested within merchants it all holds (a
// file requested with no merchant only by its requester).
func (v Viewer) Sees(f File) bool {
	if v.Scope.All {
		return true
	}
	if f.Scope.All {
		return false
	}
	if len(f.Scope.MerchantIDs) == 0 {
		return f.CreatedByID == v.UserID
	}
	for _, id := range f.Scope.MerchantIDs {
		if !slices.Contains(v.Scope.MerchantIDs, id) {
			return false
		}
	}
	return true
}

// Page is a page of files, newest first.
type Page struct {
	Files      []File
	TotalCount int64
	Page, Take int
}

// File list paging (spec 02 §9: the files page shows 10 by default).
const (
	DefaultTake = 10
	MaxTake     = 100
)
