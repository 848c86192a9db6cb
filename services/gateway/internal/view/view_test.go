package view

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

func TestValidateNamesEveryField(t *testing.T) {
	t.Parallel()
	_, err := validate(Input{List: "payments", Name: " ", Query: "a=%zz", Columns: []string{"id", "", strings.Repeat("c", 61)},
		Sort: strings.Repeat("s", 61), PageSize: 501, TimeZone: "Mars/Olympus"}, true)
	if apperr.KindOf(err) != apperr.KindInvalid {
		t.Fatalf("err = %v, want invalid", err)
	}
	msg := apperr.As(err).PublicMessage()
	for _, want := range []string{"list must be one of transactions, frauds, files.", "name is required.",
		"query is not a valid query string.", "columns[1] must not be empty.", "columns[2] must be at most 60 characters.",
		"sort must be at most 60 characters.", "pageSize must be 0 or between 1 and 500.", "timeZone is not a known time zone."} {
		if !strings.Contains(msg, want) {
			t.Errorf("%q does not say %q", msg, want)
		}
	}
	for _, in := range []Input{
		{List: "files", Name: strings.Repeat("n", 101)},
		{List: "files", Name: "n", Query: strings.Repeat("q", 2001)},
		{List: "files", Name: "n", Columns: make([]string, 41)},
		{List: "files", Name: "n", PageSize: -1},
		{List: "files", Name: "n", TimeZone: "Local"},
	} {
		if _, err := validate(in, true); apperr.KindOf(err) != apperr.KindInvalid {
			t.Errorf("validate(%+v) = %v, want invalid", in, err)
		}
	}
}

func TestValidateKeepsTheQueryButViewAndPage(t *testing.T) {
	t.Parallel()
	v, err := validate(Input{List: "transactions", Name: "  Morning  ", Query: "?view=4&collabId=3&statuses=1&page=2&statuses=2&minAmount=10",
		Columns: []string{"id", "amount"}, Sort: "createdAt:desc", PageSize: 100, TimeZone: "Asia/Manila", Shared: true}, true)
	if err != nil {
		t.Fatal(err)
	}
	if v.Name != "Morning" || v.Query != "collabId=3&statuses=1&statuses=2&minAmount=10" || v.TimeZone != "Asia/Manila" ||
		!slices.Equal(v.Columns, []string{"id", "amount"}) || v.PageSize != 100 || !v.Shared {
		t.Errorf("validate = %+v", v)
	}
	// On update the list is not given.
	if _, err := validate(Input{Name: "x"}, false); err != nil {
		t.Errorf("update without list: %v", err)
	}
}

type collabsFunc func(scope merchant.Scope, id int32) (bool, error)

func (f collabsFunc) Visible(_ context.Context, scope merchant.Scope, id int32) (bool, error) { return f(scope, id) }

func TestDropFilters(t *testing.T) {
	t.Parallel()
	// Collab 3 is merchant 1's, collab 4 merchant 2's; collab 9 is gone.
	owner := map[int32]int32{3: 1, 4: 2}
	collabs := collabsFunc(func(scope merchant.Scope, id int32) (bool, error) {
		m, ok := owner[id]
		return ok && scope.Includes(m), nil
	})
	tests := []struct {
		scope   merchant.Scope
		query   string
		want    string
		dropped []string
	}{
		{merchant.Scope{MerchantIDs: []int32{1}}, "collabId=3&merchantId=1&type=1", "collabId=3&merchantId=1&type=1", []string{}},
		{merchant.Scope{MerchantIDs: []int32{1}}, "collabId=4&type=1&merchantId=2", "type=1", []string{"collabId", "merchantId"}},
		{merchant.Scope{MerchantIDs: []int32{1}}, "collabId=9&collabId=3", "collabId=3", []string{"collabId"}},
		{merchant.Scope{All: true}, "collabId=4&merchantId=77", "collabId=4&merchantId=77", []string{}},
		{merchant.Scope{All: true}, "collabId=9", "", []string{"collabId"}},
		// 0 (every collab) and values that are not ids are the list's to judge.
		{merchant.Scope{MerchantIDs: []int32{1}}, "collabId=0&merchantId=x", "collabId=0&merchantId=x", []string{}},
	}
	for _, tt := range tests {
		got, dropped, err := dropFilters(context.Background(), collabs, tt.scope, tt.query)
		if err != nil || got != tt.want || !slices.Equal(dropped, tt.dropped) {
			t.Errorf("dropFilters(%+v, %q) = %q %v %v, want %q %v", tt.scope, tt.query, got, dropped, err, tt.want, tt.dropped)
		}
	}
	boom := errors.New("down")
	if _, _, err := dropFilters(context.Background(), collabsFunc(func(merchant.Scope, int32) (bool, error) { return false, boom }),
		merchant.Scope{All: true}, "collabId=3"); !errors.Is(err, boom) {
		t.Errorf("a failing lookup: %v", err)
	}
}

func TestScopeKeyAndSharing(t *testing.T) {
	t.Parallel()
	if got := ScopeKey(merchant.Scope{MerchantIDs: []int32{5, 2, 5}}); got != "2,5" {
		t.Errorf("ScopeKey = %q", got)
	}
	if got := ScopeKey(merchant.Scope{All: true, MerchantIDs: []int32{1}}); got != "all" {
		t.Errorf("ScopeKey(all) = %q", got)
	}
	team := merchant.Scope{MerchantIDs: []int32{2, 5}}
	shared := View{UserID: 1, List: Frauds, Shared: true, Scope: team}
	perms := []string{Frauds.Permission()}
	for _, tt := range []struct {
		c    Caller
		v    View
		want bool
	}{
		{Caller{UserID: 2, Scope: merchant.Scope{MerchantIDs: []int32{5, 2}}, Permissions: perms}, shared, true},
		{Caller{UserID: 2, Scope: merchant.Scope{MerchantIDs: []int32{5}}, Permissions: perms}, shared, false},
		{Caller{UserID: 2, Scope: merchant.Scope{All: true}, Permissions: perms}, shared, false},
		{Caller{UserID: 2, Scope: team, Permissions: []string{Transactions.Permission()}}, shared, false},
		{Caller{UserID: 2, Scope: team, Permissions: perms}, View{UserID: 1, List: Frauds, Scope: team}, false},
		{Caller{UserID: 1, Scope: merchant.Scope{}, Permissions: perms}, View{UserID: 1, List: Frauds, Scope: team}, true},
		// No merchants: no team to share with.
		{Caller{UserID: 2, Permissions: perms}, View{UserID: 1, List: Frauds, Shared: true}, false},
	} {
		if got := tt.c.sees(tt.v); got != tt.want {
			t.Errorf("%+v sees %+v = %t, want %t", tt.c, tt.v, got, tt.want)
		}
	}
}
