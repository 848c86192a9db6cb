package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz/authztest"
)

// feeJSON is a Fee of docs/contracts-fees.md.
type feeJSON struct {
	ID              string `json:"id"`
	CollabID        int32  `json:"collabId"`
	TransactionType int32  `json:"transactionType"`
	PayTypeID       int32  `json:"payTypeId"`
	CurrencyFromID  int32  `json:"currencyFromId"`
	CurrencyToID    int32  `json:"currencyToId"`
	AmountMin       string `json:"amountMin"`
	AmountMax       string `json:"amountMax"`
	Priority        int32  `json:"priority"`
	Enabled         bool   `json:"enabled"`
	FeeType         int32  `json:"feeType"`
	Value           string `json:"value"`
	Payer           int32  `json:"payer"`
	CurrencyFrom    string `json:"currencyFrom"`
}

type feeListJSON struct {
	Fees        []feeJSON `json:"fees"`
	TotalCount  string    `json:"totalCount"`
	CurrentPage int32     `json:"currentPage"`
	TotalPages  int32     `json:"totalPages"`
}

type feePreviewJSON struct {
	Currencies []struct {
		Currency         string `json:"currency"`
		TransactionCount string `json:"transactionCount"`
		ChangedCount     string `json:"changedCount"`
		FeeBefore        string `json:"feeBefore"`
		FeeAfter         string `json:"feeAfter"`
	} `json:"currencies"`
}

// feeUser signs in a user of role with the given permissions.
func (g *testGateway) feeUser(t *testing.T, role string, perms []string, merchantIDs ...int32) *caller {
	t.Helper()
	c := g.user(t, role, merchantIDs...)
	c.token = g.issuer.Token(t, authztest.User{ID: c.id, Username: c.name, Roles: []string{role}, Permissions: perms,
		MerchantIDs: merchantIDs})
	return c
}

func (g *testGateway) currencyID(t *testing.T, code string) int32 {
	t.Helper()
	return int32(g.queryInt(t, `SELECT id FROM currencies WHERE code = $1`, code))
}

func TestFees(t *testing.T) {
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	m1, m2 := g.newMerchant(t), g.newMerchant(t)
	c1 := g.initialize(t, admin, m1, 1, 1)
	c2 := g.initialize(t, admin, m2, 1, 1)
	admin.expectChanges(t, 2)
	usd, php := g.currencyID(t, "USD"), g.currencyID(t, "PHP")
	body := func(kv ...any) map[string]any {
		b := map[string]any{"collabId": c1, "transactionType": 1, "currencyFromId": usd, "currencyToId": usd,
			"feeType": 1, "value": "2.5", "payer": 2}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == nil {
				delete(b, kv[i].(string))
			} else {
				b[kv[i].(string)] = kv[i+1]
			}
		}
		return b
	}

	var first feeJSON
	t.Run("create", func(t *testing.T) {
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees", body("amountMin", "10", "amountMax", "500.5", "priority", 3), &first)
		if first.ID == "" || first.CollabID != c1 || first.TransactionType != 1 || first.CurrencyFromID != usd ||
			first.AmountMin != "10.00" || first.AmountMax != "500.50" || first.Priority != 3 || !first.Enabled ||
			first.FeeType != 1 || first.Value != "2.5000" || first.Payer != 2 || first.CurrencyFrom != "USD" {
			t.Fatalf("created %+v", first)
		}
		rows, _ := admin.expectChanges(t, 1)
		if r := rows[0]; r.ActionType != "Configuration" || r.CollabID != c1 || r.MerchantID != m1 ||
			!strings.Contains(r.Message, "Fee "+first.ID+" created") || !strings.Contains(r.NewValue, `"value": "2.5000"`) && !strings.Contains(r.NewValue, `"value":"2.5000"`) {
			t.Errorf("activity %+v", r)
		}
		var got feeJSON
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees/"+first.ID, nil, &got)
		if got != first {
			t.Errorf("GET %+v, want %+v", got, first)
		}
	})

	t.Run("bad input is 400 naming the field, nothing written", func(t *testing.T) {
		for _, tt := range []struct {
			body  map[string]any
			field string
		}{
			{body("currencyFromId", nil), "currencyFromId"},
			{body("currencyToId", 999), "currencyToId"},
			{body("amountMin", "10", "amountMax", "5"), "amountMin"},
			{body("amountMin", "-1"), "amountMin"},
			{body("amountMax", "1.234"), "amountMax"},
			{body("feeType", 7), "feeType"},
			{body("value", "abc"), "value"},
			{body("value", "150"), "value"},
			{body("value", nil), "value"},
			{body("priority", -1), "priority"},
			{body("transactionType", 3), "transactionType"},
			{body("payTypeId", 9999), "payTypeId"},
			{body("payer", 5), "payer"},
			{body("collabId", -4), "collabId"},
		} {
			if msg := admin.refused(t, http.StatusBadRequest, c1, http.MethodPost, "/api/v1/fees", tt.body); !strings.Contains(msg, tt.field) {
				t.Errorf("%v: message %q does not name %s", tt.body, msg, tt.field)
			}
		}
		if n := g.queryInt(t, `SELECT count(*) FROM fees WHERE currency_from = 'USD'`); n != 1 {
			t.Errorf("%d USD fees after refusals, want 1", n)
		}
	})

	var second feeJSON
	t.Run("a conflict is 409 naming the fee unless allowConflict", func(t *testing.T) {
		b := body("amountMin", "500.50", "priority", 1)
		msg := admin.refused(t, http.StatusConflict, 0, http.MethodPost, "/api/v1/fees", b)
		if !strings.Contains(msg, first.ID) {
			t.Errorf("409 message %q does not name fee %s", msg, first.ID)
		}
		var check struct {
			Conflicts []struct {
				Fee      feeJSON `json:"fee"`
				WinnerID string  `json:"winnerId"`
			} `json:"conflicts"`
			WinsAll bool `json:"winsAll"`
		}
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees/conflicts", map[string]any{"fee": b}, &check)
		// Equally specific: the higher priority (the first fee's 3) wins.
		if len(check.Conflicts) != 1 || check.Conflicts[0].Fee.ID != first.ID || check.Conflicts[0].WinnerID != first.ID || check.WinsAll {
			t.Errorf("conflicts %+v", check)
		}
		// Touching ends only from 500.51 on: no conflict.
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees/conflicts", map[string]any{"fee": body("amountMin", "500.51")}, &check)
		if len(check.Conflicts) != 0 {
			t.Errorf("conflicts of a range apart: %+v", check)
		}
		b["allowConflict"] = true
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees", b, &second)
		admin.expectChanges(t, 1)
	})

	// Issue 25: the path's id silently won, so the body's fields were
	// applied to the path's fee.
	t.Run("a body id other than the path's is refused; neither fee changes", func(t *testing.T) {
		var before1, before2, after1, after2 feeJSON
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees/"+first.ID, nil, &before1)
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees/"+second.ID, nil, &before2)
		b := body("value", "9", "allowConflict", true)
		b["id"] = first.ID
		msg := admin.refused(t, http.StatusBadRequest, 0, http.MethodPut, "/api/v1/fees/"+second.ID, b)
		if msg != "The body's id differs from the path's: give the same value in both, or leave it out of the body." {
			t.Errorf("message %q", msg)
		}
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees/"+first.ID, nil, &after1)
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees/"+second.ID, nil, &after2)
		if after1 != before1 || after2 != before2 {
			t.Errorf("a refused update changed a fee: %+v → %+v, %+v → %+v", before1, after1, before2, after2)
		}
	})

	var disabled feeJSON
	t.Run("a disabled fee conflicts with nothing until enabled", func(t *testing.T) {
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees", body("enabled", false, "payTypeId", 1), &disabled)
		admin.expectChanges(t, 1)
		if disabled.Enabled {
			t.Fatalf("created %+v", disabled)
		}
		enable := body("payTypeId", 1, "enabled", true)
		msg := admin.refused(t, http.StatusConflict, 0, http.MethodPut, "/api/v1/fees/"+disabled.ID, enable)
		if !strings.Contains(msg, first.ID) || !strings.Contains(msg, second.ID) {
			t.Errorf("409 message %q does not name %s and %s", msg, first.ID, second.ID)
		}
		if n := g.queryInt(t, `SELECT count(*) FROM fees WHERE id = $1 AND NOT enabled`, disabled.ID); n != 1 {
			t.Error("the refused update changed the fee")
		}
	})

	t.Run("update", func(t *testing.T) {
		var got feeJSON
		admin.must(t, http.StatusOK, http.MethodPut, "/api/v1/fees/"+first.ID,
			body("amountMin", "10", "amountMax", "500.5", "priority", 3, "value", "3", "feeType", 2, "allowConflict", true), &got)
		if got.ID != first.ID || got.Value != "3.0000" || got.FeeType != 2 {
			t.Errorf("updated %+v", got)
		}
		rows, _ := admin.expectChanges(t, 1)
		if r := rows[0]; !strings.Contains(r.OldValue, "2.5000") || !strings.Contains(r.NewValue, "3.0000") || r.ActionType != "Configuration" {
			t.Errorf("activity %+v", r)
		}
		admin.refused(t, http.StatusNotFound, 0, http.MethodPut, "/api/v1/fees/987654321", body())
	})

	var other feeJSON
	admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees", body("collabId", c2, "currencyFromId", php, "currencyToId", php, "transactionType", 2, "allowConflict", true), &other)
	admin.expectChanges(t, 1)

	t.Run("merchant scope", func(t *testing.T) {
		merchant := g.user(t, access.RoleMerchant, m1)
		var list feeListJSON
		merchant.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees?take=100", nil, &list)
		ids := map[string]feeJSON{}
		for _, f := range list.Fees {
			ids[f.ID] = f
			if f.CollabID != 0 && f.CollabID != c1 {
				t.Errorf("merchant user sees fee %+v of another merchant", f)
			}
		}
		if _, ok := ids[first.ID]; !ok {
			t.Errorf("merchant user does not see its collab's fee %s: %+v", first.ID, list)
		}
		globals := g.queryInt(t, `SELECT count(*) FROM fees WHERE collab_id IS NULL`)
		if want := globals + 3; list.TotalCount != strconv.FormatInt(want, 10) {
			t.Errorf("totalCount %s, want %d (own 3 and the global ones)", list.TotalCount, want)
		}
		merchant.refused(t, http.StatusNotFound, 0, http.MethodGet, "/api/v1/fees/"+other.ID, nil)
		merchant.refused(t, http.StatusNotFound, 0, http.MethodGet, fmt.Sprintf("/api/v1/fees?collabId=%d", c2), nil)
		// Viewing only: no Edit Fees.
		merchant.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/fees", body("currencyFromId", php, "currencyToId", php))

		editor := g.feeUser(t, access.RoleMerchantAdmin, []string{access.PermViewFees, access.PermEditFees}, m1)
		editor.refused(t, http.StatusNotFound, 0, http.MethodPost, "/api/v1/fees", body("collabId", c2, "transactionType", 2))
		editor.refused(t, http.StatusNotFound, 0, http.MethodPut, "/api/v1/fees/"+other.ID, body("collabId", c1))
		editor.refused(t, http.StatusNotFound, 0, http.MethodDelete, "/api/v1/fees/"+other.ID, nil)
		editor.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/fees", body("collabId", 0, "transactionType", 2))
		global := g.queryInt(t, `SELECT min(id) FROM fees WHERE collab_id IS NULL`)
		editor.refused(t, http.StatusForbidden, 0, http.MethodDelete, fmt.Sprintf("/api/v1/fees/%d", global), nil)
		// Moving its own fee to another merchant's collab is not found.
		editor.refused(t, http.StatusNotFound, 0, http.MethodPut, "/api/v1/fees/"+disabled.ID, body("collabId", c2, "enabled", false))
		var mine feeJSON
		editor.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees", body("transactionType", 2, "currencyFromId", php, "currencyToId", php, "amountMin", "100000", "allowConflict", true), &mine)
		editor.expectChanges(t, 1)
		editor.must(t, http.StatusOK, http.MethodDelete, "/api/v1/fees/"+mine.ID, nil, nil)
		editor.expectChanges(t, 1)

		support := g.user(t, access.RoleSupport)
		support.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees/"+other.ID, nil, nil)
		support.refused(t, http.StatusForbidden, 0, http.MethodDelete, "/api/v1/fees/"+other.ID, nil)
		g.user(t, access.RoleMerchantSupport, m1).refused(t, http.StatusForbidden, 0, http.MethodGet, "/api/v1/fees", nil)
	})

	t.Run("list pages and filters", func(t *testing.T) {
		var list feeListJSON
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees", nil, &list)
		total, _ := strconv.Atoi(list.TotalCount)
		if list.CurrentPage != 1 || len(list.Fees) != min(5, total) || list.TotalPages != int32((total+4)/5) {
			t.Errorf("default page %+v", list)
		}
		admin.must(t, http.StatusOK, http.MethodGet, fmt.Sprintf("/api/v1/fees?collabId=%d&currencyFromId=%d&transactionType=1&enabled=true", c1, usd), nil, &list)
		if list.TotalCount != "2" || list.Fees[0].ID != first.ID || list.Fees[1].ID != second.ID {
			t.Errorf("filtered %+v", list)
		}
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees?collabId=0", nil, &list)
		for _, f := range list.Fees {
			if f.CollabID != 0 {
				t.Errorf("collabId=0 lists %+v", f)
			}
		}
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees?page=99", nil, &list)
		if len(list.Fees) != 0 || list.CurrentPage != 99 {
			t.Errorf("page past the end %+v", list)
		}
		admin.refused(t, http.StatusBadRequest, 0, http.MethodGet, "/api/v1/fees?take=0", nil)
		admin.refused(t, http.StatusBadRequest, 0, http.MethodGet, "/api/v1/fees?transactionType=9", nil)
	})

	t.Run("winners of a collab", func(t *testing.T) {
		var out struct {
			Winners []struct {
				TransactionType int32  `json:"transactionType"`
				PayTypeID       int32  `json:"payTypeId"`
				Currency        string `json:"currency"`
				AmountMin       string `json:"amountMin"`
				AmountMax       string `json:"amountMax"`
				FeeID           string `json:"feeId"`
			} `json:"winners"`
		}
		admin.must(t, http.StatusOK, http.MethodGet, fmt.Sprintf("/api/v1/fees/winners?collabId=%d", c1), nil, &out)
		found := false
		for _, w := range out.Winners {
			if w.Currency == "USD" && w.TransactionType == 1 && w.AmountMin == "10.00" {
				found = true
				if w.FeeID != first.ID || w.AmountMax != "500.50" {
					t.Errorf("winner from 10.00: %+v, want fee %s up to 500.50 (its priority beats the fee from 500.50)", w, first.ID)
				}
			}
		}
		if !found {
			t.Errorf("no USD deposit range from 10.00: %+v", out.Winners)
		}
		g.user(t, access.RoleMerchant, m1).refused(t, http.StatusNotFound, 0, http.MethodGet, fmt.Sprintf("/api/v1/fees/winners?collabId=%d", c2), nil)
	})

	t.Run("delete", func(t *testing.T) {
		admin.must(t, http.StatusOK, http.MethodDelete, "/api/v1/fees/"+second.ID, nil, nil)
		rows, _ := admin.expectChanges(t, 1)
		if !strings.Contains(rows[0].Message, "deleted") || rows[0].OldValue == "" || rows[0].OldValue == "null" {
			t.Errorf("activity %+v", rows[0])
		}
		admin.refused(t, http.StatusNotFound, 0, http.MethodGet, "/api/v1/fees/"+second.ID, nil)
		admin.refused(t, http.StatusNotFound, 0, http.MethodDelete, "/api/v1/fees/"+second.ID, nil)
	})

	t.Run("the counts the list sums follow every change", func(t *testing.T) {
		g.exec(t, `UPDATE fees SET collab_id = NULL WHERE id = $1`, other.ID)
		g.exec(t, `UPDATE fees SET collab_id = $2 WHERE id = $1`, other.ID, c2)
		if n := g.queryInt(t, `SELECT count(*) FROM (SELECT COALESCE(collab_id, 0) AS k, count(*) AS n FROM fees GROUP BY 1) a
			FULL JOIN (SELECT collab_id AS k, n FROM fee_counts WHERE n <> 0) b USING (k) WHERE a.n IS DISTINCT FROM b.n`); n != 0 {
			t.Errorf("fee_counts differs from the fees in %d collabs", n)
		}
		var list feeListJSON
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/fees", nil, &list)
		if want := g.queryInt(t, `SELECT count(*) FROM fees`); list.TotalCount != strconv.FormatInt(want, 10) {
			t.Errorf("totalCount %s, want %d", list.TotalCount, want)
		}
	})

	t.Run("pay types", func(t *testing.T) {
		var pts []struct {
			ID   int32  `json:"id"`
			Name string `json:"name"`
			Code string `json:"code"`
		}
		g.user(t, access.RoleMerchantSupport, m1).must(t, http.StatusOK, http.MethodGet, "/api/v1/pay-types", nil, &pts)
		if len(pts) == 0 || pts[0].ID == 0 || pts[0].Name == "" || pts[0].Code == "" {
			t.Errorf("pay types %+v", pts)
		}
	})
}

// TestFeePreview checks the what-if preview against a brute-force
// recomputation with payment.SelectFee and Fee.Charge over generated
// transactions.
func TestFeePreview(t *testing.T) {
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	m1, m2 := g.newMerchant(t), g.newMerchant(t)
	c1 := g.initialize(t, admin, m1, 1, 1)
	c2 := g.initialize(t, admin, m2, 2, 3)
	c3 := g.initialize(t, admin, m2, 1, 1)
	php, usd := g.currencyID(t, "PHP"), g.currencyID(t, "USD")

	// Transactions over 40 days (some outside the 30-day window), never
	// within a minute of its start.
	now := time.Now().UTC()
	rng := rand.New(rand.NewPCG(7, 17))
	const n = 3000
	for i := range n {
		collab := []int32{c1, c2, c3}[rng.IntN(3)]
		age := time.Duration(rng.Int64N(int64(40*24*time.Hour))) + time.Hour
		if d := age - 30*24*time.Hour; d > -time.Minute && d < time.Minute {
			age += 2 * time.Minute
		}
		cur := "PHP"
		if rng.IntN(5) == 0 {
			cur = "USD"
		}
		cents := 1 + rng.Int64N(2_000_00)
		var fee any
		if rng.IntN(4) > 0 {
			fee = money.Cents(rng.Int64N(50_00)).String()
		}
		g.exec(t, `
			INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
				provider_name, pay_type_name, nonce, transaction_type, status, amount, currency, destination_amount,
				destination_currency, applied_fee_amount, created_at, updated_at)
			SELECT $1, c.merchant_id, c.id, c.provider_id, $2, 'm', 'p', 'pt', $1, $3, 4, $4::numeric, $5, $4::numeric, $5,
				$6::numeric, $7, $7
			FROM collabs c WHERE c.id = $8`,
			fmt.Sprintf("prev-%d", i), []int32{1, 3}[rng.IntN(2)], 1+rng.IntN(2), money.Cents(cents).String(), cur, fee,
			now.Add(-age), collab)
	}

	create := func(b map[string]any) feeJSON {
		t.Helper()
		b["allowConflict"] = true
		var f feeJSON
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees", b, &f)
		return f
	}
	create(map[string]any{"collabId": c1, "currencyFromId": php, "currencyToId": php, "feeType": 2, "value": "12.5"})
	create(map[string]any{"collabId": c1, "transactionType": 2, "payTypeId": 3, "currencyFromId": php, "currencyToId": php, "feeType": 1, "value": "0.75", "amountMax": "800"})
	edited := create(map[string]any{"collabId": c2, "currencyFromId": php, "currencyToId": php, "feeType": 1, "value": "1.25", "amountMin": "100", "amountMax": "1500"})
	create(map[string]any{"collabId": c2, "currencyFromId": php, "currencyToId": php, "feeType": 2, "value": "3", "priority": 9, "amountMin": "1000"})
	create(map[string]any{"currencyFromId": usd, "currencyToId": usd, "feeType": 1, "value": "2.3333"})
	admin.expectChanges(t, 3+5)

	cases := []struct {
		name string
		id   string
		fee  map[string]any
	}{
		{"edit a collab fee's value and range", edited.ID, map[string]any{"collabId": c2, "currencyFromId": php, "currencyToId": php,
			"feeType": 1, "value": "1.9", "amountMin": "50", "amountMax": "1200.37"}},
		{"move a collab fee to every collab", edited.ID, map[string]any{"collabId": 0, "transactionType": 1, "currencyFromId": php,
			"currencyToId": php, "feeType": 2, "value": "0.555"}},
		{"disable a fee", edited.ID, map[string]any{"collabId": c2, "currencyFromId": php, "currencyToId": php, "feeType": 1,
			"value": "1.25", "amountMin": "100", "amountMax": "1500", "enabled": false}},
		{"a new global USD fee", "0", map[string]any{"currencyFromId": usd, "currencyToId": usd, "payTypeId": 1, "feeType": 1,
			"value": "4.125", "priority": 2}},
		{"a new fee of type None", "0", map[string]any{"collabId": c3, "currencyFromId": php, "currencyToId": php, "feeType": 0}},
	}
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			id, _ := strconv.ParseInt(tt.id, 10, 64)
			var got feePreviewJSON
			admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees/preview", map[string]any{"id": id, "fee": tt.fee}, &got)
			want := bruteForcePreview(t, g, id, tt.fee, now)
			gotText, _ := json.Marshal(got.Currencies)
			if string(gotText) != want {
				t.Errorf("preview %s\nwant    %s", gotText, want)
			}
			admin.expectChanges(t, 0)
		})
	}

	t.Run("a merchant user's global preview stays within its collabs", func(t *testing.T) {
		editor := g.feeUser(t, access.RoleMerchantAdmin, []string{access.PermViewFees, access.PermEditFees}, m1)
		editor.refused(t, http.StatusForbidden, 0, http.MethodPost, "/api/v1/fees/preview",
			map[string]any{"fee": map[string]any{"currencyFromId": php, "currencyToId": php, "feeType": 1, "value": "1"}})
		editor.refused(t, http.StatusNotFound, 0, http.MethodPost, "/api/v1/fees/preview",
			map[string]any{"id": id64(t, edited.ID), "fee": map[string]any{"collabId": c1, "currencyFromId": php, "currencyToId": php, "feeType": 1, "value": "1"}})
	})
}

func id64(t *testing.T, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// bruteForcePreview recomputes a preview transaction by transaction: the
// enabled fees with fee id replaced by body, the winner of each
// transaction (payment.SelectFee) and its charge.
func bruteForcePreview(t *testing.T, g *testGateway, id int64, body map[string]any, now time.Time) string {
	t.Helper()
	ctx := context.Background()
	rows, err := g.pool.Query(ctx, `SELECT id, COALESCE(collab_id, 0), COALESCE(transaction_type, 0), COALESCE(pay_type_id, 0),
		currency_from, currency_to, amount_min::text, amount_max::text, fee_type, value::text, priority, enabled FROM fees`)
	if err != nil {
		t.Fatal(err)
	}
	parse := func(s *string) money.Amount {
		if s == nil || *s == "" {
			return money.Amount{}
		}
		a, err := money.Parse("amount", *s)
		if err != nil {
			t.Fatal(err)
		}
		return a
	}
	fees, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (payment.Fee, error) {
		var f payment.Fee
		var lo, hi *string
		var v string
		err := r.Scan(&f.ID, &f.CollabID, &f.Type, &f.PayTypeID, &f.CurrencyFrom, &f.CurrencyTo, &lo, &hi, &f.FeeType, &v, &f.Priority, &f.Enabled)
		f.AmountMin, f.AmountMax = parse(lo), parse(hi)
		f.Value, _ = payment.ParseDecimal4(v)
		return f, err
	})
	if err != nil {
		t.Fatal(err)
	}
	num := func(k string) int64 {
		switch v := body[k].(type) {
		case int:
			return int64(v)
		case int32:
			return int64(v)
		}
		return 0
	}
	code := func(k string) string {
		var c string
		if err := g.pool.QueryRow(ctx, `SELECT code FROM currencies WHERE id = $1`, num(k)).Scan(&c); err != nil {
			t.Fatal(err)
		}
		return c
	}
	str := func(k string) *string {
		if s, ok := body[k].(string); ok {
			return &s
		}
		return nil
	}
	nf := payment.Fee{ID: id, CollabID: int32(num("collabId")), Type: payment.Type(num("transactionType")), PayTypeID: int32(num("payTypeId")),
		CurrencyFrom: code("currencyFromId"), CurrencyTo: code("currencyToId"), AmountMin: parse(str("amountMin")),
		AmountMax: parse(str("amountMax")), FeeType: payment.FeeType(num("feeType")), Priority: int32(num("priority")), Enabled: true}
	if v := str("value"); v != nil {
		nf.Value, _ = payment.ParseDecimal4(*v)
	}
	if e, ok := body["enabled"].(bool); ok {
		nf.Enabled = e
	}
	versions := []payment.Fee{nf}
	var current []payment.Fee
	for _, f := range fees {
		if f.ID == id {
			versions = append(versions, f)
			continue
		}
		if f.Enabled {
			current = append(current, f)
		}
	}
	if nf.Enabled {
		current = append(current, nf)
	}
	inScope := func(f payment.Fee, collab int32, typ payment.Type, pt int32, cur string, amount money.Amount) bool {
		return f.CurrencyFrom == f.CurrencyTo && f.CurrencyFrom == cur && (f.CollabID == 0 || f.CollabID == collab) &&
			(f.Type == 0 || f.Type == typ) && (f.PayTypeID == 0 || f.PayTypeID == pt) &&
			(!f.AmountMin.IsSet() || amount.CentsValue() >= f.AmountMin.CentsValue()) &&
			(!f.AmountMax.IsSet() || amount.CentsValue() <= f.AmountMax.CentsValue())
	}
	txRows, err := g.pool.Query(ctx, `SELECT collab_id, transaction_type, pay_type_id, currency, amount::text,
		COALESCE(applied_fee_amount, 0)::text, created_at FROM transactions WHERE created_at < $1`, now.Add(time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	type sums struct{ count, changed, before, after int64 }
	per := map[string]*sums{}
	var curs []string
	for txRows.Next() {
		var collab, pt int32
		var typ payment.Type
		var cur, amountText, feeText string
		var created time.Time
		if err := txRows.Scan(&collab, &typ, &pt, &cur, &amountText, &feeText, &created); err != nil {
			t.Fatal(err)
		}
		if created.Before(now.Add(-30*24*time.Hour)) || collab == g.fenceCollab {
			continue
		}
		amount, before := parse(&amountText), parse(&feeText)
		affected := false
		for _, v := range versions {
			affected = affected || inScope(v, collab, typ, pt, cur, amount)
		}
		if !affected {
			continue
		}
		after := money.Cents(0)
		if w, ok := payment.SelectFee(current, collab, typ, pt, cur, amount); ok {
			after = w.Charge(amount)
		}
		s := per[cur]
		if s == nil {
			s = &sums{}
			per[cur] = s
			curs = append(curs, cur)
		}
		s.count++
		s.before += before.CentsValue()
		s.after += after.CentsValue()
		if after != before {
			s.changed++
		}
	}
	if err := txRows.Err(); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.WriteString("[")
	slices.Sort(curs)
	for i, c := range curs {
		s := per[c]
		if i > 0 {
			out.WriteString(",")
		}
		fmt.Fprintf(&out, `{"currency":%q,"transactionCount":"%d","changedCount":"%d","feeBefore":%q,"feeAfter":%q}`,
			c, s.count, s.changed, money.Cents(s.before).String(), money.Cents(s.after).String())
	}
	out.WriteString("]")
	return out.String()
}

// TestFeeChangeReachesTheNextPayment changes a fee through one gateway and
// pays through another on the same schema: the second applies the change
// to its next payment (the fees table moves the configuration version).
func TestFeeChangeReachesTheNextPayment(t *testing.T) {
	e := newPayEnv(t)
	jwks := authztest.ServeJWKS(t, e.issuer)
	// The replica seeds the demo connections too: with the same sandbox.
	var base string
	if err := e.pool.QueryRow(context.Background(), `SELECT base_url FROM provider_connections c JOIN providers p
		ON p.id = c.provider_id WHERE p.id = 1`).Scan(&base); err != nil {
		t.Fatal(err)
	}
	replica := startGatewayIn(t, e.schema, jwks.URL, map[string]string{"PAYGATE_SANDBOX_URL": base[:strings.LastIndex(base, "/")]})
	php := e.currencyID(t, "PHP")
	pay := func(nonce string) txJSON {
		t.Helper()
		raw, _ := json.Marshal(e.payload(nonce, "1000.00", 1, "1"))
		req, _ := http.NewRequest(http.MethodPost, replica.HTTPURL+"/api/v1/transactions/initialize", bytes.NewReader(raw))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.admin.token)
		resp, err := e.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		var out initJSON
		if err := json.Unmarshal(body, &out); err != nil || out.ID == "" {
			t.Fatalf("initialize on the replica: %d %s", resp.StatusCode, body)
		}
		return e.get(t, e.admin, out.ID)
	}
	before := pay("fee-before")
	var f feeJSON
	e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/fees", map[string]any{"collabId": e.govip, "currencyFromId": php,
		"currencyToId": php, "feeType": 2, "value": "7", "payer": 1, "allowConflict": true}, &f)
	got := pay("fee-created")
	if got.AppliedFeeID != f.ID || got.AppliedFeeAmount != "7.00" || got.AppliedFeeID == before.AppliedFeeID {
		t.Errorf("after the create: fee %s %s, want fee %s 7.00 (before: %s)", got.AppliedFeeID, got.AppliedFeeAmount, f.ID, before.AppliedFeeID)
	}
	e.admin.must(t, http.StatusOK, http.MethodPut, "/api/v1/fees/"+f.ID, map[string]any{"collabId": e.govip, "currencyFromId": php,
		"currencyToId": php, "feeType": 1, "value": "2", "payer": 1, "allowConflict": true}, nil)
	if got := pay("fee-updated"); got.AppliedFeeID != f.ID || got.AppliedFeeAmount != "20.00" || got.AppliedFeeType != 1 {
		t.Errorf("after the update: fee %s type %d %s, want fee %s 2%% = 20.00", got.AppliedFeeID, got.AppliedFeeType, got.AppliedFeeAmount, f.ID)
	}
	e.admin.must(t, http.StatusOK, http.MethodDelete, "/api/v1/fees/"+f.ID, nil, nil)
	if got := pay("fee-deleted"); got.AppliedFeeID == f.ID {
		t.Errorf("after the delete: fee %s still applied", got.AppliedFeeID)
	}
}
