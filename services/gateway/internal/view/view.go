// Package view keeps the users' saved views (docs/contracts-views.md): a
// name plus one list's filters and layout, per user, optionally shared with
// the users of the same merchant scope. It validates them, decides who may
// see and change each, and removes from an opened view the filters its
// reader can no longer see.
package view

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// List is the list a view belongs to.
type List string

// The lists that have views.
const (
	Transactions List = "transactions"
	Frauds       List = "frauds"
	Files        List = "files"
)

// Lists are the lists that have views, in the contract's order.
var Lists = []List{Transactions, Frauds, Files}

// Permission is the permission a caller needs for l's views.
func (l List) Permission() string {
	switch l {
	case Transactions:
		return access.PermGetTransactions
	case Frauds:
		return access.PermViewFrauds
	case Files:
		return access.PermFilesAccess
	}
	return ""
}

// ParseList reads a list's name.
func ParseList(s string) (List, error) {
	if l := List(s); slices.Contains(Lists, l) {
		return l, nil
	}
	return "", apperr.Invalid("list must be one of transactions, frauds, files.")
}

// Limits of docs/contracts-views.md.
const (
	MaxPerList     = 50
	MaxNameLen     = 100
	MaxQueryLen    = 2000
	MaxColumns     = 40
	MaxColumnLen   = 60
	MaxSortLen     = 60
	MaxPageSize    = 500
	MaxTimeZoneLen = 60
)

// The query parameters checked against what the reader may see now.
const (
	paramCollab   = "collabId"
	paramMerchant = "merchantId"
)

// View is a saved view.
type View struct {
	ID     int64
	UserID int64
	// OwnerName is the owner's user name when they last saved it.
	OwnerName string
	// Scope is the owner's merchant scope when they last saved it.
	Scope    merchant.Scope
	List     List
	Name     string
	Query    string
	Columns  []string
	Sort     string
	PageSize int32
	TimeZone string
	Shared   bool
	// IsDefault is true when it is the reader's default for its list (set
	// by the store for the reader it answers).
	IsDefault bool
	CreatedAt time.Time
	UpdatedAt time.Time
}

// Mine reports whether user owns v.
func (v View) Mine(userID int64) bool { return v.UserID == userID }

// ScopeKey is the canonical text of a scope: "all", or the sorted merchant
// ids joined by commas; empty for a scope without merchants, which shares
// with nobody.
func ScopeKey(s merchant.Scope) string {
	if s.All {
		return "all"
	}
	ids := SortedIDs(s.MerchantIDs)
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}

// SortedIDs are ids sorted, without repeats.
func SortedIDs(ids []int32) []int32 {
	out := slices.Clone(ids)
	slices.Sort(out)
	return slices.Compact(out)
}

// Input is a view as a caller sends it, before validation (List only on
// create: it never changes).
type Input struct {
	List     string
	Name     string
	Query    string
	Columns  []string
	Sort     string
	PageSize int32
	TimeZone string
	Shared   bool
}

// validate checks in and returns the view it describes (no id, owner or
// scope); every problem is reported at once, one sentence each, naming the
// JSON fields. withList is false on update, whose list is the stored one.
func validate(in Input, withList bool) (View, error) {
	var bad []string
	v := View{List: List(in.List), Name: strings.TrimSpace(in.Name), Sort: strings.TrimSpace(in.Sort),
		PageSize: in.PageSize, TimeZone: strings.TrimSpace(in.TimeZone), Shared: in.Shared}
	if withList && !slices.Contains(Lists, v.List) {
		bad = append(bad, "list must be one of transactions, frauds, files.")
	}
	switch n := utf8.RuneCountInString(v.Name); {
	case n == 0:
		bad = append(bad, "name is required.")
	case n > MaxNameLen:
		bad = append(bad, fmt.Sprintf("name must be at most %d characters.", MaxNameLen))
	}
	q, problem := normalQuery(in.Query)
	if problem != "" {
		bad = append(bad, problem)
	}
	v.Query = q
	if len(in.Columns) > MaxColumns {
		bad = append(bad, fmt.Sprintf("columns must have at most %d entries.", MaxColumns))
	}
	v.Columns = make([]string, 0, len(in.Columns))
	for i, c := range in.Columns {
		c = strings.TrimSpace(c)
		switch n := utf8.RuneCountInString(c); {
		case n == 0:
			bad = append(bad, fmt.Sprintf("columns[%d] must not be empty.", i))
		case n > MaxColumnLen:
			bad = append(bad, fmt.Sprintf("columns[%d] must be at most %d characters.", i, MaxColumnLen))
		}
		v.Columns = append(v.Columns, c)
	}
	if utf8.RuneCountInString(v.Sort) > MaxSortLen {
		bad = append(bad, fmt.Sprintf("sort must be at most %d characters.", MaxSortLen))
	}
	if v.PageSize < 0 || v.PageSize > MaxPageSize {
		bad = append(bad, fmt.Sprintf("pageSize must be 0 or between 1 and %d.", MaxPageSize))
	}
	if v.TimeZone != "" && !knownZone(v.TimeZone) {
		bad = append(bad, "timeZone is not a known time zone.")
	}
	if len(bad) > 0 {
		return View{}, apperr.Invalid("%s", strings.Join(bad, " "))
	}
	return v, nil
}

// knownZone reports whether name is an IANA time zone (time.LoadLocation
// also takes "Local", the server's own zone, which means nothing to the
// console).
func knownZone(name string) bool {
	if name == "Local" || len(name) > MaxTimeZoneLen {
		return false
	}
	_, err := time.LoadLocation(name)
	return err == nil
}

// normalQuery checks a list's query string and returns it without a
// leading "?" and without the view and page parameters, which never belong
// to a view (the contract: "without view and page"); the other parameters
// keep their order and spelling.
func normalQuery(raw string) (string, string) {
	q := strings.TrimPrefix(strings.TrimSpace(raw), "?")
	if utf8.RuneCountInString(q) > MaxQueryLen {
		return "", fmt.Sprintf("query must be at most %d characters.", MaxQueryLen)
	}
	if _, err := url.ParseQuery(q); err != nil {
		return "", "query is not a valid query string."
	}
	return filterQuery(q, func(key, _ string) bool { return key != "view" && key != "page" }), ""
}

// filterQuery keeps the parameters of the valid query string q for which
// keep is true, in order and as spelled.
func filterQuery(q string, keep func(key, value string) bool) string {
	var out []string
	for _, part := range strings.Split(q, "&") {
		if part == "" {
			continue
		}
		k, val, _ := strings.Cut(part, "=")
		key, _ := url.QueryUnescape(k)
		value, _ := url.QueryUnescape(val)
		if keep(key, value) {
			out = append(out, part)
		}
	}
	return strings.Join(out, "&")
}

// Collabs says which collabs a reader may see.
type Collabs interface {
	// Visible reports whether collab id exists and belongs to a merchant of
	// scope (false, nil when not).
	Visible(ctx context.Context, scope merchant.Scope, id int32) (bool, error)
}

// dropFilters removes from q the collabId and merchantId values the reader
// of scope cannot see now (a collab outside the scope or gone, a merchant
// not in the scope) and answers the new query and the names of the
// parameters it removed. A value that is not an id (0 means "every" on the
// lists) is left for the list to judge.
func dropFilters(ctx context.Context, collabs Collabs, scope merchant.Scope, q string) (string, []string, error) {
	dropped := []string{}
	var failed error
	out := filterQuery(q, func(key, value string) bool {
		if failed != nil || (key != paramCollab && key != paramMerchant) {
			return true
		}
		id, err := strconv.ParseInt(value, 10, 32)
		if err != nil || id <= 0 {
			return true
		}
		visible := scope.Includes(int32(id))
		if key == paramCollab {
			visible, err = collabs.Visible(ctx, scope, int32(id))
			if err != nil {
				failed = err
				return true
			}
		}
		if !visible && !slices.Contains(dropped, key) {
			dropped = append(dropped, key)
		}
		return visible
	})
	if failed != nil {
		return "", nil, fmt.Errorf("check the view's collab filter: %w", failed)
	}
	return out, dropped, nil
}

// Store keeps views and the users' defaults.
type Store interface {
	// Create inserts v unless its owner has max views of its list already
	// or one of the same name in it (conflict).
	Create(ctx context.Context, v View, max int) (View, error)
	// Get answers view id with IsDefault for reader (not found when there
	// is none; whether reader may see it is the caller's business).
	Get(ctx context.Context, reader, id int64) (View, error)
	// List answers the views of list that reader owns or that are shared
	// with scopeKey (none when scopeKey is empty): own by name, then shared
	// by name, with IsDefault for reader.
	List(ctx context.Context, reader int64, list List, scopeKey string) ([]View, error)
	// Update replaces the fields of v (its owner's view v.ID; not found
	// when gone, conflict for a name the owner already has in the list); a
	// view no longer shared stops being the other users' default.
	Update(ctx context.Context, v View) (View, error)
	// Delete removes the owner's view id (not found when gone).
	Delete(ctx context.Context, owner, id int64) error
	// SetDefault makes view id user's default for list; id 0 clears it.
	SetDefault(ctx context.Context, user int64, list List, id int64) error
}
