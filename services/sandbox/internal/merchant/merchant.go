// Package merchant is the sandbox's demo merchant: the validation answers it
// gives and the callbacks it receives. It checks each callback's Standard
// Webhooks signature with the demo secret of the merchant the callback names
// and keeps the last callbacks in memory, so that demos and end-to-end tests
// can see what a merchant was sent.
package merchant

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// SecretPrefix starts a Standard Webhooks secret.
const SecretPrefix = "whsec_"

// DemoSecret is the callback signing secret of demo merchant id (demo mode
// only): "whsec_" and the base64 of "paygate-demo-callback-secret-<id>".
func DemoSecret(merchantID int64) string {
	return SecretPrefix + base64.StdEncoding.EncodeToString([]byte("paygate-demo-callback-secret-"+strconv.FormatInt(merchantID, 10)))
}

// Tolerance is how far a callback's timestamp may be from now.
const Tolerance = 5 * time.Minute

// Errors of Verify; every one means the callback is refused.
var (
	ErrMissingHeaders = errors.New("webhook-id, webhook-timestamp and webhook-signature are required")
	ErrTimestamp      = errors.New("webhook-timestamp is not a recent unix time")
	ErrSignature      = errors.New("no webhook-signature matches")
	ErrSecret         = errors.New("the secret is not whsec_ and base64")
)

// Sign returns the webhook-signature header value of a message: "v1," and
// the base64 of HMAC-SHA256(key, "<id>.<timestamp>.<body>"), key being the
// secret's base64 part decoded.
func Sign(secret, id string, timestamp int64, body []byte) (string, error) {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, SecretPrefix))
	if err != nil || !strings.HasPrefix(secret, SecretPrefix) {
		return "", ErrSecret
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%d.", id, timestamp)
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)), nil
}

// Verify checks a callback's Standard Webhooks headers against secret: the
// timestamp must be within Tolerance of now, and one of the space-separated
// signatures ("v1,<base64>") must be the message's.
func Verify(secret, id, timestamp, signatures string, body []byte, now time.Time) error {
	if id == "" || timestamp == "" || signatures == "" {
		return ErrMissingHeaders
	}
	ts, err := strconv.ParseInt(timestamp, 10, 64)
	if err != nil {
		return ErrTimestamp
	}
	if d := now.Sub(time.Unix(ts, 0)); d > Tolerance || d < -Tolerance {
		return ErrTimestamp
	}
	want, err := Sign(secret, id, ts, body)
	if err != nil {
		return err
	}
	for _, sig := range strings.Fields(signatures) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return ErrSignature
}

// Callback is one callback as the demo merchant received it.
type Callback struct {
	// WebhookID, Timestamp are the webhook-id and webhook-timestamp headers.
	WebhookID string `json:"webhookId"`
	Timestamp int64  `json:"timestamp"`
	// ReceivedAt is when it arrived.
	ReceivedAt time.Time `json:"receivedAt"`
	// Path is where it was posted.
	Path string `json:"path"`
	// Answered is the HTTP status the merchant answered.
	Answered int `json:"answered"`
	// SignatureValid is true when the signature was verified.
	SignatureValid bool `json:"signatureValid"`
	// Error says why it was refused, when it was.
	Error string `json:"error,omitempty"`
	// Type, TransactionID, MerchantID and TransactionStatus are read from
	// the body.
	Type              string `json:"type"`
	TransactionID     string `json:"transactionId"`
	MerchantID        int64  `json:"merchantId"`
	TransactionStatus int    `json:"transactionStatus"`
	// Body is the JSON body as received (nil when it is not JSON).
	Body json.RawMessage `json:"body"`
	// Headers are the request's X-* headers (a callback URL's custom
	// headers, issue 30), by canonical name.
	Headers map[string]string `json:"headers,omitempty"`
}

// Recorder keeps the last callbacks received, at most its capacity.
type Recorder struct {
	mu   sync.Mutex
	max  int
	next int
	ring []Callback
}

// DefaultCapacity is how many callbacks a demo merchant remembers.
const DefaultCapacity = 10_000

// NewRecorder returns a recorder of at most capacity callbacks
// (DefaultCapacity when not positive).
func NewRecorder(capacity int) *Recorder {
	if capacity <= 0 {
		capacity = DefaultCapacity
	}
	return &Recorder{max: capacity}
}

// Add records a callback, forgetting the oldest when full.
func (r *Recorder) Add(c Callback) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.ring) < r.max {
		r.ring = append(r.ring, c)
		return
	}
	r.ring[r.next] = c
	r.next = (r.next + 1) % r.max
}

// Find returns the recorded callbacks, oldest first, of a transaction and
// a webhook id (each ignored when empty).
func (r *Recorder) Find(transactionID, webhookID string) []Callback {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []Callback{}
	for i := range r.ring {
		c := r.ring[(r.next+i)%len(r.ring)]
		if (transactionID == "" || c.TransactionID == transactionID) && (webhookID == "" || c.WebhookID == webhookID) {
			out = append(out, c)
		}
	}
	return out
}
