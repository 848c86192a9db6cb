package payment

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/datefilter"
)

// List paging limits (spec 02 §9: the console's page sizes are 5 to 30).
const (
	DefaultTake = 5
	MaxTake     = 100
	// MaxFilterLen bounds every text filter of the list, the export and
	// the log search, counted in characters as given (padding included:
	// an export stores its filter as given). Ids, references, nonces,
	// dates and amounts are far shorter.
	MaxFilterLen = 100
)

// ListQuery is the transaction list's query as received: strings where the
// caller sends free text, before validation (ParseListQuery).
type ListQuery struct {
	CollabID   int32
	MerchantID int32
	// Page and Take are nil when the caller gave none (1 and DefaultTake);
	// a given 0 is refused like any other value out of range.
	Page, Take         *int32
	Type               int32
	Statuses           []string
	ProviderTID        string
	MerchantCID        string
	Nonce              string
	From, To           string
	MinAmount          string
	MaxAmount          string
	Currency           string
	PaymentMethodValue string
	PaymentMethodType  int32
	PaymentIP          string
	IncludeTotals      bool
	Search             string
}

// ListFilter is a validated transaction list query. Zero values mean "any";
// the Store applies Scope as well.
type ListFilter struct {
	CollabID           int32
	MerchantID         int32
	Page, Take         int
	Type               Type
	Statuses           []Status
	ProviderTID        string
	MerchantCID        string
	Nonce              string
	From, To           *time.Time
	MinAmount          *money.Amount
	MaxAmount          *money.Amount
	Currency           string
	PaymentMethodValue string
	PaymentMethodType  int16
	PaymentIP          string
	IncludeTotals      bool
	// ID or Reference is set by a free-text search; the other filters are
	// then cleared.
	ID        int64
	Reference string
	// Scope is the caller's merchant scope.
	Scope merchant.Scope
}

// ListPage is a page of the list with its counts.
type ListPage struct {
	Transactions []Transaction
	TotalCount   int
	// Page (1-based) and Take are the paging the query resolved to.
	Page, Take int
	// Totals maps currency to the sum of amounts (with IncludeTotals).
	Totals map[string]money.Amount
	// Lag is how far behind the primary the read replica that answered was
	// (0: read from the primary, or a replica that had replayed everything
	// it received).
	Lag time.Duration
}

// SearchTerm is what a free-text search names: an id (all digits) or a
// reference id (anything else), spec 02 §5.
type SearchTerm struct {
	ID        int64
	Reference string
}

// ParseSearch reads the free-text search rule of spec 02 §5: trimmed, all
// ASCII digits is an id, anything else is a reference id. ok is false for an
// empty text. A digit string too large for an id is read as a reference
// (which then matches nothing rather than failing).
func ParseSearch(text string) (term SearchTerm, ok bool) {
	text = strings.TrimSpace(text)
	if text == "" {
		return SearchTerm{}, false
	}
	if digitsOnly(text) {
		if id, err := strconv.ParseInt(text, 10, 64); err == nil {
			return SearchTerm{ID: id}, true
		}
	}
	return SearchTerm{Reference: text}, true
}

func digitsOnly(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// zoneless are the accepted layouts of a time without a zone (read as UTC).
var zoneless = []string{
	"2006-01-02T15:04:05.999999999",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04",
	"2006-01-02",
}

// ErrDateOutOfRange is ParseTime's error for a time whose date, on the
// clock it was written on, is outside datefilter.First to datefilter.Last.
var ErrDateOutOfRange = errors.New("the date is out of range")

// ParseTime reads RFC 3339, or a zone-less date-time read in loc (UTC when
// nil), and returns it in UTC. A time whose date on its own clock (its
// offset, or loc) is out of the filters' range is ErrDateOutOfRange:
// callers refuse it with datefilter.Problem.
func ParseTime(s string, loc *time.Location) (time.Time, error) {
	s = strings.TrimSpace(s)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		if loc == nil {
			loc = time.UTC
		}
		for _, layout := range zoneless {
			if t, err = time.ParseInLocation(layout, s, loc); err == nil {
				break
			}
		}
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a time such as 2025-03-01T00:00:00 or 2025-03-01T00:00:00Z", s)
	}
	if !datefilter.In(t) {
		return time.Time{}, ErrDateOutOfRange
	}
	return t.UTC(), nil
}

// ParseListQuery validates a list query; every problem is reported at once
// as one invalid-argument error.
func ParseListQuery(q ListQuery) (ListFilter, error) {
	f := ListFilter{CollabID: q.CollabID, MerchantID: q.MerchantID, Page: 1, Take: DefaultTake,
		IncludeTotals: q.IncludeTotals}
	var bad []string
	if q.CollabID < 0 {
		bad = append(bad, "collab id must not be negative")
	}
	if q.MerchantID < 0 {
		bad = append(bad, "MerchantId must not be negative")
	}
	switch {
	case q.Page == nil:
	case *q.Page >= 1:
		f.Page = int(*q.Page)
	default:
		bad = append(bad, "page must be 1 or more")
	}
	switch {
	case q.Take == nil:
	case *q.Take >= 1 && *q.Take <= MaxTake:
		f.Take = int(*q.Take)
	default:
		bad = append(bad, fmt.Sprintf("take must be between 1 and %d", MaxTake))
	}
	tooLong, long := LongFilters(
		TextFilter{Name: "search", Text: q.Search}, TextFilter{Name: "providerTid", Text: q.ProviderTID},
		TextFilter{Name: "merchantCid", Text: q.MerchantCID, Max: MaxClientIDLen}, TextFilter{Name: "nonce", Text: q.Nonce},
		TextFilter{Name: "paymentMethodValue", Text: q.PaymentMethodValue}, TextFilter{Name: "paymentIpAddress", Text: q.PaymentIP},
		TextFilter{Name: "currency", Text: q.Currency}, TextFilter{Name: "from", Text: q.From}, TextFilter{Name: "to", Text: q.To},
		TextFilter{Name: "minAmount", Text: q.MinAmount}, TextFilter{Name: "maxAmount", Text: q.MaxAmount},
		TextFilter{Name: "statuses", Text: strings.Join(q.Statuses, ",")})
	bad = append(bad, tooLong...)
	if long["search"] {
		// refused above
	} else if term, ok := ParseSearch(q.Search); ok {
		f.ID, f.Reference = term.ID, term.Reference
		if f.ID == 0 && f.Reference == "" {
			f.ID = -1 // id 0 exists nowhere; keep the search from matching everything
		}
		return f, joinBad(bad)
	}
	switch q.Type {
	case 0, int32(TypeDeposit), int32(TypeWithdrawal):
		f.Type = Type(q.Type)
	default:
		bad = append(bad, "type must be 1 (deposit) or 2 (withdrawal)")
	}
	for _, item := range q.Statuses {
		if long["statuses"] {
			break
		}
		for _, part := range strings.Split(item, ",") {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			n, err := strconv.ParseInt(part, 10, 16)
			if err != nil || !Status(n).Known() {
				bad = append(bad, fmt.Sprintf("statuses: %q is not a transaction status", part))
				continue
			}
			f.Statuses = appendUnique(f.Statuses, Status(n))
		}
	}
	f.ProviderTID = strings.TrimSpace(q.ProviderTID)
	f.MerchantCID = strings.TrimSpace(q.MerchantCID)
	f.Nonce = strings.TrimSpace(q.Nonce)
	f.PaymentMethodValue = strings.TrimSpace(q.PaymentMethodValue)
	f.PaymentIP = strings.TrimSpace(q.PaymentIP)
	f.Currency = strings.ToUpper(strings.TrimSpace(q.Currency))
	if len(f.Currency) > 10 && !long["currency"] {
		bad = append(bad, "currency must be at most 10 characters")
	}
	switch q.PaymentMethodType {
	case 0, 1, 2:
		f.PaymentMethodType = int16(q.PaymentMethodType)
	default:
		bad = append(bad, "paymentMethodType must be 1 (Phone) or 2 (Crypto)")
	}
	for _, tm := range []struct {
		name, text string
		dst        **time.Time
	}{{"from", q.From, &f.From}, {"to", q.To, &f.To}} {
		if strings.TrimSpace(tm.text) == "" || long[tm.name] {
			continue
		}
		t, err := ParseTime(tm.text, nil)
		if errors.Is(err, ErrDateOutOfRange) {
			bad = append(bad, datefilter.Problem(tm.name))
			continue
		}
		if err != nil {
			bad = append(bad, tm.name+": "+err.Error())
			continue
		}
		*tm.dst = &t
	}
	if f.From != nil && f.To != nil && f.From.After(*f.To) {
		bad = append(bad, "from must not be after to")
	}
	for _, am := range []struct {
		name, text string
		dst        **money.Amount
	}{{"minAmount", q.MinAmount, &f.MinAmount}, {"maxAmount", q.MaxAmount, &f.MaxAmount}} {
		if strings.TrimSpace(am.text) == "" || long[am.name] {
			continue
		}
		a, err := money.Parse(am.name, am.text)
		if err != nil || a.CentsValue() < 0 {
			bad = append(bad, am.name+" must be an amount such as 150.00")
			continue
		}
		*am.dst = &a
	}
	if f.MinAmount != nil && f.MaxAmount != nil && f.MinAmount.CentsValue() > f.MaxAmount.CentsValue() {
		bad = append(bad, "minAmount must not be more than maxAmount")
	}
	return f, joinBad(bad)
}

// TextFilter is a text filter of a list as the caller gave it, by its JSON
// name. Max bounds it in characters; 0 is MaxFilterLen.
type TextFilter struct {
	Name, Text string
	Max        int
}

// LongFilters returns, for each filter over its bound, the refusal
// "<name> must be at most N characters" (naming it, never echoing it), and
// the set of names refused, whose text the caller reads no further.
func LongFilters(filters ...TextFilter) (problems []string, long map[string]bool) {
	long = map[string]bool{}
	for _, tf := range filters {
		limit := tf.Max
		if limit == 0 {
			limit = MaxFilterLen
		}
		if utf8.RuneCountInString(tf.Text) > limit {
			problems = append(problems, fmt.Sprintf("%s must be at most %d characters", tf.Name, limit))
			long[tf.Name] = true
		}
	}
	return problems, long
}

func appendUnique(ss []Status, s Status) []Status {
	for _, x := range ss {
		if x == s {
			return ss
		}
	}
	return append(ss, s)
}

func joinBad(bad []string) error {
	if len(bad) == 0 {
		return nil
	}
	return apperr.Invalid("The filters are not valid: %s.", strings.Join(bad, "; "))
}

// List returns a page of transactions within scope, newest first.
func (s *Service) List(ctx context.Context, scope merchant.Scope, q ListQuery) (ListPage, error) {
	f, err := ParseListQuery(q)
	if err != nil {
		return ListPage{}, err
	}
	f.Scope = scope
	if !scope.All && len(scope.MerchantIDs) == 0 {
		return ListPage{Transactions: []Transaction{}, Totals: map[string]money.Amount{}, Page: f.Page, Take: f.Take}, nil
	}
	page, err := s.store.List(ctx, f)
	if err != nil {
		return ListPage{}, fmt.Errorf("list transactions: %w", err)
	}
	page.Page, page.Take = f.Page, f.Take
	return page, nil
}
