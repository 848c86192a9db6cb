package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/sensitive"
)

// callConfirmed is in.call with a confirmation token in X-Paygate-Confirmation.
func (in *instance) callConfirmed(t *testing.T, method, path, token, confirmation string, body any) reply {
	t.Helper()
	return in.callWith(t, method, path, token, testIP(), body, map[string]string{"X-Paygate-Confirmation": confirmation})
}

// requestOptions reads a begin answer's WebAuthn request options.
func requestOptions(t *testing.T, b reply) map[string]any {
	t.Helper()
	var opts map[string]any
	if err := json.Unmarshal([]byte(b.str("publicKeyOptions")), &opts); err != nil {
		t.Fatalf("publicKeyOptions %q: %v", b.str("publicKeyOptions"), err)
	}
	if pk, ok := opts["publicKey"].(map[string]any); ok {
		return pk
	}
	return opts
}

// TestConfirmationWebAuthn walks the whole step-up of one of auth's own
// sensitive calls with a passkey, as the console does it: the call answers
// 428 with the described action, the passkey signs the challenge derived
// from it, the call is repeated with the token and applied once; an
// assertion of another challenge and a replayed token are refused, and the
// stored proof re-verifies while a tampered copy does not.
func TestConfirmationWebAuthn(t *testing.T) {
	in := confirmInstance(t)
	admin := asAdmin(t, in)
	// An admin-wide user with a passkey (step-up concerns admin-wide users by default).
	u := addUser(t, in, admin, "cfm-pk", 1, nil)
	tok, _ := in.mustLogin(t, u.name, u.password, testIP())
	key := newSoftKey(t)
	in.registerPasskey(t, tok, testIP(), key, "confirmation key")
	tok, _ = in.mustLogin(t, u.name, u.password, testIP()) // a token whose cfm lists role.create

	body := map[string]any{"name": "pk role " + randomHex(3), "permissions": []string{"Allow IP"}, "globalScope": true}
	first := in.call(t, http.MethodPost, "/api/v1/roles", tok, testIP(), body)
	wantStatus(t, "create role without confirmation", first, http.StatusPreconditionRequired)
	described, _ := first.body["confirmation"].(map[string]any)
	action, _ := described["action"].(string)
	request, _ := described["request"].(string)
	if !strings.Contains(action, `"role.create"`) || request == "" {
		t.Fatalf("428 body %v", first.body)
	}

	b := begin(t, in, tok, action, request, "")
	wantStatus(t, "begin", b, http.StatusOK)
	if b.str("method") != "webauthn" || b.str("digest") != sensitive.Digest([]byte(action)) {
		t.Fatalf("begin answered %v", b.body)
	}
	finish := func(id string, assertion map[string]any) reply {
		raw, err := json.Marshal(assertion)
		if err != nil {
			t.Fatal(err)
		}
		return in.call(t, http.MethodPost, "/api/v1/confirmations/"+id+"/finish", tok, testIP(), map[string]any{"assertion": string(raw)})
	}

	// An assertion of another confirmation's challenge does not finish this one.
	other := begin(t, in, tok, action, request, "")
	wantStatus(t, "second begin", other, http.StatusOK)
	key.counter++
	if r := finish(b.str("confirmationId"), key.assert(t, requestOptions(t, other))); r.status == http.StatusOK {
		t.Fatalf("an assertion of another challenge finished: %v", r.body)
	}

	key.counter++
	f := finish(b.str("confirmationId"), key.assert(t, requestOptions(t, b)))
	wantStatus(t, "finish", f, http.StatusOK)
	claims := tokenClaims(t, f.str("token"))
	if claims["prf"] != "webauthn" || claims["act"] != action {
		t.Fatalf("token claims %v", claims)
	}

	applied := in.callConfirmed(t, http.MethodPost, "/api/v1/roles", tok, f.str("token"), body)
	wantStatus(t, "create role with confirmation", applied, http.StatusOK)
	// The same token again: refused, and nothing is created twice.
	wantStatus(t, "replayed token", in.callConfirmed(t, http.MethodPost, "/api/v1/roles", tok, f.str("token"), body), http.StatusConflict)
	// The token answers that exact change only.
	changed := map[string]any{"name": body["name"], "permissions": []string{"Allow IP", "Edit User"}, "globalScope": true}
	if r := in.callConfirmed(t, http.MethodPost, "/api/v1/roles", tok, f.str("token"), changed); r.status == http.StatusOK {
		t.Fatalf("a token applied another change: %v", r.body)
	}

	proofs, _ := claims["proofs"].([]any)
	if len(proofs) != 1 {
		t.Fatalf("proofs %v", claims["proofs"])
	}
	proof, _ := json.Marshal(proofs[0])
	v := in.call(t, http.MethodPost, "/api/v1/confirmations/verify", admin, testIP(), map[string]any{"proof": string(proof)})
	wantStatus(t, "verify", v, http.StatusOK)
	if v.body["valid"] != true || v.str("kind") != "webauthn" || v.str("username") != u.name {
		t.Fatalf("verify answered %v", v.body)
	}
	tampered := strings.Replace(string(proof), `Allow IP`, `Edit User`, 1)
	if tampered == string(proof) {
		t.Fatal("the proof does not hold the action's values")
	}
	v = in.call(t, http.MethodPost, "/api/v1/confirmations/verify", admin, testIP(), map[string]any{"proof": tampered})
	if v.body["valid"] == true || v.str("reason") == "" {
		t.Fatalf("tampered proof answered %v", v.body)
	}
}
