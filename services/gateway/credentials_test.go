package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// The credentials tests (docs/contracts-credentials.md) read the table
// directly to check that no value is stored in the clear, and that a sealed
// row opens only for its own collab and under a configured key.

const secretValue = "sk_live_SECRET_4242"

func credentialsPath(collabID int32) string {
	return "/api/v1/credentials?collabId=" + strconv.Itoa(int(collabID))
}

// storedCredentials returns a collab's key id and sealed bytes.
func (g *testGateway) storedCredentials(t *testing.T, collabID int32) (string, []byte) {
	t.Helper()
	var keyID string
	var sealed []byte
	if err := g.pool.QueryRow(context.Background(), `SELECT key_id, sealed FROM collab_credentials WHERE collab_id = $1`,
		collabID).Scan(&keyID, &sealed); err != nil {
		t.Fatal(err)
	}
	return keyID, sealed
}

func TestCredentials(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	m := g.newMerchant(t)
	other := g.newMerchant(t)
	collab := g.initialize(t, admin, m, 3)
	otherCollab := g.initialize(t, admin, other, 3)
	admin.expectChanges(t, 2)

	var got map[string]any
	admin.must(t, http.StatusOK, http.MethodGet, credentialsPath(collab), nil, &got)
	if len(got) != 0 {
		t.Fatalf("credentials of a new collab = %v, want {}", got)
	}

	creds := map[string]any{"apiKey": secretValue, "port": 8443, "live": false,
		"auth": map[string]any{"username": "fb-user", "pin": 1234.5}}
	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(collab), creds, &got)
	want := map[string]any{"apiKey": secretValue, "port": 8443.0, "live": false,
		"auth": map[string]any{"username": "fb-user", "pin": 1234.5}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("saved credentials = %v, want %v", got, want)
	}
	rows, events := admin.expectChanges(t, 1)
	if rows[0].ActionType != "Credentials" || rows[0].CollabID != collab || rows[0].MerchantID != m ||
		!strings.Contains(rows[0].NewValue, "apiKey") || !strings.Contains(rows[0].Message, "added") {
		t.Errorf("activity entry = %+v", rows[0])
	}
	for _, text := range []string{rows[0].Message, rows[0].NewValue, rows[0].OldValue, events[0].GetNewValue(), events[0].GetOldValue()} {
		if strings.Contains(text, secretValue) || strings.Contains(text, "fb-user") || strings.Contains(text, "8443") {
			t.Errorf("the activity log shows a value: %s", text)
		}
	}

	// Numbers come back as numbers, and only the caller of the right scope
	// reads them.
	raw := admin.must(t, http.StatusOK, http.MethodGet, credentialsPath(collab), nil, &got)
	if !reflect.DeepEqual(got, want) || !bytes.Contains(raw, []byte(`"port":8443`)) {
		t.Errorf("read credentials = %s", raw)
	}

	// At rest: sealed under the default key, no value in the clear, not in
	// the outbox, the activity log or the logs.
	keyID, sealed := g.storedCredentials(t, collab)
	if keyID != credential.DefaultKeyID {
		t.Errorf("key id = %q, want %q", keyID, credential.DefaultKeyID)
	}
	for _, v := range []string{secretValue, "fb-user", "apiKey"} {
		if bytes.Contains(sealed, []byte(v)) {
			t.Errorf("the sealed credentials contain %q in the clear", v)
		}
	}
	if n := g.queryInt(t, `SELECT count(*) FROM activity_log WHERE row_to_json(activity_log)::text LIKE '%' || $1 || '%'`, secretValue); n != 0 {
		t.Errorf("%d activity rows contain the secret", n)
	}
	if strings.Contains(g.Logs(), secretValue) {
		t.Error("the gateway logged a credential value")
	}

	// Saving the same credentials again changes nothing.
	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(collab), creds, nil)
	admin.expectChanges(t, 0)

	// A change names the keys changed and removed, never the values.
	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(collab), map[string]any{"apiKey": "sk_live_NEW_9", "port": 8443,
		"auth": map[string]any{"username": "fb-user", "pin": 1234.5}}, nil)
	rows, _ = admin.expectChanges(t, 1)
	if !strings.Contains(rows[0].NewValue, `"changed": ["apiKey"]`) && !strings.Contains(rows[0].NewValue, `"changed":["apiKey"]`) ||
		!strings.Contains(rows[0].NewValue, "live") || strings.Contains(rows[0].NewValue, "sk_live_NEW_9") {
		t.Errorf("change entry = %+v", rows[0])
	}

	// Scope and permissions.
	mAdmin := g.user(t, access.RoleMerchantAdmin, m)
	mAdmin.must(t, http.StatusOK, http.MethodGet, credentialsPath(collab), nil, &got)
	if got["apiKey"] != "sk_live_NEW_9" {
		t.Errorf("merchant admin reads %v", got)
	}
	stranger := g.user(t, access.RoleMerchantAdmin, other)
	stranger.refused(t, http.StatusNotFound, collab, http.MethodGet, credentialsPath(collab), nil)
	stranger.refused(t, http.StatusNotFound, collab, http.MethodPost, credentialsPath(collab), map[string]any{"apiKey": "x"})
	for _, role := range []string{access.RoleMerchant, access.RoleSupport, access.RoleMerchantFinanceManager} {
		u := g.user(t, role, m)
		u.refused(t, http.StatusForbidden, collab, http.MethodGet, credentialsPath(collab), nil)
		u.refused(t, http.StatusForbidden, collab, http.MethodPost, credentialsPath(collab), map[string]any{"apiKey": "x"})
	}
	admin.refused(t, http.StatusNotFound, 0, http.MethodGet, credentialsPath(999999), nil)
	var listed []struct {
		CollabID     int32  `json:"collabId"`
		MerchantName string `json:"merchantName"`
		ProviderName string `json:"providerName"`
	}
	mAdmin.must(t, http.StatusOK, http.MethodGet, "/api/v1/credentials/collabs", nil, &listed)
	if len(listed) != 1 || listed[0].CollabID != collab || listed[0].ProviderName != "FbPay" {
		t.Errorf("merchant admin's credential collabs = %+v", listed)
	}
	g.user(t, access.RoleMerchant, m).refused(t, http.StatusForbidden, 0, http.MethodGet, "/api/v1/credentials/collabs", nil)

	// Bad input: 400 naming the field, nothing written.
	_, before := g.storedCredentials(t, collab)
	for _, tt := range []struct {
		body any
		want string
	}{
		{map[string]any{"auth": map[string]any{"deep": map[string]any{"x": "y"}}}, `"auth.deep"`},
		{map[string]any{"hosts": []string{"a", "b"}}, `"hosts"`},
		{map[string]any{"empty": nil}, `"empty"`},
		{`["apiKey"]`, "object"},
		{`"apiKey"`, "object"},
		{map[string]any{"big": strings.Repeat("x", credential.MaxValueLength+1)}, `"big"`},
		{map[string]any{"apiKey": strings.Repeat("x", 3000), "b": strings.Repeat("x", 3000), "c": strings.Repeat("x", 3000),
			"d": strings.Repeat("x", 3000), "e": strings.Repeat("x", 3000), "f": strings.Repeat("x", 3000),
			"g": strings.Repeat("x", 3000), "h": strings.Repeat("x", 3000), "i": strings.Repeat("x", 3000),
			"j": strings.Repeat("x", 3000), "k": strings.Repeat("x", 3000), "l": strings.Repeat("x", 3000)}, "bytes"},
	} {
		msg := admin.refused(t, http.StatusBadRequest, collab, http.MethodPost, credentialsPath(collab), tt.body)
		if !strings.Contains(msg, tt.want) {
			t.Errorf("POST %v: message %q does not name %s", tt.body, msg, tt.want)
		}
	}
	if msg := admin.refused(t, http.StatusBadRequest, 0, http.MethodGet, "/api/v1/credentials", nil); !strings.Contains(msg, "collabId") {
		t.Errorf("without collabId: %q", msg)
	}
	if _, after := g.storedCredentials(t, collab); !bytes.Equal(before, after) {
		t.Error("a refused write changed the stored credentials")
	}

	// A sealed row moved to another collab does not open there (the collab
	// is bound in), and the failure names no library error.
	g.exec(t, `INSERT INTO collab_credentials (collab_id, key_id, sealed, updated_by)
		SELECT $1, key_id, sealed, 'mover' FROM collab_credentials WHERE collab_id = $2`, otherCollab, collab)
	status, body := admin.do(t, http.MethodGet, credentialsPath(otherCollab), nil)
	if status != http.StatusInternalServerError || bytes.Contains(body, []byte(secretValue)) ||
		bytes.Contains(body, []byte("authentication")) || bytes.Contains(body, []byte("cipher")) {
		t.Errorf("moved credentials: %d %s", status, body)
	}
}

// rawCall calls a gateway at base with a token.
func rawCall(t *testing.T, base, token, method, path string, body any, out any) int {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, _ := json.Marshal(body)
		rd = bytes.NewReader(raw)
	}
	req, _ := http.NewRequest(method, base+path, rd)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	if out != nil && resp.StatusCode == http.StatusOK {
		if err := json.Unmarshal(raw, out); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	return resp.StatusCode
}

func TestCredentialsKeyRotation(t *testing.T) {
	t.Parallel()
	keyA := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xA1}, 32))
	keyB := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0xB2}, 32))
	g := newTestGateway(t, map[string]string{"PAYGATE_CREDENTIALS_KEYS": "a:" + keyA})
	admin := g.user(t, access.RoleAdmin)
	m := g.newMerchant(t)
	c1 := g.initialize(t, admin, m, 3)
	c2 := g.initialize(t, admin, m, 4)
	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(c1), map[string]any{"apiKey": "one"}, nil)
	admin.must(t, http.StatusOK, http.MethodPost, credentialsPath(c2), map[string]any{"apiKey": "two"}, nil)
	if id, _ := g.storedCredentials(t, c1); id != "a" {
		t.Fatalf("key id = %q, want a", id)
	}

	// B becomes current, A still opens what it sealed.
	jwks := authztest.ServeJWKS(t, g.issuer)
	rotated := startGatewayIn(t, g.schema, jwks.URL, map[string]string{"PAYGATE_CREDENTIALS_KEYS": "b:" + keyB + ",a:" + keyA})
	defer func() { _ = rotated.Stop() }()
	token := g.issuer.Token(t, authztest.User{ID: admin.id, Username: admin.name, Roles: []string{access.RoleAdmin}, Permissions: grants[access.RoleAdmin]})
	var got map[string]any
	if st := rawCall(t, rotated.HTTPURL, token, http.MethodGet, credentialsPath(c1), nil, &got); st != http.StatusOK || got["apiKey"] != "one" {
		t.Fatalf("read under the rotated keyring = %d %v", st, got)
	}
	// A write re-seals under B.
	if st := rawCall(t, rotated.HTTPURL, token, http.MethodPost, credentialsPath(c1), map[string]any{"apiKey": "one-b"}, nil); st != http.StatusOK {
		t.Fatalf("write under the rotated keyring = %d", st)
	}
	if id, _ := g.storedCredentials(t, c1); id != "b" {
		t.Errorf("key id after a write = %q, want b", id)
	}
	// The re-seal job's work: what is left under A moves to B.
	keys, err := credential.ParseKeyring("b:" + keyB + ",a:" + keyA)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	n, _, err := credential.NewService(postgres.NewCredentials(g.pool), keys, time.Now).Reseal(ctx, 100)
	if err != nil || n != 1 {
		t.Fatalf("Reseal = %d, %v; want 1", n, err)
	}
	if id, _ := g.storedCredentials(t, c2); id != "b" {
		t.Errorf("key id after the re-seal = %q, want b", id)
	}
	// Without A, everything still opens.
	onlyB := startGatewayIn(t, g.schema, jwks.URL, map[string]string{"PAYGATE_CREDENTIALS_KEYS": "b:" + keyB})
	defer func() { _ = onlyB.Stop() }()
	for collab, want := range map[int32]string{c1: "one-b", c2: "two"} {
		got = nil
		if st := rawCall(t, onlyB.HTTPURL, token, http.MethodGet, credentialsPath(collab), nil, &got); st != http.StatusOK || got["apiKey"] != want {
			t.Errorf("collab %d under key b only = %d %v", collab, st, got)
		}
	}
}
