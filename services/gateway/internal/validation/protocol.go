package validation

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Subject is the transaction a validation request describes.
type Subject struct {
	TransactionID    int64
	ReferenceID      string
	MerchantClientID string
	Nonce            string
	// Amount is a decimal with two fraction digits, e.g. "12.34".
	Amount   string
	Currency string
	// Type is 1 for a deposit, 2 for a withdrawal.
	Type        int16
	CollabID    int32
	MerchantID  int32
	PayTypeID   int32
	AccountData map[string]any
}

// RequestBody is the JSON object posted to an endpoint for result
// resultID (docs/contracts-validation.md).
func RequestBody(resultID int64, s Subject) map[string]any {
	account := s.AccountData
	if account == nil {
		account = map[string]any{}
	}
	return map[string]any{
		"validationId":           strconv.FormatInt(resultID, 10),
		"transactionId":          strconv.FormatInt(s.TransactionID, 10),
		"transactionReferenceId": s.ReferenceID,
		"merchantClientId":       s.MerchantClientID,
		"nonce":                  s.Nonce,
		"amount":                 s.Amount,
		"currency":               s.Currency,
		"transactionType":        s.Type,
		"collabId":               s.CollabID,
		"merchantId":             s.MerchantID,
		"payTypeId":              s.PayTypeID,
		"accountData":            account,
	}
}

// Exchange is one call to an endpoint as the caller made it.
type Exchange struct {
	// Method and URL are the request's.
	Method, URL string
	// RequestHeaders are the headers sent.
	RequestHeaders map[string]string
	// StatusCode is the endpoint's HTTP status, 0 when it did not answer.
	StatusCode int
	// ResponseBody is the answer's body (at most the caller's limit).
	ResponseBody []byte
	// Err is set when no usable answer came: no connection, a refused
	// address, a timeout, or a body larger than the limit. Its text is the
	// client library's, which can name the network Paygate runs in (the
	// resolver's address): it goes to the log only.
	Err error
	// Failure says in a sentence why no usable answer came, without
	// library text: what the result's message and the journal show. Set
	// with Err.
	Failure string
	// Timeout is true when Err is the timeout.
	Timeout bool
	// Elapsed is how long the call took.
	Elapsed time.Duration
}

// Caller posts validation requests.
type Caller interface {
	// Call posts body (JSON) to url with headers added to the caller's own
	// and returns what happened; ctx bounds the call. Failures are
	// reported in Exchange.Err, never panicked.
	Call(ctx context.Context, url string, body []byte, headers map[string]string) Exchange
}

// answer is the part of an endpoint's JSON answer that matters.
type answer struct {
	approved *bool
	reason   string
}

// ParseStatus reads a status a caller gives; anything but 1, 0 and -1 is
// invalid.
func ParseStatus(n int32) (Status, error) {
	if s := Status(n); int32(s) == n && s.Known() {
		return s, nil
	}
	return 0, apperr.Invalid("%d is not a validation status: use 1 (Success), 0 (Pending) or -1 (Failed).", n)
}

// Verdict reads an exchange: a 2xx answer approves unless its JSON body
// says {"approved": false, "reason": "..."} (keys in any case); a non-2xx
// answer, no answer or a timeout fails. It returns the status and a sentence
// for the result's message. timeout is the limit the call had.
func Verdict(ex Exchange, timeout time.Duration) (Status, string) {
	switch {
	case ex.Timeout:
		return StatusFailed, fmt.Sprintf("The endpoint did not answer within %s.", timeout)
	case ex.Err != nil && ex.Failure != "":
		return StatusFailed, ex.Failure
	case ex.Err != nil:
		// Never Err's text: it is the client library's.
		return StatusFailed, "The endpoint gave no usable answer."
	case ex.StatusCode < 200 || ex.StatusCode > 299:
		return StatusFailed, fmt.Sprintf("The endpoint answered HTTP %d.", ex.StatusCode)
	}
	a, err := readAnswer(ex.ResponseBody)
	if err != nil {
		return StatusFailed, "The endpoint's answer is not valid: " + err.Error() + "."
	}
	if a.approved != nil && !*a.approved {
		if a.reason == "" {
			return StatusFailed, "The endpoint declined the transaction."
		}
		return StatusFailed, a.reason
	}
	return StatusSuccess, fmt.Sprintf("Approved (HTTP %d).", ex.StatusCode)
}

// maxReason bounds the reason kept from an answer, in characters.
const maxReason = 500

// readAnswer finds "approved" and "reason" in a JSON object body. A body
// that is not a JSON object has neither; an "approved" that is not a
// boolean is an error, so that a veto is never read as an approval.
func readAnswer(body []byte) (answer, error) {
	var a answer
	body = bytes.TrimSpace(body)
	if len(body) == 0 || body[0] != '{' {
		return a, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(body, &fields); err != nil {
		return a, nil
	}
	for k, raw := range fields {
		switch strings.ToLower(k) {
		case "approved":
			if string(bytes.TrimSpace(raw)) == "null" {
				continue
			}
			var b bool
			if err := json.Unmarshal(raw, &b); err != nil {
				return a, errors.New(`"approved" must be true or false`)
			}
			a.approved = &b
		case "reason":
			var s string
			if json.Unmarshal(raw, &s) == nil {
				a.reason = strings.TrimSpace(s)
			}
		}
	}
	if r := []rune(a.reason); len(r) > maxReason {
		a.reason = string(r[:maxReason]) + "…"
	}
	return a, nil
}
