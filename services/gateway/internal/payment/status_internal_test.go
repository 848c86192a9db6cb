package payment

import (
	"errors"
	"strings"
	"testing"
)

// TestProviderFailureIsASentence checks that a failed provider call is told
// in the transaction's error message (which merchants read, and their
// callbacks carry) and in its journal by the exchange's sentence, never by
// the HTTP client's text, which names internal addresses.
func TestProviderFailureIsASentence(t *testing.T) {
	t.Parallel()
	const raw = `Post "http://10.20.0.7:8085/govip/payments": dial tcp 10.20.0.7:8085: connect: connection refused`
	s := &Service{}
	for _, tt := range []struct {
		name string
		ex   Exchange
		to   Status
		want string
	}{
		{"no answer", Exchange{Method: "POST", URL: "https://psp.example/payments", Err: errors.New(raw), Network: true,
			Failure: "The provider refused the connection: nothing accepts connections on the URL's port."},
			StatusNetworkError, "The provider refused the connection: nothing accepts connections on the URL's port."},
		{"a bad answer", Exchange{Method: "POST", URL: "https://psp.example/payments", StatusCode: 502,
			Err: errors.New("the provider answered HTTP 502"), Failure: "The provider answered HTTP 502."},
			StatusPSPGeneric, "The provider answered HTTP 502."},
		{"no sentence: never the client's text", Exchange{Method: "GET", URL: "https://psp.example/payments/1", Err: errors.New(raw), Network: true},
			StatusNetworkError, "The provider gave no usable answer."},
	} {
		ch := s.outcomeChange(Transaction{Status: StatusNotConfirmed}, Connection{}, tt.ex, "payment.submit")
		if ch.To != tt.to || ch.ErrorMessage != tt.want {
			t.Errorf("%s: status %v, error message %q; want %v, %q", tt.name, ch.To, ch.ErrorMessage, tt.to, tt.want)
		}
		e := responseLog(StageAPIResponse, tt.ex, "payment.submit")
		if e.Exception == nil || e.Exception.Message != tt.want || !strings.HasSuffix(e.Message, tt.want) {
			t.Errorf("%s: journal entry %q, exception %+v; want %q", tt.name, e.Message, e.Exception, tt.want)
		}
		if strings.Contains(e.Message, "dial tcp") || strings.Contains(e.Message, "10.20.0.7") {
			t.Errorf("%s: journal entry %q holds the client's text", tt.name, e.Message)
		}
	}
}
