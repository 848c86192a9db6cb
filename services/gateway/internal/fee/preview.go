package fee

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Winner is the fee that applies to a collab's payments of one type, pay
// type and currency within an amount range.
type Winner struct {
	Type       payment.Type
	PayTypeID  int32
	CurrencyID int32
	Currency   string
	// AmountMin is the range's first amount; AmountMax its last (unset: no
	// end).
	AmountMin money.Amount
	AmountMax money.Amount
	// FeeID is the winning fee's id, 0 for none.
	FeeID int64
}

// Winners answers, for a collab v sees, which fee applies to its payments
// per transaction type, pay type of the collab, currency (of its fees) and
// amount range, as payment.SelectFee picks them.
func (s *Service) Winners(ctx context.Context, v Viewer, collabID int32) ([]Winner, error) {
	if collabID <= 0 {
		return nil, apperr.Invalid("collabId is required: the id of a collab.")
	}
	if _, err := s.collabInScope(ctx, v, collabID); err != nil {
		return nil, err
	}
	payTypes, err := s.store.CollabPayTypes(ctx, collabID)
	if err != nil {
		return nil, err
	}
	stored, err := s.store.ForCollab(ctx, collabID)
	if err != nil {
		return nil, err
	}
	currencies, err := s.store.Currencies(ctx)
	if err != nil {
		return nil, err
	}
	fees := make([]payment.Fee, 0, len(stored))
	var codes []string
	for _, f := range stored {
		fees = append(fees, f.Fee)
		if strings.EqualFold(f.CurrencyFrom, f.CurrencyTo) && !slices.Contains(codes, f.CurrencyFrom) {
			codes = append(codes, f.CurrencyFrom)
		}
	}
	slices.Sort(codes)
	bounds := payment.AmountBounds(fees)
	var out []Winner
	for _, code := range codes {
		var curID int32
		for _, c := range currencies {
			if c.Code == code {
				curID = c.ID
			}
		}
		for _, t := range []payment.Type{payment.TypeDeposit, payment.TypeWithdrawal} {
			for _, pt := range payTypes {
				start := len(out)
				for _, b := range bounds {
					w, _ := payment.SelectFee(fees, collabID, t, pt, code, money.Cents(b))
					if n := len(out); n > start && out[n-1].FeeID == w.ID {
						continue
					} else if n > start {
						out[n-1].AmountMax = money.Cents(b - 1)
					}
					out = append(out, Winner{Type: t, PayTypeID: pt, CurrencyID: curID, Currency: code,
						AmountMin: money.Cents(b), FeeID: w.ID})
				}
			}
		}
	}
	return out, nil
}

// PreviewQuery is what the store computes for a preview: over the
// transactions created in [From, To) of Collabs (nil: every collab) that a
// version of the fee matches by its scope (collab, type, pay type,
// currency, amount range; Scopes), the sums of their applied fees and of
// the fees Winners assign.
type PreviewQuery struct {
	From, To time.Time
	Collabs  []int32
	Scopes   []payment.Fee
	// Bounds are payment.AmountBounds of every fee that may apply: a
	// transaction's region is how many of them are at most its amount in
	// cents (1-based).
	Bounds []int64
	// Winners give the fee per collab (0: a collab without fees of its
	// own), type, pay type, region and currency.
	Winners []WinnerRow
}

// WinnerRow is the fee that wins one kind of transaction in a preview.
type WinnerRow struct {
	CollabID  int32
	Type      int16
	PayTypeID int32
	Region    int32
	Currency  string
	FeeType   payment.FeeType
	Value     string
}

// PreviewCurrency is the preview of one currency: how many transactions
// the fee concerns, how many of their fees change, and their fees' sums
// before (as applied) and after (decimal strings).
type PreviewCurrency struct {
	Currency string
	Count    int64
	Changed  int64
	Before   string
	After    string
}

// Preview is the what-if of a fee.
type Preview struct {
	From, To   time.Time
	Currencies []PreviewCurrency
}

// maxPreviewCandidates bounds the fees a preview weighs.
const maxPreviewCandidates = 50_000

// Preview answers how the fees of the last 30 days' transactions would
// change if fee id (0 for a new one) were saved as in: the transactions
// of the affected collabs (the fee's, or every collab of v's scope for a
// global fee) that its old or new version matches by scope, their applied
// fees summed, and the fees the winners among the current enabled fees,
// with the new version in place of the old, would charge them. It needs
// the right to save the fee.
func (s *Service) Preview(ctx context.Context, v Viewer, id int64, in Input) (Preview, error) {
	f, _, err := s.parseFor(ctx, v, id, in)
	if err != nil {
		return Preview{}, err
	}
	to := s.now().UTC()
	p := Preview{From: to.Add(-PreviewWindow), To: to}
	versions := []payment.Fee{f.Fee}
	if id != 0 {
		old, err := s.store.Get(ctx, id)
		if err != nil {
			return Preview{}, err
		}
		versions = append(versions, old.Fee)
	}
	q := PreviewQuery{From: p.From, To: p.To}
	global := false
	var codes []string
	for _, ver := range versions {
		if ver.CollabID == 0 {
			global = true
		} else if !slices.Contains(q.Collabs, ver.CollabID) {
			q.Collabs = append(q.Collabs, ver.CollabID)
		}
		// A fee applies only to payments in its two currencies.
		if strings.EqualFold(ver.CurrencyFrom, ver.CurrencyTo) {
			q.Scopes = append(q.Scopes, ver)
			if !slices.Contains(codes, strings.ToUpper(ver.CurrencyFrom)) {
				codes = append(codes, strings.ToUpper(ver.CurrencyFrom))
			}
		}
	}
	if global {
		q.Collabs = nil
		if !v.Scope.All {
			if q.Collabs, err = s.store.CollabsOf(ctx, v.Scope.MerchantIDs); err != nil {
				return Preview{}, err
			}
			if len(q.Collabs) == 0 {
				return p, nil
			}
		}
	}
	if len(q.Scopes) == 0 {
		return p, nil
	}

	// The fees that may win an affected transaction overlap a version.
	fees := []payment.Fee{}
	seen := map[int64]bool{}
	for _, ver := range q.Scopes {
		cs, err := s.store.Candidates(ctx, ver, id, maxPreviewCandidates+1)
		if err != nil {
			return Preview{}, err
		}
		if len(cs) > maxPreviewCandidates {
			return Preview{}, apperr.FailedPrecondition("More than %d fees overlap this fee: narrow it (collab, type, pay type or amounts) to preview it.", maxPreviewCandidates)
		}
		for _, c := range cs {
			if !seen[c.ID] {
				seen[c.ID] = true
				fees = append(fees, c.Fee)
			}
		}
	}
	if f.Enabled {
		fees = append(fees, f.Fee)
	}
	q.Bounds = payment.AmountBounds(append(slices.Clone(fees), q.Scopes...))
	special := []int32{0}
	for _, c := range fees {
		if c.CollabID != 0 && !slices.Contains(special, c.CollabID) && (q.Collabs == nil || slices.Contains(q.Collabs, c.CollabID)) {
			special = append(special, c.CollabID)
		}
	}
	payTypes, err := s.payTypeIDs(ctx)
	if err != nil {
		return Preview{}, err
	}
	if n := len(special) * 2 * len(payTypes) * len(q.Bounds) * len(codes); n > maxPreviewCombos {
		return Preview{}, apperr.FailedPrecondition("This fee overlaps too many fees to preview (%d kinds of transaction): narrow it to preview it.", n)
	}
	for _, collab := range special {
		who := collab
		if who == 0 {
			who = -1 // a collab with no fee of its own: only global fees match
		}
		for _, code := range codes {
			for _, t := range []payment.Type{payment.TypeDeposit, payment.TypeWithdrawal} {
				for _, pt := range payTypes {
					for i, b := range q.Bounds {
						row := WinnerRow{CollabID: collab, Type: int16(t), PayTypeID: pt, Region: int32(i + 1), Currency: code,
							FeeType: payment.FeeNone, Value: "0"}
						if w, ok := payment.SelectFee(fees, who, t, pt, code, money.Cents(b)); ok {
							row.FeeType, row.Value = w.FeeType, w.Value.String()
						}
						q.Winners = append(q.Winners, row)
					}
				}
			}
		}
	}
	if p.Currencies, err = s.store.Preview(ctx, q); err != nil {
		return Preview{}, err
	}
	return p, nil
}
