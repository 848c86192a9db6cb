package authz

import (
	"net/http"
	"time"
)

// NewJWKSVerifierWithClock is NewJWKSVerifier with an injected clock.
func NewJWKSVerifierWithClock(url string, client *http.Client, now func() time.Time) Verifier {
	return newJWKSVerifier(url, client, now)
}
