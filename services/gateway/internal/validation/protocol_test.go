package validation_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/internal/apperr"
)

func TestVerdict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		ex     validation.Exchange
		want   validation.Status
		reason string
	}{
		{"2xx without a body approves", validation.Exchange{StatusCode: 204}, validation.StatusSuccess, "Approved (HTTP 204)."},
		{"approved true", validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"approved":true}`)}, validation.StatusSuccess, "Approved (HTTP 200)."},
		{"text body approves", validation.Exchange{StatusCode: 200, ResponseBody: []byte(`OK`)}, validation.StatusSuccess, "Approved (HTTP 200)."},
		{"other JSON approves", validation.Exchange{StatusCode: 201, ResponseBody: []byte(`["x"]`)}, validation.StatusSuccess, "Approved (HTTP 201)."},
		{"approved null is no veto", validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"approved":null}`)}, validation.StatusSuccess, "Approved (HTTP 200)."},
		{"veto with a reason", validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"approved": false, "reason": " Blocked user. "}`)}, validation.StatusFailed, "Blocked user."},
		{"veto keys in any case", validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"Approved":false,"REASON":"No."}`)}, validation.StatusFailed, "No."},
		{"veto without a reason", validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"approved":false}`)}, validation.StatusFailed, "The endpoint declined the transaction."},
		{"approved that is not a boolean", validation.Exchange{StatusCode: 200, ResponseBody: []byte(`{"approved":"false"}`)}, validation.StatusFailed,
			`The endpoint's answer is not valid: "approved" must be true or false.`},
		{"non-2xx fails", validation.Exchange{StatusCode: 500, ResponseBody: []byte(`{"approved":true}`)}, validation.StatusFailed, "The endpoint answered HTTP 500."},
		{"redirect left unfollowed fails", validation.Exchange{StatusCode: 302}, validation.StatusFailed, "The endpoint answered HTTP 302."},
		{"timeout", validation.Exchange{Err: errors.New("deadline"), Timeout: true}, validation.StatusFailed, "The endpoint did not answer within 2s."},
		{"no answer, with its sentence", validation.Exchange{Err: errors.New("dial tcp 127.0.0.1:9: connect: connection refused"),
			Failure: "The endpoint refused the connection."}, validation.StatusFailed, "The endpoint refused the connection."},
		{"no answer, never the library's text", validation.Exchange{Err: errors.New("dial tcp: lookup validator.invalid on 10.255.255.53:53: no such host")},
			validation.StatusFailed, "The endpoint gave no usable answer."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, reason := validation.Verdict(tt.ex, 2*time.Second)
			if got != tt.want || reason != tt.reason {
				t.Errorf("Verdict = %v %q, want %v %q", got, reason, tt.want, tt.reason)
			}
		})
	}
}

func TestVerdictBoundsTheReason(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("é", 600)
	body, _ := json.Marshal(map[string]any{"approved": false, "reason": long})
	_, reason := validation.Verdict(validation.Exchange{StatusCode: 200, ResponseBody: body}, time.Second)
	if n := len([]rune(reason)); n != 501 || !strings.HasSuffix(reason, "…") {
		t.Errorf("reason of %d characters: %q", n, reason)
	}
}

func TestRequestBody(t *testing.T) {
	t.Parallel()
	got := validation.RequestBody(42, validation.Subject{
		TransactionID: 7, ReferenceID: "PGREF", MerchantClientID: "client-1", Nonce: "n-1", Amount: "12.34",
		Currency: "PHP", Type: 1, CollabID: 3, MerchantID: 2, PayTypeID: 5, AccountData: map[string]any{"phone": "0917"},
	})
	raw, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var decoded map[string]any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"validationId": "42", "transactionId": "7", "transactionReferenceId": "PGREF", "merchantClientId": "client-1",
		"nonce": "n-1", "amount": "12.34", "currency": "PHP", "transactionType": 1.0, "collabId": 3.0, "merchantId": 2.0,
		"payTypeId": 5.0, "accountData": map[string]any{"phone": "0917"},
	}
	if !reflect.DeepEqual(decoded, want) {
		t.Errorf("body %s\nwant %v", raw, want)
	}
	if b := validation.RequestBody(1, validation.Subject{}); b["accountData"] == nil {
		t.Error("accountData must be an object, not null")
	}
}

func TestParseStatus(t *testing.T) {
	t.Parallel()
	for _, n := range []int32{1, 0, -1} {
		if s, err := validation.ParseStatus(n); err != nil || int32(s) != n {
			t.Errorf("ParseStatus(%d) = %v, %v", n, s, err)
		}
	}
	for _, n := range []int32{2, -2, 65537, -65535} {
		if _, err := validation.ParseStatus(n); apperr.KindOf(err) != apperr.KindInvalid {
			t.Errorf("ParseStatus(%d) = %v, want invalid", n, err)
		}
	}
}

func TestPendingOrder(t *testing.T) {
	t.Parallel()
	eps := []validation.Endpoint{
		{ID: 1, Priority: 50, Awaitable: false, ForCashIn: true},
		{ID: 2, Priority: 10, Awaitable: true, ForCashIn: true},
		{ID: 3, Priority: 5, Awaitable: false, ForCashIn: true, ForCashOut: true},
		{ID: 4, Priority: 10, Awaitable: true, ForCashIn: true},
		{ID: 5, Priority: 1, Awaitable: true, ForCashOut: true},
		{ID: 6, Priority: 7, Awaitable: true, ForCashIn: true},
	}
	ids := func(rs []validation.Result) []int64 {
		var out []int64
		for _, r := range rs {
			if r.Status != validation.StatusPending {
				t.Errorf("result %+v is not pending", r)
			}
			out = append(out, r.EndpointID)
		}
		return out
	}
	if got, want := ids(validation.Pending(eps, true)), []int64{6, 2, 4, 3, 1}; !reflect.DeepEqual(got, want) {
		t.Errorf("deposits ask %v, want %v", got, want)
	}
	if got, want := ids(validation.Pending(eps, false)), []int64{5, 3}; !reflect.DeepEqual(got, want) {
		t.Errorf("withdrawals ask %v, want %v", got, want)
	}
}

func TestResultLabel(t *testing.T) {
	t.Parallel()
	if got := (validation.Result{ID: 9, Awaitable: true}).Label(); got != "AVR-9" {
		t.Errorf("awaitable label %q", got)
	}
	if got := (validation.Result{ID: 9}).Label(); got != "VR-9" {
		t.Errorf("label %q", got)
	}
}
