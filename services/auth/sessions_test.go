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
	// The user agent, in any case (through the trigram index where pg_trgm
	// is installed): every session of the merchant admin's scope.
	if _, byAgent := sessionsOf(t, in, maTok, "search=UTH-TES"); len(byAgent) != len(seen) {
		t.Fatalf("search by user agent: %d sessions, want %d", len(byAgent), len(seen))
	}
	// An address and a user agent are not one text: no match across them.
	if _, across := sessionsOf(t, in, maTok, "search=0.2auth"); len(across) != 0 {
		t.Fatalf("search across address and user agent: %v", across)
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

// TestSessionsOfOthersNeedUserManagement: other users' sessions are listed
// only with Add Users or Edit User and ended only with Edit User; everyone
// lists and ends its own. A plain Merchant (neither permission) of the same
// merchant as a Merchant Admin sees and ends only its own sessions.
func TestSessionsOfOthersNeedUserManagement(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(1)
	prefix := "sesperm" + randomHex(3)
	ma := addUser(t, in, admin, prefix+"-ma", 4, m)
	merchant := addUser(t, in, admin, prefix+"-merchant", 3, m)
	peer := addUser(t, in, admin, prefix+"-peer", 3, m)

	maTok, _ := in.mustLogin(t, ma.name, ma.password, "10.171.0.1")
	merTok, _ := in.mustLogin(t, merchant.name, merchant.password, "10.171.0.2")
	merTok2, _ := in.mustLogin(t, merchant.name, merchant.password, "10.171.0.3")
	peerTok, _ := in.mustLogin(t, peer.name, peer.password, "10.171.0.4")

	r, seen := sessionsOf(t, in, merTok, "search="+prefix)
	if len(seen) != 2 || seen[sid(t, merTok)] == nil || seen[sid(t, merTok2)] == nil || idOf(r.body["totalCount"]) != "2" {
		t.Fatalf("a plain merchant sees %v, want only its own two sessions", seen)
	}
	if _, byMerchant := sessionsOf(t, in, merTok, fmt.Sprintf("merchantId=%d", m[0])); len(byMerchant) != 2 {
		t.Fatalf("a plain merchant's merchant filter shows %v, want only its own two sessions", byMerchant)
	}
	if _, byIP := sessionsOf(t, in, merTok, "search=10.171.0.1"); len(byIP) != 0 {
		t.Fatalf("a plain merchant finds its merchant admin's session by address: %v", byIP)
	}

	del := func(token, id string) reply {
		return in.call(t, http.MethodDelete, "/api/v1/user-sessions/"+id, token, testIP(), nil)
	}
	wantStatus(t, "a plain merchant ends its merchant admin's session", del(merTok, sid(t, maTok)), http.StatusNotFound)
	wantStatus(t, "a plain merchant ends a peer's session", del(merTok, sid(t, peerTok)), http.StatusNotFound)
	wantStatus(t, "merchant admin's session lives", in.call(t, http.MethodGet, "/api/v1/validate-token", maTok, testIP(), nil), http.StatusOK)
	wantStatus(t, "peer's session lives", in.call(t, http.MethodGet, "/api/v1/validate-token", peerTok, testIP(), nil), http.StatusOK)

	wantStatus(t, "a plain merchant ends its other session", del(merTok, sid(t, merTok2)), http.StatusOK)
	wantStatus(t, "the ended session", in.call(t, http.MethodGet, "/api/v1/validate-token", merTok2, testIP(), nil), http.StatusUnauthorized)

	// The Merchant Admin (Add Users and Edit User) lists and ends the
	// sessions of its merchant's users.
	if _, all := sessionsOf(t, in, maTok, "search="+prefix); len(all) != 3 || all[sid(t, peerTok)] == nil || all[sid(t, merTok)] == nil {
		t.Fatalf("merchant admin sees %v", all)
	}
	wantStatus(t, "merchant admin ends a merchant's session", del(maTok, sid(t, peerTok)), http.StatusOK)
	wantStatus(t, "a plain merchant ends its own current session", del(merTok, sid(t, merTok)), http.StatusOK)
}

// TestOwnSessionListedFirst: the caller's current session leads the first
// page when it matches the filters, however old its sign-in; the other
// sessions follow newest first and no page repeats it.
func TestOwnSessionListedFirst(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	m := merchantIDs(1)
	prefix := "sespin" + randomHex(3)
	ma := addUser(t, in, admin, prefix+"-ma", 4, m)
	others := []user{
		addUser(t, in, admin, prefix+"-a", 3, m),
		addUser(t, in, admin, prefix+"-b", 3, m),
		addUser(t, in, admin, prefix+"-c", 3, m),
	}
	maTok, _ := in.mustLogin(t, ma.name, ma.password, "10.172.0.1")
	var newest []string // newest first
	for i, u := range others {
		tok, _ := in.mustLogin(t, u.name, u.password, fmt.Sprintf("10.172.0.%d", 10+i))
		newest = append([]string{sid(t, tok)}, newest...)
	}
	ids := func(r reply) []string {
		var out []string
		for _, x := range r.body["sessions"].([]any) {
			out = append(out, x.(map[string]any)["id"].(string))
		}
		return out
	}
	own := sid(t, maTok)
	p1, _ := sessionsOf(t, in, maTok, "take=2&page=1&search="+prefix)
	p2, _ := sessionsOf(t, in, maTok, "take=2&page=2&search="+prefix)
	got := append(ids(p1), ids(p2)...)
	want := append([]string{own}, newest...)
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pages list %v, want the own session first, then newest first: %v", got, want)
	}
	if first := p1.body["sessions"].([]any)[0].(map[string]any); first["isCurrent"] != true {
		t.Fatalf("first row %v is not the current session", first)
	}
	for _, p := range []reply{p1, p2} {
		if idOf(p.body["totalCount"]) != "4" || p.body["totalPages"] != float64(2) {
			t.Fatalf("paging figures %v", p.body)
		}
	}
	// A filter the own session does not match leaves it out.
	if r, _ := sessionsOf(t, in, maTok, "search=10.172.0.1"+"1"); fmt.Sprint(ids(r)) != fmt.Sprint([]string{newest[1]}) {
		t.Fatalf("search by another's address lists %v", ids(r))
	}
}
