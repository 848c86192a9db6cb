package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
	"github.com/paygate/paygate/services/internal/sensitive"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/stepup"
)

// confirmer signs in an admin whose token lists cfm.
func (g *testGateway) confirmer(t *testing.T, cfm ...string) *caller {
	t.Helper()
	c := g.user(t, access.RoleAdmin)
	c.token = g.issuer.Token(t, authztest.User{ID: c.id, Username: c.name, Roles: []string{access.RoleAdmin},
		Permissions: grants[access.RoleAdmin], Confirm: cfm})
	return c
}

// confirmed sends a REST request with a confirmation token ("" for none)
// and answers the status and the error body (zero on success).
func (c *caller) confirmed(t *testing.T, method, path string, body any, token string) (int, server.ErrorBody) {
	t.Helper()
	var rd io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rd = strings.NewReader(string(raw))
	}
	req, err := http.NewRequest(method, c.g.HTTPURL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+c.token)
	req.Header.Set("User-Agent", c.ua)
	if token != "" {
		req.Header.Set("X-Paygate-Confirmation", token)
	}
	resp, err := c.g.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var e server.ErrorBody
	if resp.StatusCode >= 400 {
		if err := json.Unmarshal(raw, &e); err != nil || e.Code == "" || e.Message == "" {
			t.Fatalf("%s %s: error body %s is not {code, message}", method, path, raw)
		}
	}
	return resp.StatusCode, e
}

// ask sends the call without a confirmation, expects 428 and answers the
// described action.
func (c *caller) ask(t *testing.T, method, path string, body any) (sensitive.Described, []byte) {
	t.Helper()
	status, e := c.confirmed(t, method, path, body, "")
	if status != http.StatusPreconditionRequired || e.Code != "confirmation_required" ||
		e.Message != "This change needs your confirmation." || e.Confirmation == nil {
		t.Fatalf("%s %s without a confirmation = %d %+v, want 428 confirmation_required", method, path, status, e)
	}
	d, err := sensitive.Parse([]byte(e.Confirmation.Action))
	if err != nil {
		t.Fatalf("action %s: %v", e.Confirmation.Action, err)
	}
	raw, err := base64.StdEncoding.DecodeString(e.Confirmation.Request)
	if err != nil {
		t.Fatalf("request %q is not standard base64: %v", e.Confirmation.Request, err)
	}
	return d, raw
}

func (g *testGateway) txStatus(t *testing.T, id string) int64 {
	t.Helper()
	return g.queryInt(t, `SELECT status FROM transactions WHERE id = $1`, id)
}

func TestConfirmations(t *testing.T) {
	g := newTestGateway(t)
	admin := g.confirmer(t, "transaction.set_status", "fee.update")
	other := g.confirmer(t, "transaction.set_status")
	plain := g.user(t, access.RoleAdmin) // no cfm: nothing changes for it
	seed := func(status int) string {
		return g.seed(t, seedTx{merchant: fenceMerchantID, collab: g.fenceCollab, provider: 1, typ: 1, status: status,
			amount: "150.00", currency: "PHP", at: time.Now().UTC().Format(time.RFC3339Nano)})
	}
	statusPath := func(id string) string { return "/api/v1/transactions/" + id + "/status/4?transactionStatus=3" }
	sign := func(c *caller, d sensitive.Described, reason, jti string) string {
		d.Reason = reason
		return g.issuer.Confirmation(t, c.id, d.Canonical(), jti, time.Minute)
	}
	jti := func(name string) string { return name + "-" + strconv.FormatInt(time.Now().UnixNano(), 10) }

	t.Run("transaction status", func(t *testing.T) {
		id := seed(3)
		d, raw := admin.ask(t, http.MethodPost, statusPath(id), nil)
		if d.Action != "transaction.set_status" || d.Targets["id"] != id ||
			d.Observed["status"] != json.Number("3") || d.Observed["amount"] != "150.00" || d.Observed["currency"] != "PHP" {
			t.Fatalf("described %+v", d)
		}
		var req gatewayv1.SetTransactionStatusRequest
		if err := proto.Unmarshal(raw, &req); err != nil || strconv.FormatInt(req.GetId(), 10) != id || req.GetStatus() != 4 || req.GetTransactionStatus() != 3 {
			t.Fatalf("request bytes = %v (%v)", &req, err)
		}
		if g.txStatus(t, id) != 3 {
			t.Fatal("the 428 changed the transaction")
		}

		// The reason is required for this action.
		if status, e := admin.confirmed(t, http.MethodPost, statusPath(id), nil, sign(admin, d, "", jti("noreason"))); status != 400 || !strings.Contains(e.Message, "reason") {
			t.Errorf("without a reason: %d %+v", status, e)
		}
		// Another user's confirmation, an expired one.
		if status, _ := other.confirmed(t, http.MethodPost, statusPath(id), nil, sign(admin, d, "paid", jti("other"))); status != 403 {
			t.Errorf("another user's confirmation: %d", status)
		}
		d.Reason = "paid"
		expired := g.issuer.Confirmation(t, admin.id, d.Canonical(), jti("expired"), -time.Minute)
		if status, _ := admin.confirmed(t, http.MethodPost, statusPath(id), nil, expired); status != 401 {
			t.Errorf("expired confirmation: %d", status)
		}
		if g.txStatus(t, id) != 3 {
			t.Fatal("a refused confirmation changed the transaction")
		}

		cid := jti("status")
		tok := sign(admin, d, "customer paid by wire", cid)
		if status, e := admin.confirmed(t, http.MethodPost, statusPath(id), nil, tok); status != 200 {
			t.Fatalf("confirmed call: %d %+v", status, e)
		}
		if g.txStatus(t, id) != 4 {
			t.Fatal("the confirmed change was not applied")
		}
		var reason, proofs, action, message string
		var merchant int32
		err := g.pool.QueryRow(context.Background(), `SELECT reason, proofs::text, sensitive_action_name, message, COALESCE(merchant_id, 0)
			FROM activity_log WHERE confirmation_id = $1`, cid).Scan(&reason, &proofs, &action, &message, &merchant)
		if err != nil {
			t.Fatalf("activity entry of the confirmed change: %v", err)
		}
		if reason != "customer paid by wire" || action != "transaction.set_status" || !strings.Contains(proofs, `"kind": "totp"`) ||
			!strings.Contains(message, "Sensitive action performed") || merchant != fenceMerchantID {
			t.Errorf("activity entry: %q %q %q %q %d", reason, action, proofs, message, merchant)
		}
		if n := g.queryInt(t, `SELECT count(*) FROM used_confirmations WHERE id = $1 AND user_id = $2`, cid, admin.id); n != 1 {
			t.Errorf("used_confirmations rows = %d", n)
		}
		// The activity API shows the proofs.
		var ans activityAnswer
		admin.must(t, 200, http.MethodGet, "/api/v1/logs/collabs/activity?limit=5000", nil, &ans)
		found := false
		for _, m := range ans.messages(t) {
			if m["ConfirmationId"] == cid {
				ps, _ := m["Proofs"].([]any)
				found = m["Reason"] == "customer paid by wire" && len(ps) == 1
			}
		}
		if !found {
			t.Errorf("the activity API does not show confirmation %s with its proofs", cid)
		}

		// A second use.
		status, e := admin.confirmed(t, http.MethodPost, statusPath(id), nil, tok)
		if status != 409 || e.Message != stepup.MsgUsed {
			t.Errorf("second use: %d %+v", status, e)
		}
		// The same token for another transaction.
		id2 := seed(3)
		if status, e := admin.confirmed(t, http.MethodPost, statusPath(id2), nil, tok); status != 403 || e.Message != stepup.MsgMismatch {
			t.Errorf("another transaction: %d %+v", status, e)
		}
		if g.txStatus(t, id2) != 3 {
			t.Error("a mismatched confirmation changed a transaction")
		}
	})

	t.Run("moved transaction", func(t *testing.T) {
		id := seed(3)
		d, _ := admin.ask(t, http.MethodPost, statusPath(id), nil)
		tok := sign(admin, d, "late payment", jti("moved"))
		// Someone who need not confirm moves it on.
		plain.must(t, 200, http.MethodPost, "/api/v1/transactions/"+id+"/status/-2?transactionStatus=3", nil, nil)
		status, e := admin.confirmed(t, http.MethodPost, statusPath(id), nil, tok)
		if status != 409 || !strings.Contains(e.Message, "changed since the request was made") {
			t.Errorf("moved target: %d %+v", status, e)
		}
		if g.txStatus(t, id) != -2 {
			t.Error("a moved target was overwritten")
		}
	})

	t.Run("fee update", func(t *testing.T) {
		usd := g.currencyID(t, "USD")
		body := map[string]any{"collabId": g.fenceCollab, "transactionType": 1, "currencyFromId": usd, "currencyToId": usd,
			"feeType": 1, "value": "2.5", "payer": 2, "amountMin": "1", "amountMax": "9"}
		var f feeJSON
		admin.must(t, 200, http.MethodPost, "/api/v1/fees", body, &f) // fee.create is not in cfm
		body["value"] = "3"
		path := "/api/v1/fees/" + f.ID
		d, _ := admin.ask(t, http.MethodPut, path, body)
		if d.Action != "fee.update" || d.Observed["value"] != "2.5000" {
			t.Fatalf("described %+v", d)
		}
		cid := jti("fee")
		tok := sign(admin, d, "", cid)
		if status, e := admin.confirmed(t, http.MethodPut, path, body, tok); status != 200 {
			t.Fatalf("confirmed fee update: %d %+v", status, e)
		}
		var message string
		if err := g.pool.QueryRow(context.Background(), `SELECT message FROM activity_log WHERE confirmation_id = $1`, cid).Scan(&message); err != nil ||
			!strings.Contains(message, "Fee "+f.ID+" updated") {
			t.Errorf("the fee's own entry does not carry the confirmation: %q %v", message, err)
		}
		if status, _ := admin.confirmed(t, http.MethodPut, path, body, tok); status != 409 {
			t.Errorf("second use: %d", status)
		}
		// The fee moves on between the 428 and the confirmed call.
		body["value"] = "4"
		d, _ = admin.ask(t, http.MethodPut, path, body)
		tok = sign(admin, d, "", jti("fee-moved"))
		plain.must(t, 200, http.MethodPut, path, map[string]any{"collabId": g.fenceCollab, "transactionType": 1, "currencyFromId": usd,
			"currencyToId": usd, "feeType": 1, "value": "5", "payer": 2, "amountMin": "1", "amountMax": "9"}, nil)
		if status, e := admin.confirmed(t, http.MethodPut, path, body, tok); status != 409 || e.Message != stepup.MsgMoved {
			t.Errorf("moved fee: %d %+v", status, e)
		}
	})
}

// TestConfirmationsMigration: the gateway creates used_confirmations with
// the text stepup documents.
func TestConfirmationsMigration(t *testing.T) {
	t.Parallel()
	raw, err := os.ReadFile("internal/postgres/migrations/0030_confirmations.up.sql")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(raw), stepup.Table) {
		t.Error("0030_confirmations.up.sql does not hold stepup.Table")
	}
}
