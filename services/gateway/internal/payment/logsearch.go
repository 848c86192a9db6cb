package payment

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/datefilter"
)

// Log search limits (spec 02 §5, §9).
const (
	MaxLogSearchWindow = 60 * time.Minute
	MaxLogSearchTerm   = 300
	// MaxLogSearchRows bounds the journal payloads one search reads.
	MaxLogSearchRows = 5000
)

// Match scores of a log search hit (spec 02 §3).
const (
	MatchExact   = 1
	MatchPartial = 2
)

// LogSearchQuery is the Search in Logs form as received.
type LogSearchQuery struct {
	Type             int32
	FromDate, ToDate string
	Term             string
	Amount           string
	Currency         string
	MerchantClientID string
	// OffsetMinutes is the zone of the zone-less dates (nil: UTC).
	OffsetMinutes *int32
}

// LogSearch is a validated log search.
type LogSearch struct {
	Type             Type
	From, To         time.Time
	Term             string
	Amount           *money.Amount
	Currency         string
	MerchantClientID string
	Scope            merchant.Scope
	Limit            int
}

// LogPayload is one JSON payload of a journal entry, with its transaction.
type LogPayload struct {
	Transaction Transaction
	Stage       Stage
	// Column names the entry's field: content, headers, webhook_request…
	Column string
	// Value is the decoded JSON.
	Value any
}

// LogMatch is a transaction found by a log search.
type LogMatch struct {
	Transaction Transaction
	Key         string
	Score       int
	Source      string
}

// ParseLogSearch validates the Search in Logs form; every problem is
// reported at once.
func ParseLogSearch(q LogSearchQuery) (LogSearch, error) {
	var bad []string
	f := LogSearch{Term: strings.TrimSpace(q.Term), Currency: strings.ToUpper(strings.TrimSpace(q.Currency)),
		MerchantClientID: strings.TrimSpace(q.MerchantClientID), Limit: MaxLogSearchRows}
	switch Type(q.Type) {
	case TypeDeposit, TypeWithdrawal:
		f.Type = Type(q.Type)
	default:
		bad = append(bad, "transactionType must be 1 (deposit) or 2 (withdrawal)")
	}
	if n := utf8.RuneCountInString(f.Term); n < 1 || n > MaxLogSearchTerm {
		bad = append(bad, fmt.Sprintf("searchTerm must be 1 to %d characters", MaxLogSearchTerm))
	}
	tooLong, long := LongFilters(TextFilter{Name: "fromDate", Text: q.FromDate}, TextFilter{Name: "toDate", Text: q.ToDate},
		TextFilter{Name: "amount", Text: q.Amount}, TextFilter{Name: "currency", Text: q.Currency},
		TextFilter{Name: "merchantClientId", Text: q.MerchantClientID, Max: MaxClientIDLen})
	bad = append(bad, tooLong...)
	if len(f.Currency) > 10 && !long["currency"] {
		bad = append(bad, "currency must be at most 10 characters")
	}
	if strings.TrimSpace(q.Amount) != "" && !long["amount"] {
		a, err := money.Parse("amount", q.Amount)
		if err != nil || a.CentsValue() < 1 {
			bad = append(bad, "amount must be an amount of at least 0.01 with at most 2 decimal places")
		} else {
			f.Amount = &a
		}
	}
	loc := time.UTC
	if q.OffsetMinutes != nil {
		if *q.OffsetMinutes < -14*60 || *q.OffsetMinutes > 14*60 {
			bad = append(bad, "timezoneOffsetMinutes must be between -840 and 840")
		} else {
			loc = time.FixedZone("offset", int(*q.OffsetMinutes)*60)
		}
	}
	var okFrom, okTo bool
	for _, d := range []struct {
		name, text string
		dst        *time.Time
		ok         *bool
	}{{"fromDate", q.FromDate, &f.From, &okFrom}, {"toDate", q.ToDate, &f.To, &okTo}} {
		if long[d.name] {
			continue
		}
		if strings.TrimSpace(d.text) == "" {
			bad = append(bad, d.name+" is required")
			continue
		}
		t, err := ParseTime(d.text, loc)
		if errors.Is(err, ErrDateOutOfRange) {
			bad = append(bad, datefilter.Problem(d.name))
			continue
		}
		if err != nil {
			bad = append(bad, d.name+": "+err.Error())
			continue
		}
		*d.dst, *d.ok = t, true
	}
	if okFrom && okTo {
		switch {
		case f.To.Before(f.From):
			bad = append(bad, "toDate must not be before fromDate")
		case f.To.Sub(f.From) > MaxLogSearchWindow:
			bad = append(bad, "the window from fromDate to toDate must be at most 60 minutes")
		}
	}
	if len(bad) > 0 {
		return LogSearch{}, apperr.Invalid("The search is not valid: %s.", strings.Join(bad, "; "))
	}
	return f, nil
}

// SearchLogs finds the transactions in scope whose journal payloads, written
// within the window, hold the term: a JSON value equal to it (exact, score
// 1, case-insensitive) or containing it (partial, score 2). Each transaction
// appears once with its best match; exact matches first, then newest.
func (s *Service) SearchLogs(ctx context.Context, scope merchant.Scope, q LogSearchQuery) ([]LogMatch, error) {
	f, err := ParseLogSearch(q)
	if err != nil {
		return nil, err
	}
	f.Scope = scope
	if !scope.All && len(scope.MerchantIDs) == 0 {
		return []LogMatch{}, nil
	}
	payloads, err := s.store.SearchLogs(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("search logs: %w", err)
	}
	return MatchPayloads(payloads, f.Term), nil
}

// MatchPayloads picks each transaction's best match of term in payloads.
func MatchPayloads(payloads []LogPayload, term string) []LogMatch {
	best := map[int64]LogMatch{}
	var order []int64
	for _, p := range payloads {
		key, score := matchJSON(p.Value, "", strings.ToLower(term))
		if score == 0 {
			continue
		}
		source := string(p.Stage)
		if strings.HasPrefix(p.Column, "webhook_") {
			source = "Webhook"
		}
		m := LogMatch{Transaction: p.Transaction, Key: key, Score: score, Source: source}
		prev, seen := best[p.Transaction.ID]
		if !seen {
			order = append(order, p.Transaction.ID)
		}
		if !seen || score < prev.Score {
			best[p.Transaction.ID] = m
		}
	}
	out := make([]LogMatch, 0, len(order))
	for _, id := range order {
		out = append(out, best[id])
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score < out[j].Score
		}
		if !out[i].Transaction.CreatedAt.Equal(out[j].Transaction.CreatedAt) {
			return out[i].Transaction.CreatedAt.After(out[j].Transaction.CreatedAt)
		}
		return out[i].Transaction.ID > out[j].Transaction.ID
	})
	return out
}

// matchJSON returns the dotted path of the best value of v that equals
// (score 1) or contains (score 2) term (lower-cased), or score 0.
func matchJSON(v any, path, term string) (string, int) {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		bestKey, bestScore := "", 0
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			key, score := matchJSON(x[k], p, term)
			if score != 0 && (bestScore == 0 || score < bestScore) {
				bestKey, bestScore = key, score
				if score == MatchExact {
					break
				}
			}
		}
		return bestKey, bestScore
	case []any:
		bestKey, bestScore := "", 0
		for i, item := range x {
			key, score := matchJSON(item, path+"["+strconv.Itoa(i)+"]", term)
			if score != 0 && (bestScore == 0 || score < bestScore) {
				bestKey, bestScore = key, score
				if score == MatchExact {
					break
				}
			}
		}
		return bestKey, bestScore
	case nil:
		return "", 0
	}
	text := strings.ToLower(scalarText(v))
	switch {
	case text == term:
		return path, MatchExact
	case strings.Contains(text, term):
		return path, MatchPartial
	}
	return "", 0
}

func scalarText(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}
