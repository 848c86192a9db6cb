package main

import (
	"bytes"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/access"
)

type adminMerchantJSON struct {
	ID           int32  `json:"id"`
	Name         string `json:"name"`
	Hash         string `json:"hash"`
	ContactName  string `json:"contactName"`
	ContactEmail string `json:"contactEmail"`
	Disabled     bool   `json:"disabled"`
}

type secretJSON struct {
	ID         string  `json:"id"`
	CreatedAt  string  `json:"createdAt"`
	LastUsedAt *string `json:"lastUsedAt"`
	ExpiresAt  *string `json:"expiresAt"`
	State      string  `json:"state"`
}

type createdSecretJSON struct {
	Secret       secretJSON `json:"secret"`
	Value        string     `json:"value"`
	MerchantHash string     `json:"merchantHash"`
}

func (c *caller) secrets(t *testing.T, merchantID int32) []secretJSON {
	t.Helper()
	var out []secretJSON
	c.must(t, http.StatusOK, http.MethodGet, fmt.Sprintf("/api/v1/merchants/%d/secrets", merchantID), nil, &out)
	return out
}

// TestMerchants: an admin adds a merchant, edits, disables and enables it;
// its secrets are shown once, rotate with an overlap, are revoked; signed
// payments follow; every change is in the activity log; bad input and
// callers out of scope change nothing.
func TestMerchants(t *testing.T) {
	e := newPayEnv(t)
	admin := e.admin
	admin.expectChanges(t, 2) // the pay environment's two collabs

	// Bad input: a 400 naming the field, nothing written.
	for body, field := range map[string]string{
		`{"name": "  "}`:                               "name",
		`{"name": "Delta", "contactEmail": "x"}`:       "contactEmail",
		`{"name": "` + strings.Repeat("n", 101) + `"}`: "name",
	} {
		if msg := admin.refused(t, http.StatusBadRequest, 0, http.MethodPost, "/api/v1/merchants", body); !strings.Contains(msg, field) {
			t.Errorf("%s: message %q does not name %s", body, msg, field)
		}
	}
	if n := e.queryInt(t, `SELECT count(*) FROM merchants WHERE name LIKE 'Delta%' OR name LIKE 'nnn%'`); n != 0 {
		t.Fatalf("%d merchants written by refused calls", n)
	}

	var m adminMerchantJSON
	admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/merchants",
		map[string]any{"name": " Delta Foods ", "contactName": "Dana", "contactEmail": "dana@delta.example"}, &m)
	if m.ID <= 0 || m.Name != "Delta Foods" || len(m.Hash) != 32 || m.ContactEmail != "dana@delta.example" || m.Disabled {
		t.Fatalf("created %+v", m)
	}
	rows, _ := admin.expectChanges(t, 1)
	if rows[0].MerchantID != m.ID || rows[0].ActionType != "Configuration" || !strings.Contains(rows[0].Message, "Delta Foods") {
		t.Errorf("entry %+v", rows[0])
	}
	admin.refused(t, http.StatusConflict, 0, http.MethodPost, "/api/v1/merchants", map[string]any{"name": "delta foods"})

	path := fmt.Sprintf("/api/v1/merchants/%d", m.ID)
	secretsPath := path + "/secrets"
	other := e.user(t, access.RoleMerchantAdmin, e.merchantID)
	own := e.user(t, access.RoleMerchantAdmin, m.ID)
	plain := e.user(t, access.RoleMerchant, m.ID)

	t.Run("scope", func(t *testing.T) {
		other.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/merchants", map[string]any{"name": "Sneaky"})
		own.refused(t, http.StatusForbidden, 0, http.MethodPut, path, map[string]any{"disabled": true})
		other.refused(t, http.StatusNotFound, 0, http.MethodGet, secretsPath, nil)
		other.refused(t, http.StatusNotFound, 0, http.MethodPost, secretsPath, map[string]any{})
		plain.refused(t, http.StatusForbidden, 0, http.MethodGet, secretsPath, nil)
		admin.refused(t, http.StatusNotFound, 0, http.MethodGet, "/api/v1/merchants/9999/secrets", nil)
		if got := own.secrets(t, m.ID); len(got) != 0 {
			t.Errorf("secrets of a new merchant: %+v", got)
		}
	})

	t.Run("edit", func(t *testing.T) {
		admin.refused(t, http.StatusBadRequest, 0, http.MethodPut, path, map[string]any{"contactEmail": "not an address"})
		var got adminMerchantJSON
		admin.must(t, http.StatusOK, http.MethodPut, path, map[string]any{"contactName": "Dana Lee"}, &got)
		if got.ContactName != "Dana Lee" || got.Name != "Delta Foods" || got.ContactEmail != "dana@delta.example" {
			t.Errorf("edited %+v", got)
		}
		rows, _ := admin.expectChanges(t, 1)
		if rows[0].OldValue != `{"contactName": "Dana"}` || rows[0].NewValue != `{"contactName": "Dana Lee"}` {
			t.Errorf("entry values %s -> %s", rows[0].OldValue, rows[0].NewValue)
		}
		admin.must(t, http.StatusOK, http.MethodPut, path, map[string]any{"contactName": "Dana Lee"}, nil)
		admin.expectChanges(t, 0)
	})

	// The first collab, as the Initialize Collaboration dialog makes it.
	e.testGateway.initialize(t, admin, m.ID, 1, 1)
	admin.expectChanges(t, 1)

	pay := func(nonce string) map[string]any {
		body := e.payload(nonce, "100.00", 1, "GCASH")
		body["merchantData"].(map[string]any)["merchantHash"] = m.Hash
		return body
	}
	signed := func(t *testing.T, nonce, secret string) (int, string) {
		t.Helper()
		status, raw := e.signed(t, m.Hash, []byte(secret), time.Now().Unix(), pay(nonce), "")
		return status, string(raw)
	}

	var first createdSecretJSON
	t.Run("a secret is shown once", func(t *testing.T) {
		own.must(t, http.StatusOK, http.MethodPost, secretsPath, map[string]any{}, &first)
		if first.Value == "" || first.MerchantHash != m.Hash || first.Secret.State != "active" || first.Secret.ExpiresAt != nil {
			t.Fatalf("created %+v", first)
		}
		rows, _ := own.expectChanges(t, 1)
		if rows[0].ActionType != "Credentials" || strings.Contains(rows[0].Message+rows[0].NewValue, first.Value) {
			t.Errorf("entry %+v", rows[0])
		}
		raw := own.must(t, http.StatusOK, http.MethodGet, secretsPath, nil, nil)
		if bytes.Contains(raw, []byte(first.Value)) {
			t.Errorf("the list shows the value: %s", raw)
		}
		if n := e.queryInt(t, `SELECT count(*) FROM merchant_api_secrets WHERE merchant_id = $1 AND position($2::bytea IN secret_sealed) > 0`,
			m.ID, []byte(first.Value)); n != 0 {
			t.Error("the value is stored in the clear")
		}
		if status, raw := signed(t, "m-first", first.Value); status != http.StatusOK {
			t.Fatalf("signed payment = %d %s", status, raw)
		}
		if s := own.secrets(t, m.ID); len(s) != 1 || s[0].LastUsedAt == nil {
			t.Errorf("last use not recorded: %+v", s)
		}
	})

	t.Run("disabled merchants' payments are refused", func(t *testing.T) {
		var got adminMerchantJSON
		admin.must(t, http.StatusOK, http.MethodPut, path, map[string]any{"disabled": true}, &got)
		if !got.Disabled {
			t.Fatalf("disabled %+v", got)
		}
		rows, _ := admin.expectChanges(t, 1)
		if rows[0].ActionType != "Status" || !strings.Contains(rows[0].Message, "disabled") {
			t.Errorf("entry %+v", rows[0])
		}
		status, raw := signed(t, "m-off", first.Value)
		if status == http.StatusOK || !strings.Contains(raw, "The merchant Delta Foods is disabled") {
			t.Errorf("signed payment of a disabled merchant = %d %s", status, raw)
		}
		status, rawB := admin.do(t, http.MethodPost, "/api/v1/transactions/initialize", pay("m-off-console"))
		if status == http.StatusOK || !strings.Contains(string(rawB), "is disabled") {
			t.Errorf("console payment of a disabled merchant = %d %s", status, rawB)
		}
		var collabs []struct {
			Merchant struct {
				ID       int32 `json:"id"`
				Disabled bool  `json:"disabled"`
			} `json:"merchant"`
		}
		admin.must(t, http.StatusOK, http.MethodGet, fmt.Sprintf("/api/v1/merchants/%d/collabs", m.ID), nil, &collabs)
		if len(collabs) != 1 || !collabs[0].Merchant.Disabled {
			t.Errorf("collabs %+v", collabs)
		}
		admin.must(t, http.StatusOK, http.MethodPut, path, map[string]any{"disabled": false}, nil)
		rows, _ = admin.expectChanges(t, 1)
		if !strings.Contains(rows[0].Message, "enabled") {
			t.Errorf("entry %+v", rows[0])
		}
		if status, raw := signed(t, "m-on", first.Value); status != http.StatusOK {
			t.Errorf("signed payment after enabling = %d %s", status, raw)
		}
	})

	t.Run("rotation keeps the old secret for the window", func(t *testing.T) {
		own.refused(t, http.StatusBadRequest, 0, http.MethodPost, secretsPath, map[string]any{"overlapSeconds": -1})
		var second createdSecretJSON
		own.must(t, http.StatusOK, http.MethodPost, secretsPath, map[string]any{"overlapSeconds": 2}, &second)
		rotated := time.Now()
		own.expectChanges(t, 1)
		list := own.secrets(t, m.ID)
		if len(list) != 2 || list[0].ID != second.Secret.ID || list[1].State != "expiring" || list[1].ExpiresAt == nil {
			t.Fatalf("secrets after rotation %+v", list)
		}
		for i, v := range []string{first.Value, second.Value} {
			if status, raw := signed(t, fmt.Sprintf("m-rot-%d", i), v); status != http.StatusOK {
				t.Errorf("secret %d inside the window = %d %s", i, status, raw)
			}
		}
		time.Sleep(time.Until(rotated.Add(2500 * time.Millisecond)))
		if status, raw := signed(t, "m-rot-old", first.Value); status != http.StatusUnauthorized {
			t.Errorf("old secret after the window = %d %s", status, raw)
		}
		if status, raw := signed(t, "m-rot-new", second.Value); status != http.StatusOK {
			t.Errorf("new secret after the window = %d %s", status, raw)
		}
		if list := own.secrets(t, m.ID); list[1].State != "expired" {
			t.Errorf("old secret %+v", list[1])
		}

		t.Run("revoke", func(t *testing.T) {
			other.refused(t, http.StatusNotFound, 0, http.MethodPost, secretsPath+"/"+second.Secret.ID+"/revoke", map[string]any{})
			admin.refused(t, http.StatusNotFound, 0, http.MethodPost, secretsPath+"/99999/revoke", map[string]any{})
			var revoked secretJSON
			admin.must(t, http.StatusOK, http.MethodPost, secretsPath+"/"+second.Secret.ID+"/revoke", map[string]any{}, &revoked)
			if revoked.State != "revoked" || revoked.ExpiresAt == nil {
				t.Errorf("revoked %+v", revoked)
			}
			admin.expectChanges(t, 1)
			// The signature check reads secrets from a configuration view
			// confirmed within a second: a revocation applies within it.
			deadline := time.Now().Add(3 * time.Second)
			for i := 0; ; i++ {
				status, raw := signed(t, fmt.Sprintf("m-revoked-%d", i), second.Value)
				if status == http.StatusUnauthorized {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("revoked secret = %d %s", status, raw)
				}
				time.Sleep(200 * time.Millisecond)
			}
			// Revoking it again changes nothing.
			admin.must(t, http.StatusOK, http.MethodPost, secretsPath+"/"+second.Secret.ID+"/revoke", map[string]any{}, nil)
			admin.expectChanges(t, 0)
		})
	})

	t.Run("the demo's and existing secrets still verify", func(t *testing.T) {
		if status, raw := e.signed(t, e.hash, e.secret, time.Now().Unix(), e.payload("m-existing", "100.00", 1, "GCASH"), ""); status != http.StatusOK {
			t.Errorf("existing merchant's secret = %d %s", status, raw)
		}
	})
}
