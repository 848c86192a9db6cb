// Package stdwebhooks signs and verifies HTTP requests the Standard Webhooks
// way: headers webhook-id, webhook-timestamp (Unix seconds) and
// webhook-signature, "v1," and the base64 (standard alphabet) of
// HMAC-SHA256(key, "<id>.<timestamp>.<body>"). The header may list several
// space-separated signatures; one match is enough.
package stdwebhooks

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"strconv"
	"strings"
)

// The headers.
const (
	HeaderID        = "webhook-id"
	HeaderTimestamp = "webhook-timestamp"
	HeaderSignature = "webhook-signature"
)

// Sign returns the webhook-signature value of a message.
func Sign(key []byte, id string, timestamp int64, body []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(id))
	mac.Write([]byte{'.'})
	mac.Write(strconv.AppendInt(nil, timestamp, 10))
	mac.Write([]byte{'.'})
	mac.Write(body)
	return "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
}

// Verify reports whether header (a webhook-signature value) holds a valid
// v1 signature of the message under key, comparing in constant time.
func Verify(key []byte, id string, timestamp int64, body []byte, header string) bool {
	want := []byte(Sign(key, id, timestamp, body))
	ok := false
	for sig := range strings.FieldsSeq(header) {
		if hmac.Equal([]byte(sig), want) {
			ok = true
		}
	}
	return ok
}
