package main

import (
	"fmt"
	"net/http"
	"testing"
)

// sessionsOf lists the live sessions a token sees whose username contains
// search, and returns them by id.
func sessionsOf(t *testing.T, in *instance, token, query string) (reply, map[string]map[string]any) {
	t.Helper()
	r := in.call(t, http.MethodGet, "/api/v1/user-sessions/active?"+query, token, testIP(), nil)
	wantStatus(t, "list sessions "+query, r, http.StatusOK)
	out := map[string]map[string]any{}
	items, _ := r.body["sessions"].([]any)
	for _, x := range items {
		m := x.(map[string]any)
		out[m["id"].(string)] = m
	}
	return r, out
}

func sid(t *testing.T, token string) string { return tokenClaims(t, token)["sid"].(string) }

func TestSessionsScopeAndTerminate(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(2)
	prefix := "ses" + randomHex(3)
	ma := addUser(t, in, admin, prefix+"-ma", 4, m[:1])
	mine := addUser(t, in, admin, prefix+"-mine", 3, m[:1])
	foreign := addUser(t, in, admin, prefix+"-foreign", 3, m)
	finance := addUser(t, in, admin, prefix+"-fin", 5, m[:1])

	maTok, _ := in.mustLogin(t, ma.name, ma.password, "10.170.0.1")
	mineTok, mineRefresh := in.mustLogin(t, mine.name, mine.password, "10.170.0.2")
	foreignTok, _ := in.mustLogin(t, foreign.name, foreign.password, "10.170.0.3")
	finTok, _ := in.mustLogin(t, finance.name, finance.password, "10.170.0.4")

	_, seen := sessionsOf(t, in, maTok, "search="+prefix)
	if len(seen) != 3 || seen[sid(t, maTok)] == nil || seen[sid(t, mineTok)] == nil || seen[sid(t, finTok)] == nil || seen[sid(t, foreignTok)] != nil {
		t.Fatalf("merchant admin sees %v", seen)
	}
	if seen[sid(t, maTok)]["isCurrent"] != true || seen[sid(t, mineTok)]["isCurrent"] == true {
		t.Fatalf("isCurrent: %v", seen)
	}
	s := seen[sid(t, mineTok)]
	if s["username"] != mine.name || s["userIp"] != "10.170.0.2" || s["userAgent"] != "auth-test" || idOf(s["userId"]) != mine.id ||
		s["lastLoginUtc"] == nil || s["refreshTokenExpiryUtc"] == nil || s["lastSeenUtc"] == nil {
		t.Fatalf("session fields %v", s)
	}
	if _, bySearch := sessionsOf(t, in, maTok, "search=10.170.0.2"); len(bySearch) != 1 {
		t.Fatalf("search by address: %v", bySearch)
	}
	if _, own := sessionsOf(t, in, finTok, "search="+prefix); len(own) != 1 || own[sid(t, finTok)] == nil {
		t.Fatalf("finance manager sees %v", own)
	}
	r, all := sessionsOf(t, in, admin, "take=2&search="+prefix)
	if len(all) != 2 || idOf(r.body["totalCount"]) != "4" || r.body["totalPages"] != float64(2) {
		t.Fatalf("admin page: %v", r.body)
	}
	// Newest sign-in first.
	items := r.body["sessions"].([]any)
	if items[0].(map[string]any)["id"] != sid(t, finTok) {
		t.Fatalf("first listed %v, want the newest %s", items[0], sid(t, finTok))
	}
	if _, byMerchant := sessionsOf(t, in, admin, fmt.Sprintf("merchantId=%d", m[1])); len(byMerchant) != 1 || byMerchant[sid(t, foreignTok)] == nil {
		t.Fatalf("admin by merchant: %v", byMerchant)
	}
	wantStatus(t, "foreign merchant filter",
		in.call(t, http.MethodGet, fmt.Sprintf("/api/v1/user-sessions/active?merchantId=%d", m[1]), maTok, testIP(), nil), http.StatusNotFound)

	del := func(token, id string) reply {
		return in.call(t, http.MethodDelete, "/api/v1/user-sessions/"+id, token, testIP(), nil)
	}
	wantStatus(t, "terminate a foreign session", del(maTok, sid(t, foreignTok)), http.StatusNotFound)
	wantStatus(t, "finance manager terminates another's session", del(finTok, sid(t, mineTok)), http.StatusNotFound)
	wantStatus(t, "not a session id", del(maTok, "nope"), http.StatusNotFound)
	wantStatus(t, "foreign session lives", in.call(t, http.MethodGet, "/api/v1/validate-token", foreignTok, testIP(), nil), http.StatusOK)

	wantStatus(t, "terminate a session in scope", del(maTok, sid(t, mineTok)), http.StatusOK)
	wantStatus(t, "terminated access token", in.call(t, http.MethodGet, "/api/v1/validate-token", mineTok, testIP(), nil), http.StatusUnauthorized)
	wantStatus(t, "terminated refresh token", in.call(t, http.MethodPost, "/api/v1/refresh-token", "", testIP(), map[string]string{"refreshToken": mineRefresh}), http.StatusUnauthorized)
	wantStatus(t, "terminate it twice", del(maTok, sid(t, mineTok)), http.StatusNotFound)
	if got := sessionRevokedReason(t, sid(t, mineTok)); got != "terminated" {
		t.Errorf("revoked_reason %q", got)
	}
	_, after := sessionsOf(t, in, admin, "search="+prefix)
	if after[sid(t, mineTok)] != nil {
		t.Fatal("a terminated session is still listed")
	}
	wantStatus(t, "terminate its own session", del(finTok, sid(t, finTok)), http.StatusOK)
	wantStatus(t, "own session after terminating it", in.call(t, http.MethodGet, "/api/v1/validate-token", finTok, testIP(), nil), http.StatusUnauthorized)
	wantStatus(t, "admin terminates any", del(admin, sid(t, foreignTok)), http.StatusOK)
	wantStatus(t, "take 0 means 100", in.call(t, http.MethodGet, "/api/v1/user-sessions/active?take=0", admin, testIP(), nil), http.StatusOK)
	wantStatus(t, "take 501", in.call(t, http.MethodGet, "/api/v1/user-sessions/active?take=501", admin, testIP(), nil), http.StatusBadRequest)
}
