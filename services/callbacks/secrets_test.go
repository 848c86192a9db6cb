package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/aesgcm"
	"github.com/paygate/paygate/services/internal/keyring"
)

// TestEncryptionKeyRotation rotates PAYGATE_ENCRYPTION_KEY as
// docs/operations.md says: signing keys sealed under the single key A; then
// B first with A kept as "default" (they open, and callbacks.secrets-reseal
// moves them to B); then B alone (they still open). A key left under a
// removed key fails with an error naming that key.
func TestEncryptionKeyRotation(t *testing.T) {
	t.Parallel()
	rawA := bytes.Repeat([]byte{0xA3}, aesgcm.KeySize)
	keyA := base64.StdEncoding.EncodeToString(rawA)
	keyB := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xB4}, aesgcm.KeySize))
	admin := user(t, access.RoleAdmin)
	secretPath := func(m int32) string { return "/api/v1/merchants/" + strconv.Itoa(int(m)) + "/callbacks/secret" }
	type secretJSON struct {
		Secret string `json:"secret"`
	}
	read := func(s *service, m int32) string {
		t.Helper()
		var out secretJSON
		must(t, admin, s.HTTPURL, http.StatusOK, http.MethodGet, secretPath(m), nil, &out)
		return out.Secret
	}
	keyIDs := func(s *service) map[string]int {
		t.Helper()
		rows, err := s.pool.Query(context.Background(), `SELECT sealed FROM signing_secrets`)
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		ids := map[string]int{}
		for rows.Next() {
			var sealed []byte
			if err := rows.Scan(&sealed); err != nil {
				t.Fatal(err)
			}
			ids[keyring.KeyID(sealed)]++
		}
		return ids
	}

	// 1. The single key A: the first read makes each merchant's key.
	first := startService(t, map[string]string{"PAYGATE_ENCRYPTION_KEY": keyA})
	merchants := []int32{newMerchant(t), newMerchant(t)}
	want := map[int32]string{}
	for _, m := range merchants {
		want[m] = read(first, m)
	}
	if ids := keyIDs(first); ids[keyring.DefaultKeyID] != len(merchants) || len(ids) != 1 {
		t.Fatalf("key ids under A alone = %v", ids)
	}
	// A callback URL's secret header value is sealed under A too.
	collab := newCollab(t, merchants[0])
	rec := newReceiver(t)
	first.createURL(t, admin, map[string]any{"collabId": collab, "callbackUrl": rec.URL,
		"headers": []map[string]any{{"name": "Authorization", "value": secretToken, "secret": true}}})
	headerKeyIDs := func(s *service) map[string]int {
		t.Helper()
		ids := map[string]int{}
		var sealed []byte
		if err := s.pool.QueryRow(context.Background(), `SELECT sealed FROM callback_url_headers`).Scan(&sealed); err != nil {
			t.Fatal(err)
		}
		ids[keyring.KeyID(sealed)]++
		return ids
	}
	if ids := headerKeyIDs(first); ids[keyring.DefaultKeyID] != 1 {
		t.Fatalf("header key ids under A alone = %v", ids)
	}
	if err := first.Stop(); err != nil {
		t.Fatal(err)
	}

	// 2. B first, A as "default": the keys open, and the reseal job (run at
	// once by the schema's only replica) moves them to B.
	rotated := startServiceIn(t, first.schema, map[string]string{
		"PAYGATE_ENCRYPTION_KEY": keyA, "PAYGATE_ENCRYPTION_KEYS": "b:" + keyB + ",default:" + keyA})
	for _, m := range merchants {
		if got := read(rotated, m); got != want[m] {
			t.Fatalf("merchant %d's secret under b,default = %q, want %q", m, got, want[m])
		}
	}
	deadline := time.Now().Add(20 * time.Second)
	for ids := keyIDs(rotated); ids["b"] != len(merchants); ids = keyIDs(rotated) {
		if time.Now().After(deadline) {
			t.Fatalf("key ids 20s after the rotation = %v, want all b", ids)
		}
		time.Sleep(50 * time.Millisecond)
	}
	for ids := headerKeyIDs(rotated); ids["b"] != 1; ids = headerKeyIDs(rotated) {
		if time.Now().After(deadline) {
			t.Fatalf("header key ids 20s after the rotation = %v, want b", ids)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := rotated.Stop(); err != nil {
		t.Fatal(err)
	}

	// 3. B alone: they still open; one left under A fails clearly.
	m3 := newMerchant(t)
	boxA, _ := aesgcm.New(rawA)
	stale, err := boxA.Seal(bytes.Repeat([]byte{1}, 32), callback.Owner(m3))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rotated.pool.Exec(context.Background(), `INSERT INTO signing_secrets (merchant_id, sealed, created_at) VALUES ($1, $2, now())`, m3, stale); err != nil {
		t.Fatal(err)
	}
	onlyB := startServiceIn(t, first.schema, map[string]string{"PAYGATE_ENCRYPTION_KEYS": "b:" + keyB})
	for _, m := range merchants {
		if got := read(onlyB, m); got != want[m] {
			t.Fatalf("merchant %d's secret under b alone = %q, want %q", m, got, want[m])
		}
	}
	// The resealed header value opens under B alone: a delivery carries it.
	ev := connect(t)
	x := tx{id: newTxID(), merchant: merchants[0], collab: collab, typ: 1, prev: 3, status: 4}
	ev.finalize(t, x)
	waitFor(t, 15*time.Second, "the callback under b alone", func() bool { return len(rec.of(x.id)) == 1 })
	if got := rec.of(x.id)[0].header.Get("Authorization"); got != secretToken {
		t.Fatalf("Authorization under b alone = %q", got)
	}
	if st, body := call(t, admin, onlyB.HTTPURL, http.MethodGet, secretPath(m3), nil); st != http.StatusInternalServerError {
		t.Errorf("a secret under a removed key = %d %s, want 500", st, body)
	}
	msg := `sealed under key \"default\", which is not configured`
	deadline = time.Now().Add(20 * time.Second)
	for !strings.Contains(onlyB.Logs(), "callbacks.secrets-reseal") || !strings.Contains(onlyB.Logs(), msg) {
		if time.Now().After(deadline) {
			t.Fatalf("no log names the missing key within 20s:\n%s", onlyB.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestSigningSecretOfUnknownMerchant reads and rotates the signing secret
// of a merchant the gateway does not have: 404, and no key is written
// (issue 25: both answered 200 and stored a key for it). A merchant the
// gateway has gets its key as before.
func TestSigningSecretOfUnknownMerchant(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	admin := user(t, access.RoleAdmin)
	keys := func() int {
		t.Helper()
		var n int
		if err := svc.pool.QueryRow(context.Background(), `SELECT count(*) FROM signing_secrets`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	unknown := strconv.Itoa(int(suite.merchSeq.Add(1))) // never inserted in the gateway
	for _, c := range []struct{ method, path string }{
		{http.MethodGet, "/api/v1/merchants/" + unknown + "/callbacks/secret"},
		{http.MethodPost, "/api/v1/merchants/" + unknown + "/callbacks/secret/rotate"},
	} {
		var e struct{ Code, Message string }
		must(t, admin, svc.HTTPURL, http.StatusNotFound, c.method, c.path, nil, &e)
		if e.Message != "The merchant was not found." {
			t.Errorf("%s %s: message %q", c.method, c.path, e.Message)
		}
	}
	if n := keys(); n != 0 {
		t.Fatalf("%d signing keys written for a merchant that does not exist", n)
	}
	known := strconv.Itoa(int(newMerchant(t)))
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodGet, "/api/v1/merchants/"+known+"/callbacks/secret", nil, nil)
	must(t, admin, svc.HTTPURL, http.StatusOK, http.MethodPost, "/api/v1/merchants/"+known+"/callbacks/secret/rotate", nil, nil)
	if n := keys(); n != 1 {
		t.Errorf("%d signing keys after the known merchant's read and rotation, want 1", n)
	}
}

// TestNegativeIdsAreRefused: a negative id in a path is a 400 naming it
// (issue 25: the lists answered 200 with nothing), before any handler.
func TestNegativeIdsAreRefused(t *testing.T) {
	t.Parallel()
	svc := startService(t)
	admin := user(t, access.RoleAdmin)
	for _, c := range []struct{ method, path, field string }{
		{http.MethodGet, "/api/v1/merchants/-1/callbacks", "merchantId"},
		{http.MethodGet, "/api/v1/collabs/-1/callbacks", "collabId"},
		{http.MethodGet, "/api/v1/transactions/-1/callbacks/attempts", "id"},
		{http.MethodGet, "/api/v1/merchants/-1/callbacks/secret", "merchantId"},
		{http.MethodPost, "/api/v1/merchants/-1/callbacks/secret/rotate", "merchantId"},
		{http.MethodPost, "/api/v1/callbacks/attempts/-1/retry", "id"},
		{http.MethodPost, "/api/v1/transactions/-1/callbacks/enqueue", "id"},
		{http.MethodDelete, "/api/v1/callbacks/-1", "id"},
	} {
		var e struct{ Code, Message string }
		must(t, admin, svc.HTTPURL, http.StatusBadRequest, c.method, c.path, nil, &e)
		if want := c.field + " must not be negative."; e.Message != want {
			t.Errorf("%s %s: %q, want %q", c.method, c.path, e.Message, want)
		}
	}
}
