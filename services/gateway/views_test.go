package main

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/access"
)

// viewJSON is a view as docs/contracts-views.md answers it.
type viewJSON struct {
	ID         string   `json:"id"`
	List       string   `json:"list"`
	Name       string   `json:"name"`
	Query      string   `json:"query"`
	Columns    []string `json:"columns"`
	Sort       string   `json:"sort"`
	PageSize   int      `json:"pageSize"`
	TimeZone   string   `json:"timeZone"`
	Shared     bool     `json:"shared"`
	IsDefault  bool     `json:"isDefault"`
	Mine       bool     `json:"mine"`
	OwnerName  string   `json:"ownerName"`
	CreatedUtc string   `json:"createdUtc"`
	UpdatedUtc string   `json:"updatedUtc"`
}

func (c *caller) saveView(t *testing.T, body map[string]any) viewJSON {
	t.Helper()
	var out struct {
		View viewJSON `json:"view"`
	}
	c.must(t, http.StatusOK, http.MethodPost, "/api/v1/views", body, &out)
	return out.View
}

func (c *caller) views(t *testing.T, list string) []viewJSON {
	t.Helper()
	var out struct {
		Views []viewJSON `json:"views"`
	}
	c.must(t, http.StatusOK, http.MethodGet, "/api/v1/views?list="+list, nil, &out)
	return out.Views
}

func (c *caller) openView(t *testing.T, id string) (viewJSON, []string) {
	t.Helper()
	var out struct {
		View           viewJSON `json:"view"`
		DroppedFilters []string `json:"droppedFilters"`
	}
	raw := c.must(t, http.StatusOK, http.MethodGet, "/api/v1/views/"+id, nil, &out)
	if !strings.Contains(string(raw), `"droppedFilters"`) {
		t.Errorf("GetView answers no droppedFilters: %s", raw)
	}
	return out.View, out.DroppedFilters
}

func names(vs []viewJSON) []string {
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = v.Name
	}
	return out
}

// viewRows is the views table as text, to check that refused calls wrote
// nothing.
func (g *testGateway) viewRows(t *testing.T) string {
	t.Helper()
	var s string
	if err := g.pool.QueryRow(t.Context(), `SELECT COALESCE((SELECT json_agg(v ORDER BY v.id)::text FROM views v), '[]') ||
		COALESCE((SELECT json_agg(d ORDER BY d.user_id, d.list)::text FROM view_defaults d), '[]')`).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

func TestViews(t *testing.T) {
	g := newTestGateway(t)
	admin := g.user(t, access.RoleAdmin)
	ma, mb := g.newMerchant(t), g.newMerchant(t)
	a1 := g.initialize(t, admin, ma, 1)
	b1 := g.initialize(t, admin, mb, 1)

	t.Run("create, list, get, update, delete", func(t *testing.T) {
		u := g.user(t, access.RoleMerchantAdmin, ma)
		v := u.saveView(t, map[string]any{"list": "transactions", "name": "  Morning  ",
			"query": fmt.Sprintf("collabId=%d&statuses=1&statuses=2&minAmount=10", a1), "columns": []string{"id", "amount", "status"},
			"sort": "createdAt:desc", "pageSize": 100, "timeZone": "Asia/Manila"})
		if v.ID == "" || v.List != "transactions" || v.Name != "Morning" || !v.Mine || v.Shared || v.IsDefault || v.OwnerName != u.name ||
			v.PageSize != 100 || v.TimeZone != "Asia/Manila" || v.Sort != "createdAt:desc" ||
			!slices.Equal(v.Columns, []string{"id", "amount", "status"}) || v.CreatedUtc == "" {
			t.Fatalf("created %+v", v)
		}
		u.saveView(t, map[string]any{"list": "transactions", "name": "after hours"})
		u.saveView(t, map[string]any{"list": "frauds", "name": "Frauds of today"})
		if got := names(u.views(t, "transactions")); !slices.Equal(got, []string{"after hours", "Morning"}) {
			t.Errorf("transactions views = %v, want by name", got)
		}
		if got := names(u.views(t, "frauds")); !slices.Equal(got, []string{"Frauds of today"}) {
			t.Errorf("frauds views = %v", got)
		}
		got, dropped := u.openView(t, v.ID)
		if got.Query != v.Query || len(dropped) != 0 {
			t.Errorf("GetView = %+v %v", got, dropped)
		}
		// Update replaces every field; a zero value clears it.
		var upd struct {
			View viewJSON `json:"view"`
		}
		u.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/"+v.ID, map[string]any{"name": "Mornings", "query": "type=1",
			"shared": true}, &upd)
		if w := upd.View; w.Name != "Mornings" || w.Query != "type=1" || len(w.Columns) != 0 || w.PageSize != 0 || w.TimeZone != "" ||
			w.Sort != "" || !w.Shared || w.List != "transactions" {
			t.Errorf("updated %+v", w)
		}
		u.must(t, http.StatusOK, http.MethodDelete, "/api/v1/views/"+v.ID, nil, nil)
		u.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/views/"+v.ID, nil, nil)
		u.must(t, http.StatusNotFound, http.MethodDelete, "/api/v1/views/"+v.ID, nil, nil)
		if got := names(u.views(t, "transactions")); !slices.Equal(got, []string{"after hours"}) {
			t.Errorf("after delete = %v", got)
		}
	})

	t.Run("the default: set, listed, replaced, cleared, gone with its view", func(t *testing.T) {
		u := g.user(t, access.RoleMerchant, ma)
		v1 := u.saveView(t, map[string]any{"list": "files", "name": "Exports"})
		v2 := u.saveView(t, map[string]any{"list": "files", "name": "Reports"})
		var out struct {
			View *viewJSON `json:"view"`
		}
		u.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/defaults/files", map[string]any{"viewId": v1.ID}, &out)
		if out.View == nil || out.View.ID != v1.ID || !out.View.IsDefault {
			t.Fatalf("SetDefaultView = %+v", out.View)
		}
		u.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/defaults/files", map[string]any{"viewId": v2.ID}, nil)
		for _, v := range u.views(t, "files") {
			if v.IsDefault != (v.ID == v2.ID) {
				t.Errorf("%s isDefault = %t", v.Name, v.IsDefault)
			}
		}
		if got, _ := u.openView(t, v2.ID); !got.IsDefault {
			t.Error("GetView of the default: isDefault false")
		}
		// A view of another list is not a default of this one.
		tv := u.saveView(t, map[string]any{"list": "transactions", "name": "T"})
		u.must(t, http.StatusBadRequest, http.MethodPut, "/api/v1/views/defaults/files", map[string]any{"viewId": tv.ID}, nil)
		u.must(t, http.StatusBadRequest, http.MethodPut, "/api/v1/views/defaults/payments", map[string]any{"viewId": tv.ID}, nil)
		// "0" clears.
		out.View = nil
		raw := u.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/defaults/files", map[string]any{"viewId": "0"}, &out)
		if out.View != nil {
			t.Errorf("cleared default answers %s", raw)
		}
		if n := g.queryInt(t, `SELECT count(*) FROM view_defaults WHERE user_id = $1`, u.id); n != 0 {
			t.Errorf("%d defaults after clearing", n)
		}
		// Deleting the view clears it.
		u.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/defaults/files", map[string]any{}, nil)
		u.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/defaults/files", map[string]any{"viewId": v1.ID}, nil)
		u.must(t, http.StatusOK, http.MethodDelete, "/api/v1/views/"+v1.ID, nil, nil)
		if n := g.queryInt(t, `SELECT count(*) FROM view_defaults WHERE user_id = $1`, u.id); n != 0 {
			t.Errorf("%d defaults after deleting the default view", n)
		}
	})

	t.Run("sharing: the same scope opens it read-only, another scope sees nothing", func(t *testing.T) {
		// Each scope of its own: other subtests' shared views stay out.
		mc, md := g.newMerchant(t), g.newMerchant(t)
		owner := g.user(t, access.RoleMerchantAdmin, md, mc)
		shared := owner.saveView(t, map[string]any{"list": "transactions", "name": "Team view", "query": "type=2", "shared": true})
		private := owner.saveView(t, map[string]any{"list": "transactions", "name": "Mine only"})
		mate := g.user(t, access.RoleMerchant, mc, md) // same merchants, another order
		own := mate.saveView(t, map[string]any{"list": "transactions", "name": "Zeta"})
		got := mate.views(t, "transactions")
		if !slices.Equal(names(got), []string{"Zeta", "Team view"}) {
			t.Fatalf("mate's list = %v, want own then shared", names(got))
		}
		if s := got[1]; s.ID != shared.ID || s.Mine || !s.Shared || s.OwnerName != owner.name || got[0].ID != own.ID || !got[0].Mine {
			t.Errorf("mate's list = %+v", got)
		}
		mate.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/views/"+private.ID, nil, nil)
		if v, _ := mate.openView(t, shared.ID); v.Mine || v.Query != "type=2" {
			t.Errorf("mate opens %+v", v)
		}

		// Only the owner changes it; nothing is written on the refusal.
		before := g.viewRows(t)
		for _, r := range []struct{ method, path string }{{http.MethodPut, "/api/v1/views/" + shared.ID}, {http.MethodDelete, "/api/v1/views/" + shared.ID}} {
			var e struct{ Message string }
			mate.must(t, http.StatusForbidden, r.method, r.path, map[string]any{"name": "Hijacked"}, &e)
			if e.Message != "Only the view's owner can change it." {
				t.Errorf("%s: %q", r.method, e.Message)
			}
		}
		if after := g.viewRows(t); after != before {
			t.Errorf("a refused change wrote:\n%s\n%s", before, after)
		}

		// Others may make it their default; unsharing takes it away.
		mate.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/defaults/transactions", map[string]any{"viewId": shared.ID}, nil)
		if v := mate.views(t, "transactions")[1]; !v.IsDefault {
			t.Error("the mate's default is not marked")
		}

		for _, other := range []*caller{g.user(t, access.RoleMerchantAdmin, mc), g.user(t, access.RoleMerchantAdmin, mc, md, mb),
			g.user(t, access.RoleMerchantAdmin, ma), admin} {
			for _, v := range other.views(t, "transactions") {
				if v.ID == shared.ID || v.ID == private.ID {
					t.Errorf("%s (another scope) lists %+v", other.name, v)
				}
			}
			other.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/views/"+shared.ID, nil, nil)
			other.must(t, http.StatusNotFound, http.MethodPut, "/api/v1/views/"+shared.ID, map[string]any{"name": "x"}, nil)
			other.must(t, http.StatusNotFound, http.MethodPut, "/api/v1/views/defaults/transactions", map[string]any{"viewId": shared.ID}, nil)
		}

		owner.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/"+shared.ID, map[string]any{"name": "Team view", "shared": false}, nil)
		mate.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/views/"+shared.ID, nil, nil)
		if got := names(mate.views(t, "transactions")); !slices.Equal(got, []string{"Zeta"}) {
			t.Errorf("after unsharing the mate lists %v", got)
		}
		if n := g.queryInt(t, `SELECT count(*) FROM view_defaults WHERE user_id = $1`, mate.id); n != 0 {
			t.Errorf("the unshared view is still the mate's default")
		}

		// Admin-wide users share among themselves.
		support := g.user(t, access.RoleSupport)
		as := admin.saveView(t, map[string]any{"list": "frauds", "name": "All frauds", "shared": true})
		if v, _ := support.openView(t, as.ID); v.OwnerName != admin.name || v.Mine {
			t.Errorf("support opens %+v", v)
		}
		g.user(t, access.RoleMerchantAdmin, ma).must(t, http.StatusNotFound, http.MethodGet, "/api/v1/views/"+as.ID, nil, nil)
	})

	t.Run("409: a duplicate name, the 51st view", func(t *testing.T) {
		u := g.user(t, access.RoleMerchant, ma)
		first := u.saveView(t, map[string]any{"list": "transactions", "name": "Daily"})
		u.saveView(t, map[string]any{"list": "files", "name": "Daily"}) // another list: fine
		var e struct{ Message string }
		u.must(t, http.StatusConflict, http.MethodPost, "/api/v1/views", map[string]any{"list": "transactions", "name": " daily "}, &e)
		if !strings.Contains(e.Message, "Daily") && !strings.Contains(e.Message, "daily") {
			t.Errorf("duplicate: %q", e.Message)
		}
		second := u.saveView(t, map[string]any{"list": "transactions", "name": "Weekly"})
		u.must(t, http.StatusConflict, http.MethodPut, "/api/v1/views/"+second.ID, map[string]any{"name": "DAILY"}, nil)
		if after := g.viewRows(t); !strings.Contains(after, `"name":"Weekly"`) || strings.Count(after, `"name":"DAILY"`) != 0 {
			t.Errorf("a refused rename wrote: %s", after)
		}
		// Renaming to its own name in another case is fine.
		u.must(t, http.StatusOK, http.MethodPut, "/api/v1/views/"+first.ID, map[string]any{"name": "DAILY"}, nil)

		for i := 3; i <= 50; i++ {
			u.saveView(t, map[string]any{"list": "transactions", "name": fmt.Sprintf("View %02d", i)})
		}
		if n := g.queryInt(t, `SELECT count(*) FROM views WHERE user_id = $1 AND list = 'transactions'`, u.id); n != 50 {
			t.Fatalf("%d views, want 50", n)
		}
		u.must(t, http.StatusConflict, http.MethodPost, "/api/v1/views", map[string]any{"list": "transactions", "name": "One too many"}, &e)
		if !strings.Contains(e.Message, "50") {
			t.Errorf("the 51st: %q", e.Message)
		}
		if n := g.queryInt(t, `SELECT count(*) FROM views WHERE user_id = $1 AND list = 'transactions'`, u.id); n != 50 {
			t.Errorf("%d views after the refused 51st", n)
		}
		// The limit is per list.
		u.saveView(t, map[string]any{"list": "files", "name": "Still fine"})
	})

	t.Run("400 sentences naming the JSON fields, nothing written", func(t *testing.T) {
		u := g.user(t, access.RoleMerchantAdmin, ma)
		mine := u.saveView(t, map[string]any{"list": "frauds", "name": "Keep"})
		before := g.viewRows(t)
		for _, c := range []struct {
			method, path string
			body         map[string]any
			want         []string
		}{
			{http.MethodPost, "/api/v1/views", map[string]any{"list": "transactions"}, []string{"name is required."}},
			{http.MethodPost, "/api/v1/views", map[string]any{"list": "payments", "name": "x"}, []string{"list must be one of transactions, frauds, files."}},
			{http.MethodPost, "/api/v1/views", map[string]any{"name": "x"}, []string{"list must be one of transactions, frauds, files."}},
			{http.MethodPost, "/api/v1/views", map[string]any{"list": "files", "name": "x", "pageSize": 501, "timeZone": "Mars/Olympus",
				"query": "a=%zz"}, []string{"pageSize must be 0 or between 1 and 500.", "timeZone is not a known time zone.",
				"query is not a valid query string."}},
			{http.MethodPost, "/api/v1/views", map[string]any{"list": "files", "name": strings.Repeat("n", 101)}, []string{"name must be at most 100 characters."}},
			{http.MethodPost, "/api/v1/views", map[string]any{"list": "files", "name": "x", "query": strings.Repeat("q", 2001)},
				[]string{"query must be at most 2000 characters."}},
			{http.MethodPost, "/api/v1/views", map[string]any{"list": "files", "name": "x", "columns": make([]string, 41)},
				[]string{"columns must have at most 40 entries."}},
			{http.MethodPut, "/api/v1/views/" + mine.ID, map[string]any{"name": " ", "pageSize": -1}, []string{"name is required.",
				"pageSize must be 0 or between 1 and 500."}},
		} {
			var e struct{ Message string }
			u.must(t, http.StatusBadRequest, c.method, c.path, c.body, &e)
			for _, w := range c.want {
				if !strings.Contains(e.Message, w) {
					t.Errorf("%v: %q does not say %q", c.body, e.Message, w)
				}
			}
		}
		u.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/views?list=payments", nil, nil)
		u.must(t, http.StatusBadRequest, http.MethodGet, "/api/v1/views", nil, nil)
		if after := g.viewRows(t); after != before {
			t.Errorf("refused calls wrote:\n%s\n%s", before, after)
		}
	})

	t.Run("droppedFilters: a collab or merchant outside the reader's scope", func(t *testing.T) {
		u := g.user(t, access.RoleMerchantAdmin, ma)
		q := fmt.Sprintf("collabId=%d&merchantId=%d&type=1&collabId=%d&merchantId=%d", b1, mb, a1, ma)
		v := u.saveView(t, map[string]any{"list": "transactions", "name": "Reaching out", "query": q})
		got, dropped := u.openView(t, v.ID)
		if want := fmt.Sprintf("type=1&collabId=%d&merchantId=%d", a1, ma); got.Query != want ||
			!slices.Equal(dropped, []string{"collabId", "merchantId"}) {
			t.Errorf("GetView = %q %v, want %q [collabId merchantId]", got.Query, dropped, want)
		}
		if stored := g.queryInt(t, `SELECT count(*) FROM views WHERE id = $1 AND query = $2`, v.ID, q); stored != 1 {
			t.Error("the stored view changed")
		}
		// The list still answers it whole: only GetView drops.
		for _, l := range u.views(t, "transactions") {
			if l.ID == v.ID && l.Query != q {
				t.Errorf("ListViews query = %q", l.Query)
			}
		}
		// A collab that is gone is dropped for everyone, admins too.
		gone := admin.saveView(t, map[string]any{"list": "transactions", "name": "Gone collab", "query": "collabId=987654&merchantId=" + fmt.Sprint(mb)})
		got, dropped = admin.openView(t, gone.ID)
		if got.Query != fmt.Sprintf("merchantId=%d", mb) || !slices.Equal(dropped, []string{"collabId"}) {
			t.Errorf("admin's GetView = %q %v", got.Query, dropped)
		}
	})

	t.Run("per-list permission", func(t *testing.T) {
		// A merchant user has Get Transactions and Files Access, not View Frauds.
		owner := g.user(t, access.RoleMerchantAdmin, ma)
		fv := owner.saveView(t, map[string]any{"list": "frauds", "name": "Shared frauds", "shared": true})
		u := g.user(t, access.RoleMerchant, ma)
		var e struct{ Message string }
		u.must(t, http.StatusForbidden, http.MethodGet, "/api/v1/views?list=frauds", nil, &e)
		if !strings.Contains(e.Message, access.PermViewFrauds) {
			t.Errorf("403 says %q", e.Message)
		}
		before := g.viewRows(t)
		u.must(t, http.StatusForbidden, http.MethodPost, "/api/v1/views", map[string]any{"list": "frauds", "name": "x"}, nil)
		u.must(t, http.StatusForbidden, http.MethodPut, "/api/v1/views/defaults/frauds", map[string]any{"viewId": fv.ID}, nil)
		u.must(t, http.StatusNotFound, http.MethodGet, "/api/v1/views/"+fv.ID, nil, nil)
		u.must(t, http.StatusNotFound, http.MethodPut, "/api/v1/views/defaults/transactions", map[string]any{"viewId": fv.ID}, nil)
		if after := g.viewRows(t); after != before {
			t.Error("refused calls wrote")
		}
		if len(u.views(t, "transactions")) != 0 {
			t.Error("the merchant user lists views it does not have")
		}
		// The same team with View Frauds opens it.
		if v, _ := g.user(t, access.RoleMerchantAdmin, ma).openView(t, fv.ID); v.ID != fv.ID {
			t.Errorf("opened %+v", v)
		}
		// Files Access alone reads files views only; none of the three: refused by the rules.
		files := g.feeUser(t, access.RoleMerchant, []string{access.PermFilesAccess}, ma)
		files.views(t, "files")
		files.must(t, http.StatusForbidden, http.MethodGet, "/api/v1/views?list=transactions", nil, nil)
		none := g.feeUser(t, access.RoleMerchant, []string{access.PermDashboardAccess}, ma)
		none.must(t, http.StatusForbidden, http.MethodGet, "/api/v1/views?list=files", nil, nil)
	})
}
