package payment

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

func TestParseSearch(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want SearchTerm
		ok   bool
	}{
		{"", SearchTerm{}, false},
		{"   ", SearchTerm{}, false},
		{"42", SearchTerm{ID: 42}, true},
		{" 0042 ", SearchTerm{ID: 42}, true},
		{"PG7QX", SearchTerm{Reference: "PG7QX"}, true},
		{"12a", SearchTerm{Reference: "12a"}, true},
		{"-12", SearchTerm{Reference: "-12"}, true},
		{"99999999999999999999", SearchTerm{Reference: "99999999999999999999"}, true},
		{"١٢", SearchTerm{Reference: "١٢"}, true}, // non-ASCII digits are not an id
	}
	for _, c := range cases {
		got, ok := ParseSearch(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("ParseSearch(%q) = %+v, %v; want %+v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

// FuzzParseSearch checks the rule of spec 02 §5 on any text: empty is no
// search; an id only for ASCII digits (and then it reads back); otherwise
// the trimmed text is the reference.
func FuzzParseSearch(f *testing.F) {
	for _, s := range []string{"", "1", "007", "PGABC", " 12 ", "9223372036854775808", "1e3", "١"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		term, ok := ParseSearch(s)
		trimmed := strings.TrimSpace(s)
		if ok != (trimmed != "") {
			t.Fatalf("ok = %v for %q", ok, s)
		}
		if !ok {
			return
		}
		if term.ID != 0 && term.Reference != "" {
			t.Fatalf("both id and reference for %q", s)
		}
		if term.Reference != "" {
			if term.Reference != trimmed {
				t.Fatalf("reference %q for %q", term.Reference, s)
			}
			if n, err := strconv.ParseInt(trimmed, 10, 64); err == nil && digitsOnly(trimmed) {
				t.Fatalf("%q reads as id %d but was taken as a reference", s, n)
			}
			return
		}
		if !digitsOnly(trimmed) {
			t.Fatalf("id %d from non-digits %q", term.ID, s)
		}
		if n, _ := strconv.ParseInt(trimmed, 10, 64); n != term.ID {
			t.Fatalf("id %d, want %d", term.ID, n)
		}
	})
}

func TestParseListQuery(t *testing.T) {
	t.Parallel()
	f, err := ParseListQuery(ListQuery{Statuses: []string{"4, -2", "4", "3"}, From: "2025-03-01", To: "2025-03-01T23:59:59.999",
		MinAmount: "1", MaxAmount: "2.50", Currency: " php "})
	if err != nil {
		t.Fatal(err)
	}
	if f.Page != 1 || f.Take != DefaultTake || len(f.Statuses) != 3 || f.Currency != "PHP" ||
		!f.From.Equal(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)) || f.To.Sub(*f.From) != 24*time.Hour-time.Millisecond ||
		f.MinAmount.String() != "1.00" || f.MaxAmount.String() != "2.50" {
		t.Errorf("filter %+v", f)
	}
	_, err = ParseListQuery(ListQuery{Take: ptrTo(int32(101)), Type: 9, Statuses: []string{"7"}, From: "x"})
	if apperr.KindOf(err) != apperr.KindInvalid {
		t.Fatalf("error %v", err)
	}
	for _, part := range []string{"take", "type", `"7"`, "from"} {
		if !strings.Contains(err.Error(), part) {
			t.Errorf("error %q does not name %s", err, part)
		}
	}
}

// FuzzParseListQuery checks that any query either is refused as invalid or
// yields a filter within the documented bounds.
func FuzzParseListQuery(f *testing.F) {
	f.Add(int32(1), int32(5), int32(1), "4,-2", "2025-01-01", "2025-01-02T00:00:00Z", "1", "10.50", "php", int32(0), "")
	f.Add(int32(0), int32(0), int32(0), "", "", "", "", "", "", int32(2), "123")
	f.Add(int32(-1), int32(101), int32(3), "x", "bad", "2025-13-01", "-1", "1.234", "TOOLONGCURRENCY", int32(9), "PG")
	f.Fuzz(func(t *testing.T, page, take, typ int32, statuses, from, to, minA, maxA, currency string, pmType int32, search string) {
		var pp, tp *int32
		if page != 0 { // the fuzzer's 0 stands for "not given"
			pp = &page
		}
		if take != 0 {
			tp = &take
		}
		q := ListQuery{Page: pp, Take: tp, Type: typ, Statuses: []string{statuses}, From: from, To: to,
			MinAmount: minA, MaxAmount: maxA, Currency: currency, PaymentMethodType: pmType, Search: search}
		lf, err := ParseListQuery(q)
		if err != nil {
			if apperr.KindOf(err) != apperr.KindInvalid {
				t.Fatalf("error of kind %s: %v", apperr.KindOf(err), err)
			}
			return
		}
		if lf.Page < 1 || lf.Take < 1 || lf.Take > MaxTake {
			t.Fatalf("paging %d/%d", lf.Page, lf.Take)
		}
		if lf.ID != 0 || lf.Reference != "" {
			if lf.Statuses != nil || lf.From != nil || lf.MinAmount != nil || lf.Type != 0 {
				t.Fatalf("a search kept filters: %+v", lf)
			}
			return
		}
		for _, s := range lf.Statuses {
			if !s.Known() {
				t.Fatalf("status %d", s)
			}
		}
		if lf.Type != 0 && lf.Type != TypeDeposit && lf.Type != TypeWithdrawal {
			t.Fatalf("type %d", lf.Type)
		}
		if lf.From != nil && lf.To != nil && lf.From.After(*lf.To) {
			t.Fatalf("from %v after to %v", lf.From, lf.To)
		}
		if lf.MinAmount != nil && lf.MaxAmount != nil && lf.MinAmount.CentsValue() > lf.MaxAmount.CentsValue() {
			t.Fatal("min above max")
		}
		if lf.MinAmount != nil && lf.MinAmount.CentsValue() < 0 {
			t.Fatal("negative amount")
		}
		if len(lf.Currency) > 10 || lf.Currency != strings.ToUpper(lf.Currency) {
			t.Fatalf("currency %q", lf.Currency)
		}
	})
}

func TestMatchPayloads(t *testing.T) {
	t.Parallel()
	tx := func(id int64) Transaction { return Transaction{ID: id} }
	got := MatchPayloads([]LogPayload{
		{Transaction: tx(1), Stage: StageAPIResponse, Column: "content", Value: map[string]any{"a": map[string]any{"ref": "xx-ABC-yy"}}},
		{Transaction: tx(1), Stage: StageCallbackProcessing, Column: "webhook_request", Value: map[string]any{"list": []any{"abc"}}},
		{Transaction: tx(2), Stage: StageAPIRequest, Column: "content", Value: map[string]any{"n": "nothing"}},
		{Transaction: tx(3), Stage: StageAPIRequest, Column: "headers", Value: map[string]any{"h": "abcd"}},
	}, "abc")
	if len(got) != 2 || got[0].Transaction.ID != 1 || got[0].Score != MatchExact || got[0].Key != "list[0]" || got[0].Source != "Webhook" ||
		got[1].Transaction.ID != 3 || got[1].Score != MatchPartial || got[1].Key != "h" || got[1].Source != "API Request" {
		t.Errorf("matches %+v", got)
	}
}

func TestParseLogSearch(t *testing.T) {
	t.Parallel()
	off := int32(480)
	f, err := ParseLogSearch(LogSearchQuery{Type: 1, FromDate: "2025-03-01T08:00:00", ToDate: "2025-03-01T09:00:00", Term: " x ",
		Currency: "php", OffsetMinutes: &off})
	if err != nil {
		t.Fatal(err)
	}
	if !f.From.Equal(time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)) || f.Currency != "PHP" || f.Term != "x" {
		t.Errorf("search %+v", f)
	}
	if _, err := ParseLogSearch(LogSearchQuery{Type: 1, FromDate: "2025-03-01T08:00:00", ToDate: "2025-03-01T09:00:01", Term: "x"}); apperr.KindOf(err) != apperr.KindInvalid {
		t.Errorf("61 minutes: %v", err)
	}
}

func ptrTo[T any](v T) *T { return &v }

// TestExplicitZeroPagingIsRefused: page 0 and take 0 sent on purpose are out
// of range, not "absent".
func TestExplicitZeroPagingIsRefused(t *testing.T) {
	t.Parallel()
	zero := int32(0)
	for name, q := range map[string]ListQuery{"page": {Page: &zero}, "take": {Take: &zero}} {
		if _, err := ParseListQuery(q); apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), name) {
			t.Errorf("%s 0: %v, want invalid naming %s", name, err, name)
		}
	}
	f, err := ParseListQuery(ListQuery{})
	if err != nil || f.Page != 1 || f.Take != DefaultTake {
		t.Errorf("absent paging: %+v %v, want page 1 take %d", f, err, DefaultTake)
	}
}

// TestListTextFiltersAreBounded gives every text filter of the list (and so
// of the export, which the list's parser validates) one character over its
// bound: each is refused naming its JSON name, without echoing the text;
// the bound itself passes (issue 25: nonce, merchantCid and the others took
// 100,000 characters). Client ids are up to 120 characters, so their
// filter is too; every other filter is bounded like search.
func TestListTextFiltersAreBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		max  int
		set  func(q *ListQuery, v string)
	}{
		{"providerTid", MaxFilterLen, func(q *ListQuery, v string) { q.ProviderTID = v }},
		{"merchantCid", MaxClientIDLen, func(q *ListQuery, v string) { q.MerchantCID = v }},
		{"nonce", MaxFilterLen, func(q *ListQuery, v string) { q.Nonce = v }},
		{"paymentMethodValue", MaxFilterLen, func(q *ListQuery, v string) { q.PaymentMethodValue = v }},
		{"paymentIpAddress", MaxFilterLen, func(q *ListQuery, v string) { q.PaymentIP = v }},
		{"currency", MaxFilterLen, func(q *ListQuery, v string) { q.Currency = v }},
		{"from", MaxFilterLen, func(q *ListQuery, v string) { q.From = v }},
		{"to", MaxFilterLen, func(q *ListQuery, v string) { q.To = v }},
		{"minAmount", MaxFilterLen, func(q *ListQuery, v string) { q.MinAmount = v }},
		{"maxAmount", MaxFilterLen, func(q *ListQuery, v string) { q.MaxAmount = v }},
		{"statuses", MaxFilterLen, func(q *ListQuery, v string) { q.Statuses = []string{v} }},
		{"search", MaxFilterLen, func(q *ListQuery, v string) { q.Search = v }},
	} {
		var q ListQuery
		c.set(&q, strings.Repeat("é", c.max+1))
		_, err := ParseListQuery(q)
		want := fmt.Sprintf("%s must be at most %d characters", c.name, c.max)
		if apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "éé") {
			t.Errorf("%s of %d characters: %v, want a refusal %q", c.name, c.max+1, err, want)
		}
		// Padding counts too: the text is stored as given (an export's
		// filter).
		q = ListQuery{}
		c.set(&q, strings.Repeat(" ", 200))
		if _, err := ParseListQuery(q); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s of 200 spaces: %v, want a refusal %q", c.name, err, want)
		}
	}
	q := ListQuery{ProviderTID: strings.Repeat("p", 100), MerchantCID: strings.Repeat("é", 120), Nonce: strings.Repeat("n", 100),
		PaymentMethodValue: strings.Repeat("v", 100), PaymentIP: strings.Repeat("1", 100), Statuses: []string{strings.Repeat("4,", 49) + "4"}}
	if _, err := ParseListQuery(q); err != nil {
		t.Errorf("each at its bound: %v", err)
	}
	// Many statuses values are one filter: together at most 100 characters.
	if _, err := ParseListQuery(ListQuery{Statuses: strings.Split(strings.Repeat("4,", 60)+"4", ",")}); err == nil ||
		!strings.Contains(err.Error(), "statuses must be at most 100 characters") {
		t.Errorf("61 statuses values: %v", err)
	}
}

// TestLogSearchTextsAreBounded: the log search's dates, amount, currency
// and merchant client id are bounded like the list's filters, named, never
// echoed.
func TestLogSearchTextsAreBounded(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		max  int
		set  func(q *LogSearchQuery, v string)
	}{
		{"fromDate", MaxFilterLen, func(q *LogSearchQuery, v string) { q.FromDate = v }},
		{"toDate", MaxFilterLen, func(q *LogSearchQuery, v string) { q.ToDate = v }},
		{"amount", MaxFilterLen, func(q *LogSearchQuery, v string) { q.Amount = v }},
		{"currency", MaxFilterLen, func(q *LogSearchQuery, v string) { q.Currency = v }},
		{"merchantClientId", MaxClientIDLen, func(q *LogSearchQuery, v string) { q.MerchantClientID = v }},
	} {
		q := LogSearchQuery{Type: 1, FromDate: "2025-03-01T08:00:00", ToDate: "2025-03-01T09:00:00", Term: "x"}
		c.set(&q, strings.Repeat("9", c.max+1))
		_, err := ParseLogSearch(q)
		want := fmt.Sprintf("%s must be at most %d characters", c.name, c.max)
		if apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "9999") {
			t.Errorf("%s of %d characters: %v, want a refusal %q", c.name, c.max+1, err, want)
		}
	}
}

// TestFilterDatesAreWithinTheProductsRange: the list's, the export's and
// the log search's dates (one parser, ParseTime) are from 2025-01-01, the
// console's earliest day, to 9999-12-30, on the clock they are written on
// (issue 25: the year 0000 reached the store; the statistics answered 500).
func TestFilterDatesAreWithinTheProductsRange(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		from, to string
		bad      string
	}{
		{"0000-01-01", "", "from must be a date from 2025-01-01 to 9999-12-30"},
		{"2024-12-31T23:59:59.999", "", "from must be a date from 2025-01-01 to 9999-12-30"},
		{"2025-01-01T00:00:00+08:00", "", ""}, // 2024 in UTC, 2025 on its clock
		{"", "9999-12-31", "to must be a date from 2025-01-01 to 9999-12-30"},
		{"", "0001-01-01T00:00:00Z", "to must be a date from 2025-01-01 to 9999-12-30"},
		{"2025-01-01", "9999-12-30T23:59:59", ""},
	} {
		_, err := ParseListQuery(ListQuery{From: c.from, To: c.to})
		switch {
		case c.bad == "" && err != nil:
			t.Errorf("from %q to %q: %v", c.from, c.to, err)
		case c.bad != "" && (apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), c.bad)):
			t.Errorf("from %q to %q: %v, want %q", c.from, c.to, err, c.bad)
		}
	}
	// The log search reads zone-less dates in the caller's offset: the
	// first minutes of 2025-01-01 at +08:00 are in range.
	off := int32(480)
	if _, err := ParseLogSearch(LogSearchQuery{Type: 1, FromDate: "2025-01-01T00:00:00", ToDate: "2025-01-01T00:30:00", Term: "x",
		OffsetMinutes: &off}); err != nil {
		t.Errorf("log search at +08:00 on 2025-01-01: %v", err)
	}
	if _, err := ParseLogSearch(LogSearchQuery{Type: 1, FromDate: "0000-01-01T00:00:00", ToDate: "0000-01-01T00:30:00", Term: "x"}); err == nil ||
		!strings.Contains(err.Error(), "fromDate must be a date from 2025-01-01 to 9999-12-30") ||
		!strings.Contains(err.Error(), "toDate must be a date from 2025-01-01 to 9999-12-30") {
		t.Errorf("log search in the year 0000: %v", err)
	}
}
