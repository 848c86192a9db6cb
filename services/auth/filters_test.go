package main

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
)

// TestListSearchIsBounded: the users' and the sessions' search filters take
// at most 100 characters (counted as characters, as given); more is a 400
// naming the field, without echoing it.
func TestListSearchIsBounded(t *testing.T) {
	t.Parallel()
	in := defaultInstance(t)
	admin := asAdmin(t, in)
	const want = "search must be at most 100 characters."
	for _, path := range []string{"/api/v1/user/users", "/api/v1/user-sessions/active"} {
		long := strings.Repeat("a", 101)
		r := in.call(t, http.MethodGet, path+"?search="+long, admin, testIP(), nil)
		wantStatus(t, path+" with 101 characters", r, http.StatusBadRequest)
		if r.str("message") != want || strings.Contains(r.str("message"), long) {
			t.Errorf("%s: message %q, want %q", path, r.str("message"), want)
		}
		// Padding counts: the filter is bounded as given.
		r = in.call(t, http.MethodGet, path+"?search="+url.QueryEscape(" "+strings.Repeat("a", 100)), admin, testIP(), nil)
		wantStatus(t, path+" with 101 characters, one a space", r, http.StatusBadRequest)
		// Characters, not bytes: 100 two-byte letters pass.
		r = in.call(t, http.MethodGet, path+"?search="+url.QueryEscape(strings.Repeat("é", 100)), admin, testIP(), nil)
		wantStatus(t, path+" with 100 characters", r, http.StatusOK)
	}
}
