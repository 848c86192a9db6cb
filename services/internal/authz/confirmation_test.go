package authz_test

import (
	"context"
	"crypto"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/sensitive"
)

func TestConfirmationTokenRoundTrip(t *testing.T) {
	pub, priv, _ := ed25519.GenerateKey(rand.Reader)
	keys := func(kid string) (crypto.PublicKey, error) {
		if kid != "k1" {
			return nil, errors.New("unknown")
		}
		return pub, nil
	}
	v := authz.NewKeyConfirmationVerifier(keys)
	now := time.Now()
	claims := func() *sensitive.Claims {
		return &sensitive.Claims{
			RegisteredClaims: jwt.RegisteredClaims{Subject: "7", ID: "c-1", IssuedAt: jwt.NewNumericDate(now), ExpiresAt: jwt.NewNumericDate(now.Add(2 * time.Minute))},
			Action:           `{"action":"fee.update"}`, Digest: "ab", Proof: sensitive.ProofWebAuthn,
		}
	}
	tok, err := authz.SignConfirmation(priv, "k1", claims())
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.VerifyConfirmation(context.Background(), tok)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if got.Subject != "7" || got.ID != "c-1" || got.Action != `{"action":"fee.update"}` || got.Proof != sensitive.ProofWebAuthn {
		t.Fatalf("claims = %+v", got)
	}

	expired := claims()
	expired.IssuedAt = jwt.NewNumericDate(now.Add(-10 * time.Minute))
	expired.ExpiresAt = jwt.NewNumericDate(now.Add(-5 * time.Minute))
	tok, _ = authz.SignConfirmation(priv, "k1", expired)
	if _, err := v.VerifyConfirmation(context.Background(), tok); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("expired token: err = %v, want unauthenticated", err)
	}

	// An access token's audience never passes for a confirmation.
	c := claims()
	tok, _ = authz.SignConfirmation(priv, "k1", c)
	_, other, _ := ed25519.GenerateKey(rand.Reader)
	forged, _ := authz.SignConfirmation(other, "k1", claims())
	if _, err := v.VerifyConfirmation(context.Background(), forged); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Fatalf("forged token: err = %v, want unauthenticated", err)
	}
	if _, err := authz.NewKeyVerifier(keys).Verify(context.Background(), tok); err == nil {
		t.Fatal("a confirmation token passed as an access token")
	}
}
