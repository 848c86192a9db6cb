package identity

import (
	"context"
	"io"
	"log/slog"
	"sync/atomic"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

func genKey(t *testing.T) SigningKey {
	t.Helper()
	k, err := GenerateSigningKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestKeySetRotation walks the rotation of docs/operations.md through one
// replica's key set: a key added ahead is published but does not sign; once
// it signs, tokens of the old key still verify; once the old key is
// retired, they are refused.
func TestKeySetRotation(t *testing.T) {
	t.Parallel()
	old, next := genKey(t), genKey(t)
	ks, err := NewKeySet([]SigningKey{old})
	if err != nil {
		t.Fatal(err)
	}
	verifier := authz.NewKeyVerifier(ks.PublicKey)
	now := time.Now()
	u := User{ID: 7, Username: "admin"}
	ctx := context.Background()

	byOld, err := ks.sign(u, "sid-1", now, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	// 1. Added: published, the old key still signs.
	if err := ks.Replace([]SigningKey{old, next}); err != nil {
		t.Fatal(err)
	}
	if ks.Current() != old.ID || ks.PublicKeys()[next.ID] == nil {
		t.Fatalf("after add: signing %s, published %v", ks.Current(), ks.PublicKeys())
	}
	// 2. Activated: the new key signs, the old one still verifies.
	if err := ks.Replace([]SigningKey{next, old}); err != nil {
		t.Fatal(err)
	}
	byNext, err := ks.sign(u, "sid-1", now, 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"old key": byOld, "new key": byNext} {
		if _, err := verifier.Verify(ctx, tok); err != nil {
			t.Errorf("token of the %s during the overlap: %v", name, err)
		}
	}
	// 3. Retired: the old key's token is refused, the new one's is not.
	if err := ks.Replace([]SigningKey{next}); err != nil {
		t.Fatal(err)
	}
	if _, err := verifier.Verify(ctx, byOld); err == nil {
		t.Error("a token of a retired key verified")
	}
	if _, err := verifier.Verify(ctx, byNext); err != nil {
		t.Errorf("token of the new key after the retirement: %v", err)
	}
	// A bad load leaves the keys in use.
	if err := ks.Replace(nil); err == nil || ks.Current() != next.ID {
		t.Fatalf("Replace(nil) = %v, signing %s", err, ks.Current())
	}
}

func TestKeepLoadedFollowsTheStore(t *testing.T) {
	t.Parallel()
	a, b := genKey(t), genKey(t)
	ks, err := NewKeySet([]SigningKey{a})
	if err != nil {
		t.Fatal(err)
	}
	var stored atomic.Pointer[[]SigningKey]
	stored.Store(&[]SigningKey{b, a})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- ks.KeepLoaded(ctx, func(context.Context) ([]SigningKey, error) { return *stored.Load(), nil },
			time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	deadline := time.Now().Add(5 * time.Second)
	for ks.Current() != b.ID {
		if time.Now().After(deadline) {
			t.Fatal("the key set did not reload within 5s")
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
}

// The access tokens this release signs carry its token version: the other
// services read from it what this auth promises (access.TokenVersion).
func TestSignedTokenCarriesTheVersion(t *testing.T) {
	t.Parallel()
	ks, err := NewKeySet([]SigningKey{genKey(t)})
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ks.sign(User{ID: 7, Username: "admin"}, "sid-1", time.Now(), 5*time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := authz.NewKeyVerifier(ks.PublicKey).Verify(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	if claims.Version != access.TokenVersion {
		t.Errorf("ver = %d, want %d (access.TokenVersion)", claims.Version, access.TokenVersion)
	}
}
