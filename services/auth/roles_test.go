package main

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	goredis "github.com/redis/go-redis/v9"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
)

// The custom-role tests (docs/access.md) make roles and users of their own,
// named with a random suffix and on merchant ids of their own.

// createRole makes a custom role as token and returns its id and name.
func createRole(t *testing.T, in *instance, token, prefix string, global bool, perms ...string) (int, string) {
	t.Helper()
	name := prefix + " " + randomHex(3)
	r := in.call(t, http.MethodPost, "/api/v1/roles", token, testIP(), map[string]any{"name": name, "permissions": perms, "globalScope": global})
	wantStatus(t, "create role "+name, r, http.StatusOK)
	role, _ := r.body["role"].(map[string]any)
	id, _ := role["id"].(float64)
	return int(id), name
}

// listedRole finds a role in token's ListRoles, or nil.
func listedRole(t *testing.T, in *instance, token string, id int) map[string]any {
	t.Helper()
	r := in.call(t, http.MethodGet, "/api/v1/user/roles", token, testIP(), nil)
	wantStatus(t, "list roles", r, http.StatusOK)
	for _, x := range r.body["roles"].([]any) {
		if m := x.(map[string]any); m["id"] == float64(id) {
			return m
		}
	}
	return nil
}

// otherService is another service's view of a token: the JWKS, the Redis
// revocation list, and a rule needing one of perms.
func otherService(t *testing.T, in *instance, perms ...string) func(token string) apperr.Kind {
	t.Helper()
	opts, err := goredis.ParseURL(redisURL)
	if err != nil {
		t.Fatal(err)
	}
	rdb := goredis.NewClient(opts)
	t.Cleanup(func() { _ = rdb.Close() })
	intercept := authz.UnaryInterceptor(authz.NewJWKSVerifier(in.rest+"/.well-known/jwks.json", http.DefaultClient),
		authz.Rules{"/t.S/Call": {Permissions: perms}}, authz.NewRedisRevocations(rdb))
	return func(token string) apperr.Kind {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("authorization", "Bearer "+token))
		_, err := intercept(ctx, nil, &grpc.UnaryServerInfo{FullMethod: "/t.S/Call"}, func(context.Context, any) (any, error) { return "ok", nil })
		return apperr.KindOf(err)
	}
}

func TestCustomRolesLifecycle(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	id, name := createRole(t, in, admin, "Auditors", false, access.PermViewLogs, access.PermGetTransactions, access.PermViewLogs)

	listed := listedRole(t, in, admin, id)
	if listed == nil || listed["name"] != name || listed["builtIn"] == true || listed["globalScope"] == true ||
		fmt.Sprint(listed["permissions"]) != "[Get Transactions View Logs]" || listed["userCount"] != float64(0) {
		t.Fatalf("ListRoles answers %v for the new role", listed)
	}
	if admin := listedRole(t, in, admin, 1); admin == nil || admin["builtIn"] != true || admin["globalScope"] != true || len(admin["permissions"].([]any)) != 30 {
		t.Fatalf("ListRoles answers %v for Admin", admin)
	}

	// A user of the role signs in with exactly its permissions and scope.
	m := merchantIDs(1)
	u := addUser(t, in, admin, "auditor", id, m)
	tok, _ := in.mustLogin(t, u.name, u.password, testIP())
	c := tokenClaims(t, tok)
	if fmt.Sprint(c["permissions"]) != "[Get Transactions View Logs]" || c["globalScope"] != false || fmt.Sprint(c["roles"]) != "["+name+"]" {
		t.Fatalf("claims of a custom role's user: %v", c)
	}
	if got := listedRole(t, in, admin, id)["userCount"]; got != float64(1) {
		t.Errorf("userCount %v, want 1", got)
	}
	holders := in.call(t, http.MethodGet, fmt.Sprintf("/api/v1/user/users?roleId=%d", id), admin, testIP(), nil)
	wantStatus(t, "users of the role", holders, http.StatusOK)
	if got := listedNames(holders, "users"); !slices.Equal(got, []string{u.name}) {
		t.Errorf("users holding the role: %v", got)
	}

	// Rename.
	renamed := name + " EU"
	r := in.call(t, http.MethodPut, fmt.Sprintf("/api/v1/roles/%d", id), admin, testIP(),
		map[string]any{"name": renamed, "permissions": []string{access.PermGetTransactions, access.PermViewLogs}})
	wantStatus(t, "rename", r, http.StatusOK)
	if role := r.body["role"].(map[string]any); role["name"] != renamed || fmt.Sprint(role["permissions"]) != "[Get Transactions View Logs]" {
		t.Fatalf("renamed role %v", role)
	}

	// Refusals, each a sentence naming the field or the role; nothing changes.
	for _, tc := range []struct {
		what, method, path string
		body               map[string]any
		status             int
		says               string
	}{
		{"a taken name, ignoring case", http.MethodPost, "/api/v1/roles", map[string]any{"name": "merchant ADMIN", "permissions": []string{}}, 409, "A role named merchant ADMIN already exists."},
		{"a name too short", http.MethodPost, "/api/v1/roles", map[string]any{"name": " x ", "permissions": []string{}}, 400, "name must be 2 to 64 characters long."},
		{"no name", http.MethodPost, "/api/v1/roles", map[string]any{"permissions": []string{}}, 400, "name is required."},
		{"a name with a line break", http.MethodPost, "/api/v1/roles", map[string]any{"name": "a\nb"}, 400, "name must not hold control characters"},
		{"an unknown permission", http.MethodPost, "/api/v1/roles", map[string]any{"name": "Odd " + randomHex(3), "permissions": []string{"Fly"}}, 400, `permissions holds "Fly", which is not a permission.`},
		{"a built-in role", http.MethodPut, "/api/v1/roles/4", map[string]any{"name": "Merchant Admin", "permissions": []string{}}, 403, "The role Merchant Admin is built in and cannot be changed."},
		{"deleting a built-in role", http.MethodDelete, "/api/v1/roles/1", nil, 403, "The role Admin is built in and cannot be changed."},
		{"an unknown role", http.MethodPut, "/api/v1/roles/32000", map[string]any{"name": "Nobody", "permissions": []string{}}, 404, "Role not found."},
		{"deleting a role in use", http.MethodDelete, fmt.Sprintf("/api/v1/roles/%d", id), nil, 409,
			fmt.Sprintf("The role %s is held by 1 user (%s): give them another role first.", renamed, u.name)},
	} {
		r := in.call(t, tc.method, tc.path, admin, testIP(), tc.body)
		if r.status != tc.status || !strings.HasPrefix(r.str("message"), tc.says) {
			t.Errorf("%s: %d %q, want %d %q", tc.what, r.status, r.str("message"), tc.status, tc.says)
		}
	}

	// Once nobody holds it, it goes.
	wantStatus(t, "give the user another role", in.call(t, http.MethodPut, "/api/v1/user", admin, testIP(),
		map[string]any{"userId": u.id, "roleIds": []int{3}}), http.StatusOK)
	wantStatus(t, "delete", in.call(t, http.MethodDelete, fmt.Sprintf("/api/v1/roles/%d", id), admin, testIP(), nil), http.StatusOK)
	if listedRole(t, in, admin, id) != nil {
		t.Error("the deleted role is still listed")
	}
	wantStatus(t, "delete again", in.call(t, http.MethodDelete, fmt.Sprintf("/api/v1/roles/%d", id), admin, testIP(), nil), http.StatusNotFound)
}

// TestRoleChangesTakeEffect: an addition reaches the holders with their next
// token; a removal ends their sessions at once, so another service refuses
// the token they hold (docs/access.md "When a change takes effect").
func TestRoleChangesTakeEffect(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	id, name := createRole(t, in, admin, "Desk", false, access.PermGetTransactions)
	u := addUser(t, in, admin, "desk", id, merchantIDs(1))
	ip := testIP()
	tok, refresh := in.mustLogin(t, u.name, u.password, ip)
	gateway := otherService(t, in, access.PermGetTransactions)
	if k := gateway(tok); k != "" {
		t.Fatalf("a live token: %q", k)
	}

	// Adding View Logs: the token held stays good; the next one carries it.
	update := func(perms ...string) {
		wantStatus(t, "update role", in.call(t, http.MethodPut, fmt.Sprintf("/api/v1/roles/%d", id), admin, testIP(),
			map[string]any{"name": name, "permissions": perms}), http.StatusOK)
	}
	update(access.PermGetTransactions, access.PermViewLogs)
	if k := gateway(tok); k != "" {
		t.Fatalf("after an addition the held token is refused: %q", k)
	}
	r := in.call(t, http.MethodPost, "/api/v1/refresh-token", "", ip, map[string]string{"refreshToken": refresh})
	wantStatus(t, "refresh", r, http.StatusOK)
	tok, refresh = r.str("accessToken"), r.str("refreshToken")
	if got := fmt.Sprint(tokenClaims(t, tok)["permissions"]); got != "[Get Transactions View Logs]" {
		t.Fatalf("the next token carries %s", got)
	}

	// Removing View Logs ends the session at once: the token is refused
	// everywhere and the refresh token is spent.
	update(access.PermGetTransactions)
	if k := gateway(tok); k != apperr.KindUnauthenticated {
		t.Fatalf("after a removal the held token: %q, want unauthenticated", k)
	}
	wantStatus(t, "refresh after a removal", in.call(t, http.MethodPost, "/api/v1/refresh-token", "", ip,
		map[string]string{"refreshToken": refresh}), http.StatusUnauthorized)
	tok, _ = in.mustLogin(t, u.name, u.password, ip)
	if got := fmt.Sprint(tokenClaims(t, tok)["permissions"]); got != "[Get Transactions]" {
		t.Fatalf("the token after signing in again carries %s", got)
	}

	// Turning the role admin-wide adds access: the token stays; turning it
	// back ends the session.
	wantStatus(t, "admin-wide", in.call(t, http.MethodPut, fmt.Sprintf("/api/v1/roles/%d", id), admin, testIP(),
		map[string]any{"name": name, "permissions": []string{access.PermGetTransactions}, "globalScope": true}), http.StatusOK)
	if k := gateway(tok); k != "" {
		t.Fatalf("after widening the scope the held token is refused: %q", k)
	}
	update(access.PermGetTransactions)
	if k := gateway(tok); k != apperr.KindUnauthenticated {
		t.Fatalf("after narrowing the scope the held token: %q, want unauthenticated", k)
	}

	// A user given a narrower role loses its sessions too; a wider one keeps them.
	tok, _ = in.mustLogin(t, u.name, u.password, ip)
	wider, _ := createRole(t, in, admin, "Wider", false, access.PermGetTransactions, access.PermViewFees)
	wantStatus(t, "wider role", in.call(t, http.MethodPut, "/api/v1/user", admin, testIP(), map[string]any{"userId": u.id, "roleIds": []int{wider}}), http.StatusOK)
	if k := gateway(tok); k != "" {
		t.Fatalf("after a wider role the held token is refused: %q", k)
	}
	wantStatus(t, "narrower role", in.call(t, http.MethodPut, "/api/v1/user", admin, testIP(), map[string]any{"userId": u.id, "roleIds": []int{id}}), http.StatusOK)
	if k := gateway(tok); k != apperr.KindUnauthenticated {
		t.Fatalf("after a narrower role the held token: %q, want unauthenticated", k)
	}
}

// TestNoEscalationWithCustomRoles: nobody grants a permission it does not
// hold, nor reaches a user who holds more than itself, nor gives a merchant
// it does not have.
func TestNoEscalationWithCustomRoles(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(2)

	// An admin-wide user administrator without the other permissions.
	uaID, _ := createRole(t, in, admin, "User admins", true, access.PermAddUsers, access.PermEditUser, access.PermGetTransactions)
	ua := addUser(t, in, admin, "useradmin", uaID, nil)
	uaTok, _ := in.mustLogin(t, ua.name, ua.password, testIP())

	r := in.call(t, http.MethodPost, "/api/v1/roles", uaTok, testIP(), map[string]any{"name": "Fees " + randomHex(3), "permissions": []string{access.PermEditFees}})
	if r.status != http.StatusForbidden || r.str("message") != "You may not grant permissions you do not hold: Edit Fees." {
		t.Errorf("a role with a permission the caller lacks: %d %v", r.status, r.body)
	}
	smallID, _ := createRole(t, in, uaTok, "Viewers", false, access.PermGetTransactions)

	// Making an existing role bigger than oneself is refused, and so is
	// touching a role bigger than oneself.
	r = in.call(t, http.MethodPut, fmt.Sprintf("/api/v1/roles/%d", smallID), uaTok, testIP(),
		map[string]any{"name": "Viewers " + randomHex(3), "permissions": []string{access.PermGetTransactions, access.PermSettingsAccess}})
	wantStatus(t, "grow a role beyond oneself", r, http.StatusForbidden)
	bigID, _ := createRole(t, in, admin, "Big", false, access.PermEditFees)
	wantStatus(t, "delete a role beyond oneself", in.call(t, http.MethodDelete, fmt.Sprintf("/api/v1/roles/%d", bigID), uaTok, testIP(), nil), http.StatusForbidden)

	// Giving roles: not Admin, not a role with a permission it lacks.
	give := func(token string, role int, merchants []int32) reply {
		return in.call(t, http.MethodPost, "/api/v1/user/add", token, testIP(), map[string]any{
			"username": "esc-" + randomHex(4), "password": strongPassword, "roleId": role, "merchantIds": merchants})
	}
	r = give(uaTok, 1, m)
	if r.status != http.StatusForbidden || !strings.HasPrefix(r.str("message"), "You may not give the role Admin: it holds permissions you do not have (") {
		t.Errorf("give Admin: %d %v", r.status, r.body)
	}
	wantStatus(t, "give a role it may give", give(uaTok, smallID, m[:1]), http.StatusOK)

	// The user administrator reaches no user who holds more than itself:
	// the demo admin is out of its scope.
	wantStatus(t, "reset the Admin's password", in.call(t, http.MethodPost, "/api/v1/user/1/change-password", uaTok, testIP(),
		map[string]any{"newPassword": "Escalate-Now-123"}), http.StatusNotFound)
	adminRow := in.call(t, http.MethodGet, "/api/v1/user/users?search=admin", uaTok, testIP(), nil)
	wantStatus(t, "list", adminRow, http.StatusOK)
	if slices.Contains(listedNames(adminRow, "users"), "admin") {
		t.Errorf("the user administrator lists the Admin: %v", listedNames(adminRow, "users"))
	}
	// Nobody changes their own role.
	r = in.call(t, http.MethodPut, "/api/v1/user", uaTok, testIP(), map[string]any{"userId": ua.id, "roleIds": []int{smallID}})
	if r.status != http.StatusForbidden || r.str("message") != "You cannot change your own role." {
		t.Errorf("own role change: %d %v", r.status, r.body)
	}

	// A Merchant Admin: no role editing, no role with a permission it lacks,
	// no merchant it does not have.
	ma := addUser(t, in, admin, "ma", 4, m[:1])
	maTok, _ := in.mustLogin(t, ma.name, ma.password, testIP())
	wantStatus(t, "a Merchant Admin creates a role", in.call(t, http.MethodPost, "/api/v1/roles", maTok, testIP(),
		map[string]any{"name": "Mine " + randomHex(3), "permissions": []string{}}), http.StatusForbidden)
	r = give(maTok, bigID, m[:1])
	if r.status != http.StatusForbidden || r.str("message") != fmt.Sprintf("You may not give the role %s: it holds permissions you do not have (Edit Fees).", listedRole(t, in, admin, bigID)["name"]) {
		t.Errorf("a Merchant Admin gives a role with Edit Fees: %d %v", r.status, r.body)
	}
	if listedRole(t, in, maTok, bigID) != nil {
		t.Error("ListRoles offers a Merchant Admin a role with Edit Fees")
	}
	if listedRole(t, in, maTok, smallID) == nil {
		t.Error("ListRoles does not offer a Merchant Admin a merchant-scoped role within its permissions")
	}
	wantStatus(t, "a merchant it does not have", give(maTok, smallID, m[1:]), http.StatusForbidden)
	wantStatus(t, "a custom role within its permissions and merchants", give(maTok, smallID, m[:1]), http.StatusOK)
	// A merchant-scoped role needs a merchant.
	r = give(admin, smallID, nil)
	if r.status != http.StatusBadRequest || !strings.HasPrefix(r.str("message"), "merchantIds ") {
		t.Errorf("a merchant-scoped custom role without merchants: %d %v", r.status, r.body)
	}
}

// TestRoleChangesAudited: every role change is a UserAudited event through
// the outbox with the old and new sets, and a user's role change carries
// the old and new permissions too.
func TestRoleChangesAudited(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	nc, err := nats.Connect(natsURL)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("paygate.events.user_audited")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	admin := asAdmin(t, in)
	ip := testIP()
	id, name := createRole(t, in, admin, "Audited", false, access.PermGetTransactions, access.PermViewLogs)
	wantStatus(t, "update", in.call(t, http.MethodPut, fmt.Sprintf("/api/v1/roles/%d", id), admin, ip,
		map[string]any{"name": name, "permissions": []string{access.PermGetTransactions, access.PermViewFees}}), http.StatusOK)
	u := addUser(t, in, admin, "audited", 3, merchantIDs(1))
	wantStatus(t, "give the role", in.call(t, http.MethodPut, "/api/v1/user", admin, ip, map[string]any{"userId": u.id, "roleIds": []int{id}}), http.StatusOK)
	wantStatus(t, "take it back", in.call(t, http.MethodPut, "/api/v1/user", admin, ip, map[string]any{"userId": u.id, "roleIds": []int{3}}), http.StatusOK)
	wantStatus(t, "delete", in.call(t, http.MethodDelete, fmt.Sprintf("/api/v1/roles/%d", id), admin, ip, nil), http.StatusOK)

	want := map[string]string{
		"role.created": `before: map[] after: map[globalScope:false name:` + name + ` permissions:[Get Transactions View Logs]]`,
		"role.updated": `before: map[permissions:[Get Transactions View Logs]] after: map[permissions:[Get Transactions View Fees]]`,
		"role.deleted": `before: map[globalScope:false name:` + name + ` permissions:[Get Transactions View Fees]] after: map[]`,
	}
	got := map[string]string{}
	var userChanges []string
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) && (len(got) < len(want) || len(userChanges) < 2) {
		msg, err := sub.NextMsg(time.Until(deadline))
		if err != nil {
			break
		}
		var ev eventsv1.UserAudited
		if proto.Unmarshal(msg.Data, &ev) != nil {
			continue
		}
		switch {
		case ev.GetTargetRoleId() == int32(id):
			if ev.GetTargetRoleName() != name || ev.GetActorUsername() != "admin" || ev.GetTargetUserId() != 0 || ev.GetId() == "" {
				t.Errorf("role event %s", protojson.Format(&ev))
			}
			got[ev.GetAction()] = fmt.Sprintf("before: %v after: %v", ev.GetBefore().AsMap(), ev.GetAfter().AsMap())
		case ev.GetTargetUsername() == u.name && ev.GetAction() == "user.updated":
			userChanges = append(userChanges, fmt.Sprint(ev.GetBefore().AsMap()["permissions"], " → ", ev.GetAfter().AsMap()["permissions"]))
		}
	}
	for action, w := range want {
		if got[action] != w {
			t.Errorf("%s: %q, want %q", action, got[action], w)
		}
	}
	merchant := fmt.Sprint(access.BuiltInRoles[2].Permissions)
	wantUser := []string{merchant + " → [Get Transactions View Fees]", "[Get Transactions View Fees] → " + merchant}
	if !slices.Equal(userChanges, wantUser) {
		t.Errorf("user.updated permissions %q, want %q", userChanges, wantUser)
	}
}

// TestBuiltInRolesMatchTheDatabase: access.BuiltInRoles, which the rules'
// tests and the console's generated table use, is what migration 0001 and
// 0007 seeded.
func TestBuiltInRolesMatchTheDatabase(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	for _, b := range access.BuiltInRoles {
		r := listedRole(t, in, admin, int(b.ID))
		if r == nil || r["name"] != b.Name || r["builtIn"] != true || (r["globalScope"] == true) != b.Global || fmt.Sprint(r["permissions"]) != fmt.Sprint(b.Permissions) {
			t.Errorf("built-in role %d is %v in the database, %+v in access.BuiltInRoles", b.ID, r, b)
		}
	}
}
