package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/stdwebhooks"
)

// TestValidation runs the validation endpoints' calls, the payment path
// that asks them and the results' calls on one gateway (its start is most
// of the cost).
func TestValidation(t *testing.T) {
	e := newValidationEnv(t)
	t.Run("endpoints", func(t *testing.T) { testValidationEndpoints(t, e) })
	t.Run("payment path", func(t *testing.T) { testValidationPaymentPath(t, e) })
	t.Run("results", func(t *testing.T) { testValidationResults(t, e) })
}

func testValidationEndpoints(t *testing.T, e *validationEnv) {
	admin := e.user(t, access.RoleAdmin)
	approve := e.merchant + "/validate/approve"
	govip := strconv.Itoa(int(e.govip))

	var created endpointJSON
	t.Run("create with the dialog's defaults, recorded", func(t *testing.T) {
		created = e.endpoint(t, admin, map[string]any{"collabId": e.govip, "url": approve})
		if created.ID == "" || created.CollabID != e.govip || created.URL != approve || created.Priority != 1 ||
			created.Awaitable || created.ForCashIn || created.ForCashOut || created.MerchantID != e.merchantID {
			t.Errorf("created %+v", created)
		}
		rows, events := admin.expectChanges(t, 1)
		r := rows[0]
		if r.ActionType != "Validation Endpoint" || r.MerchantID != e.merchantID || r.CollabID != e.govip || r.ProviderID != 1 ||
			!strings.Contains(r.NewValue, `"Url": "`+approve+`"`) || r.OldValue != "" || r.UserAgent != admin.ua {
			t.Errorf("activity %+v", r)
		}
		if events[0].GetActionType() != "Validation Endpoint" || events[0].GetMerchantId() != e.merchantID {
			t.Errorf("event %v", events[0])
		}
	})

	t.Run("the dialog's rules, nothing written", func(t *testing.T) {
		cases := []struct {
			body map[string]any
			want string
		}{
			{map[string]any{"priority": 0}, "Endpoint URL is required. Collaboration is required. Priority is required."},
			{map[string]any{"collabId": e.govip, "url": approve, "priority": 101}, "Priority must be between 1 and 100."},
			{map[string]any{"collabId": e.govip, "url": "ftp://files.example/x"}, "The URL must start with http:// or https://."},
			{map[string]any{"collabId": e.govip, "url": "http://user:pw@" + strings.TrimPrefix(approve, "http://")}, "The URL must not contain a user name or password."},
		}
		for _, c := range cases {
			if got := admin.refused(t, http.StatusBadRequest, e.govip, http.MethodPost, "/api/v1/collabs/validation-endpoints", c.body); got != c.want {
				t.Errorf("%v: %q, want %q", c.body, got, c.want)
			}
		}
		admin.refused(t, http.StatusNotFound, 0, http.MethodPost, "/api/v1/collabs/validation-endpoints",
			map[string]any{"collabId": 99999, "url": approve})
	})

	t.Run("list by priority, update and delete, each recorded", func(t *testing.T) {
		second := e.endpoint(t, admin, map[string]any{"CollabId": e.govip, "Url": approve + "?n=2", "Priority": 50, "Awaitable": true, "ForCashIn": true})
		admin.expectChanges(t, 1)
		var got endpointJSON
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/collabs/validation-endpoints/"+created.ID,
			map[string]any{"priority": 70, "forCashOut": true}, &got)
		if got.Priority != 70 || !got.ForCashOut || got.URL != approve {
			t.Errorf("updated %+v", got)
		}
		rows, _ := admin.expectChanges(t, 1)
		if rows[0].OldValue != `{"Priority": 1, "ForCashOut": false}` || rows[0].NewValue != `{"Priority": 70, "ForCashOut": true}` ||
			rows[0].Message != "Validation endpoint "+created.ID+" of Test Merchant "+strconv.Itoa(int(e.merchantID))+" × GoVip changed: Priority 1 → 70, ForCashOut false → true." {
			t.Errorf("update entry %+v", rows[0])
		}
		var list []endpointJSON
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+govip+"/validation-endpoints", nil, &list)
		if len(list) != 2 || list[0].ID != second.ID || list[1].ID != created.ID {
			t.Errorf("list %+v, want priority 50 before 70", list)
		}
		// A move to another collab is recorded on both.
		admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/collabs/validation-endpoints/"+second.ID,
			map[string]any{"collabId": e.qrph}, &got)
		rows, _ = admin.expectChanges(t, 2)
		if got.CollabID != e.qrph || rows[0].CollabID != e.qrph || rows[1].CollabID != e.govip {
			t.Errorf("move: %+v, entries %+v", got, rows)
		}
		admin.must(t, http.StatusOK, http.MethodDelete, "/api/v1/collabs/validation-endpoints/"+second.ID, nil, nil)
		rows, _ = admin.expectChanges(t, 1)
		if !strings.Contains(rows[0].Message, "Sensitive action performed") || rows[0].SensitiveActionName != "Validation endpoint removed" ||
			!strings.Contains(rows[0].OldValue, approve+"?n=2") {
			t.Errorf("delete entry %+v", rows[0])
		}
		admin.refused(t, http.StatusNotFound, 0, http.MethodDelete, "/api/v1/collabs/validation-endpoints/"+second.ID, nil)
	})

	t.Run("merchant scope and roles", func(t *testing.T) {
		other := e.user(t, access.RoleMerchantAdmin, 1)
		other.refused(t, http.StatusNotFound, 0, http.MethodGet, "/api/v1/collabs/"+govip+"/validation-endpoints", nil)
		other.refused(t, http.StatusNotFound, e.govip, http.MethodPost, "/api/v1/collabs/validation-endpoints", map[string]any{"collabId": e.govip, "url": approve})
		other.refused(t, http.StatusNotFound, e.govip, http.MethodPost, "/api/v1/collabs/validation-endpoints/"+created.ID, map[string]any{"priority": 2})
		other.refused(t, http.StatusNotFound, e.govip, http.MethodDelete, "/api/v1/collabs/validation-endpoints/"+created.ID, nil)
		// Merchant users without the merchant admin role may not even look.
		e.user(t, access.RoleMerchant, e.merchantID).refused(t, http.StatusForbidden, 0, http.MethodGet, "/api/v1/collabs/"+govip+"/validation-endpoints", nil)
		own := e.user(t, access.RoleMerchantAdmin, e.merchantID)
		var list []endpointJSON
		own.must(t, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+govip+"/validation-endpoints", nil, &list)
		if len(list) != 1 {
			t.Errorf("own merchant admin sees %+v", list)
		}
		own.must(t, http.StatusOK, http.MethodPost, "/api/v1/collabs/validation-endpoints/"+created.ID, map[string]any{"priority": 3}, nil)
		own.expectChanges(t, 1)
		// A move to another merchant's collab is not found, and changes nothing.
		fence := strconv.Itoa(int(e.fenceCollab))
		own.refused(t, http.StatusNotFound, e.govip, http.MethodPost, "/api/v1/collabs/validation-endpoints/"+created.ID, map[string]any{"collabId": e.fenceCollab})
		admin.must(t, http.StatusOK, http.MethodGet, "/api/v1/collabs/"+fence+"/validation-endpoints", nil, &list)
		if len(list) != 0 {
			t.Errorf("the refused move left %+v on the fence collab", list)
		}
	})
}

func testValidationPaymentPath(t *testing.T, e *validationEnv) {
	approve, reject := e.merchant+"/validate/approve", e.merchant+"/validate/reject"
	finalized, err := e.nc.SubscribeSync(bus.Subject(&eventsv1.TransactionFinalized{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = finalized.Unsubscribe() })

	// finalizedEvent waits for the TransactionFinalized event of a
	// transaction.
	finalizedEvent := func(t *testing.T, txID string) *eventsv1.TransactionFinalized {
		t.Helper()
		deadline := time.Now().Add(15 * time.Second)
		for {
			msg, err := finalized.NextMsg(time.Until(deadline))
			if err != nil {
				t.Fatalf("no TransactionFinalized event for %s: %v", txID, err)
			}
			var ev eventsv1.TransactionFinalized
			if err := proto.Unmarshal(msg.Data, &ev); err != nil {
				t.Fatal(err)
			}
			if strconv.FormatInt(ev.GetTransaction().GetTransactionId(), 10) == txID {
				return &ev
			}
		}
	}

	t.Run("an awaitable veto fails the transaction before the provider", func(t *testing.T) {
		e.clearEndpoints(t)
		e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": reject, "awaitable": true, "forCashIn": true})
		out := e.pay(t, "v-veto")
		if out.TransactionStatus != -6 {
			t.Fatalf("answer %+v, want -6 Validation Failed", out)
		}
		if n := e.sandbox.paymentsOf(out.TransactionReferenceID); n != 0 {
			t.Errorf("the provider received %d payments of a vetoed transaction", n)
		}
		calls := e.sandbox.validationsOf(out.ID)
		if len(calls) != 1 {
			t.Fatalf("validation calls %+v", calls)
		}
		// Signed with the merchant's API secret (Standard Webhooks).
		h := calls[0].Header
		ts, _ := strconv.ParseInt(h.Get("webhook-timestamp"), 10, 64)
		if id := h.Get("webhook-id"); id != "vr_"+calls[0].Body["validationId"].(string)+"_1" ||
			!stdwebhooks.Verify(e.secret, id, ts, calls[0].Raw, h.Get("webhook-signature")) || time.Since(time.Unix(ts, 0)).Abs() > time.Minute {
			t.Errorf("the request is not signed with the merchant's secret: %v", h)
		}
		body := calls[0].Body
		account, _ := body["accountData"].(map[string]any)
		if body["transactionReferenceId"] != out.TransactionReferenceID || body["amount"] != "25.00" || body["currency"] != "PHP" ||
			body["transactionType"] != 1.0 || body["collabId"] != float64(e.govip) || body["merchantId"] != float64(e.merchantID) ||
			body["nonce"] != "v-veto" || body["merchantClientId"] != "client-7" || body["payTypeId"] != 1.0 || account["apiToken"] != "t0p" {
			t.Errorf("request body %v", body)
		}
		rs := e.results(t, out.ID)
		if len(rs) != 1 || rs[0].Status != -1 || !rs[0].IsAwaitable || rs[0].ResponseCode != 200 || rs[0].Attempts != 1 ||
			rs[0].Message != demoRejectReason || rs[0].ValidationURL != reject || rs[0].ValidationID != body["validationId"] {
			t.Errorf("results %+v", rs)
		}
		got := e.get(t, e.admin, out.ID)
		if got.TransactionStatus != -6 || got.ProviderTransactionID != "" {
			t.Errorf("transaction %+v", got)
		}
		ev := finalizedEvent(t, out.ID)
		if ev.GetSource() != "Validation" || ev.GetTransaction().GetStatus() != -6 || ev.GetPreviousStatus() != 1 {
			t.Errorf("event %v", ev)
		}
		logs := e.journal(t, out.ID)
		var stages []string
		for _, l := range logs {
			if l.SourceContext == "payment.validation" {
				stages = append(stages, l.Stage)
			}
		}
		if strings.Join(stages, ",") != "Initialization,API Request,API Response,Status Change" {
			t.Errorf("validation journal stages %v in %+v", stages, logs)
		}
		if last := logs[len(logs)-1]; last.Stage != "Status Change" || !strings.Contains(last.Message, "Validation Failed") {
			t.Errorf("last entry %+v", last)
		}
		raw, _ := json.Marshal(logs)
		if bytes.Contains(raw, []byte("t0p")) {
			t.Errorf("a secret reached the journal: %s", raw)
		}
	})

	t.Run("approvals in priority order, then the provider", func(t *testing.T) {
		e.clearEndpoints(t)
		for _, ep := range []struct {
			name      string
			priority  int
			awaitable bool
		}{{"A", 20, true}, {"B", 10, true}, {"C", 10, true}, {"D", 5, false}} {
			e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": approve + "?n=" + ep.name, "priority": ep.priority,
				"awaitable": ep.awaitable, "forCashIn": true})
		}
		out := e.pay(t, "v-order")
		if out.TransactionStatus != 4 || e.sandbox.paymentsOf(out.TransactionReferenceID) != 1 {
			t.Fatalf("answer %+v, want the provider's success", out)
		}
		rs := e.waitResults(t, out.ID)
		var order []string
		for _, r := range rs {
			order = append(order, r.ValidationURL[strings.LastIndex(r.ValidationURL, "=")+1:])
			if r.Status != 1 || r.Attempts != 1 {
				t.Errorf("result %+v", r)
			}
		}
		if strings.Join(order, "") != "BCAD" {
			t.Errorf("results in order %v, want awaitable by priority then id, then the others", order)
		}
		var journaled []string
		providerAt, lastAwaited := -1, -1
		for i, l := range e.journal(t, out.ID) {
			switch {
			case l.SourceContext == "payment.validation" && l.Stage == "API Request":
				journaled = append(journaled, l.Message[strings.LastIndex(l.Message, "=")+1:])
				if l.Message[strings.LastIndex(l.Message, "=")+1:] != "D" {
					lastAwaited = i
				}
			case l.SourceContext == "payment.submit" && l.Stage == "API Request":
				providerAt = i
			}
		}
		if strings.Join(journaled[:3], "") != "BCA" || len(journaled) != 4 {
			t.Errorf("journaled requests %v, want B, C, A first", journaled)
		}
		if providerAt < lastAwaited {
			t.Errorf("the provider (entry %d) was called before the last awaited validation (entry %d)", providerAt, lastAwaited)
		}
	})

	t.Run("a timeout fails an awaitable check", func(t *testing.T) {
		e.clearEndpoints(t)
		e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": e.merchant + "/validate/slow?ms=4000", "awaitable": true, "forCashIn": true})
		start := time.Now()
		out := e.pay(t, "v-timeout")
		if out.TransactionStatus != -6 || time.Since(start) > 3*time.Second {
			t.Fatalf("answer %+v after %s", out, time.Since(start))
		}
		rs := e.results(t, out.ID)
		if len(rs) != 1 || rs[0].Status != -1 || rs[0].ResponseCode != 0 || rs[0].Message != "The endpoint did not answer within "+validationTimeout+"." {
			t.Errorf("results %+v", rs)
		}
		if e.sandbox.paymentsOf(out.TransactionReferenceID) != 0 {
			t.Error("the provider was called after a timeout")
		}
	})

	// The client's text names the resolver ("lookup validator.invalid on
	// 10.255.255.53:53: no such host"): the result, the retry's answer and
	// the journal get a sentence instead.
	t.Run("a call that fails is told in a sentence, never the client's text", func(t *testing.T) {
		e.clearEndpoints(t)
		e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": "http://validator.invalid/validate", "awaitable": true, "forCashIn": true})
		out := e.pay(t, "v-unknown-host")
		if out.TransactionStatus != -6 {
			t.Fatalf("answer %+v", out)
		}
		const want = `The URL's host name "validator.invalid" was not found in DNS.`
		rs := e.results(t, out.ID)
		if len(rs) != 1 || rs[0].Status != -1 || rs[0].Message != want {
			t.Fatalf("results %+v, want the message %q", rs, want)
		}
		var retried resultJSON
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/validation/"+rs[0].ValidationID+"/retry", nil, &retried)
		if retried.Status != -1 || retried.Attempts != 2 || retried.Message != want {
			t.Errorf("retry answered %+v, want the message %q", retried, want)
		}
		var failures int
		for _, l := range e.journal(t, out.ID) {
			if l.Exception != nil {
				failures++
				if l.Exception.Type != "ValidationError" || l.Exception.Message != want {
					t.Errorf("journal exception %+v, want %q", *l.Exception, want)
				}
			}
			for _, leak := range []string{"lookup", "dial tcp", ":53"} {
				if strings.Contains(l.Message, leak) {
					t.Errorf("journal entry %q holds the client's text", l.Message)
				}
			}
		}
		if failures != 2 {
			t.Errorf("%d journaled failures, want 2", failures)
		}
	})

	t.Run("a failure not awaited does not fail the transaction", func(t *testing.T) {
		e.clearEndpoints(t)
		e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": reject, "forCashIn": true})
		out := e.pay(t, "v-told")
		if out.TransactionStatus != 4 {
			t.Fatalf("answer %+v", out)
		}
		rs := e.waitResults(t, out.ID)
		if rs[0].Status != -1 || rs[0].IsAwaitable {
			t.Errorf("results %+v", rs)
		}
		if got := e.get(t, e.admin, out.ID); got.TransactionStatus != 4 {
			t.Errorf("a failure not awaited changed the transaction: %+v", got)
		}
	})

	t.Run("the recovery sweep finishes a validation a crash interrupted", func(t *testing.T) {
		e.clearEndpoints(t)
		template := e.pay(t, "v-template")
		// Two transactions left at Not Confirmed long ago with an awaitable
		// result never asked, as a process dying mid-validation leaves them.
		strand := func(nonce, url string) string {
			t.Helper()
			// One statement, so that the sweep never sees the row without
			// its result.
			var id int64
			err := e.pool.QueryRow(t.Context(), `
				WITH tx AS (
					INSERT INTO transactions (reference_id, merchant_id, collab_id, provider_id, pay_type_id, merchant_name,
						provider_name, pay_type_name, nonce, merchant_client_id, transaction_type, status, status_message,
						amount, currency, destination_amount, destination_currency, account_data, created_at, updated_at)
					SELECT 'PG-'||$2, merchant_id, collab_id, provider_id, pay_type_id, merchant_name, provider_name,
						pay_type_name, $2, merchant_client_id, transaction_type, 1, 'Not Confirmed', amount, currency,
						destination_amount, destination_currency, account_data, now() - interval '10 minutes', now() - interval '10 minutes'
					FROM transactions WHERE id = $1::bigint RETURNING id)
				INSERT INTO validation_results (transaction_id, url, priority, awaitable, created_at, updated_at)
				SELECT id, $3, 1, true, now(), now() FROM tx RETURNING transaction_id`, template.ID, nonce, url).Scan(&id)
			if err != nil {
				t.Fatal(err)
			}
			return strconv.FormatInt(id, 10)
		}
		vetoed, approved := strand("v-stranded-veto", reject), strand("v-stranded-ok", approve)
		e.waitStatus(t, vetoed, -6)
		e.waitStatus(t, approved, 4)
		if e.sandbox.paymentsOf("PG-v-stranded-veto") != 0 || e.sandbox.paymentsOf("PG-v-stranded-ok") != 1 {
			t.Errorf("provider payments: vetoed %d, approved %d", e.sandbox.paymentsOf("PG-v-stranded-veto"), e.sandbox.paymentsOf("PG-v-stranded-ok"))
		}
		if rs := e.results(t, vetoed); len(rs) != 1 || rs[0].Status != -1 || rs[0].Attempts != 1 {
			t.Errorf("vetoed results %+v", rs)
		}
		if rs := e.results(t, approved); len(rs) != 1 || rs[0].Status != 1 || rs[0].Attempts != 1 {
			t.Errorf("approved results %+v", rs)
		}
	})

	t.Run("no validation when the collab's switch is off or the direction differs", func(t *testing.T) {
		e.clearEndpoints(t)
		e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": reject, "awaitable": true, "forCashOut": true})
		out := e.pay(t, "v-direction")
		if out.TransactionStatus != 4 || len(e.results(t, out.ID)) != 0 || len(e.sandbox.validationsOf(out.ID)) != 0 {
			t.Errorf("a cash-out endpoint was asked about a deposit: %+v", out)
		}
		e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": reject, "awaitable": true, "forCashIn": true})
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/collabs/settings",
			map[string]any{"collabId": e.govip, "settings": map[string]string{"ValidateCashIn": "false"}}, nil)
		t.Cleanup(func() { e.exec(t, `UPDATE collabs SET validate_cash_in = true WHERE id = $1`, e.govip) })
		out = e.pay(t, "v-off")
		if out.TransactionStatus != 4 || len(e.results(t, out.ID)) != 0 || len(e.sandbox.validationsOf(out.ID)) != 0 {
			t.Errorf("validation ran with ValidateCashIn off: %+v", out)
		}
	})

	// The callbacks service sends nothing for a finalized event that says
	// the collab's merchant callbacks were off (services/callbacks).
	t.Run("finalized events carry the collab's IsMerchantCallbackEnabled", func(t *testing.T) {
		e.clearEndpoints(t)
		out := e.pay(t, "v-callbacks-on")
		if ev := finalizedEvent(t, out.ID); ev.GetMerchantCallbacksOff() || ev.GetTransaction().GetStatus() != 4 {
			t.Errorf("merchant callbacks on: event %v", ev)
		}
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/collabs/settings",
			map[string]any{"collabId": e.govip, "settings": map[string]string{"IsMerchantCallbackEnabled": "false"}}, nil)
		t.Cleanup(func() { e.exec(t, `UPDATE collabs SET is_merchant_callback_enabled = true WHERE id = $1`, e.govip) })
		out = e.pay(t, "v-callbacks-off")
		if ev := finalizedEvent(t, out.ID); !ev.GetMerchantCallbacksOff() || ev.GetTransaction().GetStatus() != 4 {
			t.Errorf("merchant callbacks off: event %v", ev)
		}
		// An operator's change to a final status likewise.
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+out.ID+"/cancel?transactionStatus=4", nil, nil)
		if ev := finalizedEvent(t, out.ID); !ev.GetMerchantCallbacksOff() || ev.GetTransaction().GetStatus() != -1 || ev.GetSource() != "Operator" {
			t.Errorf("operator's cancel with merchant callbacks off: event %v", ev)
		}
	})
}

func testValidationResults(t *testing.T, e *validationEnv) {
	e.clearEndpoints(t)
	toggle := strings.TrimSuffix(e.merchant, "/merchant") + "/test/toggle"
	ep := e.endpoint(t, e.admin, map[string]any{"collabId": e.govip, "url": toggle, "awaitable": true, "forCashIn": true})
	out := e.pay(t, "r-1")
	if out.TransactionStatus != -6 {
		t.Fatalf("answer %+v", out)
	}
	rs := e.results(t, out.ID)
	if len(rs) != 1 {
		t.Fatalf("results %+v", rs)
	}
	vid := rs[0].ValidationID
	enqueue := "/api/v1/transactions/" + out.ID + "/enqueue"

	t.Run("merchant scope on every call", func(t *testing.T) {
		other := e.user(t, access.RoleMerchantAdmin, 1)
		other.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/transactions/"+out.ID+"/validation", nil, nil)
		other.must(t, http.StatusNotFound, http.MethodPost, "/api/v1/validation/"+vid+"/status/1", nil, nil)
		other.must(t, http.StatusNotFound, http.MethodPost, "/api/v1/validation/"+vid+"/retry", nil, nil)
		e.admin.must(t, http.StatusNotFound, http.MethodPost, "/api/v1/validation/999999/retry", nil, nil)
		// Reading needs Get Transactions; changing needs Edit Transactions.
		e.user(t, access.RoleMerchant, e.merchantID).must(t, http.StatusForbidden, http.MethodPost, "/api/v1/validation/"+vid+"/status/1", nil, nil)
		var own []resultJSON
		e.user(t, access.RoleMerchant, e.merchantID).must(t, http.StatusOK, http.MethodGet, "/api/v1/transactions/"+out.ID+"/validation", nil, &own)
		if len(own) != 1 || own[0].Status != -1 {
			t.Errorf("own merchant sees %+v", own)
		}
		if len(e.sandbox.validationsOf(out.ID)) != 1 {
			t.Error("a refused retry asked the endpoint")
		}
	})

	t.Run("restart refused until every validation is Success", func(t *testing.T) {
		// Final (-6) first: the operator takes it back to Not Confirmed.
		e.admin.must(t, http.StatusUnprocessableEntity, http.MethodPost, enqueue, nil, nil)
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/transactions/"+out.ID+"/status/1?transactionStatus=-6", nil, nil)
		var refusal struct{ Message string }
		e.admin.must(t, http.StatusUnprocessableEntity, http.MethodPost, enqueue, nil, &refusal)
		if !strings.Contains(refusal.Message, "AVR-"+vid) || !strings.Contains(refusal.Message, "Failed") {
			t.Errorf("refusal %q", refusal.Message)
		}
		if e.sandbox.paymentsOf(out.TransactionReferenceID) != 0 {
			t.Error("a refused restart reached the provider")
		}
		e.admin.must(t, http.StatusBadRequest, http.MethodPost, "/api/v1/validation/"+vid+"/status/2", nil, nil)
		var set resultJSON
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/validation/"+vid+"/status/1", nil, &set)
		if set.Status != 1 || set.Attempts != 1 {
			t.Errorf("after set %+v", set)
		}
		var ui *logJSON
		for _, l := range e.journal(t, out.ID) {
			if l.Stage == "UI Update" && strings.Contains(l.Message, "AVR-"+vid) {
				ui = &l
			}
		}
		if ui == nil || !strings.Contains(ui.Message, "from Failed to Success by "+e.admin.name) || !strings.Contains(ui.AuthData, e.admin.name) {
			t.Errorf("no UI Update entry for the set: %+v", ui)
		}
		e.admin.must(t, http.StatusAccepted, http.MethodPost, enqueue, nil, nil)
		if got := e.waitStatus(t, out.ID, 4); e.sandbox.paymentsOf(out.TransactionReferenceID) != 1 {
			t.Errorf("after the restart %+v, provider payments %d", got, e.sandbox.paymentsOf(out.TransactionReferenceID))
		}
		if n := len(e.sandbox.validationsOf(out.ID)); n != 1 {
			t.Errorf("the restart asked the endpoint again (%d calls)", n)
		}
	})

	t.Run("retry asks again and records the attempt", func(t *testing.T) {
		var got resultJSON
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/validation/"+vid+"/retry", nil, &got)
		if got.Status != -1 || got.Attempts != 2 || got.Message != "Toggle says no." {
			t.Errorf("retry while the endpoint says no: %+v", got)
		}
		e.sandbox.approve.Store(true)
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/validation/"+vid+"/retry", nil, &got)
		if got.Status != 1 || got.Attempts != 3 || got.ResponseCode != 200 {
			t.Errorf("retry after approval: %+v", got)
		}
		if n := len(e.sandbox.validationsOf(out.ID)); n != 3 {
			t.Errorf("the endpoint was asked %d times, want 3", n)
		}
		var retried int
		for _, l := range e.journal(t, out.ID) {
			if l.Stage == "API Request" && strings.Contains(l.Message, "asked again by "+e.admin.name) && strings.Contains(l.AuthData, e.admin.name) {
				retried++
			}
		}
		if retried != 2 {
			t.Errorf("%d journaled retries, want 2", retried)
		}
	})

	t.Run("results outlive their endpoint", func(t *testing.T) {
		e.admin.must(t, http.StatusOK, http.MethodDelete, "/api/v1/collabs/validation-endpoints/"+ep.ID, nil, nil)
		rs := e.results(t, out.ID)
		if len(rs) != 1 || rs[0].EndpointID != "0" || rs[0].ValidationURL != toggle || !rs[0].IsAwaitable || rs[0].Attempts != 3 {
			t.Errorf("after the endpoint's deletion %+v", rs)
		}
		var got resultJSON
		e.admin.must(t, http.StatusOK, http.MethodPost, "/api/v1/validation/"+vid+"/retry", nil, &got)
		if got.Attempts != 4 {
			t.Errorf("retry of a deleted endpoint's result: %+v", got)
		}
	})
}
