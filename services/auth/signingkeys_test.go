package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// kidOf returns the kid in a JWT's header.
func kidOf(t *testing.T, token string) string {
	t.Helper()
	raw, err := base64.RawURLEncoding.DecodeString(strings.Split(token, ".")[0])
	if err != nil {
		t.Fatal(err)
	}
	var hdr struct {
		Kid string `json:"kid"`
	}
	if err := json.Unmarshal(raw, &hdr); err != nil {
		t.Fatal(err)
	}
	return hdr.Kid
}

// publishedKids fetches the instance's JWKS.
func publishedKids(t *testing.T, in *instance) map[string]bool {
	t.Helper()
	res, err := http.Get(in.rest + "/.well-known/jwks.json")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	var set struct {
		Keys []struct {
			Kid string `json:"kid"`
		} `json:"keys"`
	}
	if err := json.NewDecoder(res.Body).Decode(&set); err != nil {
		t.Fatal(err)
	}
	kids := map[string]bool{}
	for _, k := range set.Keys {
		kids[k.Kid] = true
	}
	return kids
}

// eventually fails t when cond does not hold within 10s.
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 10s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestSigningKeyRotation rotates the access tokens' signing key with "auth
// signing-keys" against a running service, as docs/operations.md says: a
// key added is published but does not sign; once activated it signs and the
// old key's tokens still verify; once the old key is retired they are
// refused, by the service and by a JWKS verifier.
func TestSigningKeyRotation(t *testing.T) {
	t.Parallel()
	keySchema := "auth_keys_" + randomHex(6)
	t.Cleanup(func() {
		if conn, err := pgx.Connect(context.Background(), databaseURL); err == nil {
			_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+keySchema+" CASCADE")
			_ = conn.Close(context.Background())
		}
	})
	env := map[string]string{
		"PAYGATE_DATABASE_URL":                databaseURL,
		"PAYGATE_DATABASE_SCHEMA":             keySchema,
		"PAYGATE_REDIS_URL":                   redisURL,
		"PAYGATE_REDIS_KEY_PREFIX":            "paygate:test:" + keySchema + ":",
		"PAYGATE_NATS_URL":                    natsURL,
		"PAYGATE_HTTP_ADDR":                   "127.0.0.1:0",
		"PAYGATE_GRPC_ADDR":                   "127.0.0.1:0",
		"PAYGATE_DEMO":                        "true",
		"PAYGATE_TRUSTED_PROXY_HOPS":          "1",
		"PAYGATE_SIGNING_KEY_RELOAD_INTERVAL": "50ms",
	}
	svc := servicetest.Run(t, run, env)
	in := &instance{rest: svc.HTTPURL, grpc: svc.GRPCAddr}
	ctx := context.Background()
	command := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := signingKeysCommand(ctx, func(k string) string { return env[k] }, args, &out)
		return out.String(), err
	}
	mustCommand := func(args ...string) string {
		t.Helper()
		out, err := command(args...)
		if err != nil {
			t.Fatalf("auth signing-keys %v: %v", args, err)
		}
		return out
	}
	validates := func(token string) bool {
		return in.call(t, http.MethodGet, "/api/v1/validate-token", token, "10.70.0.1", nil).status == http.StatusOK
	}
	jwksURL := in.rest + "/.well-known/jwks.json"

	oldToken, _ := in.mustLogin(t, "admin", "paygate-demo", "10.70.0.1")
	oldKid := kidOf(t, oldToken)

	// 1. Add: published by the running replica, not signing.
	out := mustCommand("add")
	m := regexp.MustCompile(`added signing key (\S+):`).FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("add printed %q", out)
	}
	newKid := m[1]
	eventually(t, "the new key in the JWKS", func() bool { return publishedKids(t, in)[newKid] })
	if tok, _ := in.mustLogin(t, "admin", "paygate-demo", "10.70.0.2"); kidOf(t, tok) != oldKid {
		t.Fatalf("a key added ahead signs already (kid %s)", kidOf(t, tok))
	}

	// 2. Activate: the new key signs; the old key's tokens still verify.
	mustCommand("activate", newKid)
	var newToken string
	eventually(t, "tokens signed by the new key", func() bool {
		newToken, _ = in.mustLogin(t, "admin", "paygate-demo", "10.70.0.3")
		return kidOf(t, newToken) == newKid
	})
	verifier := authz.NewJWKSVerifier(jwksURL, nil)
	for name, tok := range map[string]string{"old": oldToken, "new": newToken} {
		if !validates(tok) {
			t.Errorf("the %s key's token is refused by auth during the overlap", name)
		}
		if _, err := verifier.Verify(ctx, tok); err != nil {
			t.Errorf("the %s key's token is refused by a JWKS verifier during the overlap: %v", name, err)
		}
	}
	if _, err := command("retire", newKid); err == nil || !strings.Contains(err.Error(), "activate another key first") {
		t.Errorf("retiring the signing key: %v, want a refusal", err)
	}

	// 3. Retire the old key: its tokens are refused, the new key's are not.
	mustCommand("retire", oldKid)
	eventually(t, "the old key's token refused by auth", func() bool { return !validates(oldToken) })
	if publishedKids(t, in)[oldKid] {
		t.Error("the retired key is still published")
	}
	if !validates(newToken) {
		t.Error("the new key's token is refused after the old key retired")
	}
	fresh := authz.NewJWKSVerifier(jwksURL, nil)
	if _, err := fresh.Verify(ctx, oldToken); err == nil {
		t.Error("a JWKS verifier accepted a token of the retired key")
	}
	if _, err := fresh.Verify(ctx, newToken); err != nil {
		t.Errorf("a JWKS verifier refused the new key's token: %v", err)
	}

	list := mustCommand("list")
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(newKid) + `\s+signing\s`),
		regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(oldKid) + `\s+retired\s`),
	} {
		if !want.MatchString(list) {
			t.Errorf("list does not match %s:\n%s", want, list)
		}
	}
	for _, args := range [][]string{nil, {"rotate"}, {"activate"}, {"add", "x"}, {"activate", "no-such-key"}, {"retire", oldKid}} {
		if _, err := command(args...); err == nil {
			t.Errorf("auth signing-keys %v succeeded", args)
		}
	}
}
