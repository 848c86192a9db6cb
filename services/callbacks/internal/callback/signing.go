package callback

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"
)

// SecretPrefix starts every signing secret: "whsec_" + base64 of the key.
const SecretPrefix = "whsec_"

// SecretSize is the length of a generated signing key in bytes.
const SecretSize = 32

// FormatSecret returns the secret string of key: "whsec_" + base64 std.
func FormatSecret(key []byte) string {
	return SecretPrefix + base64.StdEncoding.EncodeToString(key)
}

// ParseSecret returns the key of a "whsec_<base64>" secret.
func ParseSecret(secret string) ([]byte, error) {
	b64, ok := strings.CutPrefix(secret, SecretPrefix)
	if !ok {
		return nil, errors.New("signing secret does not start with " + SecretPrefix)
	}
	key, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return nil, fmt.Errorf("signing secret: %w", err)
	}
	return key, nil
}

// DemoKey is merchant id's signing key in demo mode: the bytes of
// "paygate-demo-callback-secret-<id>", so its secret is
// "whsec_" + base64 of that string. It is public: demo mode only.
func DemoKey(merchantID int32) []byte {
	return []byte("paygate-demo-callback-secret-" + strconv.FormatInt(int64(merchantID), 10))
}

// RandomKey returns a fresh random signing key.
func RandomKey() ([]byte, error) {
	k := make([]byte, SecretSize)
	if _, err := rand.Read(k); err != nil {
		return nil, fmt.Errorf("random signing key: %w", err)
	}
	return k, nil
}

// crockford is the Crockford base32 alphabet (no I, L, O, U).
var crockford = base32.NewEncoding("0123456789ABCDEFGHJKMNPQRSTVWXYZ").WithPadding(base32.NoPadding)

// NewWebhookID returns a fresh delivery id: "msg_" followed by the 26
// Crockford base32 characters of a UUIDv7, so ids sort by creation time.
func NewWebhookID() (string, error) {
	u, err := uuid.NewV7()
	if err != nil {
		return "", fmt.Errorf("webhook id: %w", err)
	}
	return "msg_" + crockford.EncodeToString(u[:]), nil
}

// WebhookIDFor returns the webhook id of the delivery of event eventID to
// callback URL urlID: a UUIDv7 whose time is at (the transaction state's
// time) and whose other bits come from a hash of the two, so that an event
// delivered again after a crash is sent under the same id as before.
func WebhookIDFor(eventID string, urlID int64, at time.Time) string {
	h := sha256.New()
	h.Write([]byte(eventID))
	h.Write([]byte{0})
	h.Write(strconv.AppendInt(nil, urlID, 10))
	sum := h.Sum(nil)
	var u uuid.UUID
	ms := uint64(max(at.UnixMilli(), 0))
	for i := range 6 {
		u[i] = byte(ms >> (40 - 8*i))
	}
	copy(u[6:], sum[:10])
	u[6] = 0x70 | u[6]&0x0f // version 7
	u[8] = 0x80 | u[8]&0x3f // RFC 4122 variant
	return "msg_" + crockford.EncodeToString(u[:])
}
