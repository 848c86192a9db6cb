package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// listIPs returns the bare list the REST answer of ListUserAllowedIps is.
func listIPs(t *testing.T, in *instance, token, userID string) (int, []map[string]any) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, in.rest+"/api/v1/user/users/"+userID+"/ips", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("X-Forwarded-For", testIP())
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	raw, _ := io.ReadAll(res.Body)
	var out []map[string]any
	if res.StatusCode == http.StatusOK {
		if err := json.NewDecoder(bytes.NewReader(raw)).Decode(&out); err != nil {
			t.Fatalf("list answer %s: %v", raw, err)
		}
	}
	return res.StatusCode, out
}

func TestAllowedIPsRestrictSignInRefreshAndCalls(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(2)
	ma := addUser(t, in, admin, "ipr-ma", 4, m[:1])
	target := addUser(t, in, admin, "ipr-user", 4, m[:1])
	foreign := addUser(t, in, admin, "ipr-foreign", 3, m)
	maTok, _ := in.mustLogin(t, ma.name, ma.password, testIP())

	create := func(body map[string]any) reply {
		return in.call(t, http.MethodPost, "/api/v1/user/users/ips", maTok, testIP(), body)
	}
	for _, tc := range []struct {
		name  string
		body  map[string]any
		field string
	}{
		{"no name", map[string]any{"fromIP": "10.180.0.1", "toIP": "10.180.0.9"}, "name"},
		{"long name", map[string]any{"name": strings.Repeat("n", 101), "fromIP": "10.180.0.1", "toIP": "10.180.0.9"}, "name"},
		{"bad fromIP", map[string]any{"name": "office", "fromIP": "10.180.0.300", "toIP": "10.180.0.9"}, "fromIP"},
		{"bad toIP", map[string]any{"name": "office", "fromIP": "10.180.0.1", "toIP": "office"}, "toIP"},
		{"mixed families", map[string]any{"name": "office", "fromIP": "10.180.0.1", "toIP": "2001:db8::1"}, "toIP"},
		{"reversed", map[string]any{"name": "office", "fromIP": "10.180.0.9", "toIP": "10.180.0.1"}, "toIP"},
	} {
		tc.body["userId"] = target.id
		r := create(tc.body)
		if r.status != http.StatusBadRequest || !strings.HasPrefix(r.str("message"), tc.field+" ") {
			t.Errorf("%s: %d %v, want 400 naming %s", tc.name, r.status, r.body, tc.field)
		}
	}
	wantStatus(t, "range for a foreign user", create(map[string]any{"userId": foreign.id, "name": "x", "fromIP": "10.180.0.1", "toIP": "10.180.0.9"}), http.StatusNotFound)

	office := create(map[string]any{"userId": target.id, "name": "Office", "fromIP": "10.180.0.1", "toIP": "10.180.0.9"})
	wantStatus(t, "create", office, http.StatusOK)
	if office.body["fromIP"] != "10.180.0.1" || office.body["toIP"] != "10.180.0.9" || idOf(office.body["userId"]) != target.id {
		t.Fatalf("created range %v", office.body)
	}
	officeID := idOf(office.body["id"])
	v6 := create(map[string]any{"userId": target.id, "name": "VPN", "fromIP": "2001:db8::1", "toIP": "2001:db8::ff"})
	wantStatus(t, "create IPv6", v6, http.StatusOK)
	status, list := listIPs(t, in, maTok, target.id)
	if status != http.StatusOK || len(list) != 2 || list[0]["name"] != "Office" || list[1]["toIP"] != "2001:db8::ff" {
		t.Fatalf("list: %d %v", status, list)
	}

	before, beforeRefresh := in.mustLogin(t, target.name, target.password, "10.99.0.1")
	r := in.call(t, http.MethodPut, "/api/v1/user", maTok, testIP(), map[string]any{"userId": target.id, "isIpRestricted": true})
	wantStatus(t, "restrict", r, http.StatusOK)
	wantStatus(t, "a session from before the restriction", in.call(t, http.MethodGet, "/api/v1/validate-token", before, "10.99.0.1", nil), http.StatusUnauthorized)
	wantStatus(t, "its refresh token", in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.99.0.1", map[string]string{"refreshToken": beforeRefresh}), http.StatusUnauthorized)

	wantStatus(t, "sign-in from outside", in.login(t, target.name, target.password, "10.180.0.10"), http.StatusForbidden)
	access, refresh := in.mustLogin(t, target.name, target.password, "10.180.0.5")
	if tokenClaims(t, access)["ipr"] != true {
		t.Fatalf("token lacks the restriction: %v", tokenClaims(t, access))
	}
	wantStatus(t, "sign-in over IPv6", in.login(t, target.name, target.password, "2001:db8::10"), http.StatusOK)
	wantStatus(t, "call from inside", in.call(t, http.MethodGet, "/api/v1/validate-token", access, "10.180.0.5", nil), http.StatusOK)
	wantStatus(t, "call from outside", in.call(t, http.MethodGet, "/api/v1/validate-token", access, "10.180.0.50", nil), http.StatusForbidden)
	wantStatus(t, "refresh from outside", in.call(t, http.MethodPost, "/api/v1/refresh-token", "", "10.180.0.50", map[string]string{"refreshToken": refresh}), http.StatusForbidden)

	// Moving the range applies to the running session without a new sign-in.
	up := in.call(t, http.MethodPost, "/api/v1/user/users/ips/"+officeID, maTok, testIP(),
		map[string]any{"userId": target.id, "name": "New office", "fromIP": "10.181.0.1", "toIP": "10.181.0.9"})
	wantStatus(t, "update", up, http.StatusOK)
	if up.body["name"] != "New office" || up.body["fromIP"] != "10.181.0.1" {
		t.Fatalf("updated range %v", up.body)
	}
	deadline := time.Now().Add(time.Minute)
	for {
		r := in.call(t, http.MethodGet, "/api/v1/validate-token", access, "10.180.0.5", nil)
		if r.status == http.StatusForbidden {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the old range still admits a call a minute after the change: %d", r.status)
		}
		time.Sleep(500 * time.Millisecond)
	}
	wantStatus(t, "call from the new range", in.call(t, http.MethodGet, "/api/v1/validate-token", access, "10.181.0.5", nil), http.StatusOK)
	wantStatus(t, "update with another user id", in.call(t, http.MethodPost, "/api/v1/user/users/ips/"+officeID, maTok, testIP(),
		map[string]any{"userId": foreign.id, "name": "x", "fromIP": "10.181.0.1", "toIP": "10.181.0.9"}), http.StatusBadRequest)

	wantStatus(t, "delete", in.call(t, http.MethodDelete, "/api/v1/user/users/ips/"+officeID, maTok, testIP(), nil), http.StatusOK)
	wantStatus(t, "delete twice", in.call(t, http.MethodDelete, "/api/v1/user/users/ips/"+officeID, maTok, testIP(), nil), http.StatusNotFound)
	if _, list := listIPs(t, in, maTok, target.id); len(list) != 1 {
		t.Fatalf("after delete: %v", list)
	}
	deadline = time.Now().Add(time.Minute)
	for in.call(t, http.MethodGet, "/api/v1/validate-token", access, "10.181.0.5", nil).status != http.StatusForbidden {
		if time.Now().After(deadline) {
			t.Fatal("a deleted range still admits calls a minute later")
		}
		time.Sleep(500 * time.Millisecond)
	}
	merchant, _ := in.mustLogin(t, "merchant", "paygate-demo", testIP())
	if status, _ := listIPs(t, in, merchant, target.id); status != http.StatusForbidden {
		t.Fatalf("without Allow IP: %d", status)
	}
}

// TestUserAuditedEvents: every change is audited through the outbox, with
// the changed fields only and never a password.
func TestUserAuditedEvents(t *testing.T) {
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
	u := addUser(t, in, admin, "audit", 4, merchantIDs(1))
	ip := "10.190.0.7"
	wantStatus(t, "update", in.call(t, http.MethodPut, "/api/v1/user", admin, ip, map[string]any{"userId": u.id, "isIpRestricted": true}), http.StatusOK)
	const reset = "Audit-Reset-Secret-5"
	wantStatus(t, "reset", in.call(t, http.MethodPost, "/api/v1/user/"+u.id+"/change-password", admin, ip, map[string]any{"newPassword": reset, "isTemporaryPassword": false}), http.StatusOK)
	created := in.call(t, http.MethodPost, "/api/v1/user/users/ips", admin, ip, map[string]any{"userId": u.id, "name": "Home", "fromIP": "10.190.0.1", "toIP": "10.190.0.9"})
	wantStatus(t, "create ip", created, http.StatusOK)
	own, _ := in.mustLogin(t, u.name, reset, "10.190.0.5")
	wantStatus(t, "own change", in.call(t, http.MethodPost, "/api/v1/user/change-password", own, "10.190.0.5", map[string]string{"password": "Audit-Own-Secret-6", "currentPassword": reset}), http.StatusOK)
	other, _ := in.mustLogin(t, u.name, "Audit-Own-Secret-6", "10.190.0.5")
	wantStatus(t, "update ip", in.call(t, http.MethodPost, "/api/v1/user/users/ips/"+idOf(created.body["id"]), admin, ip, map[string]any{"name": "Home 2", "fromIP": "10.190.0.1", "toIP": "10.190.0.9"}), http.StatusOK)
	wantStatus(t, "delete ip", in.call(t, http.MethodDelete, "/api/v1/user/users/ips/"+idOf(created.body["id"]), admin, ip, nil), http.StatusOK)
	wantStatus(t, "terminate", in.call(t, http.MethodDelete, "/api/v1/user-sessions/"+sid(t, other), admin, ip, nil), http.StatusOK)

	want := map[string]bool{"user.created": false, "user.updated": false, "user.password_reset": false, "user.password_changed": false,
		"allowed_ip.created": false, "allowed_ip.updated": false, "allowed_ip.deleted": false, "session.terminated": false}
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		msg, err := sub.NextMsg(time.Until(deadline))
		if err != nil {
			break
		}
		var ev eventsv1.UserAudited
		if proto.Unmarshal(msg.Data, &ev) != nil || ev.GetTargetUsername() != u.name {
			continue
		}
		text := protojson.Format(&ev)
		for _, secret := range []string{strongPassword, reset, "Audit-Own-Secret-6", "argon2", "password\""} {
			if strings.Contains(text, secret) {
				t.Errorf("event %s carries %q: %s", ev.GetAction(), secret, text)
			}
		}
		if ev.GetId() == "" || ev.GetAt() == nil || ev.GetTargetUserId() == 0 {
			t.Errorf("incomplete event %s", text)
		}
		switch ev.GetAction() {
		case "user.updated":
			if ev.GetActorUsername() != "admin" || ev.GetActorIp() != ip ||
				fmt.Sprint(ev.GetBefore().AsMap()) != "map[isIpRestricted:false]" || fmt.Sprint(ev.GetAfter().AsMap()) != "map[isIpRestricted:true]" {
				t.Errorf("user.updated: %s", text)
			}
		case "user.created":
			if ev.GetBefore() != nil || ev.GetAfter().AsMap()["username"] != u.name {
				t.Errorf("user.created: %s", text)
			}
		case "user.password_changed":
			if ev.GetActorUsername() != u.name {
				t.Errorf("user.password_changed: %s", text)
			}
		}
		want[ev.GetAction()] = true
		done := true
		for _, seen := range want {
			done = done && seen
		}
		if done {
			return
		}
	}
	t.Fatalf("audited actions seen: %v", want)
}
