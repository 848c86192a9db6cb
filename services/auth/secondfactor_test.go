package main

import (
	"context"
	"encoding/base32"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/pquerna/otp"
	"github.com/pquerna/otp/hotp"
)

// The second factor, the auth settings and the password policy of issue 27
// (docs/contracts-second-factor.md), against the real service.

// stepNow is the current 30-second TOTP step.
func stepNow() int64 { return time.Now().Unix() / 30 }

// codeAt computes the TOTP code of secret (base32, as the enrolment hands
// it out) for a 30-second step, as an authenticator app would.
func codeAt(t *testing.T, secret string, step int64) string {
	t.Helper()
	if _, err := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret); err != nil {
		t.Fatalf("secret %q is not base32: %v", secret, err)
	}
	code, err := hotp.GenerateCodeCustom(secret, uint64(step), hotp.ValidateOpts{Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
	if err != nil {
		t.Fatal(err)
	}
	return code
}

// codeFor is the code of secret for the step offset steps from now.
func codeFor(t *testing.T, secret string, offset int64) string {
	t.Helper()
	return codeAt(t, secret, stepNow()+offset)
}

// awayFromStepEdge waits until the current 30-second step has at least 8
// seconds left, so that codes computed now keep their step until the server
// checks them.
func awayFromStepEdge() {
	if left := 30 - time.Now().Unix()%30; left < 8 {
		time.Sleep(time.Duration(left)*time.Second + 200*time.Millisecond)
	}
}

// enrolTOTP enrols a TOTP key for the holder of token and returns the secret
// and the recovery codes. The confirming code is of the previous step, so
// that the current and the next step stay usable; confirmStep is its step.
func enrolTOTP(t *testing.T, in *instance, token string) (secret string, codes []string) {
	secret, codes, _ = enrolTOTPAt(t, in, token)
	return secret, codes
}

func enrolTOTPAt(t *testing.T, in *instance, token string) (string, []string, int64) {
	t.Helper()
	b := in.call(t, http.MethodPost, "/api/v1/second-factor/totp/begin", token, testIP(), map[string]any{})
	wantStatus(t, "begin enrolment", b, http.StatusOK)
	e, _ := b.body["enrolment"].(map[string]any)
	secret, _ := e["secret"].(string)
	if url, _ := e["otpauthUrl"].(string); !strings.HasPrefix(url, "otpauth://totp/Paygate:") || !strings.Contains(url, "secret="+secret) {
		t.Fatalf("otpauthUrl %q", url)
	}
	awayFromStepEdge()
	step := stepNow() - 1
	c := in.call(t, http.MethodPost, "/api/v1/second-factor/totp/confirm", token, testIP(), map[string]string{"code": codeAt(t, secret, step)})
	wantStatus(t, "confirm enrolment", c, http.StatusOK)
	return secret, stringsOf(c.body["recoveryCodes"]), step
}

func stringsOf(v any) []string {
	items, _ := v.([]any)
	out := make([]string, len(items))
	for i, x := range items {
		out[i], _ = x.(string)
	}
	return out
}

// challengeOf returns the second-factor challenge of a Login answer.
func challengeOf(t *testing.T, r reply, step string) string {
	t.Helper()
	wantStatus(t, "login", r, http.StatusOK)
	sf, _ := r.body["secondFactor"].(map[string]any)
	if sf == nil || sf["step"] != step || r.str("accessToken") != "" || r.str("refreshToken") != "" {
		t.Fatalf("login answered %v, want step %s and no tokens", r.body, step)
	}
	return sf["challenge"].(string)
}

func TestTOTPEnrolSignInAndRecoveryCodes(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	u := addUser(t, in, admin, "totp", 4, merchantIDs(1))
	tok, _ := in.mustLogin(t, u.name, u.password, testIP())

	st := in.call(t, http.MethodGet, "/api/v1/second-factor", tok, testIP(), nil)
	wantStatus(t, "status", st, http.StatusOK)
	if st.body["enrolled"] != false || st.body["required"] != false {
		t.Fatalf("status before enrolment: %v", st.body)
	}
	wantStatus(t, "confirm before begin", in.call(t, http.MethodPost, "/api/v1/second-factor/totp/confirm", tok, testIP(), map[string]string{"code": "123456"}), http.StatusConflict)
	b := in.call(t, http.MethodPost, "/api/v1/second-factor/totp/begin", tok, testIP(), map[string]any{})
	wantStatus(t, "begin", b, http.StatusOK)
	for name, code := range map[string]string{"letters": "12a456", "five digits": "12345"} {
		r := in.call(t, http.MethodPost, "/api/v1/second-factor/totp/confirm", tok, testIP(), map[string]string{"code": code})
		wantStatus(t, name, r, http.StatusBadRequest)
		if !strings.HasPrefix(r.str("message"), "code ") {
			t.Errorf("%s: %q does not name code", name, r.str("message"))
		}
	}
	// A second begin replaces the pending key.
	secret, codes, confirmStep := enrolTOTPAt(t, in, tok)
	if len(codes) != 10 {
		t.Fatalf("%d recovery codes", len(codes))
	}
	for _, c := range codes {
		if len(c) != 19 || strings.Count(c, "-") != 3 {
			t.Fatalf("recovery code %q is not xxxx-xxxx-xxxx-xxxx", c)
		}
	}
	wantStatus(t, "begin while enrolled", in.call(t, http.MethodPost, "/api/v1/second-factor/totp/begin", tok, testIP(), map[string]any{}), http.StatusConflict)
	st = in.call(t, http.MethodGet, "/api/v1/second-factor", tok, testIP(), nil)
	if st.body["enrolled"] != true || st.body["recoveryCodesLeft"] != float64(10) || st.str("enrolledAt") == "" {
		t.Fatalf("status after enrolment: %v", st.body)
	}
	if got := getUser(t, in, admin, u)["hasSecondFactor"]; got != true {
		t.Fatalf("hasSecondFactor %v", got)
	}
	// The secret is sealed at rest: the stored bytes do not hold it.
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var sealed []byte
	if err := conn.QueryRow(context.Background(), `SELECT secret_sealed FROM `+schema+`.user_totp WHERE user_id = $1`, u.id).Scan(&sealed); err != nil {
		t.Fatal(err)
	}
	raw, _ := base32.StdEncoding.WithPadding(base32.NoPadding).DecodeString(secret)
	if strings.Contains(string(sealed), string(raw)) || strings.Contains(string(sealed), secret) {
		t.Fatal("the TOTP secret is stored in the clear")
	}

	// The password alone no longer signs in.
	ip := testIP()
	ch := challengeOf(t, in.login(t, u.name, u.password, ip), "SIGN_IN_STEP_CODE")
	complete := func(body map[string]string) reply {
		return in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, body)
	}
	for name, body := range map[string]map[string]string{
		"no code":          {"challenge": ch},
		"both":             {"challenge": ch, "code": "123456", "recoveryCode": codes[0]},
		"no challenge":     {"code": "123456"},
		"code not digits":  {"challenge": ch, "code": "abcdef"},
		"recovery garbage": {"challenge": ch, "recoveryCode": "not-a-code"},
	} {
		wantStatus(t, name, complete(body), http.StatusBadRequest)
	}
	wantStatus(t, "unknown challenge", complete(map[string]string{"challenge": "nope", "code": "123456"}), http.StatusUnauthorized)
	// The code that confirmed the enrolment was used: it cannot be used again.
	wantStatus(t, "replayed code", complete(map[string]string{"challenge": ch, "code": codeAt(t, secret, confirmStep)}), http.StatusUnauthorized)
	wantStatus(t, "code of an hour ago", complete(map[string]string{"challenge": ch, "code": codeFor(t, secret, -120)}), http.StatusUnauthorized)
	awayFromStepEdge()
	signInStep := stepNow()
	code := codeAt(t, secret, signInStep)
	ok := complete(map[string]string{"challenge": ch, "code": " " + code[:3] + " " + code[3:]})
	wantStatus(t, "right code", ok, http.StatusOK)
	if ok.str("accessToken") == "" || ok.str("refreshToken") == "" || ok.body["recoveryCodesLeft"] != float64(10) {
		t.Fatalf("completed sign-in: %v", ok.body)
	}
	wantStatus(t, "session of the code", in.call(t, http.MethodGet, "/api/v1/validate-token", ok.str("accessToken"), ip, nil), http.StatusOK)
	wantStatus(t, "challenge used twice", complete(map[string]string{"challenge": ch, "code": codeFor(t, secret, 1)}), http.StatusUnauthorized)

	// The same code on a new challenge: refused, its step is spent.
	ch2 := challengeOf(t, in.login(t, u.name, u.password, ip), "SIGN_IN_STEP_CODE")
	wantStatus(t, "code used twice", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch2, "code": code}), http.StatusUnauthorized)
	// A recovery code, typed in capitals without dashes.
	rc := in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch2, "recoveryCode": strings.ToUpper(strings.ReplaceAll(codes[3], "-", " "))})
	wantStatus(t, "recovery code", rc, http.StatusOK)
	if rc.body["recoveryCodesLeft"] != float64(9) {
		t.Fatalf("recoveryCodesLeft %v", rc.body["recoveryCodesLeft"])
	}
	ch3 := challengeOf(t, in.login(t, u.name, u.password, ip), "SIGN_IN_STEP_CODE")
	wantStatus(t, "recovery code used twice", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch3, "recoveryCode": codes[3]}), http.StatusUnauthorized)

	// Regenerating needs a proof; the old codes stop working.
	wantStatus(t, "regenerate without proof", in.call(t, http.MethodPost, "/api/v1/second-factor/recovery-codes", tok, testIP(), map[string]any{}), http.StatusBadRequest)
	wrong := in.call(t, http.MethodPost, "/api/v1/second-factor/recovery-codes", tok, testIP(), map[string]string{"recoveryCode": codes[3]})
	wantStatus(t, "regenerate with a spent code", wrong, http.StatusBadRequest)
	if !strings.HasPrefix(wrong.str("message"), "recoveryCode ") {
		t.Errorf("message %q does not name recoveryCode", wrong.str("message"))
	}
	re := in.call(t, http.MethodPost, "/api/v1/second-factor/recovery-codes", tok, testIP(), map[string]string{"recoveryCode": codes[5]})
	wantStatus(t, "regenerate", re, http.StatusOK)
	fresh := stringsOf(re.body["recoveryCodes"])
	if len(fresh) != 10 || fresh[0] == codes[0] {
		t.Fatalf("regenerated codes %v", fresh)
	}
	wantStatus(t, "old recovery code", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch3, "recoveryCode": codes[7]}), http.StatusUnauthorized)
	wantStatus(t, "new recovery code", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch3, "recoveryCode": fresh[7]}), http.StatusOK)

	// Disabling needs a proof and ends the other sessions, not this one.
	other, _ := signInWithRecovery(t, in, u, fresh[8])
	wantStatus(t, "disable without proof", in.call(t, http.MethodPost, "/api/v1/second-factor/disable", tok, testIP(), map[string]any{}), http.StatusBadRequest)
	wantStatus(t, "disable with a wrong code", in.call(t, http.MethodPost, "/api/v1/second-factor/disable", tok, testIP(), map[string]string{"code": "000000"}), http.StatusBadRequest)
	wantStatus(t, "disable", in.call(t, http.MethodPost, "/api/v1/second-factor/disable", tok, testIP(), map[string]string{"recoveryCode": fresh[9]}), http.StatusOK)
	wantStatus(t, "this session goes on", in.call(t, http.MethodGet, "/api/v1/validate-token", tok, testIP(), nil), http.StatusOK)
	wantStatus(t, "the other session ended", in.call(t, http.MethodGet, "/api/v1/validate-token", other, testIP(), nil), http.StatusUnauthorized)
	if got := sessionRevokedReason(t, sid(t, other)); got != "second_factor_disabled" {
		t.Errorf("revoked_reason %q", got)
	}
	in.mustLogin(t, u.name, u.password, testIP())
	wantStatus(t, "disable when not enrolled", in.call(t, http.MethodPost, "/api/v1/second-factor/disable", tok, testIP(), map[string]string{"code": "123456"}), http.StatusConflict)
}

// signInWithRecovery signs u in with its password and a recovery code.
func signInWithRecovery(t *testing.T, in *instance, u user, code string) (access, refresh string) {
	t.Helper()
	ip := testIP()
	ch := challengeOf(t, in.login(t, u.name, u.password, ip), "SIGN_IN_STEP_CODE")
	r := in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch, "recoveryCode": code})
	wantStatus(t, "sign in with a recovery code", r, http.StatusOK)
	return r.str("accessToken"), r.str("refreshToken")
}

func TestCodeStepThrottle(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	u := addUser(t, in, admin, "throttle", 4, merchantIDs(1))
	tok, _ := in.mustLogin(t, u.name, u.password, testIP())
	secret, codes := enrolTOTP(t, in, tok)

	// Five wrong codes spend a challenge.
	ch := challengeOf(t, in.login(t, u.name, u.password, testIP()), "SIGN_IN_STEP_CODE")
	for i := range 5 {
		r := in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", testIP(), map[string]string{"challenge": ch, "code": "000000"})
		if i < 4 {
			wantStatus(t, "wrong code", r, http.StatusUnauthorized)
		}
	}
	// Five wrong codes of the user lock its code checks, from any address,
	// right codes included.
	ch = challengeOf(t, in.login(t, u.name, u.password, testIP()), "SIGN_IN_STEP_CODE")
	awayFromStepEdge()
	r := in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", testIP(), map[string]string{"challenge": ch, "code": codeFor(t, secret, 0)})
	wantStatus(t, "locked user", r, http.StatusTooManyRequests)
	if r.header.Get("Retry-After") == "" || r.str("message") != "Too many wrong codes. Try again later." {
		t.Fatalf("429 without Retry-After or message: %v %v", r.header, r.body)
	}
	wantStatus(t, "locked user, recovery code", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", testIP(), map[string]string{"challenge": ch, "recoveryCode": codes[0]}), http.StatusTooManyRequests)
	// The lock did not spend the recovery code.
	var used *time.Time
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	if err := conn.QueryRow(context.Background(), `SELECT min(used_at) FROM `+schema+`.user_recovery_codes WHERE user_id = $1`, u.id).Scan(&used); err != nil {
		t.Fatal(err)
	}
	if used != nil {
		t.Fatal("a refused sign-in spent a recovery code")
	}
}

func TestCodeStepThrottlePerAddress(t *testing.T) {
	t.Parallel()
	in := start(t, "code-ip-limit", map[string]string{"PAYGATE_SECOND_FACTOR_IP_LIMIT": "3"})
	admin := asAdmin(t, in)
	ip := testIP()
	var last string
	// Three users, one wrong code each from one address: the address locks.
	for i := range 3 {
		u := addUser(t, in, admin, "ip-throttle", 4, merchantIDs(1))
		tok, _ := in.mustLogin(t, u.name, u.password, testIP())
		enrolTOTP(t, in, tok)
		ch := challengeOf(t, in.login(t, u.name, u.password, ip), "SIGN_IN_STEP_CODE")
		wantStatus(t, "wrong code", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch, "code": "000000"}), http.StatusUnauthorized)
		if i == 2 {
			last = ch
		}
	}
	wantStatus(t, "locked address", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": last, "code": "000000"}), http.StatusTooManyRequests)
}

func TestAdminResetsSecondFactor(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	merchants := merchantIDs(2)
	u := addUser(t, in, admin, "lost-phone", 6, merchants[:1])
	tok, _ := in.mustLogin(t, u.name, u.password, testIP())
	_, codes := enrolTOTP(t, in, tok)
	a1, r1 := signInWithRecovery(t, in, u, codes[0])

	// A merchant admin of another merchant does not reach the user; a user
	// without Edit User may not call.
	other := addUser(t, in, admin, "other-ma", 4, merchants[1:])
	otherTok, _ := in.mustLogin(t, other.name, other.password, testIP())
	path := "/api/v1/user/" + u.id + "/second-factor/reset"
	wantStatus(t, "out of scope", in.call(t, http.MethodPost, path, otherTok, testIP(), map[string]any{}), http.StatusNotFound)
	wantStatus(t, "without Edit User", in.call(t, http.MethodPost, path, tok, testIP(), map[string]any{}), http.StatusForbidden)
	wantStatus(t, "still enrolled", in.call(t, http.MethodGet, "/api/v1/validate-token", a1, testIP(), nil), http.StatusOK)

	wantStatus(t, "reset", in.call(t, http.MethodPost, path, admin, testIP(), map[string]any{}), http.StatusOK)
	for i, a := range []string{tok, a1} {
		if r := in.call(t, http.MethodGet, "/api/v1/validate-token", a, testIP(), nil); r.status != http.StatusUnauthorized {
			t.Fatalf("session %d after the reset: %d", i, r.status)
		}
	}
	wantStatus(t, "refresh after the reset", in.call(t, http.MethodPost, "/api/v1/refresh-token", "", testIP(), map[string]string{"refreshToken": r1}), http.StatusUnauthorized)
	if got := sessionRevokedReason(t, sid(t, a1)); got != "second_factor_reset" {
		t.Errorf("revoked_reason %q", got)
	}
	// The password alone signs in again.
	in.mustLogin(t, u.name, u.password, testIP())
	wantStatus(t, "reset twice", in.call(t, http.MethodPost, path, admin, testIP(), map[string]any{}), http.StatusConflict)
}

func TestPasswordPolicyCalls(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	u := addUser(t, in, admin, "policy", 4, merchantIDs(1))
	tok, _ := in.mustLogin(t, u.name, u.password, testIP())

	p := in.call(t, http.MethodGet, "/api/v1/password-policy", tok, testIP(), nil)
	wantStatus(t, "policy", p, http.StatusOK)
	if p.body["minLength"] != float64(12) || p.body["maxLength"] != float64(128) {
		t.Fatalf("policy %v", p.body)
	}
	rules := func(password, username string) []string {
		r := in.call(t, http.MethodPost, "/api/v1/password-policy/check", tok, testIP(), map[string]string{"password": password, "username": username})
		wantStatus(t, "check", r, http.StatusOK)
		var out []string
		items, _ := r.body["problems"].([]any)
		for _, x := range items {
			m := x.(map[string]any)
			if !strings.HasPrefix(m["message"].(string), "password ") {
				t.Errorf("message %q does not name password", m["message"])
			}
			out = append(out, m["rule"].(string))
		}
		return out
	}
	for _, tc := range []struct{ password, username, want string }{
		{"", "", "PASSWORD_RULE_REQUIRED"},
		{"              ", "", "PASSWORD_RULE_BLANK"},
		{"short-1", "", "PASSWORD_RULE_TOO_SHORT"},
		{strings.Repeat("x", 129), "", "PASSWORD_RULE_TOO_LONG"},
		{u.name + "-extra", u.name + "-extra", "PASSWORD_RULE_USERNAME"},
		{strings.ToUpper(u.name), "", "PASSWORD_RULE_USERNAME"},
		{"Welcome123456", "", "PASSWORD_RULE_COMMON"},
		{"baseball1234", "", "PASSWORD_RULE_COMMON"},
		{"Sturdy-Harbor-Lantern-7", "", ""},
	} {
		got := strings.Join(rules(tc.password, tc.username), ",")
		if !strings.Contains(got, tc.want) || (tc.want == "" && got != "") {
			t.Errorf("check %q for %q: %s, want %s", tc.password, tc.username, got, tc.want)
		}
	}
	// Short and common: both rules.
	if got := rules("password", ""); len(got) != 2 {
		t.Errorf("check %q: %v, want too short and common", "password", got)
	}

	// An admin's reset to the current password is refused.
	r := in.call(t, http.MethodPost, "/api/v1/user/"+u.id+"/change-password", admin, testIP(), map[string]any{"newPassword": u.password})
	wantStatus(t, "reset to the current password", r, http.StatusBadRequest)
	if r.str("message") != "newPassword must differ from the user's current password." {
		t.Errorf("message %q", r.str("message"))
	}
	wantStatus(t, "the session survived the refusal", in.call(t, http.MethodGet, "/api/v1/validate-token", tok, testIP(), nil), http.StatusOK)
	// The own change names its rules too.
	r = in.call(t, http.MethodPost, "/api/v1/user/change-password", tok, testIP(), map[string]string{"password": u.password, "currentPassword": u.password})
	wantStatus(t, "own change to the current password", r, http.StatusBadRequest)
	if r.str("message") != "password must differ from your current password." {
		t.Errorf("message %q", r.str("message"))
	}
}

// policyInstance is a service on a schema of its own: the auth settings are
// one row per schema, and the tests that change them must not change the
// sign-ins of every other test.
func policyInstance(t *testing.T) *instance {
	t.Helper()
	s := schema + "_policy"
	startMu.Lock()
	if _, ok := instances["policy"]; !ok {
		stops = append(stops, func() {
			if conn, err := pgx.Connect(context.Background(), databaseURL); err == nil {
				_, _ = conn.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+s+" CASCADE")
				_ = conn.Close(context.Background())
			}
		})
	}
	startMu.Unlock()
	return start(t, "policy", map[string]string{"PAYGATE_DATABASE_SCHEMA": s})
}

// TestAuthSettings runs its steps in order: each changes the settings every
// sign-in of the policy instance reads.
func TestAuthSettings(t *testing.T) {
	in := policyInstance(t)
	s := schema + "_policy"
	admin := asAdmin(t, in)
	put := func(token string, settings map[string]any) reply {
		return in.call(t, http.MethodPut, "/api/v1/auth-settings", token, testIP(), map[string]any{"settings": settings})
	}
	settings := func(req string, idle, life int) map[string]any {
		return map[string]any{"requireSecondFactor": req, "sessionIdleTimeoutSeconds": idle, "sessionMaxLifetimeSeconds": life}
	}

	t.Run("defaults and access", func(t *testing.T) {
		g := in.call(t, http.MethodGet, "/api/v1/auth-settings", admin, testIP(), nil)
		wantStatus(t, "get", g, http.StatusOK)
		st, _ := g.body["settings"].(map[string]any)
		if st["requireSecondFactor"] != "REQUIRE_SECOND_FACTOR_OFF" || st["sessionIdleTimeoutSeconds"] != float64(86400) || st["sessionMaxLifetimeSeconds"] != float64(604800) {
			t.Fatalf("default settings %v", st)
		}
		ma, _ := in.mustLogin(t, "merchant-admin", "paygate-demo", testIP())
		wantStatus(t, "get without Settings Access", in.call(t, http.MethodGet, "/api/v1/auth-settings", ma, testIP(), nil), http.StatusForbidden)
		wantStatus(t, "put without Settings Access", put(ma, settings("REQUIRE_SECOND_FACTOR_EVERYONE", 600, 3600)), http.StatusForbidden)
		for name, tc := range map[string]struct {
			body  map[string]any
			field string
		}{
			"unspecified":    {settings("REQUIRE_SECOND_FACTOR_UNSPECIFIED", 600, 3600), "requireSecondFactor"},
			"idle too short": {settings("REQUIRE_SECOND_FACTOR_OFF", 60, 3600), "sessionIdleTimeoutSeconds"},
			"life too long":  {settings("REQUIRE_SECOND_FACTOR_OFF", 600, 99999999), "sessionMaxLifetimeSeconds"},
			"life < idle":    {settings("REQUIRE_SECOND_FACTOR_OFF", 7200, 3600), "sessionMaxLifetimeSeconds"},
		} {
			r := put(admin, tc.body)
			wantStatus(t, name, r, http.StatusBadRequest)
			if !strings.HasPrefix(r.str("message"), tc.field+" ") {
				t.Errorf("%s: %q does not name %s", name, r.str("message"), tc.field)
			}
		}
		g = in.call(t, http.MethodGet, "/api/v1/auth-settings", admin, testIP(), nil)
		if st, _ := g.body["settings"].(map[string]any); st["requireSecondFactor"] != "REQUIRE_SECOND_FACTOR_OFF" {
			t.Fatalf("a refused update changed the settings: %v", st)
		}
	})

	t.Run("require a second factor of admin-wide roles", func(t *testing.T) {
		wantStatus(t, "put", put(admin, settings("REQUIRE_SECOND_FACTOR_ADMIN_WIDE", 86400, 604800)), http.StatusOK)
		in.mustLogin(t, "merchant", "paygate-demo", testIP())
		ip := testIP()
		ch := challengeOf(t, in.login(t, "support", "paygate-demo", ip), "SIGN_IN_STEP_ENROL")
		// The enrolment challenge is no code challenge, and the reverse.
		wantStatus(t, "code on an enrolment challenge", in.call(t, http.MethodPost, "/api/v1/login/second-factor", "", ip, map[string]string{"challenge": ch, "code": "123456"}), http.StatusUnauthorized)
		b := in.call(t, http.MethodPost, "/api/v1/login/second-factor/enrol/begin", "", ip, map[string]string{"challenge": ch})
		wantStatus(t, "begin at sign-in", b, http.StatusOK)
		e, _ := b.body["enrolment"].(map[string]any)
		secret, _ := e["secret"].(string)
		wrong := in.call(t, http.MethodPost, "/api/v1/login/second-factor/enrol/complete", "", ip, map[string]string{"challenge": ch, "code": "000000"})
		wantStatus(t, "wrong first code", wrong, http.StatusBadRequest)
		awayFromStepEdge()
		done := in.call(t, http.MethodPost, "/api/v1/login/second-factor/enrol/complete", "", ip, map[string]string{"challenge": ch, "code": codeFor(t, secret, 0)})
		wantStatus(t, "complete at sign-in", done, http.StatusOK)
		if done.str("accessToken") == "" || len(stringsOf(done.body["recoveryCodes"])) != 10 {
			t.Fatalf("completed enrolment: %v", done.body)
		}
		st := in.call(t, http.MethodGet, "/api/v1/second-factor", done.str("accessToken"), ip, nil)
		if st.body["enrolled"] != true || st.body["required"] != true {
			t.Fatalf("status %v", st.body)
		}
		wantStatus(t, "challenge used twice", in.call(t, http.MethodPost, "/api/v1/login/second-factor/enrol/complete", "", ip, map[string]string{"challenge": ch, "code": codeFor(t, secret, 1)}), http.StatusUnauthorized)
		// Next time support gives a code.
		challengeOf(t, in.login(t, "support", "paygate-demo", testIP()), "SIGN_IN_STEP_CODE")
	})

	t.Run("require a second factor of everyone", func(t *testing.T) {
		wantStatus(t, "put", put(admin, settings("REQUIRE_SECOND_FACTOR_EVERYONE", 86400, 604800)), http.StatusOK)
		challengeOf(t, in.login(t, "merchant", "paygate-demo", testIP()), "SIGN_IN_STEP_ENROL")
		// The admin's own session goes on; set it back for the steps below.
		wantStatus(t, "put", put(admin, settings("REQUIRE_SECOND_FACTOR_OFF", 86400, 604800)), http.StatusOK)
		in.mustLogin(t, "merchant", "paygate-demo", testIP())
	})

	t.Run("idle timeout and lifetime end sessions at refresh", func(t *testing.T) {
		wantStatus(t, "put", put(admin, settings("REQUIRE_SECOND_FACTOR_OFF", 600, 3600)), http.StatusOK)
		conn, err := pgx.Connect(context.Background(), databaseURL)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close(context.Background())
		age := func(sid, column string, by time.Duration) {
			if _, err := conn.Exec(context.Background(), `UPDATE `+s+`.sessions SET `+column+` = `+column+` - $2::interval WHERE id = $1`,
				sid, by.String()); err != nil {
				t.Fatal(err)
			}
		}
		reason := func(sid string) string {
			var r *string
			if err := conn.QueryRow(context.Background(), `SELECT revoked_reason FROM `+s+`.sessions WHERE id = $1`, sid).Scan(&r); err != nil {
				t.Fatal(err)
			}
			if r == nil {
				return ""
			}
			return *r
		}
		refresh := func(tok string) reply {
			return in.call(t, http.MethodPost, "/api/v1/refresh-token", "", testIP(), map[string]string{"refreshToken": tok})
		}

		a, r := in.mustLogin(t, "merchant", "paygate-demo", testIP())
		var expires time.Time
		if err := conn.QueryRow(context.Background(), `SELECT refresh_expires_at FROM `+s+`.sessions WHERE id = $1`, sid(t, a)).Scan(&expires); err != nil {
			t.Fatal(err)
		}
		if d := time.Until(expires); d > 600*time.Second || d < 590*time.Second {
			t.Errorf("refresh expires in %v, want the idle timeout", d)
		}
		// Active within the idle timeout: goes on.
		age(sid(t, a), "last_seen_at", 9*time.Minute)
		ok := refresh(r)
		wantStatus(t, "refresh within the idle timeout", ok, http.StatusOK)
		// Idle for longer: ends.
		age(sid(t, a), "last_seen_at", 11*time.Minute)
		wantStatus(t, "refresh after the idle timeout", refresh(ok.str("refreshToken")), http.StatusUnauthorized)
		if got := reason(sid(t, a)); got != "idle_timeout" {
			t.Errorf("revoked_reason %q", got)
		}

		// Older than the lifetime, however active: ends.
		a, r = in.mustLogin(t, "merchant", "paygate-demo", testIP())
		age(sid(t, a), "created_at", 61*time.Minute)
		wantStatus(t, "refresh after the lifetime", refresh(r), http.StatusUnauthorized)
		if got := reason(sid(t, a)); got != "lifetime" {
			t.Errorf("revoked_reason %q", got)
		}
		// A rotated token never outlives the lifetime.
		a, r = in.mustLogin(t, "merchant", "paygate-demo", testIP())
		age(sid(t, a), "created_at", 55*time.Minute)
		ok = refresh(r)
		wantStatus(t, "refresh near the lifetime", ok, http.StatusOK)
		if err := conn.QueryRow(context.Background(), `SELECT refresh_expires_at FROM `+s+`.sessions WHERE id = $1`, sid(t, a)).Scan(&expires); err != nil {
			t.Fatal(err)
		}
		if d := time.Until(expires); d > 5*time.Minute+10*time.Second {
			t.Errorf("refresh expires in %v, past the lifetime", d)
		}
		wantStatus(t, "put back", put(admin, settings("REQUIRE_SECOND_FACTOR_OFF", 86400, 604800)), http.StatusOK)
	})
}

// A passkey is already two factors: its sign-in needs no code, and it
// proves its owner when disabling the second factor (another's does not).
func TestPasskeyAndSecondFactor(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	u := addUser(t, in, admin, "pk-totp", 4, merchantIDs(1))
	ip := testIP()
	tok, _ := in.mustLogin(t, u.name, u.password, ip)
	key := newSoftKey(t)
	in.registerPasskey(t, tok, ip, key, "laptop")
	enrolTOTP(t, in, tok)

	challengeOf(t, in.login(t, u.name, u.password, ip), "SIGN_IN_STEP_CODE")
	pk := in.passkeySignIn(t, ip, key)
	wantStatus(t, "passkey sign-in", pk, http.StatusOK)
	if pk.str("accessToken") == "" && pk.body["tokenResponse"] == nil {
		t.Fatalf("passkey sign-in gave no tokens: %v", pk.body)
	}

	// Another user's passkey proves nothing.
	v := addUser(t, in, admin, "pk-other", 4, merchantIDs(1))
	vTok, _ := in.mustLogin(t, v.name, v.password, ip)
	otherKey := newSoftKey(t)
	in.registerPasskey(t, vTok, ip, otherKey, "theirs")
	disable := func(answer map[string]any) reply {
		return in.call(t, http.MethodPost, "/api/v1/second-factor/disable", tok, ip, map[string]any{"passkeyCredential": answer})
	}
	r := disable(otherKey.assert(t, in.loginOptions(t, ip, "")))
	wantStatus(t, "another's passkey", r, http.StatusBadRequest)
	if r.str("message") != "passkeyCredential is not a valid passkey of yours." {
		t.Errorf("message %q", r.str("message"))
	}
	wantStatus(t, "own passkey", disable(key.assert(t, in.loginOptions(t, ip, ""))), http.StatusOK)
	in.mustLogin(t, u.name, u.password, ip)
}
