package authz

import (
	"crypto"
	"net/http"
	"time"
)

// NewJWKSVerifierWithClock is NewJWKSVerifier with an injected clock.
func NewJWKSVerifierWithClock(url string, client *http.Client, now func() time.Time) Verifier {
	return newJWKSVerifier(url, client, now)
}

// NewKeyVerifierWithClock is NewKeyVerifier with an injected clock for the
// tokens' times (expiry, issued at) and the cache of verified tokens.
func NewKeyVerifierWithClock(keys func(kid string) (crypto.PublicKey, error), now func() time.Time) Verifier {
	return newKeyVerifierWithClock(localKeys(keys), now)
}

// FullVerifications is how many tokens v parsed and checked the signature of
// (the calls its cache of verified tokens did not answer).
func FullVerifications(v Verifier) int64 {
	switch v := v.(type) {
	case *keyVerifier:
		return v.parses.Load()
	case *jwksVerifier:
		return v.parses.Load()
	}
	panic("not a key or JWKS verifier")
}
