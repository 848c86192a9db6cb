package postgres_test

import (
	"bytes"
	"context"
	"testing"
	"time"

	"github.com/paygate/paygate/services/auth/internal/passkey"
	"github.com/paygate/paygate/services/auth/internal/postgres"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
)

func TestPasskeyStore(t *testing.T) {
	t.Parallel()
	pool, _ := pgtest.Schema(t, postgres.Migrations())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	store := postgres.NewPasskeys(pool)
	newUser := func(name string) int64 {
		var id int64
		if err := pool.QueryRow(ctx, `INSERT INTO users (username, password_hash) VALUES ($1, 'x') RETURNING id`, name).Scan(&id); err != nil {
			t.Fatal(err)
		}
		return id
	}
	alice, bob := newUser("alice"), newUser("bob")

	// The first handle stored stays the user's handle.
	first := bytes.Repeat([]byte{1}, 32)
	h, err := store.UserHandle(ctx, alice, first)
	if err != nil || !bytes.Equal(h, first) {
		t.Fatalf("first handle %x, %v", h, err)
	}
	if h, err := store.UserHandle(ctx, alice, bytes.Repeat([]byte{2}, 32)); err != nil || !bytes.Equal(h, first) {
		t.Fatalf("handle replaced: %x, %v", h, err)
	}
	if id, err := store.UserIDByHandle(ctx, first); err != nil || id != alice {
		t.Fatalf("user by handle: %d, %v", id, err)
	}
	if _, err := store.UserHandle(ctx, bob, first); err == nil {
		t.Fatal("two users share a handle")
	}

	// Challenges: single use, per kind and (registration) per user.
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	save := func(c passkey.Challenge) {
		t.Helper()
		if err := store.SaveChallenge(ctx, c, now); err != nil {
			t.Fatal(err)
		}
	}
	save(passkey.Challenge{Challenge: "reg", Kind: passkey.KindRegister, UserID: alice, SessionData: []byte(`{"a":1}`),
		DisplayName: "Laptop", ExpiresAt: now.Add(passkey.ChallengeTTL)})
	if _, err := store.ConsumeChallenge(ctx, "reg", passkey.KindRegister, bob); apperr.KindOf(err) != apperr.KindNotFound {
		t.Fatalf("bob consumed alice's challenge: %v", err)
	}
	if _, err := store.ConsumeChallenge(ctx, "reg", passkey.KindLogin, 0); apperr.KindOf(err) != apperr.KindNotFound {
		t.Fatalf("a registration challenge served a sign-in: %v", err)
	}
	c, err := store.ConsumeChallenge(ctx, "reg", passkey.KindRegister, alice)
	if err != nil || c.UserID != alice || c.DisplayName != "Laptop" || !c.ExpiresAt.Equal(now.Add(passkey.ChallengeTTL)) {
		t.Fatalf("consume: %+v, %v", c, err)
	}
	if _, err := store.ConsumeChallenge(ctx, "reg", passkey.KindRegister, alice); apperr.KindOf(err) != apperr.KindNotFound {
		t.Fatalf("consumed twice: %v", err)
	}
	save(passkey.Challenge{Challenge: "old", Kind: passkey.KindLogin, SessionData: []byte(`{}`), ExpiresAt: now.Add(-time.Second)})
	save(passkey.Challenge{Challenge: "new", Kind: passkey.KindLogin, SessionData: []byte(`{}`), ExpiresAt: now.Add(time.Minute)})
	if _, err := store.ConsumeChallenge(ctx, "old", passkey.KindLogin, 0); apperr.KindOf(err) != apperr.KindNotFound {
		t.Fatalf("an expired challenge was not purged: %v", err)
	}

	// Credentials: unique credential ids, oldest first, counter only forward.
	var c1, c2 passkey.Credential
	err = store.Tx(ctx, func(tx passkey.Tx) error {
		var err error
		if c1, err = tx.InsertCredential(ctx, passkey.Credential{UserID: alice, CredentialID: []byte("cred-1"), PublicKey: []byte("pk"),
			Description: "One", Transports: []string{"internal"}, Flags: passkey.Flags{BackupEligible: true}}); err != nil {
			return err
		}
		c2, err = tx.InsertCredential(ctx, passkey.Credential{UserID: alice, CredentialID: []byte("cred-2"), PublicKey: []byte("pk"),
			Description: "Two", SignCount: 7})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	err = store.Tx(ctx, func(tx passkey.Tx) error {
		_, err := tx.InsertCredential(ctx, passkey.Credential{UserID: bob, CredentialID: []byte("cred-1"), PublicKey: []byte("pk"), Description: "Dup"})
		return err
	})
	if apperr.KindOf(err) != apperr.KindConflict {
		t.Fatalf("duplicate credential id: %v", err)
	}
	list, err := store.Credentials(ctx, alice)
	if err != nil || len(list) != 2 || list[0].ID != c1.ID || list[1].ID != c2.ID || !list[0].Flags.BackupEligible ||
		list[0].Transports[0] != "internal" || list[1].SignCount != 7 || list[0].LastUsedAt != nil {
		t.Fatalf("list %+v, %v", list, err)
	}
	got, err := store.CredentialByCredentialID(ctx, []byte("cred-2"))
	if err != nil || got.ID != c2.ID || got.UserID != alice {
		t.Fatalf("by credential id: %+v, %v", got, err)
	}
	for _, tc := range []struct {
		id    int64
		count uint32
		ok    bool
	}{
		{c1.ID, 0, true},          // 0 → 0: an authenticator without a counter
		{c1.ID, 0, true},          // … again
		{c2.ID, 7, false},         // 7 → 7: no progress
		{c2.ID, 6, false},         // 7 → 6: backwards
		{c2.ID, 8, true},          // 7 → 8
		{c2.ID, 4294967295, true}, // the largest counter fits
	} {
		ok, err := store.RecordUse(ctx, tc.id, tc.count, passkey.Flags{UserPresent: true}, now)
		if err != nil || ok != tc.ok {
			t.Fatalf("record use of %d with %d: %v, %v; want %v", tc.id, tc.count, ok, err, tc.ok)
		}
	}
	if got, _ := store.CredentialByCredentialID(ctx, []byte("cred-2")); got.SignCount != 4294967295 || got.LastUsedAt == nil {
		t.Fatalf("after use: %+v", got)
	}

	// Deletion is per owner.
	err = store.Tx(ctx, func(tx passkey.Tx) error { _, err := tx.DeleteCredential(ctx, bob, c1.ID); return err })
	if apperr.KindOf(err) != apperr.KindNotFound {
		t.Fatalf("bob deleted alice's passkey: %v", err)
	}
	err = store.Tx(ctx, func(tx passkey.Tx) error {
		d, err := tx.DeleteCredential(ctx, alice, c1.ID)
		if err == nil && d.Description != "One" {
			t.Errorf("deleted %+v", d)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}

	// A user's passkeys, handle and challenges die with the user.
	save(passkey.Challenge{Challenge: "reg2", Kind: passkey.KindRegister, UserID: alice, SessionData: []byte(`{}`), ExpiresAt: now.Add(time.Minute)})
	if _, err := pool.Exec(ctx, `DELETE FROM users WHERE id = $1`, alice); err != nil {
		t.Fatal(err)
	}
	var left int
	if err := pool.QueryRow(ctx, `SELECT (SELECT count(*) FROM webauthn_credentials) + (SELECT count(*) FROM webauthn_user_handles)
		+ (SELECT count(*) FROM webauthn_challenges WHERE user_id IS NOT NULL)`).Scan(&left); err != nil {
		t.Fatal(err)
	}
	if left != 0 {
		t.Fatalf("%d passkey rows outlived their user", left)
	}
}
