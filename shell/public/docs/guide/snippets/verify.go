// Verify a Paygate callback (Standard Webhooks signature) in Go.
//
// Usage in a handler: read the raw body first, then
//
//	if err := Verify(secret, r.Header, body, time.Now()); err != nil { http.Error(w, "bad signature", 400); return }
//
// As a program (how Paygate's tests run it): the secret in
// PAYGATE_WEBHOOK_SECRET, the three webhook-* headers in WEBHOOK_ID,
// WEBHOOK_TIMESTAMP and WEBHOOK_SIGNATURE, the raw body on stdin; it prints
// "valid" or "invalid: <why>".
package main

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

// Tolerance is how far webhook-timestamp may be from our clock (replays).
const Tolerance = 5 * time.Minute

// Verify checks the webhook-signature of a callback against secret
// ("whsec_" + base64 of the key).
func Verify(secret string, h http.Header, body []byte, now time.Time) error {
	key, err := base64.StdEncoding.DecodeString(strings.TrimPrefix(secret, "whsec_"))
	if err != nil {
		return errors.New("the secret is not whsec_ followed by base64")
	}
	id, ts := h.Get("webhook-id"), h.Get("webhook-timestamp")
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil {
		return errors.New("webhook-timestamp is not a number")
	}
	if d := now.Sub(time.Unix(sec, 0)); d > Tolerance || d < -Tolerance {
		return errors.New("webhook-timestamp is too far from now")
	}
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%s.%s.", id, ts)
	mac.Write(body)
	want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil))
	// The header may carry several signatures (during a secret rotation).
	for _, sig := range strings.Fields(h.Get("webhook-signature")) {
		if hmac.Equal([]byte(sig), []byte(want)) {
			return nil
		}
	}
	return errors.New("no signature matches")
}

func main() {
	body, err := io.ReadAll(os.Stdin)
	if err != nil {
		fmt.Println("invalid: cannot read the body")
		os.Exit(1)
	}
	h := http.Header{}
	h.Set("webhook-id", os.Getenv("WEBHOOK_ID"))
	h.Set("webhook-timestamp", os.Getenv("WEBHOOK_TIMESTAMP"))
	h.Set("webhook-signature", os.Getenv("WEBHOOK_SIGNATURE"))
	if err := Verify(os.Getenv("PAYGATE_WEBHOOK_SECRET"), h, body, time.Now()); err != nil {
		fmt.Println("invalid:", err)
		os.Exit(1)
	}
	fmt.Println("valid")
}
