package callback_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/stdwebhooks"
)

// TestSecretOfTheSpecificationVector reads the Standard Webhooks
// specification's example secret: its key signs the example as the
// specification says (services/internal/stdwebhooks tests the signing
// itself), so receivers using any library of it verify our deliveries.
func TestSecretOfTheSpecificationVector(t *testing.T) {
	t.Parallel()
	key, err := callback.ParseSecret("whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	got := stdwebhooks.Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 2432232314}`))
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
}

func TestSecrets(t *testing.T) {
	t.Parallel()
	if got := callback.FormatSecret(callback.DemoKey(1)); got != "whsec_"+base64.StdEncoding.EncodeToString([]byte("paygate-demo-callback-secret-1")) {
		t.Fatalf("demo secret of merchant 1 = %s", got)
	}
	k, err := callback.RandomKey()
	if err != nil || len(k) != callback.SecretSize {
		t.Fatalf("RandomKey = %x, %v", k, err)
	}
	back, err := callback.ParseSecret(callback.FormatSecret(k))
	if err != nil || string(back) != string(k) {
		t.Fatalf("ParseSecret(FormatSecret(k)) = %x, %v", back, err)
	}
	for _, bad := range []string{"", "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", "whsec_not base64!"} {
		if _, err := callback.ParseSecret(bad); err == nil {
			t.Errorf("ParseSecret(%q) accepted", bad)
		}
	}
}

func TestNewWebhookID(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^msg_[0-9A-HJKMNP-TV-Z]{26}$`)
	seen := map[string]bool{}
	prev := ""
	for range 1000 {
		id, err := callback.NewWebhookID()
		if err != nil {
			t.Fatal(err)
		}
		if !re.MatchString(id) {
			t.Fatalf("webhook id %q is not msg_ + 26 Crockford base32 characters", id)
		}
		if seen[id] {
			t.Fatalf("webhook id %q twice", id)
		}
		if id < prev {
			t.Fatalf("webhook ids do not sort by creation: %s after %s", id, prev)
		}
		seen[id], prev = true, id
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	b := callback.Backoff{Base: time.Second, Cap: 10 * time.Minute}
	for n, want := range map[int32]time.Duration{
		1: time.Second, 2: 2 * time.Second, 3: 4 * time.Second, 10: 512 * time.Second, 11: 10 * time.Minute, 40: 10 * time.Minute,
	} {
		if got := b.Ceiling(n); got != want {
			t.Errorf("Ceiling(%d) = %v, want %v", n, got, want)
		}
	}
	// Full jitter: the whole range from zero to the ceiling, both ends.
	var asked int64
	b.Rand = func(n int64) int64 { asked = n; return n - 1 }
	if got := b.Delay(3); got != 4*time.Second || asked != int64(4*time.Second)+1 {
		t.Fatalf("Delay(3) with the top draw = %v (asked %d)", got, asked)
	}
	b.Rand = func(int64) int64 { return 0 }
	if got := b.Delay(3); got != 0 {
		t.Fatalf("Delay(3) with the bottom draw = %v", got)
	}
	real := callback.Backoff{Base: 10 * time.Millisecond, Cap: time.Second}
	for range 200 {
		if d := real.Delay(2); d < 0 || d > 20*time.Millisecond {
			t.Fatalf("Delay(2) = %v, outside [0, 20ms]", d)
		}
	}
}

func TestOutcome(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	b := callback.Backoff{Base: time.Second, Cap: time.Minute, Rand: func(n int64) int64 { return n - 1 }}
	tests := []struct {
		name        string
		made, max   int32
		resp        callback.Response
		attempt     callback.AttemptStatus
		status      callback.DeliveryStatus
		next        time.Duration
		errContains string
	}{
		{"200 delivers", 0, 3, callback.Response{StatusCode: 200}, callback.AttemptSuccess, callback.DeliveryDelivered, 0, ""},
		{"204 delivers", 2, 3, callback.Response{StatusCode: 204}, callback.AttemptSuccess, callback.DeliveryDelivered, 0, ""},
		{"500 with attempts left is retried", 0, 3, callback.Response{StatusCode: 500, Snippet: "down"}, callback.AttemptRetried, callback.DeliveryPending, time.Second, "The receiver answered HTTP 500. Its answer began: down"},
		{"second failure waits longer", 1, 3, callback.Response{StatusCode: 503}, callback.AttemptRetried, callback.DeliveryPending, 2 * time.Second, "The receiver answered HTTP 503."},
		{"last attempt fails the delivery", 2, 3, callback.Response{StatusCode: 500}, callback.AttemptFailed, callback.DeliveryFailed, 0, "HTTP 500"},
		{"one attempt only", 0, 1, callback.Response{StatusCode: 404}, callback.AttemptFailed, callback.DeliveryFailed, 0, "HTTP 404"},
		{"redirect answer is a failure", 0, 3, callback.Response{StatusCode: 302}, callback.AttemptRetried, callback.DeliveryPending, time.Second, "HTTP 302"},
		{"no answer", 0, 3, callback.Response{Err: errors.New("dial tcp 10.0.0.7:443: i/o timeout"), Reason: "The receiver did not answer within 10s."},
			callback.AttemptRetried, callback.DeliveryPending, time.Second, "The receiver did not answer within 10s."},
		{"no answer without a reason never shows the client's text", 0, 3, callback.Response{Err: errors.New("dial tcp: lookup r.example on 10.255.255.53:53: no such host")},
			callback.AttemptRetried, callback.DeliveryPending, time.Second, "The receiver gave no usable answer."},
		{"2xx with a body too large still delivers", 0, 3, callback.Response{StatusCode: 200, Err: errors.New("body too large"), Reason: "The receiver's answer is larger than 64 KiB."}, callback.AttemptSuccess, callback.DeliveryDelivered, 0, ""},
		{"500 with a body too large", 0, 3, callback.Response{StatusCode: 500, Err: errors.New("body too large"), Reason: "The receiver's answer is larger than 64 KiB."},
			callback.AttemptRetried, callback.DeliveryPending, time.Second, "The receiver answered HTTP 500. The receiver's answer is larger than 64 KiB."},
		{"retry past max attempts fails again", 4, 3, callback.Response{StatusCode: 500}, callback.AttemptFailed, callback.DeliveryFailed, 0, "HTTP 500"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := callback.Outcome(callback.Delivery{AttemptsMade: tt.made, MaxAttempts: tt.max}, tt.resp, now, b)
			if r.Attempt != tt.attempt || r.Status != tt.status {
				t.Fatalf("attempt %s, delivery %s; want %s, %s", r.Attempt, r.Status, tt.attempt, tt.status)
			}
			if got := r.NextAttemptAt.Sub(now); got != tt.next {
				t.Errorf("next attempt in %v, want %v", got, tt.next)
			}
			if r.Number() != tt.made+1 {
				t.Errorf("attempt number %d, want %d", r.Number(), tt.made+1)
			}
			if tt.errContains == "" && r.ErrorMessage != "" || !strings.Contains(r.ErrorMessage, tt.errContains) {
				t.Errorf("error message %q, want it to contain %q", r.ErrorMessage, tt.errContains)
			}
			if strings.Contains(r.ErrorMessage, "dial tcp") || strings.Contains(r.ErrorMessage, "too large") {
				t.Errorf("error message %q holds the client's text", r.ErrorMessage)
			}
		})
	}
}

func TestShouldDeliver(t *testing.T) {
	t.Parallel()
	ev := func(finalized bool, prev, status int32) callback.TransactionEvent {
		return callback.TransactionEvent{Finalized: finalized, PreviousStatus: prev, State: callback.TransactionState{Status: status}}
	}
	off := func(e callback.TransactionEvent) callback.TransactionEvent {
		e.MerchantCallbacksOff = true
		return e
	}
	tests := []struct {
		name             string
		ev               callback.TransactionEvent
		first, cancelled bool
		want             bool
	}{
		{"pending to success", ev(true, 3, 4), false, false, true},
		{"pending to PSP error", ev(true, 3, -2), false, false, true},
		{"success overridden to cancelled", ev(true, 4, -1), false, false, true},
		{"status unchanged (operator's callbacks cancel)", ev(true, 4, 4), false, false, false},
		{"status unchanged, first sighting", ev(true, 4, 4), true, false, true},
		{"cancelled callbacks", ev(true, 3, 4), false, true, false},
		{"cancelled callbacks, first sighting", ev(true, 4, 4), true, true, false},
		{"an update is never delivered", ev(false, 1, 3), true, false, false},
		{"finalized at a status that is not final", ev(true, 1, 3), true, false, false},
		{"pending archive is not final", ev(true, 3, 300), true, false, false},
		{"merchant callbacks off on the collab", off(ev(true, 3, 4)), false, false, false},
		{"merchant callbacks off, first sighting", off(ev(true, 4, 4)), true, false, false},
	}
	for _, tt := range tests {
		if got := callback.ShouldDeliver(tt.ev, tt.first, tt.cancelled); got != tt.want {
			t.Errorf("%s: ShouldDeliver = %v, want %v", tt.name, got, tt.want)
		}
	}
	for status, final := range map[int32]bool{4: true, 3: false, 2: false, 1: false, 0: false, -1: true, -2: true, -3: true, -4: true, -5: true, -6: true, -7: false, 300: false} {
		if callback.Final(status) != final {
			t.Errorf("Final(%d) = %v", status, !final)
		}
	}
}

func TestBody(t *testing.T) {
	t.Parallel()
	st := callback.TransactionState{
		ID: 9007199254740993, ReferenceID: "ref-1", MerchantID: 1, CollabID: 2, Nonce: "n-1", Type: 2,
		Amount: "12.34", Currency: "PHP", Status: -2, StatusMessage: "PSP Error", ProviderTransactionID: "p-1",
		MerchantClientID: "client-7", DestinationAmount: "0.21", DestinationCurrency: "USD", ErrorMessage: "declined",
		CreatedAt: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC), UpdatedAt: time.Date(2026, 1, 2, 3, 5, 0, 500_000_000, time.UTC),
	}
	raw, err := callback.NewBody(st.Data(), time.Date(2026, 1, 2, 3, 5, 1, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(raw, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"type": "transaction.finalized", "timestamp": "2026-01-02T03:05:01Z",
		"data": map[string]any{
			"id": "9007199254740993", "transactionReferenceId": "ref-1", "merchantClientId": "client-7", "nonce": "n-1",
			"amount": "12.34", "currency": "PHP", "destinationAmount": "0.21", "destinationCurrency": "USD",
			"transactionType": 2.0, "transactionStatus": -2.0, "transactionStatusMessage": "PSP Error",
			"providerTransactionId": "p-1", "errorMessage": "declined", "createdUtc": "2026-01-02T03:04:05Z",
			"updatedUtc": "2026-01-02T03:05:00.5Z", "collabId": 2.0, "merchantId": 1.0,
		},
	}
	gotJSON, _ := json.Marshal(got)
	wantJSON, _ := json.Marshal(want)
	if string(gotJSON) != string(wantJSON) {
		t.Fatalf("body\n got %s\nwant %s", gotJSON, wantJSON)
	}
}

// acceptAll is a URL checker that accepts every URL it parses.
type acceptAll struct{}

func (acceptAll) CheckURL(_ context.Context, raw string) (*url.URL, error) { return url.Parse(raw) }

func TestCreateValidation(t *testing.T) {
	t.Parallel()
	// Validation runs before any store or gateway call, so none is given.
	svc := callback.NewService(nil, nil, nil, acceptAll{}, nil, time.Now, nil)
	admin := callback.Actor{UserID: 1, Scope: callback.Scope{All: true}}
	i32 := func(v int32) *int32 { return &v }
	str := func(v string) *string { return &v }
	tests := []struct {
		name string
		in   callback.Input
		want []string
	}{
		{"nothing", callback.Input{}, []string{"Collaboration is required.", "Callback URL is required."}},
		{"blank url", callback.Input{CollabID: i32(1), URL: str("  ")}, []string{"Callback URL is required."}},
		{"no collab", callback.Input{URL: str("https://m.example/cb")}, []string{"Collaboration is required."}},
		{"zero attempts", callback.Input{CollabID: i32(1), URL: str("https://m.example/cb"), MaxAttempts: i32(0)}, []string{"Max attempts must be between 1 and 12."}},
		{"13 attempts", callback.Input{CollabID: i32(1), URL: str("https://m.example/cb"), MaxAttempts: i32(13)}, []string{"Max attempts must be between 1 and 12."}},
		{"type 3", callback.Input{CollabID: i32(1), URL: str("https://m.example/cb"), TransactionType: i32(3)}, []string{"Transaction type must be 1 (Cash In) or 2 (Cash Out)"}},
		{"long url", callback.Input{CollabID: i32(1), URL: str("https://m.example/" + strings.Repeat("a", 2048))}, []string{"at most 2048 characters"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			_, err := svc.Create(context.Background(), admin, tt.in)
			if apperr.KindOf(err) != apperr.KindInvalid {
				t.Fatalf("err = %v, want invalid", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(apperr.As(err).PublicMessage(), w) {
					t.Errorf("message %q does not contain %q", apperr.As(err).PublicMessage(), w)
				}
			}
		})
	}
}

func TestScopeIncludes(t *testing.T) {
	t.Parallel()
	if !(callback.Scope{All: true}).Includes(7) {
		t.Error("a global scope excludes a merchant")
	}
	s := callback.Scope{MerchantIDs: []int32{1, 3}}
	if !s.Includes(3) || s.Includes(2) {
		t.Error("a merchant scope is wrong")
	}
	if (callback.Scope{}).Includes(1) {
		t.Error("an empty scope includes a merchant")
	}
}

// TestDocumentedExample pins the worked example of docs/contracts-callbacks.md.
func TestDocumentedExample(t *testing.T) {
	t.Parallel()
	if got := callback.FormatSecret(callback.DemoKey(1)); got != "whsec_cGF5Z2F0ZS1kZW1vLWNhbGxiYWNrLXNlY3JldC0x" {
		t.Fatalf("demo secret of merchant 1 = %s", got)
	}
	st := callback.TransactionState{
		ID: 1042, ReferenceID: "TRX-1042", MerchantClientID: "client-7", Nonce: "order-88", Amount: "12.34", Currency: "PHP",
		DestinationAmount: "12.34", DestinationCurrency: "PHP", Type: 1, Status: 4, StatusMessage: "Success",
		ProviderTransactionID: "gv-556", CreatedAt: time.Date(2025, 12, 31, 23, 59, 10, 0, time.UTC),
		UpdatedAt: time.Date(2025, 12, 31, 23, 59, 58, 0, time.UTC), CollabID: 1, MerchantID: 1,
	}
	body, err := callback.NewBody(st.Data(), time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if len(body) != 493 {
		t.Fatalf("body is %d bytes, the document says 493: %s", len(body), body)
	}
	got := stdwebhooks.Sign(callback.DemoKey(1), "msg_06H0KAACNSV89F77FAHPQZGJ54", 1767225600, body)
	if want := "v1,j+L9Knkkiep6KJWVKTzwn4c9KYU7OlgzXwZQr4Q2xak="; got != want {
		t.Fatalf("signature %s, the document says %s", got, want)
	}
}

func TestWebhookIDFor(t *testing.T) {
	t.Parallel()
	re := regexp.MustCompile(`^msg_[0-9A-HJKMNP-TV-Z]{26}$`)
	at := time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC)
	a := callback.WebhookIDFor("ev-1", 7, at)
	if !re.MatchString(a) {
		t.Fatalf("webhook id %q is not msg_ + 26 Crockford base32 characters", a)
	}
	if b := callback.WebhookIDFor("ev-1", 7, at); b != a {
		t.Fatalf("the same event and URL gave %q, then %q", a, b)
	}
	others := []string{
		callback.WebhookIDFor("ev-2", 7, at),
		callback.WebhookIDFor("ev-1", 8, at),
		callback.WebhookIDFor("ev-17", 0, at), // not a concatenation
	}
	for _, o := range others {
		if o == a {
			t.Fatalf("another event or URL gave the same id %q", a)
		}
	}
	if later := callback.WebhookIDFor("ev-0", 1, at.Add(time.Millisecond)); later <= a {
		t.Fatalf("ids do not sort by time: %q at a later time, %q before", later, a)
	}
}
