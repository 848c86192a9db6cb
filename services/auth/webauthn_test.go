package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats.go"
	"google.golang.org/grpc"
	"google.golang.org/protobuf/proto"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/auth/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/authz"
)

// The passkey tests run the real service with its default relying party
// (PAYGATE_WEBAUTHN_RP_ID=localhost, PAYGATE_WEBAUTHN_ORIGINS=
// http://localhost:8080) and answer its ceremonies with softKey, a software
// authenticator. Each test signs in as a user of its own, from addresses of
// its own.

const (
	msgPasskeyNotVerified = "The passkey could not be verified. Please try again."
	msgPasskeyRefused     = "Invalid passkey or authentication failed"
)

// newPasskeyUser creates a Support user with the demo password and returns
// its name and id.
func newPasskeyUser(t *testing.T, in *instance) (string, int64) {
	t.Helper()
	_ = in // the schema exists once an instance runs
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	name := "pk-" + randomHex(4)
	var id int64
	if err := conn.QueryRow(ctx, fmt.Sprintf(`
		WITH u AS (
			INSERT INTO %[1]s.users (username, password_hash)
			SELECT $1, password_hash FROM %[1]s.users WHERE username = 'support'
			RETURNING id)
		INSERT INTO %[1]s.user_roles (user_id, role_id) SELECT id, 2 FROM u
		RETURNING user_id`, schema), name).Scan(&id); err != nil {
		t.Fatal(err)
	}
	return name, id
}

// exec runs SQL against the test schema.
func exec(t *testing.T, sql string, args ...any) int64 {
	t.Helper()
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	tag, err := conn.Exec(ctx, strings.ReplaceAll(sql, "$schema", schema), args...)
	if err != nil {
		t.Fatal(err)
	}
	return tag.RowsAffected()
}

// callRaw is call for answers that are not objects (the passkey list).
func (in *instance) callRaw(t *testing.T, method, path, token, clientIP string) (int, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, in.rest+path, bytes.NewReader(nil))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("X-Forwarded-For", clientIP)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	return res.StatusCode, raw
}

// listedPasskey is an item of GET /api/v1/webauthn/credentials.
type listedPasskey struct {
	ID          string  `json:"id"` // int64 travels as a JSON string
	Description string  `json:"description"`
	CreatedAt   string  `json:"createdAt"`
	LastUsed    *string `json:"lastUsed"`
}

func (in *instance) listPasskeys(t *testing.T, token, ip string) []listedPasskey {
	t.Helper()
	status, raw := in.callRaw(t, http.MethodGet, "/api/v1/webauthn/credentials", token, ip)
	if status != http.StatusOK {
		t.Fatalf("list passkeys: status %d %s", status, raw)
	}
	var out []listedPasskey
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("list passkeys: %s: %v", raw, err)
	}
	return out
}

// options returns the "publicKey" object of an options answer.
func options(t *testing.T, what string, r reply) map[string]any {
	t.Helper()
	wantStatus(t, what, r, http.StatusOK)
	pk, ok := r.body["publicKey"].(map[string]any)
	if !ok {
		t.Fatalf("%s: no publicKey object in %v", what, r.body)
	}
	return pk
}

func (in *instance) registrationOptions(t *testing.T, token, ip, name string) map[string]any {
	t.Helper()
	return options(t, "registration options", in.call(t, http.MethodPost, "/api/v1/webauthn/register/options", token, ip,
		map[string]string{"displayName": name}))
}

func (in *instance) completeRegistration(t *testing.T, token, ip string, answer map[string]any) reply {
	t.Helper()
	return in.call(t, http.MethodPost, "/api/v1/webauthn/register/complete", token, ip, answer)
}

// registerPasskey registers key for the signed-in user and returns the
// stored passkey.
func (in *instance) registerPasskey(t *testing.T, token, ip string, key *softKey, name string) map[string]any {
	t.Helper()
	r := in.completeRegistration(t, token, ip, key.register(t, in.registrationOptions(t, token, ip, name)))
	wantStatus(t, "complete registration", r, http.StatusOK)
	pk, _ := r.body["passkey"].(map[string]any)
	if r.body["success"] != true || pk == nil {
		t.Fatalf("registration answer %v", r.body)
	}
	return pk
}

func (in *instance) loginOptions(t *testing.T, ip, username string) map[string]any {
	t.Helper()
	return options(t, "sign-in options", in.call(t, http.MethodPost, "/api/v1/webauthn/authenticate/options", "", ip,
		map[string]string{"username": username}))
}

func (in *instance) completeLogin(t *testing.T, ip string, answer map[string]any) reply {
	t.Helper()
	return in.call(t, http.MethodPost, "/api/v1/webauthn/authenticate/complete", "", ip, answer)
}

// passkeySignIn runs a whole passkey sign-in with key.
func (in *instance) passkeySignIn(t *testing.T, ip string, key *softKey) reply {
	t.Helper()
	return in.completeLogin(t, ip, key.assert(t, in.loginOptions(t, ip, "")))
}

func wantRefusal(t *testing.T, what string, r reply, status int, message string) {
	t.Helper()
	wantStatus(t, what, r, status)
	if r.str("message") != message {
		t.Fatalf("%s: message %q, want %q", what, r.str("message"), message)
	}
	if _, leaked := r.body["tokenResponse"]; leaked {
		t.Fatalf("%s: a refusal carries tokens: %v", what, r.body)
	}
}

func TestPasskeyRegisterListAndSignIn(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.150.0.1"
	username, userID := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)

	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	audits, err := nc.SubscribeSync("paygate.events.user_audited")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	opts := in.registrationOptions(t, token, ip, "  MacBook Pro  ")
	rp, _ := opts["rp"].(map[string]any)
	user, _ := opts["user"].(map[string]any)
	sel, _ := opts["authenticatorSelection"].(map[string]any)
	if rp["id"] != "localhost" || rp["name"] != "Paygate" || user["name"] != username || opts["attestation"] != "none" {
		t.Fatalf("creation options %v", opts)
	}
	if sel["residentKey"] != "required" || sel["requireResidentKey"] != true || sel["userVerification"] != "preferred" {
		t.Fatalf("authenticator selection %v", sel)
	}
	handle := unb64(t, user["id"].(string))
	if len(handle) != 32 || string(handle) == strconv.FormatInt(userID, 10) {
		t.Fatalf("user.id %q is not a random handle", user["id"])
	}
	if len(unb64(t, opts["challenge"].(string))) < 16 {
		t.Fatalf("challenge %v", opts["challenge"])
	}
	if _, ok := opts["excludeCredentials"]; ok {
		t.Fatalf("a user without passkeys has exclusions: %v", opts["excludeCredentials"])
	}
	if params, _ := opts["pubKeyCredParams"].([]any); len(params) == 0 {
		t.Fatalf("no pubKeyCredParams: %v", opts)
	}

	key := newSoftKey(t)
	r := in.completeRegistration(t, token, ip, key.register(t, opts))
	wantStatus(t, "complete registration", r, http.StatusOK)
	pk, _ := r.body["passkey"].(map[string]any)
	if r.body["success"] != true || pk["description"] != "MacBook Pro" || pk["id"] == "" || pk["createdAt"] == nil {
		t.Fatalf("registration answer %v", r.body)
	}

	// The Users tab shows that the user has a passkey now.
	if listed := listedUser(t, in, username); listed["hasPasskey"] != true {
		t.Fatalf("listed user after registration: %v", listed)
	}

	list := in.listPasskeys(t, token, ip)
	if len(list) != 1 || list[0].Description != "MacBook Pro" || list[0].ID != pk["id"] || list[0].LastUsed != nil || list[0].CreatedAt == "" {
		t.Fatalf("list %+v", list)
	}

	// A second registration excludes the first passkey, and an empty name
	// becomes "Passkey".
	opts2 := in.registrationOptions(t, token, ip, "")
	excl, _ := opts2["excludeCredentials"].([]any)
	if len(excl) != 1 || excl[0].(map[string]any)["id"] != b64(key.credID) || excl[0].(map[string]any)["type"] != "public-key" {
		t.Fatalf("excludeCredentials %v", opts2["excludeCredentials"])
	}
	if got := opts2["user"].(map[string]any)["id"]; got != user["id"] {
		t.Fatalf("the user handle changed between registrations: %v, then %v", user["id"], got)
	}
	second := newSoftKey(t)
	r2 := in.completeRegistration(t, token, ip, second.register(t, opts2))
	wantStatus(t, "second registration", r2, http.StatusOK)
	if d := r2.body["passkey"].(map[string]any)["description"]; d != "Passkey" {
		t.Fatalf("unnamed passkey is called %v", d)
	}

	// Sign in with the first one: the token pair of a password sign-in.
	key.counter = 1
	signIn := in.passkeySignIn(t, ip, key)
	wantStatus(t, "passkey sign-in", signIn, http.StatusOK)
	tr, _ := signIn.body["tokenResponse"].(map[string]any)
	if signIn.body["success"] != true || tr["tokenType"] != "Bearer" || tr["refreshToken"] == "" || tr["expiresIn"] != float64(300) {
		t.Fatalf("sign-in answer %v", signIn.body)
	}
	access, _ := tr["accessToken"].(string)
	if c := tokenClaims(t, access); c["username"] != username || c["sid"] == "" {
		t.Fatalf("claims %v", c)
	}
	v := in.call(t, http.MethodGet, "/api/v1/validate-token", access, ip, nil)
	wantStatus(t, "validate the passkey token", v, http.StatusOK)
	if u, _ := v.body["user"].(map[string]any); u["username"] != username {
		t.Fatalf("validate-token answer %v", v.body)
	}
	refreshed := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", ip, map[string]string{"refreshToken": tr["refreshToken"].(string)})
	wantStatus(t, "refresh the passkey session", refreshed, http.StatusOK)

	list = in.listPasskeys(t, access, ip)
	if len(list) != 2 || list[0].ID != pk["id"] || list[0].LastUsed == nil || list[1].LastUsed != nil {
		t.Fatalf("list after sign-in (oldest first, first one used) %+v", list)
	}

	// Registration was audited through the outbox, actor = target.
	found := 0
	deadline := time.Now().Add(10 * time.Second)
	for found < 2 && time.Now().Before(deadline) {
		msg, err := audits.NextMsg(time.Until(deadline))
		if err != nil {
			break
		}
		var ev eventsv1.UserAudited
		if proto.Unmarshal(msg.Data, &ev) != nil || ev.GetTargetUserId() != userID {
			continue
		}
		if ev.GetAction() != "passkey.registered" || ev.GetActorUserId() != userID || ev.GetActorUsername() != username ||
			ev.GetTargetUsername() != username || ev.GetActorIp() != ip || ev.GetId() == "" {
			t.Fatalf("audit event %v", &ev)
		}
		desc := ev.GetAfter().GetFields()["description"].GetStringValue()
		if desc != "MacBook Pro" && desc != "Passkey" {
			t.Fatalf("audit event after %v", ev.GetAfter())
		}
		found++
	}
	if found != 2 {
		t.Fatalf("%d passkey.registered events, want 2", found)
	}
}

func TestPasskeyLoginOptionsNameNoCredential(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.151.0.1"
	username, _ := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)
	in.registerPasskey(t, token, ip, newSoftKey(t), "Phone")

	withName := in.loginOptions(t, ip, username)
	unknown := in.loginOptions(t, ip, "nobody-"+randomHex(3))
	empty := options(t, "options without a body", in.call(t, http.MethodPost, "/api/v1/webauthn/authenticate/options", "", ip, map[string]any{}))
	for name, o := range map[string]map[string]any{"passkey owner": withName, "unknown user": unknown, "no username": empty} {
		if _, ok := o["allowCredentials"]; ok {
			t.Errorf("%s: options name credentials: %v", name, o)
		}
		if o["rpId"] != "localhost" || o["userVerification"] != "preferred" || o["timeout"] != float64(300000) {
			t.Errorf("%s: options %v", name, o)
		}
		if len(unb64(t, o["challenge"].(string))) < 16 {
			t.Errorf("%s: challenge %v", name, o["challenge"])
		}
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		if len(keys) != len(withName) {
			t.Errorf("%s: keys %v differ from the owner's %v", name, keys, withName)
		}
	}
	if withName["challenge"] == unknown["challenge"] {
		t.Fatal("two sign-ins got the same challenge")
	}
}

func TestPasskeyChallengeIsSingleUse(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.152.0.1"
	username, _ := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)

	key := newSoftKey(t)
	answer := key.register(t, in.registrationOptions(t, token, ip, "Laptop"))
	wantStatus(t, "first registration answer", in.completeRegistration(t, token, ip, answer), http.StatusOK)
	wantRefusal(t, "the same registration answer again", in.completeRegistration(t, token, ip, answer),
		http.StatusBadRequest, msgPasskeyNotVerified)

	key.counter = 1
	assertion := key.assert(t, in.loginOptions(t, ip, ""))
	wantStatus(t, "first sign-in answer", in.completeLogin(t, ip, assertion), http.StatusOK)
	wantRefusal(t, "the same sign-in answer again", in.completeLogin(t, ip, assertion),
		http.StatusUnauthorized, msgPasskeyRefused)
	// Even with a fresh counter, a spent challenge stays spent.
	key.counter = 2
	replay := key.assert(t, map[string]any{"challenge": assertionChallenge(t, assertion)})
	wantRefusal(t, "a new answer to a spent challenge", in.completeLogin(t, ip, replay),
		http.StatusUnauthorized, msgPasskeyRefused)

	// A challenge of another user cannot be answered by this one.
	other, _ := newPasskeyUser(t, in)
	otherToken, _ := in.mustLogin(t, other, "paygate-demo", ip)
	foreign := newSoftKey(t).register(t, in.registrationOptions(t, otherToken, ip, "Theirs"))
	wantRefusal(t, "answering another user's registration challenge", in.completeRegistration(t, token, ip, foreign),
		http.StatusBadRequest, msgPasskeyNotVerified)
	// A sign-in challenge does not register, nor the reverse.
	wantRefusal(t, "registering against a sign-in challenge",
		in.completeRegistration(t, token, ip, newSoftKey(t).register(t, in.loginOptions(t, ip, ""))),
		http.StatusBadRequest, msgPasskeyNotVerified)
	key.counter = 3
	wantRefusal(t, "signing in against a registration challenge",
		in.completeLogin(t, ip, key.assert(t, in.registrationOptions(t, token, ip, "x"))),
		http.StatusUnauthorized, msgPasskeyRefused)
}

// assertionChallenge reads the challenge out of an answer's client data.
func assertionChallenge(t *testing.T, answer map[string]any) string {
	t.Helper()
	resp := answer["response"].(map[string]any)
	var cd struct {
		Challenge string `json:"challenge"`
	}
	if err := json.Unmarshal(unb64(t, resp["clientDataJSON"].(string)), &cd); err != nil {
		t.Fatal(err)
	}
	return cd.Challenge
}

func TestPasskeyWrongOriginOrRelyingPartyRefused(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.153.0.1"
	username, _ := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)

	for name, spoil := range map[string]func(k *softKey){
		"wrong origin":        func(k *softKey) { k.origin = "http://evil.example:8080" },
		"wrong port":          func(k *softKey) { k.origin = "http://localhost:9999" },
		"wrong relying party": func(k *softKey) { k.rpID = "evil.example" },
		"user not present":    func(k *softKey) { k.flags &^= flagUP },
		"backup state, no BE": func(k *softKey) { k.flags = flagUP | flagBS },
	} {
		k := newSoftKey(t)
		spoil(k)
		wantRefusal(t, "registration, "+name, in.completeRegistration(t, token, ip, k.register(t, in.registrationOptions(t, token, ip, name))),
			http.StatusBadRequest, msgPasskeyNotVerified)
	}
	if n := len(in.listPasskeys(t, token, ip)); n != 0 {
		t.Fatalf("refused registrations stored %d passkeys", n)
	}

	key := newSoftKey(t)
	in.registerPasskey(t, token, ip, key, "Good")
	for name, spoil := range map[string]func(k *softKey){
		"wrong origin":        func(k *softKey) { k.origin = "http://evil.example:8080" },
		"wrong relying party": func(k *softKey) { k.rpID = "evil.example" },
		"another key":         func(k *softKey) { k.key = newSoftKey(t).key },
		"user not present":    func(k *softKey) { k.flags &^= flagUP },
	} {
		k := *key
		k.counter = 1
		spoil(&k)
		wantRefusal(t, "sign-in, "+name, in.passkeySignIn(t, ip, &k), http.StatusUnauthorized, msgPasskeyRefused)
	}
	key.counter = 1
	wantStatus(t, "the genuine passkey still signs in", in.passkeySignIn(t, ip, key), http.StatusOK)
}

func TestPasskeySignCounterMustAdvance(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.154.0.1"
	username, _ := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)
	key := newSoftKey(t)
	in.registerPasskey(t, token, ip, key, "Key")

	key.counter = 5
	wantStatus(t, "counter 0 → 5", in.passkeySignIn(t, ip, key), http.StatusOK)
	wantRefusal(t, "counter 5 again", in.passkeySignIn(t, ip, key), http.StatusUnauthorized, msgPasskeyRefused)
	key.counter = 3
	wantRefusal(t, "counter 5 → 3", in.passkeySignIn(t, ip, key), http.StatusUnauthorized, msgPasskeyRefused)
	key.counter = 0
	wantRefusal(t, "counter 5 → 0", in.passkeySignIn(t, ip, key), http.StatusUnauthorized, msgPasskeyRefused)
	key.counter = 6
	wantStatus(t, "counter 5 → 6", in.passkeySignIn(t, ip, key), http.StatusOK)

	// An authenticator without a counter (always 0) is fine.
	flat := newSoftKey(t)
	in.registerPasskey(t, token, ip, flat, "No counter")
	for i := range 2 {
		wantStatus(t, "counter 0, sign-in "+strconv.Itoa(i+1), in.passkeySignIn(t, ip, flat), http.StatusOK)
	}
}

func TestPasskeyDeletion(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.155.0.1"
	owner, ownerID := newPasskeyUser(t, in)
	ownerToken, _ := in.mustLogin(t, owner, "paygate-demo", ip)
	other, _ := newPasskeyUser(t, in)
	otherToken, _ := in.mustLogin(t, other, "paygate-demo", ip)

	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	audits, err := nc.SubscribeSync("paygate.events.user_audited")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}

	key := newSoftKey(t)
	pk := in.registerPasskey(t, ownerToken, ip, key, "Owner's key")
	path := "/api/v1/webauthn/credentials/" + pk["id"].(string)

	wantRefusal(t, "deleting another user's passkey", in.call(t, http.MethodDelete, path, otherToken, ip, nil),
		http.StatusNotFound, "Passkey not found.")
	wantStatus(t, "deleting without signing in", in.call(t, http.MethodDelete, path, "", ip, nil), http.StatusUnauthorized)
	wantRefusal(t, "deleting an unknown id", in.call(t, http.MethodDelete, "/api/v1/webauthn/credentials/999999999", ownerToken, ip, nil),
		http.StatusNotFound, "Passkey not found.")
	if len(in.listPasskeys(t, ownerToken, ip)) != 1 || len(in.listPasskeys(t, otherToken, ip)) != 0 {
		t.Fatal("lists are not per user")
	}
	key.counter = 1
	wantStatus(t, "sign-in before deletion", in.passkeySignIn(t, ip, key), http.StatusOK)

	wantStatus(t, "deleting one's own passkey", in.call(t, http.MethodDelete, path, ownerToken, ip, nil), http.StatusOK)
	if n := len(in.listPasskeys(t, ownerToken, ip)); n != 0 {
		t.Fatalf("%d passkeys after deletion", n)
	}
	wantRefusal(t, "deleting it twice", in.call(t, http.MethodDelete, path, ownerToken, ip, nil), http.StatusNotFound, "Passkey not found.")
	key.counter = 2
	wantRefusal(t, "sign-in with a deleted passkey", in.passkeySignIn(t, ip, key), http.StatusUnauthorized, msgPasskeyRefused)

	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		msg, err := audits.NextMsg(time.Until(deadline))
		if err != nil {
			break
		}
		var ev eventsv1.UserAudited
		if proto.Unmarshal(msg.Data, &ev) != nil || ev.GetTargetUserId() != ownerID || ev.GetAction() != "passkey.deleted" {
			continue
		}
		if ev.GetActorUserId() != ownerID || ev.GetBefore().GetFields()["description"].GetStringValue() != "Owner's key" || ev.GetAfter() != nil {
			t.Fatalf("audit event %v", &ev)
		}
		return
	}
	t.Fatal("no passkey.deleted event")
}

func TestPasskeyExpiredChallengeRefused(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.156.0.1"
	username, _ := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)

	key := newSoftKey(t)
	opts := in.registrationOptions(t, token, ip, "Late")
	if n := exec(t, `UPDATE $schema.webauthn_challenges SET expires_at = now() - interval '1 second' WHERE challenge = $1`, opts["challenge"]); n != 1 {
		t.Fatalf("aged %d registration challenges", n)
	}
	wantRefusal(t, "an expired registration challenge", in.completeRegistration(t, token, ip, key.register(t, opts)),
		http.StatusBadRequest, msgPasskeyNotVerified)

	in.registerPasskey(t, token, ip, key, "On time")
	login := in.loginOptions(t, ip, "")
	if n := exec(t, `UPDATE $schema.webauthn_challenges SET expires_at = now() - interval '1 second' WHERE challenge = $1`, login["challenge"]); n != 1 {
		t.Fatalf("aged %d sign-in challenges", n)
	}
	// Refused whether this answer finds the aged challenge (expired) or
	// another test's ceremony purged it first (unknown).
	key.counter = 1
	wantRefusal(t, "an expired sign-in challenge", in.completeLogin(t, ip, key.assert(t, login)), http.StatusUnauthorized, msgPasskeyRefused)
	key.counter = 2
	wantStatus(t, "a fresh challenge", in.passkeySignIn(t, ip, key), http.StatusOK)

	// Expired challenges are purged when new ones are made.
	stale := in.loginOptions(t, ip, "")
	exec(t, `UPDATE $schema.webauthn_challenges SET expires_at = now() - interval '1 minute' WHERE challenge = $1`, stale["challenge"])
	in.loginOptions(t, ip, "")
	if n := exec(t, `DELETE FROM $schema.webauthn_challenges WHERE challenge = $1`, stale["challenge"]); n != 0 {
		t.Fatal("an expired challenge survived the next ceremony")
	}
}

func TestPasskeyRegistrationInput(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.157.0.1"
	username, _ := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)

	r := in.call(t, http.MethodPost, "/api/v1/webauthn/register/options", token, ip, map[string]string{"displayName": strings.Repeat("é", 65)})
	wantRefusal(t, "a 65-character name", r, http.StatusBadRequest, "The passkey name must be at most 64 characters long.")
	in.registrationOptions(t, token, ip, strings.Repeat("é", 64))

	for what, path := range map[string]string{
		"options": "/api/v1/webauthn/register/options", "complete": "/api/v1/webauthn/register/complete",
	} {
		wantStatus(t, "registration "+what+" without signing in", in.call(t, http.MethodPost, path, "", ip, map[string]string{}), http.StatusUnauthorized)
	}
	status, _ := in.callRaw(t, http.MethodGet, "/api/v1/webauthn/credentials", "", ip)
	if status != http.StatusUnauthorized {
		t.Fatalf("list without signing in: %d", status)
	}
	for name, body := range map[string]any{
		"empty object": map[string]any{},
		"garbage":      map[string]any{"id": "x", "response": "nope"},
	} {
		wantRefusal(t, "registration answer: "+name, in.completeRegistration(t, token, ip, body.(map[string]any)),
			http.StatusBadRequest, msgPasskeyNotVerified)
		wantRefusal(t, "sign-in answer: "+name, in.completeLogin(t, ip, body.(map[string]any)),
			http.StatusUnauthorized, msgPasskeyRefused)
	}

	// A user with a temporary password must change it first.
	tempUser, tempID := newPasskeyUser(t, in)
	exec(t, `UPDATE $schema.users SET is_temporary_password = true WHERE id = $1`, tempID)
	temp, _ := in.mustLogin(t, tempUser, "paygate-demo", "10.157.0.2")
	wantStatus(t, "registration with a temporary password", in.call(t, http.MethodPost, "/api/v1/webauthn/register/options", temp, "10.157.0.2",
		map[string]string{}), http.StatusForbidden)
}

// TestPasskeySignInIsThrottled: refused passkeys count against the address
// like failed passwords, and against the owner's username when the passkey
// is known.
func TestPasskeySignInIsThrottled(t *testing.T) {
	t.Parallel()
	in := start(t, "passkey-ip-limit-3", map[string]string{"PAYGATE_LOGIN_IP_LIMIT": "3"})
	const ip = "10.158.0.1"
	username, _ := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", "10.158.1.1")
	key := newSoftKey(t)
	in.registerPasskey(t, token, "10.158.1.1", key, "Key")

	for i := range 3 { // three unknown passkeys: three distinct failures
		wantRefusal(t, "unknown passkey "+strconv.Itoa(i+1), in.passkeySignIn(t, ip, newSoftKey(t)), http.StatusUnauthorized, msgPasskeyRefused)
	}
	key.counter = 1
	r := in.passkeySignIn(t, ip, key)
	wantStatus(t, "a genuine passkey from the locked address", r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" {
		t.Fatal("no Retry-After")
	}
	wantStatus(t, "the same passkey from another address", in.passkeySignIn(t, "10.158.0.2", key), http.StatusOK)

	// Five refused uses of a known passkey lock its owner's username, for
	// passwords too.
	for i := range 5 {
		k := *key
		k.origin = "http://evil.example"
		wantRefusal(t, "known passkey refused "+strconv.Itoa(i+1), in.passkeySignIn(t, fmt.Sprintf("10.158.2.%d", i+1), &k),
			http.StatusUnauthorized, msgPasskeyRefused)
	}
	wantStatus(t, "password sign-in of the locked username", in.login(t, username, "paygate-demo", "10.158.3.1"), http.StatusTooManyRequests)
	key.counter = 2
	wantStatus(t, "passkey sign-in of the locked username", in.passkeySignIn(t, "10.158.3.2", key), http.StatusTooManyRequests)
}

func TestPasskeySignInHonoursIPRestriction(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	username, userID := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", "10.159.0.1")
	key := newSoftKey(t)
	in.registerPasskey(t, token, "10.159.0.1", key, "Key")
	exec(t, `UPDATE $schema.users SET is_ip_restricted = true WHERE id = $1;`, userID)
	exec(t, `INSERT INTO $schema.user_allowed_ips (user_id, name, from_ip, to_ip) VALUES ($1, 'office', '10.159.1.0', '10.159.1.255')`, userID)
	key.counter = 1
	wantStatus(t, "inside the range", in.passkeySignIn(t, "10.159.1.7", key), http.StatusOK)
	key.counter = 2
	out := in.passkeySignIn(t, "10.159.2.7", key)
	wantStatus(t, "outside the range", out, http.StatusForbidden)
	if _, leaked := out.body["tokenResponse"]; leaked {
		t.Fatalf("refusal carries tokens: %v", out.body)
	}
}

func TestEveryWebAuthnRPCHasARule(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	authv1.RegisterWebAuthnServiceServer(srv, grpcapi.NewWebAuthnServer(nil))
	authz.CheckRulesCover(t, srv, grpcapi.WebAuthnRules)
	for method, rule := range grpcapi.WebAuthnRules {
		if rule.AllowTemporaryPassword {
			t.Errorf("%s allows a temporary password", method)
		}
	}
}

// TestPasskeyOfDisabledUserRefused: disabling a user (through the Users
// API) ends its passkey sign-ins too; enabling it again restores them.
func TestPasskeyOfDisabledUserRefused(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	const ip = "10.160.0.1"
	username, userID := newPasskeyUser(t, in)
	token, _ := in.mustLogin(t, username, "paygate-demo", ip)
	key := newSoftKey(t)
	in.registerPasskey(t, token, ip, key, "Key")
	admin := asAdmin(t, in)
	id := strconv.FormatInt(userID, 10)
	wantStatus(t, "disable", in.call(t, http.MethodPut, "/api/v1/user", admin, testIP(), map[string]any{"userId": id, "isDisabled": true}), http.StatusOK)
	key.counter = 1
	r := in.passkeySignIn(t, ip, key)
	wantStatus(t, "passkey sign-in of a disabled user", r, http.StatusForbidden)
	if _, leaked := r.body["tokenResponse"]; leaked {
		t.Fatalf("refusal carries tokens: %v", r.body)
	}
	wantStatus(t, "enable", in.call(t, http.MethodPut, "/api/v1/user", admin, testIP(), map[string]any{"userId": id, "isDisabled": false}), http.StatusOK)
	key.counter = 2
	wantStatus(t, "passkey sign-in after enabling", in.passkeySignIn(t, ip, key), http.StatusOK)
}

// listedUser reads a user as the demo admin sees it in the Users tab.
func listedUser(t *testing.T, in *instance, username string) map[string]any {
	t.Helper()
	return getUser(t, in, asAdmin(t, in), user{name: username})
}
