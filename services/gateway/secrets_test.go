package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/aesgcm"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/keyring"
)

// signedStatus sends a merchant-signed initialize call with an empty
// payment to the gateway at baseURL and returns the status: 401 when the
// signature does not check out, another when the merchant's secret opened
// and matched.
func signedStatus(t *testing.T, g *testGateway, baseURL, hash string, secret []byte) int {
	t.Helper()
	body := []byte(`{}`)
	ts := time.Now().Unix()
	req, _ := http.NewRequest(http.MethodPost, baseURL+"/api/v1/transactions/initialize", bytes.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set(httpapi.HeaderMerchant, hash)
	req.Header.Set(httpapi.HeaderTimestamp, strconv.FormatInt(ts, 10))
	req.Header.Set(httpapi.HeaderSignature, httpapi.Sign(secret, ts, body))
	resp, err := g.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

// storedSecrets reads every value sealed with the encryption keyring.
func storedSecrets(t *testing.T, g *testGateway) []postgres.SealedSecret {
	t.Helper()
	s, err := postgres.NewPayments(g.pool).SealedSecrets(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(s) == 0 {
		t.Fatal("no sealed secrets")
	}
	return s
}

// TestEncryptionKeyRotation rotates PAYGATE_ENCRYPTION_KEY as
// docs/operations.md says: a deployment with the single key A; then B first
// with A kept as "default" (everything opens, the reseal job moves every
// value to B); then B alone (everything still opens). A value left under a
// key the gateway no longer has fails with an error naming the key.
func TestEncryptionKeyRotation(t *testing.T) {
	t.Parallel()
	rawA := bytes.Repeat([]byte{0xA1}, aesgcm.KeySize)
	keyA := base64.StdEncoding.EncodeToString(rawA)
	keyB := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xB2}, aesgcm.KeySize))

	// 1. The single key A, as deployments have it today.
	g := newTestGateway(t, map[string]string{"PAYGATE_ENCRYPTION_KEY": keyA})
	m := g.newMerchant(t)
	hash, secret := "test-"+strconv.Itoa(int(m)), []byte("api-secret-of-"+strconv.Itoa(int(m)))
	boxA, _ := aesgcm.New(rawA)
	sealed, err := boxA.Seal(secret, payment.MerchantSecretOwner(m))
	if err != nil {
		t.Fatal(err)
	}
	g.exec(t, `INSERT INTO merchant_api_secrets (merchant_id, secret_sealed) VALUES ($1, $2)`, m, sealed)
	if st := signedStatus(t, g, g.HTTPURL, hash, secret); st == http.StatusUnauthorized {
		t.Fatalf("signed call under key A = %d", st)
	}
	if st := signedStatus(t, g, g.HTTPURL, hash, []byte("wrong")); st != http.StatusUnauthorized {
		t.Fatalf("signed call with a wrong secret = %d, want 401", st)
	}
	for _, s := range storedSecrets(t, g) {
		if id := keyring.KeyID(s.Sealed); id != keyring.DefaultKeyID {
			t.Fatalf("%s is under key %q before the rotation, want default", s.Name, id)
		}
	}
	jwks := authztest.ServeJWKS(t, g.issuer)
	if err := g.Stop(); err != nil {
		t.Fatal(err)
	}

	// 2. B first, A kept under its id "default": the values open, and the
	// reseal job (run at once by the one gateway of the schema) moves them to B.
	rotated := startGatewayIn(t, g.schema, jwks.URL, map[string]string{
		"PAYGATE_ENCRYPTION_KEY": keyA, "PAYGATE_ENCRYPTION_KEYS": "b:" + keyB + ",default:" + keyA})
	if st := signedStatus(t, g, rotated.HTTPURL, hash, secret); st == http.StatusUnauthorized {
		t.Fatalf("signed call under keys b,default = %d", st)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		left := 0
		for _, s := range storedSecrets(t, g) {
			if keyring.KeyID(s.Sealed) != "b" {
				left++
			}
		}
		if left == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d secrets still not under key b after the reseal job had 20s", left)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if err := rotated.Stop(); err != nil {
		t.Fatal(err)
	}

	// 3. B alone: everything still opens.
	onlyB, err := keyring.Parse("b:" + keyB)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range storedSecrets(t, g) {
		if _, err := onlyB.Open(s.Sealed, s.AAD); err != nil {
			t.Errorf("%s does not open under key b alone: %v", s.Name, err)
		}
	}
	// A value under a key that is gone: a clear error, no panic.
	m2 := g.newMerchant(t)
	hash2, secret2 := "test-"+strconv.Itoa(int(m2)), []byte("left-behind")
	stale, _ := boxA.Seal(secret2, payment.MerchantSecretOwner(m2))
	g.exec(t, `INSERT INTO merchant_api_secrets (merchant_id, secret_sealed) VALUES ($1, $2)`, m2, stale)

	final := startGatewayIn(t, g.schema, jwks.URL, map[string]string{"PAYGATE_ENCRYPTION_KEYS": "b:" + keyB})
	if st := signedStatus(t, g, final.HTTPURL, hash, secret); st == http.StatusUnauthorized {
		t.Fatalf("signed call under key b alone = %d", st)
	}
	if st := signedStatus(t, g, final.HTTPURL, hash2, secret2); st != http.StatusInternalServerError {
		t.Errorf("signed call with a secret under a removed key = %d, want 500", st)
	}
	want := `sealed under key \"default\", which is not configured`
	deadline = time.Now().Add(20 * time.Second)
	for !strings.Contains(final.Logs(), "gateway.secrets-reseal") || !strings.Contains(final.Logs(), want) {
		if time.Now().After(deadline) {
			t.Fatalf("no log names the missing key within 20s:\n%s", final.Logs())
		}
		time.Sleep(50 * time.Millisecond)
	}
	_, err = onlyB.Open(stale, payment.MerchantSecretOwner(m2))
	if !errors.Is(err, keyring.ErrUnknownKey) {
		t.Errorf("Open under a removed key: %v, want ErrUnknownKey", err)
	}
}
