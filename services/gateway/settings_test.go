package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/settings"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// settingKeyJSON is a key as GET /api/v1/settings/keys lists it.
type settingKeyJSON struct {
	Key          string          `json:"key"`
	Description  string          `json:"description"`
	DefaultValue json.RawMessage `json:"defaultValue"`
	Value        json.RawMessage `json:"value"`
	Version      string          `json:"version"`
	UpdatedBy    string          `json:"updatedBy"`
	Schema       struct {
		Type       string   `json:"type"`
		Minimum    *float64 `json:"minimum"`
		Maximum    *float64 `json:"maximum"`
		Properties []struct {
			Name   string `json:"name"`
			Schema struct {
				Type    string   `json:"type"`
				Minimum *float64 `json:"minimum"`
				Maximum *float64 `json:"maximum"`
			} `json:"schema"`
		} `json:"properties"`
	} `json:"schema"`
}

func (g *testGateway) settingKeys(t *testing.T, c *caller) map[string]settingKeyJSON {
	t.Helper()
	var keys []settingKeyJSON
	c.must(t, http.StatusOK, http.MethodGet, "/api/v1/settings/keys", nil, &keys)
	out := map[string]settingKeyJSON{}
	for _, k := range keys {
		out[k.Key] = k
	}
	return out
}

// settingRows returns the settings table as text, to check that a refusal
// wrote nothing.
func (g *testGateway) settingRows(t *testing.T) string {
	t.Helper()
	var s string
	if err := g.pool.QueryRow(context.Background(),
		`SELECT COALESCE(string_agg(key || '=' || value::text || '@' || version, ';' ORDER BY key), '') FROM settings`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func jsonEqual(t *testing.T, got []byte, want string) bool {
	t.Helper()
	var a, b any
	if err := json.Unmarshal(got, &a); err != nil {
		t.Fatalf("decode %s: %v", got, err)
	}
	if err := json.Unmarshal([]byte(want), &b); err != nil {
		t.Fatalf("decode %s: %v", want, err)
	}
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

const fraudDefault = `{"velocityMaxPayments":20,"velocityWindowMinutes":10,"amountSpikeFactor":5,"amountSpikeMinHistory":5,
	"failuresBeforeSuccess":5,"failuresWindowMinutes":30,"sharedIdentityMinClients":5,"sharedIdentityWindowMinutes":60}`

// TestSettingsAPI walks the settings calls: the keys with their schemas and
// defaults, reads, the refusals of every schema rule (400 naming the key or
// field and the rule, nothing written), unknown keys (404), permissions
// (403), and a change with its activity entry and event.
func TestSettingsAPI(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t, map[string]string{"PAYGATE_POLL_INTERVAL": "3s", "PAYGATE_FILES_RETENTION": "48h"})
	admin := g.user(t, access.RoleAdmin)

	keys := g.settingKeys(t, admin)
	for name, def := range map[string]string{
		settings.KeyFraudDetection: fraudDefault, settings.KeyExportRetentionHours: `48`,
		settings.KeyPollingIntervalSeconds: `3`, settings.KeyBalanceCacheSeconds: `15`,
	} {
		k, ok := keys[name]
		switch {
		case !ok:
			t.Errorf("key %s is not listed: %v", name, keys)
		case !jsonEqual(t, k.DefaultValue, def) || !jsonEqual(t, k.Value, def):
			t.Errorf("%s: default %s, value %s, want %s", name, k.DefaultValue, k.Value, def)
		case k.Description == "" || k.Version != "0":
			t.Errorf("%s: %+v", name, k)
		}
		raw := admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/settings/"+name, nil, nil)
		if !jsonEqual(t, raw, def) {
			t.Errorf("GET %s = %s, want %s", name, raw, def)
		}
	}
	if f := keys[settings.KeyFraudDetection].Schema; f.Type != "object" || len(f.Properties) != 8 ||
		f.Properties[0].Name != "velocityMaxPayments" || f.Properties[0].Schema.Type != "integer" ||
		*f.Properties[0].Schema.Minimum != 2 || f.Properties[0].Schema.Maximum != nil {
		t.Errorf("FraudDetection schema: %+v", f)
	}
	if p := keys[settings.KeyPollingIntervalSeconds].Schema; p.Type != "number" || *p.Minimum != 0.5 || *p.Maximum != 300 {
		t.Errorf("PollingIntervalSeconds schema: %+v", p)
	}

	t.Run("unknown keys are 404", func(t *testing.T) {
		for _, method := range []string{http.MethodGet, http.MethodPost} {
			msg := admin.refused(t, http.StatusNotFound, 0, method, "/api/v1/settings/NoSuchKey", `1`)
			if !strings.Contains(msg, "NoSuchKey") {
				t.Errorf("%s: message %q", method, msg)
			}
		}
		// Keys are case-sensitive.
		admin.refused(t, http.StatusNotFound, 0, http.MethodGet, "/api/v1/settings/fraudDetection", nil)
	})

	t.Run("values failing the schema are 400 and write nothing", func(t *testing.T) {
		fraud := func(field string, v any) map[string]any {
			var m map[string]any
			_ = json.Unmarshal([]byte(fraudDefault), &m)
			if v == nil {
				delete(m, field)
			} else {
				m[field] = v
			}
			return m
		}
		tests := []struct {
			key  string
			body any
			want []string
		}{
			{"ExportRetentionHours", `0`, []string{"ExportRetentionHours", "integer from 1 to 720", "0"}},
			{"ExportRetentionHours", `721`, []string{"ExportRetentionHours", "from 1 to 720"}},
			{"ExportRetentionHours", `1.5`, []string{"ExportRetentionHours", "an integer"}},
			{"ExportRetentionHours", `"24"`, []string{"ExportRetentionHours", "an integer", "a text"}},
			{"ExportRetentionHours", `null`, []string{"ExportRetentionHours", "not null"}},
			{"ExportRetentionHours", `[24]`, []string{"ExportRetentionHours", "a list"}},
			{"BalanceCacheSeconds", `-1`, []string{"BalanceCacheSeconds", "from 0 to 3600"}},
			{"BalanceCacheSeconds", `true`, []string{"BalanceCacheSeconds", "a boolean"}},
			{"PollingIntervalSeconds", `0.4`, []string{"PollingIntervalSeconds", "a number from 0.5 to 300", "0.4"}},
			{"PollingIntervalSeconds", `300.5`, []string{"PollingIntervalSeconds", "from 0.5 to 300"}},
			{"PollingIntervalSeconds", `{"a":1}`, []string{"PollingIntervalSeconds", "an object"}},
			{"FraudDetection", `7`, []string{"FraudDetection", "an object with the fields velocityMaxPayments"}},
			{"FraudDetection", fraud("velocityMaxPayments", 1), []string{"FraudDetection.velocityMaxPayments", "at least 2"}},
			{"FraudDetection", fraud("velocityWindowMinutes", 1441), []string{"FraudDetection.velocityWindowMinutes", "from 1 to 1440"}},
			{"FraudDetection", fraud("amountSpikeFactor", 1.4), []string{"FraudDetection.amountSpikeFactor", "a number from 1.5 to 1000"}},
			{"FraudDetection", fraud("amountSpikeMinHistory", 2.5), []string{"FraudDetection.amountSpikeMinHistory", "an integer"}},
			{"FraudDetection", fraud("failuresBeforeSuccess", "3"), []string{"FraudDetection.failuresBeforeSuccess", "a text"}},
			{"FraudDetection", fraud("sharedIdentityMinClients", 1), []string{"FraudDetection.sharedIdentityMinClients", "from 2 to 1000"}},
			{"FraudDetection", fraud("sharedIdentityWindowMinutes", 1441), []string{"FraudDetection.sharedIdentityWindowMinutes", "from 1 to 1440"}},
			{"FraudDetection", fraud("failuresWindowMinutes", nil), []string{"FraudDetection.failuresWindowMinutes", "is required"}},
			{"FraudDetection", fraud("extra", 1), []string{"FraudDetection.extra", "is not a field"}},
			{"FraudDetection", `{"velocityMaxPayments": 10`, []string{"JSON"}},
			{"FraudDetection", ``, []string{"FraudDetection", "request body"}},
		}
		before := g.settingRows(t)
		for _, tt := range tests {
			msg := admin.refused(t, http.StatusBadRequest, 0, http.MethodPost, "/api/v1/settings/"+tt.key, tt.body)
			for _, w := range tt.want {
				if !strings.Contains(msg, w) {
					t.Errorf("%s %v: message %q does not contain %q", tt.key, tt.body, msg, w)
				}
			}
			if !strings.HasSuffix(msg, ".") || strings.Contains(msg, "proto") || strings.Contains(msg, "json:") {
				t.Errorf("%s %v: message %q is not a plain sentence", tt.key, tt.body, msg)
			}
		}
		if after := g.settingRows(t); after != before {
			t.Errorf("refusals wrote settings: %q, was %q", after, before)
		}
	})

	t.Run("permissions", func(t *testing.T) {
		support := g.user(t, access.RoleSupport)
		support.refused(t, http.StatusForbidden, 0, http.MethodGet, "/api/v1/settings/keys", nil)
		support.refused(t, http.StatusForbidden, 0, http.MethodGet, "/api/v1/settings/BalanceCacheSeconds", nil)
		support.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/settings/BalanceCacheSeconds", `20`)
		merchant := g.user(t, access.RoleMerchantAdmin, firstMerchantID)
		merchant.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/settings/BalanceCacheSeconds", `20`)
		// Settings Access without the admin-wide scope reads but does not
		// write (access.ReqPlatformSettings), whatever the role's name.
		reader := g.user(t, access.RoleSupport)
		reader.token = g.issuer.Token(t, authztest.User{ID: reader.id, Username: reader.name, Roles: []string{"Settings readers"},
			Permissions: []string{access.PermSettingsAccess}, MerchantIDs: []int32{firstMerchantID}})
		reader.must(t, http.StatusOK, http.MethodGet, "/api/v1/settings/keys", nil, nil)
		reader.must(t, http.StatusOK, http.MethodGet, "/api/v1/settings/BalanceCacheSeconds", nil, nil)
		reader.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/settings/BalanceCacheSeconds", `20`)
		// An admin token without Settings Access cannot either.
		noPerm := g.user(t, access.RoleAdmin)
		noPerm.token = g.issuer.Token(t, authztest.User{ID: noPerm.id, Username: noPerm.name, Roles: []string{access.RoleAdmin},
			Permissions: []string{access.PermGetTransactions}})
		noPerm.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/settings/BalanceCacheSeconds", `20`)
		(&caller{g: g, ua: "gateway-test/anonymous"}).must(t, http.StatusUnauthorized, http.MethodGet, "/api/v1/settings/keys", nil, nil)
		if rows := g.settingRows(t); rows != "" {
			t.Errorf("refused calls wrote settings: %s", rows)
		}
	})

	t.Run("a change is stored, answered, listed and logged", func(t *testing.T) {
		newFraud := strings.Replace(fraudDefault, `"amountSpikeFactor":5`, `"amountSpikeFactor":7.25`, 1)
		raw := admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/FraudDetection", newFraud, nil)
		if !jsonEqual(t, raw, newFraud) {
			t.Errorf("POST answered %s", raw)
		}
		if raw := admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/settings/FraudDetection", nil, nil); !jsonEqual(t, raw, newFraud) {
			t.Errorf("GET after POST = %s", raw)
		}
		entries, events := admin.expectChanges(t, 1)
		e := entries[0]
		if e.ActionType != string(activity.ActionSettings) || !strings.Contains(e.Message, "FraudDetection") ||
			!jsonEqual(t, []byte(e.OldValue), fraudDefault) || !jsonEqual(t, []byte(e.NewValue), newFraud) {
			t.Errorf("activity entry %+v", e)
		}
		if events[0].GetActionType() != "Settings" || !jsonEqual(t, []byte(events[0].GetNewValue()), newFraud) {
			t.Errorf("event %v", events[0])
		}
		k := g.settingKeys(t, admin)[settings.KeyFraudDetection]
		if k.Version != "1" || k.UpdatedBy != admin.name || !jsonEqual(t, k.Value, newFraud) || !jsonEqual(t, k.DefaultValue, fraudDefault) {
			t.Errorf("listed after the change: %+v", k)
		}

		// A second change logs the first value as the old one.
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/PollingIntervalSeconds", `0.75`, nil)
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/PollingIntervalSeconds", `12`, nil)
		entries, _ = admin.expectChanges(t, 2)
		if entries[0].OldValue != "3" || entries[0].NewValue != "0.75" || entries[1].OldValue != "0.75" || entries[1].NewValue != "12" {
			t.Errorf("entries %+v", entries)
		}
		if n := g.queryInt(t, `SELECT version FROM settings WHERE key = 'PollingIntervalSeconds'`); n != 2 {
			t.Errorf("version %d, want 2", n)
		}
	})
}

// TestSettingsReachEveryReplica: a change made through one instance of the
// settings service (one replica) is what a second one, which read and
// cached the values before, decodes within about a second, without a
// restart; and the running gateway's helpers read it too.
func TestSettingsReachEveryReplica(t *testing.T) {
	t.Parallel()
	g := newTestGateway(t, map[string]string{"PAYGATE_POLL_INTERVAL": "2s", "PAYGATE_FILES_RETENTION": "72h"})
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	d := settings.Defaults{PollInterval: 2 * time.Second, ExportRetention: 72 * time.Hour}
	a := settings.NewService(postgres.NewSettings(g.pool), d, time.Now, log)
	b := settings.NewService(postgres.NewSettings(g.pool), d, time.Now, log)
	ctx := context.Background()

	if got := b.PollingInterval(ctx); got != 2*time.Second {
		t.Fatalf("b: polling interval %s before any change", got)
	}
	if got := b.ExportRetention(ctx); got != 72*time.Hour {
		t.Fatalf("b: retention %s before any change", got)
	}
	actor := activity.Actor{UserID: 1, Username: "replica-a"}
	if _, err := a.Set(ctx, actor, settings.KeyPollingIntervalSeconds, 4.5); err != nil {
		t.Fatal(err)
	}
	if got := a.PollingInterval(ctx); got != 4500*time.Millisecond {
		t.Errorf("a does not read its own change at once: %s", got)
	}
	waitFor(t, "replica b to read the new polling interval", func() bool { return b.PollingInterval(ctx) == 4500*time.Millisecond })

	fraud := settings.DefaultFraudDetection
	fraud.VelocityMaxPayments = 25
	var v map[string]any
	raw, _ := json.Marshal(fraud)
	_ = json.Unmarshal(raw, &v)
	admin := g.user(t, access.RoleAdmin)
	admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/FraudDetection", v, nil)
	admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/ExportRetentionHours", `6`, nil)
	waitFor(t, "replica b to read the gateway's changes", func() bool {
		f, err := b.FraudDetection(ctx)
		return err == nil && f == fraud && b.ExportRetention(ctx) == 6*time.Hour
	})
	var dst struct {
		VelocityMaxPayments int `json:"velocityMaxPayments"`
	}
	if err := b.Decode(ctx, settings.KeyFraudDetection, &dst); err != nil || dst.VelocityMaxPayments != 25 {
		t.Errorf("Decode: %+v, %v", dst, err)
	}
	if err := b.Decode(ctx, "NoSuchKey", &dst); err == nil {
		t.Error("Decode of an unknown key succeeded")
	}
	// The gateway reads a change made by another replica.
	if raw := admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/settings/PollingIntervalSeconds", nil, nil); string(raw) != "4.5" {
		t.Errorf("the gateway answers %s", raw)
	}
}

// TestRetentionReadsTheSetting: the files-retention job uses
// ExportRetentionHours as it is at each run: a two-hour-old file is kept
// under the 72h default and deleted once the setting is 1.
func TestRetentionReadsTheSetting(t *testing.T) {
	t.Parallel()
	e := newFilesEnv(t, map[string]string{"PAYGATE_FILES_RETENTION_INTERVAL": "200ms"})
	e.seed(t, seedTx{merchant: e.merchant, collab: e.collab, provider: 1, typ: 1, status: 4, amount: "1.00", currency: "PHP",
		at: "2025-03-01T00:00:00Z"})
	id := e.export(t, e.admin, e.collab, exportBody(nil, 1, 0, "UTC", "id="))
	if f := e.waitFile(t, e.admin, id); f.Status != 2 {
		t.Fatalf("file %+v", f)
	}
	e.exec(t, `UPDATE files SET created_at = now() - interval '2 hours' WHERE id = $1`, id)
	time.Sleep(time.Second) // several runs of the job under the default
	if f := e.info(t, e.admin, id); f.Status != 2 {
		t.Fatalf("a two-hour-old file was deleted under the 72h default: %+v", f)
	}
	e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/settings/ExportRetentionHours", `1`, nil)
	waitFor(t, "the file to be deleted under a one-hour retention", func() bool { return e.info(t, e.admin, id).Status == -3 })
	if _, err := os.Stat(filepath.Join(e.dir, "exports", id)); !os.IsNotExist(err) {
		t.Errorf("the file's bytes are still there: %v", err)
	}
}

// waitFor polls cond every 50ms for up to 10s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
