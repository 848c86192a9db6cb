package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// The user-administration tests create their own users, on merchant ids of
// their own, so that they neither depend on nor disturb the demo users that
// other tests sign in as.

const strongPassword = "Tangerine-Orbit-42"

// merchantIDs returns n merchant ids no other test uses.
func merchantIDs(n int) []int32 {
	base := int32(100_000 + rand.IntN(1_000_000_000))
	out := make([]int32, n)
	for i := range out {
		out[i] = base + int32(i)
	}
	return out
}

// testIP returns a client address for one test step.
func testIP() string {
	return fmt.Sprintf("10.%d.%d.%d", 100+rand.IntN(100), rand.IntN(256), 1+rand.IntN(250))
}

// idOf reads a JSON id, which a 64-bit integer carries as a string.
func idOf(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return fmt.Sprintf("%.0f", x)
	}
	return ""
}

// asAdmin signs in as the demo admin.
func asAdmin(t *testing.T, in *instance) string {
	t.Helper()
	tok, _ := in.mustLogin(t, "admin", "paygate-demo", testIP())
	return tok
}

// user is a user a test created.
type user struct {
	id, name, password string
}

// addUser creates a user with a permanent password through the API.
func addUser(t *testing.T, in *instance, token, prefix string, role int, merchants []int32) user {
	t.Helper()
	name := prefix + "-" + randomHex(4)
	r := in.call(t, http.MethodPost, "/api/v1/user/add", token, testIP(), map[string]any{
		"username": name, "password": strongPassword, "roleId": role, "merchantIds": merchants,
		"isTemporaryPassword": false,
	})
	wantStatus(t, "add user "+name, r, http.StatusOK)
	u, _ := r.body["user"].(map[string]any)
	return user{id: idOf(u["id"]), name: name, password: strongPassword}
}

// getUser reads a user as the demo admin sees it in the list.
func getUser(t *testing.T, in *instance, adminToken string, u user) map[string]any {
	t.Helper()
	r := in.call(t, http.MethodGet, "/api/v1/user/users?search="+u.name, adminToken, testIP(), nil)
	wantStatus(t, "list "+u.name, r, http.StatusOK)
	users, _ := r.body["users"].([]any)
	for _, x := range users {
		m := x.(map[string]any)
		if m["username"] == u.name {
			return m
		}
	}
	t.Fatalf("user %s not listed: %v", u.name, r.body)
	return nil
}

func listedNames(r reply, key string) []string {
	var out []string
	items, _ := r.body[key].([]any)
	for _, x := range items {
		out = append(out, fmt.Sprint(x.(map[string]any)["username"]))
	}
	return out
}

func TestListRolesByCaller(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	// Other tests add custom roles as they run: the built-in ones are counted.
	builtIn := func(r reply) []string {
		var names []string
		for _, x := range r.body["roles"].([]any) {
			if m := x.(map[string]any); m["builtIn"] == true {
				names = append(names, m["name"].(string))
			}
		}
		return names
	}
	r := in.call(t, http.MethodGet, "/api/v1/user/roles", admin, testIP(), nil)
	wantStatus(t, "admin roles", r, http.StatusOK)
	if got := builtIn(r); !slices.Contains(got, "Admin") || !slices.Contains(got, "Support") || len(got) != 6 {
		t.Fatalf("admin may give %v", got)
	}
	m := merchantIDs(1)
	ma := addUser(t, in, admin, "ma", 4, m)
	tok, _ := in.mustLogin(t, ma.name, ma.password, testIP())
	r = in.call(t, http.MethodGet, "/api/v1/user/roles", tok, testIP(), nil)
	wantStatus(t, "merchant admin roles", r, http.StatusOK)
	names := builtIn(r)
	if want := []string{"Merchant", "Merchant Admin", "Merchant Finance Manager", "Merchant Support"}; !slices.Equal(names, want) {
		t.Fatalf("merchant admin may give %v, want %v", names, want)
	}
	merchant, _ := in.mustLogin(t, "merchant", "paygate-demo", testIP())
	wantStatus(t, "merchant without Add Users", in.call(t, http.MethodGet, "/api/v1/user/users", merchant, testIP(), nil), http.StatusForbidden)
}

func TestAddUserRules(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(1)
	name := "new-" + randomHex(4)
	add := func(body map[string]any) reply {
		b := map[string]any{"username": name, "password": strongPassword, "roleId": 3, "merchantIds": m}
		for k, v := range body {
			b[k] = v
		}
		return in.call(t, http.MethodPost, "/api/v1/user/add", admin, testIP(), b)
	}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		field  string
	}{
		{"short password", map[string]any{"password": "Short-1"}, 400, "password"},
		{"long password", map[string]any{"password": strings.Repeat("x1", 65)}, 400, "password"},
		{"password is the username", map[string]any{"password": strings.ToUpper(name) + "-ab"[:0]}, 400, "password"},
		{"common password", map[string]any{"password": "Password12345"}, 400, "password"},
		{"keyboard walk", map[string]any{"password": "1qaz2wsx3edc"}, 400, "password"},
		{"username too short", map[string]any{"username": "ab"}, 400, "username"},
		{"username with a space", map[string]any{"username": "a b c"}, 400, "username"},
		{"merchant role without merchants", map[string]any{"merchantIds": []int32{}}, 400, "merchantIds"},
		{"unknown role", map[string]any{"roleId": 99}, 400, "roleId"},
	} {
		r := add(tc.body)
		if r.status != tc.status || !strings.HasPrefix(r.str("message"), tc.field+" ") {
			t.Errorf("%s: %d %v, want %d naming %s", tc.name, r.status, r.body, tc.status, tc.field)
		}
	}
	// A username of 12+ characters makes the "is the username" case real.
	long := "user-" + randomHex(6)
	r := in.call(t, http.MethodPost, "/api/v1/user/add", admin, testIP(), map[string]any{
		"username": long, "password": strings.ToUpper(long), "roleId": 3, "merchantIds": m})
	if r.status != 400 || !strings.Contains(r.str("message"), "username") {
		t.Errorf("password equal to the username: %d %v", r.status, r.body)
	}

	created := add(map[string]any{"username": "  " + name + "  ", "hasStrictAccessRules": true})
	wantStatus(t, "create", created, http.StatusOK)
	u := created.body["user"].(map[string]any)
	if u["username"] != name || u["isIpRestricted"] != true || u["isTemporaryPassword"] != true || u["isDisabled"] != false ||
		fmt.Sprint(u["roleIds"]) != "[3]" || fmt.Sprint(u["roles"]) != "[Merchant]" || fmt.Sprint(u["merchantIds"]) != fmt.Sprint([]float64{float64(m[0])}) {
		t.Fatalf("created user %v", u)
	}
	dup := add(map[string]any{"username": strings.ToUpper(name)})
	wantStatus(t, "same username in other case", dup, http.StatusConflict)
	if !strings.Contains(dup.str("message"), "already exists") {
		t.Fatalf("duplicate: %v", dup.body)
	}
}

func TestListUsersPagesAndFilters(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(2)
	prefix := "pg" + randomHex(3)
	for i := range 3 {
		addUser(t, in, admin, prefix, 3, m[:1+i%2])
	}
	r := in.call(t, http.MethodGet, "/api/v1/user/users?take=2&page=2&search="+strings.ToUpper(prefix), admin, testIP(), nil)
	wantStatus(t, "page 2", r, http.StatusOK)
	if idOf(r.body["totalCount"]) != "3" || r.body["totalPages"] != float64(2) || r.body["currentPage"] != float64(2) || len(listedNames(r, "users")) != 1 {
		t.Fatalf("page 2 of 3 by 2: %v", r.body)
	}
	r = in.call(t, http.MethodGet, fmt.Sprintf("/api/v1/user/users?merchantId=%d&search=%s", m[1], prefix), admin, testIP(), nil)
	wantStatus(t, "by merchant", r, http.StatusOK)
	if idOf(r.body["totalCount"]) != "1" {
		t.Fatalf("users of merchant %d: %v", m[1], r.body)
	}
	wantStatus(t, "take 501", in.call(t, http.MethodGet, "/api/v1/user/users?take=501", admin, testIP(), nil), http.StatusBadRequest)
	wantStatus(t, "page 0 is page 1", in.call(t, http.MethodGet, "/api/v1/user/users?page=0&take=1", admin, testIP(), nil), http.StatusOK)
}

// TestNoPrivilegeEscalation: a Merchant Admin manages only the users of its
// merchants, gives only its merchants and merchant roles, never touches an
// Admin or Support user; nobody drops their own admin right or disables
// themselves. Every refusal leaves the user as it was.
func TestNoPrivilegeEscalation(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(3) // m[0], m[1] are the merchant admin's; m[2] is not
	ma := addUser(t, in, admin, "esc-ma", 4, m[:2])
	mine := addUser(t, in, admin, "esc-mine", 3, m[:1])
	wider := addUser(t, in, admin, "esc-wider", 3, []int32{m[0], m[2]})
	support := addUser(t, in, admin, "esc-support", 2, m[:1])
	otherAdmin := addUser(t, in, admin, "esc-admin", 1, nil)
	tok, _ := in.mustLogin(t, ma.name, ma.password, testIP())

	list := in.call(t, http.MethodGet, "/api/v1/user/users?search=esc-", tok, testIP(), nil)
	wantStatus(t, "list", list, http.StatusOK)
	names := listedNames(list, "users")
	if !slices.Contains(names, ma.name) || !slices.Contains(names, mine.name) ||
		slices.Contains(names, wider.name) || slices.Contains(names, support.name) || slices.Contains(names, otherAdmin.name) {
		t.Fatalf("merchant admin lists %v", names)
	}
	wantStatus(t, "filter by a foreign merchant",
		in.call(t, http.MethodGet, fmt.Sprintf("/api/v1/user/users?merchantId=%d", m[2]), tok, testIP(), nil), http.StatusNotFound)

	snapshot := map[string]map[string]any{}
	for _, u := range []user{ma, mine, wider, support, otherAdmin} {
		snapshot[u.id] = getUser(t, in, admin, u)
	}
	put := func(body map[string]any) reply {
		return in.call(t, http.MethodPut, "/api/v1/user", tok, testIP(), body)
	}
	for _, tc := range []struct {
		name   string
		r      func() reply
		status int
	}{
		{"give a foreign merchant", func() reply { return put(map[string]any{"userId": mine.id, "merchantIds": []int32{m[2]}}) }, 403},
		{"give Admin", func() reply { return put(map[string]any{"userId": mine.id, "roleIds": []int{1}}) }, 403},
		{"give Support", func() reply { return put(map[string]any{"userId": mine.id, "roleIds": []int{2}}) }, 403},
		{"two roles", func() reply { return put(map[string]any{"userId": mine.id, "roleIds": []int{3, 4}}) }, 400},
		{"nothing to update", func() reply { return put(map[string]any{"userId": mine.id}) }, 400},
		{"edit a user with a foreign merchant", func() reply { return put(map[string]any{"userId": wider.id, "isDisabled": true}) }, 404},
		{"edit a Support user", func() reply { return put(map[string]any{"userId": support.id, "isDisabled": true}) }, 404},
		{"edit an Admin", func() reply { return put(map[string]any{"userId": otherAdmin.id, "isDisabled": true}) }, 404},
		{"reset an Admin's password", func() reply {
			return in.call(t, http.MethodPost, "/api/v1/user/"+otherAdmin.id+"/change-password", tok, testIP(), map[string]any{"newPassword": "Another-Strong-77"})
		}, 404},
		{"reset a foreign user's password", func() reply {
			return in.call(t, http.MethodPost, "/api/v1/user/"+wider.id+"/change-password", tok, testIP(), map[string]any{"newPassword": "Another-Strong-77"})
		}, 404},
		{"drop its own Merchant Admin role", func() reply { return put(map[string]any{"userId": ma.id, "roleIds": []int{3}}) }, 403},
		{"disable itself", func() reply { return put(map[string]any{"userId": ma.id, "isDisabled": true}) }, 403},
		{"widen its own merchants", func() reply { return put(map[string]any{"userId": ma.id, "merchantIds": m}) }, 403},
		{"add an Admin", func() reply {
			return in.call(t, http.MethodPost, "/api/v1/user/add", tok, testIP(), map[string]any{"username": "esc-x-" + randomHex(3), "password": strongPassword, "roleId": 1})
		}, 403},
		{"add a user of a foreign merchant", func() reply {
			return in.call(t, http.MethodPost, "/api/v1/user/add", tok, testIP(), map[string]any{"username": "esc-y-" + randomHex(3), "password": strongPassword, "roleId": 3, "merchantIds": []int32{m[0], m[2]}})
		}, 403},
		{"see a foreign user's IPs", func() reply {
			return in.call(t, http.MethodGet, "/api/v1/user/users/"+wider.id+"/ips", tok, testIP(), nil)
		}, 404},
	} {
		r := tc.r()
		if r.status != tc.status || r.str("message") == "" {
			t.Errorf("%s: %d %v, want %d", tc.name, r.status, r.body, tc.status)
		}
	}
	for _, u := range []user{ma, mine, wider, support, otherAdmin} {
		if got := getUser(t, in, admin, u); fmt.Sprint(got) != fmt.Sprint(snapshot[u.id]) {
			t.Errorf("%s changed by refused calls: %v, was %v", u.name, got, snapshot[u.id])
		}
	}
	wantStatus(t, "the foreign user's password is unchanged", in.login(t, wider.name, wider.password, testIP()), http.StatusOK)
	if r := in.call(t, http.MethodGet, "/api/v1/user/users?search=esc-x-", admin, testIP(), nil); idOf(r.body["totalCount"]) != "0" {
		t.Errorf("a refused user was created: %v", r.body)
	}

	// Within its scope the merchant admin does manage.
	ok := put(map[string]any{"userId": mine.id, "merchantIds": []int32{m[1]}, "roleIds": []int{5}})
	wantStatus(t, "edit a user in scope", ok, http.StatusOK)
	if u := ok.body["user"].(map[string]any); fmt.Sprint(u["roles"]) != "[Merchant Finance Manager]" {
		t.Fatalf("edited user %v", u)
	}

	// An Admin cannot drop its own Admin role or disable itself either.
	atok, _ := in.mustLogin(t, otherAdmin.name, otherAdmin.password, testIP())
	for name, body := range map[string]map[string]any{
		"admin drops its Admin role": {"userId": otherAdmin.id, "roleIds": []int{2}},
		"admin disables itself":      {"userId": otherAdmin.id, "isDisabled": true},
	} {
		r := in.call(t, http.MethodPut, "/api/v1/user", atok, testIP(), body)
		wantStatus(t, name, r, http.StatusForbidden)
	}
	if got := getUser(t, in, admin, otherAdmin); fmt.Sprint(got) != fmt.Sprint(snapshot[otherAdmin.id]) {
		t.Errorf("admin changed by refused calls: %v", got)
	}
}

// sessionRevokedReason reads a session's stored revocation reason.
func sessionRevokedReason(t *testing.T, sid string) string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), databaseURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var reason *string
	if err := conn.QueryRow(context.Background(), `SELECT revoked_reason FROM `+schema+`.sessions WHERE id = $1`, sid).Scan(&reason); err != nil {
		t.Fatal(err)
	}
	if reason == nil {
		return ""
	}
	return *reason
}

func TestPasswordResetEndsEverySession(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	u := addUser(t, in, admin, "reset", 4, merchantIDs(1))
	a1, r1 := in.mustLogin(t, u.name, u.password, testIP())
	a2, r2 := in.mustLogin(t, u.name, u.password, testIP())
	wantStatus(t, "before the reset", in.call(t, http.MethodGet, "/api/v1/validate-token", a1, testIP(), nil), http.StatusOK)

	path := "/api/v1/user/" + u.id + "/change-password"
	for name, body := range map[string]map[string]any{
		"weak":             {"newPassword": "short"},
		"common":           {"newPassword": "Welcome123456"},
		"the username":     {"newPassword": u.name + "-"[:0]},
		"another user id":  {"newPassword": "Fresh-Temporary-9", "userId": "1"},
		"missing password": {},
	} {
		r := in.call(t, http.MethodPost, path, admin, testIP(), body)
		wantStatus(t, name, r, http.StatusBadRequest)
		if name != "another user id" && !strings.HasPrefix(r.str("message"), "newPassword ") {
			t.Errorf("%s: message %q does not name newPassword", name, r.str("message"))
		}
	}
	wantStatus(t, "refusals ended nothing", in.call(t, http.MethodGet, "/api/v1/validate-token", a1, testIP(), nil), http.StatusOK)

	wantStatus(t, "reset", in.call(t, http.MethodPost, path, admin, testIP(), map[string]any{"newPassword": "Fresh-Temporary-9", "userId": u.id}), http.StatusOK)
	for i, tok := range []string{a1, a2} {
		wantStatus(t, fmt.Sprintf("access token %d after the reset", i+1), in.call(t, http.MethodGet, "/api/v1/validate-token", tok, testIP(), nil), http.StatusUnauthorized)
	}
	for i, tok := range []string{r1, r2} {
		wantStatus(t, fmt.Sprintf("refresh token %d after the reset", i+1),
			in.call(t, http.MethodPost, "/api/v1/refresh-token", "", testIP(), map[string]string{"refreshToken": tok}), http.StatusUnauthorized)
	}
	if got := sessionRevokedReason(t, tokenClaims(t, a1)["sid"].(string)); got != "password_reset" {
		t.Errorf("revoked_reason %q", got)
	}
	wantStatus(t, "old password", in.login(t, u.name, u.password, testIP()), http.StatusUnauthorized)
	fresh, _ := in.mustLogin(t, u.name, "Fresh-Temporary-9", testIP())
	if tokenClaims(t, fresh)["isTemporaryPassword"] != true {
		t.Fatal("a reset password is not temporary by default")
	}
	// The temporary password admits only the own password change.
	wantStatus(t, "list users with a temporary password", in.call(t, http.MethodGet, "/api/v1/user/users", fresh, testIP(), nil), http.StatusForbidden)
	wantStatus(t, "change to a common password", in.call(t, http.MethodPost, "/api/v1/user/change-password", fresh, testIP(), map[string]string{"password": "iloveyou1234", "currentPassword": "Fresh-Temporary-9"}), http.StatusBadRequest)
	ch := in.call(t, http.MethodPost, "/api/v1/user/change-password", fresh, testIP(), map[string]string{"password": "My-Own-Choice-31", "currentPassword": "Fresh-Temporary-9"})
	wantStatus(t, "own change", ch, http.StatusOK)
	if tokenClaims(t, ch.str("accessToken"))["isTemporaryPassword"] != false {
		t.Fatal("still temporary after the own change")
	}

	// A permanent reset.
	wantStatus(t, "permanent reset", in.call(t, http.MethodPost, path, admin, testIP(), map[string]any{"newPassword": "Permanent-Choice-8", "isTemporaryPassword": false}), http.StatusOK)
	perm, _ := in.mustLogin(t, u.name, "Permanent-Choice-8", testIP())
	if tokenClaims(t, perm)["isTemporaryPassword"] != false {
		t.Fatal("isTemporaryPassword false was ignored")
	}
}

func TestDisabledUserIsLockedOut(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	u := addUser(t, in, admin, "disable", 3, merchantIDs(1))
	access, refresh := in.mustLogin(t, u.name, u.password, testIP())
	r := in.call(t, http.MethodPut, "/api/v1/user", admin, testIP(), map[string]any{"userId": u.id, "isDisabled": true})
	wantStatus(t, "disable", r, http.StatusOK)
	if r.body["user"].(map[string]any)["isDisabled"] != true {
		t.Fatalf("answer %v", r.body)
	}
	wantStatus(t, "access token of a disabled user", in.call(t, http.MethodGet, "/api/v1/validate-token", access, testIP(), nil), http.StatusUnauthorized)
	if r := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", testIP(), map[string]string{"refreshToken": refresh}); r.status < 400 {
		t.Fatalf("refresh of a disabled user: %d", r.status)
	}
	if got := sessionRevokedReason(t, tokenClaims(t, access)["sid"].(string)); got != "user_disabled" {
		t.Errorf("revoked_reason %q", got)
	}
	wantStatus(t, "sign-in of a disabled user", in.login(t, u.name, u.password, testIP()), http.StatusForbidden)
	wantStatus(t, "enable", in.call(t, http.MethodPut, "/api/v1/user", admin, testIP(), map[string]any{"userId": u.id, "isDisabled": false}), http.StatusOK)
	wantStatus(t, "sign-in after enabling", in.login(t, u.name, u.password, testIP()), http.StatusOK)
}
