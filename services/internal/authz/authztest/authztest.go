// Package authztest mints access tokens for tests and serves their public key
// as a JWK set, as the auth service does.
package authztest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// Issuer signs tokens with one Ed25519 key.
type Issuer struct {
	// Kid is the key id put in token headers and in the JWK set.
	Kid string
	// Key is the private signing key.
	Key ed25519.PrivateKey
}

// NewIssuer returns an issuer with a fresh key and a random kid.
func NewIssuer(t testing.TB) *Issuer {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatalf("authztest: generate key: %v", err)
	}
	kid := make([]byte, 6)
	if _, err := rand.Read(kid); err != nil {
		t.Fatalf("authztest: kid: %v", err)
	}
	return &Issuer{Kid: hex.EncodeToString(kid), Key: priv}
}

// Public returns the issuer's public key.
func (i *Issuer) Public() ed25519.PublicKey { return i.Key.Public().(ed25519.PublicKey) }

// User describes the caller a token is minted for.
type User struct {
	ID          int64
	Username    string
	Roles       []string
	Permissions []string
	MerchantIDs []int32
	SessionID   string
	// TemporaryPassword marks the user as still holding a temporary password.
	TemporaryPassword bool
	// IPRestricted marks the user as held to its allowed IP ranges.
	IPRestricted bool
	// Global is the scope flag (sees every merchant). A user given an
	// admin-wide built-in role (Admin, Support) by name gets it too, so that
	// tests of the built-in roles need not repeat it.
	Global bool
	// Confirm lists the sensitive actions the user must confirm (the cfm claim).
	Confirm []string
}

// Claims returns valid claims for u: our issuer and audience, issued now,
// expiring in five minutes, with a random session id unless u sets one.
func Claims(u User) *access.Claims {
	now := time.Now()
	sid := u.SessionID
	if sid == "" {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		sid = hex.EncodeToString(b)
	}
	return &access.Claims{
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer:    access.Issuer,
			Audience:  jwt.ClaimStrings{access.Audience},
			Subject:   strconv.FormatInt(u.ID, 10),
			IssuedAt:  jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(5 * time.Minute)),
			ID:        sid + "-token",
		},
		Username:    u.Username,
		Roles:       u.Roles,
		Permissions: u.Permissions,
		Global:      u.Global || access.BuiltInGlobal(u.Roles),
		MerchantIDs: u.MerchantIDs,
		SessionID:   sid,

		IsTemporaryPassword: u.TemporaryPassword,
		IPRestricted:        u.IPRestricted,
		Version:             access.TokenVersion,
		Confirm:             u.Confirm,
	}
}

// Sign signs claims.
func (i *Issuer) Sign(t testing.TB, claims *access.Claims) string {
	t.Helper()
	s, err := authz.Sign(i.Key, i.Kid, claims)
	if err != nil {
		t.Fatalf("authztest: %v", err)
	}
	return s
}

// Token mints a valid token for u.
func (i *Issuer) Token(t testing.TB, u User) string {
	t.Helper()
	return i.Sign(t, Claims(u))
}

// Confirmation signs a confirmation token, as auth does, for user userID to
// apply the described action canonical (the 428's action, with the reason
// set) once under the id jti, valid for ttl (negative: already expired). It
// carries one TOTP proof.
func (i *Issuer) Confirmation(t testing.TB, userID int64, canonical []byte, jti string, ttl time.Duration) string {
	t.Helper()
	now := time.Now()
	sub := strconv.FormatInt(userID, 10)
	issued := now.Add(-time.Second)
	if ttl < 0 {
		issued = now.Add(2 * ttl)
	}
	s, err := authz.SignConfirmation(i.Key, i.Kid, &sensitive.Claims{
		RegisteredClaims: jwt.RegisteredClaims{Subject: sub, ID: jti,
			IssuedAt: jwt.NewNumericDate(issued), ExpiresAt: jwt.NewNumericDate(now.Add(ttl))},
		Action: string(canonical), Digest: sensitive.Digest(canonical), Proof: sensitive.ProofTOTP,
		Proofs: []sensitive.Proof{{Kind: sensitive.ProofTOTP, Role: sensitive.RoleActor, UserID: userID,
			ConfirmationID: jti, Action: string(canonical), Digest: sensitive.Digest(canonical), Step: now.Unix() / 30, MAC: "dGVzdA"}},
	})
	if err != nil {
		t.Fatalf("authztest: %v", err)
	}
	return s
}

// JWKS serves the public keys of issuers as a JWK set and counts fetches.
type JWKS struct {
	// Server is the running test server; its URL is the JWKS URL.
	*httptest.Server

	mu      sync.Mutex
	issuers []*Issuer
	fetches int
}

// ServeJWKS starts a JWK set server for issuers, closed when the test ends.
func ServeJWKS(t testing.TB, issuers ...*Issuer) *JWKS {
	t.Helper()
	j := &JWKS{issuers: issuers}
	j.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		j.mu.Lock()
		keys := map[string]ed25519.PublicKey{}
		for _, is := range j.issuers {
			keys[is.Kid] = is.Public()
		}
		j.fetches++
		j.mu.Unlock()
		body, err := authz.MarshalJWKS(keys)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(body)
	}))
	t.Cleanup(j.Server.Close)
	return j
}

// SetIssuers replaces the served keys (a key rotation).
func (j *JWKS) SetIssuers(issuers ...*Issuer) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.issuers = issuers
}

// Fetches returns how many times the set was fetched.
func (j *JWKS) Fetches() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.fetches
}

// MarkRevocationsFilled writes authz.RevocationsFilledKey into the Redis at
// redisURL, as the auth service's refill does. Tests and benchmarks that run
// services without the auth service need it: their revocation checks would
// otherwise take the Redis for one that lost its data, wait for a refill
// that never comes, and refuse every token.
func MarkRevocationsFilled(ctx context.Context, redisURL string) error {
	opts, err := redis.ParseURL(redisURL)
	if err != nil {
		return fmt.Errorf("authztest: %w", err)
	}
	rdb := redis.NewClient(opts)
	defer rdb.Close()
	if err := rdb.Set(ctx, authz.RevocationsFilledKey, "test", 0).Err(); err != nil {
		return fmt.Errorf("authztest: mark the revocations filled: %w", err)
	}
	return nil
}
