// Package export holds the gateway's export files (spec 02 "Files",
// docs/contracts-files.md): what can be exported and with which columns,
// the validation of an export request (whose filter is the transaction
// list's own, payment.ParseListQuery), the file and its statuses, the
// merchant scope that decides who sees a file, and the worker that writes a
// file from one consistent snapshot into the file store.
package export

import (
	"strconv"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/exportfmt"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

// Type is what an export holds (ExportType.type).
type Type int32

// The export types. 2 (Statistics) is the console's name of a type this
// server does not offer.
const (
	TypeTransactions     Type = 1
	TypeTransactionLogs  Type = 3
	TypeCallbackAttempts Type = 4
)

// Row is one row of an export: a transaction, with one of its journal
// entries (TypeTransactionLogs) or one of its callback attempts
// (TypeCallbackAttempts).
type Row struct {
	Transaction payment.Transaction
	Log         *LogRecord
	Attempt     *Attempt
}

// LogRecord is a transaction journal entry as an export writes it: its JSON
// payloads as their JSON text.
type LogRecord struct {
	ID                int64
	TransactionID     int64
	At                time.Time
	Stage             string
	Level             string
	Message           string
	SourceContext     string
	Application       string
	AuthData          string
	TransactionUpdate string
	Content           string
	Headers           string
	QueryParams       string
	WebhookRequest    string
	WebhookResponse   string
	WebhookHeaders    string
	Exception         string
}

// Attempt is one callback attempt, as the callbacks service answers it.
type Attempt struct {
	ID            int64
	TransactionID int64
	CreatedAt     time.Time
	URL           string
	ResponseCode  int32
	Status        string
	Number        int32
	WebhookID     string
	ErrorMessage  string
	RequestBody   string
}

// Column is one column an export type offers: the field it reads, the
// header the console shows by default, and how it reads a row.
type Column struct {
	Field string
	Name  string
	cell  func(*Row) exportfmt.Cell
}

// Cell returns the column's value in row r.
func (c Column) Cell(r Row) exportfmt.Cell { return c.cell(&r) }

// cellOf is Cell without copying the row: the worker calls it for every
// column of every row, and a Row holds a whole transaction.
func (c Column) cellOf(r *Row) exportfmt.Cell { return c.cell(r) }

// TypeInfo describes an export type: its id, name, a sentence on what the
// file holds, and its columns in their default order.
type TypeInfo struct {
	Type        Type
	Name        string
	Slug        string
	Description string
	Columns     []Column
}

// Column returns the type's column of field, ok false when it has none.
func (ti TypeInfo) Column(field string) (Column, bool) {
	for _, c := range ti.Columns {
		if c.Field == field {
			return c, true
		}
	}
	return Column{}, false
}

func text(f func(*Row) string) func(*Row) exportfmt.Cell {
	return func(r *Row) exportfmt.Cell { return exportfmt.Cell{Kind: exportfmt.Text, Text: f(r)} }
}

func decimal(f func(*Row) string) func(*Row) exportfmt.Cell {
	return func(r *Row) exportfmt.Cell {
		if s := f(r); s != "" {
			return exportfmt.Cell{Kind: exportfmt.Decimal, Text: s}
		}
		return exportfmt.Cell{Kind: exportfmt.Text}
	}
}

func integer(f func(*Row) int64) func(*Row) exportfmt.Cell {
	return func(r *Row) exportfmt.Cell { return exportfmt.Cell{Kind: exportfmt.Integer, Int: f(r)} }
}

func instant(f func(*Row) time.Time) func(*Row) exportfmt.Cell {
	return func(r *Row) exportfmt.Cell { return exportfmt.Cell{Kind: exportfmt.Time, Time: f(r)} }
}

// amountText is a.String() ("-1234.05", "" when unset) without fmt: three
// amount columns of every row of an export go through it.
func amountText(a money.Amount) string {
	if !a.IsSet() {
		return ""
	}
	c := a.CentsValue()
	var buf [24]byte
	b := buf[:0]
	if c < 0 {
		b, c = append(b, '-'), -c
	}
	b = strconv.AppendInt(b, c/100, 10)
	return string(append(b, '.', byte('0'+c%100/10), byte('0'+c%10)))
}

func typeName(t payment.Type) string {
	if t == payment.TypeWithdrawal {
		return "Withdrawal"
	}
	return "Deposit"
}

// transactionColumns are the transaction list's columns, named as the
// console shows them (the table's headers, then its expanded details).
func transactionColumns() []Column {
	tx := func(r *Row) *payment.Transaction { return &r.Transaction }
	return []Column{
		{"id", "ID", integer(func(r *Row) int64 { return tx(r).ID })},
		{"transactionReferenceId", "Reference ID", text(func(r *Row) string { return tx(r).ReferenceID })},
		{"merchantName", "Merchant", text(func(r *Row) string { return tx(r).MerchantName })},
		{"providerName", "Provider", text(func(r *Row) string { return tx(r).ProviderName })},
		{"transactionType", "Type", text(func(r *Row) string { return typeName(tx(r).Type) })},
		{"amount", "Amount", decimal(func(r *Row) string { return amountText(tx(r).Amount) })},
		{"currency", "Currency", text(func(r *Row) string { return tx(r).Currency })},
		{"transactionStatus", "Status", text(func(r *Row) string { return tx(r).Status.String() })},
		{"callbackDeliveryStatus", "Callbacks", text(func(r *Row) string {
			t := tx(r)
			var buf [24]byte
			b := strconv.AppendInt(buf[:0], int64(t.CallbacksDelivered), 10)
			b = append(b, '/')
			return string(strconv.AppendInt(b, int64(t.CallbacksTotal), 10))
		})},
		{"createdUtc", "Created", instant(func(r *Row) time.Time { return tx(r).CreatedAt })},
		{"updatedUtc", "Updated", instant(func(r *Row) time.Time { return tx(r).UpdatedAt })},
		{"nonce", "Nonce", text(func(r *Row) string { return tx(r).Nonce })},
		{"merchantClientId", "Merchant Client ID", text(func(r *Row) string { return tx(r).MerchantClientID })},
		{"providerTransactionId", "Provider TID", text(func(r *Row) string { return tx(r).ProviderTID })},
		{"providerPayType", "Pay Type", text(func(r *Row) string { return tx(r).PayTypeName })},
		{"transactionStatusMessage", "Status Message", text(func(r *Row) string { return tx(r).StatusMessage })},
		{"errorMessage", "Error", text(func(r *Row) string { return tx(r).ErrorMessage })},
		{"paymentMethodValue", "Payment Method", text(func(r *Row) string { return tx(r).PaymentMethodValue })},
		{"paymentIpAddress", "Payment IP", text(func(r *Row) string { return tx(r).PaymentIP })},
		{"destinationAmount", "Destination Amount", decimal(func(r *Row) string { return amountText(tx(r).DestinationAmount) })},
		{"destinationCurrency", "Destination Currency", text(func(r *Row) string { return tx(r).DestinationCurrency })},
		{"appliedFeeAmount", "Fee Amount", decimal(func(r *Row) string { return amountText(tx(r).Fee.Amount) })},
		{"appliedFeeCurrency", "Fee Currency", text(func(r *Row) string { return tx(r).Fee.Currency })},
		{"pollingAttempts", "Polling Attempts", integer(func(r *Row) int64 { return int64(tx(r).PollAttempts) })},
	}
}

func logColumns() []Column {
	lg := func(r *Row) *LogRecord {
		if r.Log == nil {
			return &LogRecord{}
		}
		return r.Log
	}
	return []Column{
		{"transactionId", "Transaction ID", integer(func(r *Row) int64 { return r.Transaction.ID })},
		{"transactionReferenceId", "Reference ID", text(func(r *Row) string { return r.Transaction.ReferenceID })},
		{"merchantName", "Merchant", text(func(r *Row) string { return r.Transaction.MerchantName })},
		{"providerName", "Provider", text(func(r *Row) string { return r.Transaction.ProviderName })},
		{"logId", "Log ID", integer(func(r *Row) int64 { return lg(r).ID })},
		{"createdUtc", "Time", instant(func(r *Row) time.Time { return lg(r).At })},
		{"stage", "Stage", text(func(r *Row) string { return lg(r).Stage })},
		{"level", "Level", text(func(r *Row) string { return lg(r).Level })},
		{"message", "Message", text(func(r *Row) string { return lg(r).Message })},
		{"sourceContext", "Source Context", text(func(r *Row) string { return lg(r).SourceContext })},
		{"application", "Application", text(func(r *Row) string { return lg(r).Application })},
		{"transactionUpdate", "Transaction Update", text(func(r *Row) string { return lg(r).TransactionUpdate })},
		{"content", "Content", text(func(r *Row) string { return lg(r).Content })},
		{"headers", "Headers", text(func(r *Row) string { return lg(r).Headers })},
		{"queryParams", "Query Params", text(func(r *Row) string { return lg(r).QueryParams })},
		{"authData", "Auth Data", text(func(r *Row) string { return lg(r).AuthData })},
		{"webhookRequest", "Webhook Request", text(func(r *Row) string { return lg(r).WebhookRequest })},
		{"webhookResponse", "Webhook Response", text(func(r *Row) string { return lg(r).WebhookResponse })},
		{"webhookHeaders", "Webhook Headers", text(func(r *Row) string { return lg(r).WebhookHeaders })},
		{"exception", "Exception", text(func(r *Row) string { return lg(r).Exception })},
	}
}

func attemptColumns() []Column {
	at := func(r *Row) *Attempt {
		if r.Attempt == nil {
			return &Attempt{}
		}
		return r.Attempt
	}
	return []Column{
		{"transactionId", "Transaction ID", integer(func(r *Row) int64 { return r.Transaction.ID })},
		{"transactionReferenceId", "Reference ID", text(func(r *Row) string { return r.Transaction.ReferenceID })},
		{"merchantName", "Merchant", text(func(r *Row) string { return r.Transaction.MerchantName })},
		{"providerName", "Provider", text(func(r *Row) string { return r.Transaction.ProviderName })},
		{"id", "Attempt ID", integer(func(r *Row) int64 { return at(r).ID })},
		{"createdUtc", "Created", instant(func(r *Row) time.Time { return at(r).CreatedAt })},
		{"callbackUrl", "Callback URL", text(func(r *Row) string { return at(r).URL })},
		{"attemptNumber", "Attempt", integer(func(r *Row) int64 { return int64(at(r).Number) })},
		{"responseCode", "Response Code", integer(func(r *Row) int64 { return int64(at(r).ResponseCode) })},
		{"callbackAttemptStatus", "Status", text(func(r *Row) string { return at(r).Status })},
		{"errorMessage", "Error", text(func(r *Row) string { return at(r).ErrorMessage })},
		{"webhookId", "Webhook ID", text(func(r *Row) string { return at(r).WebhookID })},
		{"requestBody", "Request Body", text(func(r *Row) string { return at(r).RequestBody })},
	}
}

var types = []TypeInfo{
	{Type: TypeTransactions, Name: "Transactions", Slug: "transactions",
		Description: "The filtered transactions, one row each, with the transaction list's columns.",
		Columns:     transactionColumns()},
	{Type: TypeTransactionLogs, Name: "Transaction logs", Slug: "transaction-logs",
		Description: "The journal entries of the filtered transactions (the Transaction Logs viewer's stages), one row per entry.",
		Columns:     logColumns()},
	{Type: TypeCallbackAttempts, Name: "Callback attempts", Slug: "callback-attempts",
		Description: "The callback attempts made for the filtered transactions, one row per attempt.",
		Columns:     attemptColumns()},
}

// Types returns every export type, by id.
func Types() []TypeInfo { return types }

// TypeOf returns the export type t, ok false for an unknown one.
func TypeOf(t Type) (TypeInfo, bool) {
	for _, ti := range types {
		if ti.Type == t {
			return ti, true
		}
	}
	return TypeInfo{}, false
}
