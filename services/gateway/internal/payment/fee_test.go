package payment

import (
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/money"
)

func TestSelectFee(t *testing.T) {
	t.Parallel()
	amt := money.Cents(1000_00)
	fees := []Fee{
		{ID: 1, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeePercent, Value: 15000, Enabled: true},
		{ID: 2, Type: TypeDeposit, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 50000, Enabled: true},
		{ID: 3, CollabID: 7, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 70000, Priority: 1, Enabled: true},
		{ID: 4, CollabID: 7, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 80000, Priority: 5, Enabled: true},
		{ID: 5, CollabID: 7, PayTypeID: 1, Type: TypeDeposit, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 90000, Enabled: false},
		{ID: 6, CollabID: 8, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 1, AmountMax: money.Cents(100_00), Enabled: true},
		{ID: 7, CollabID: 8, CurrencyFrom: "PHP", CurrencyTo: "PHP", FeeType: FeeFixed, Value: 2, AmountMax: money.Cents(100_00), Enabled: true},
	}
	tests := []struct {
		name   string
		collab int32
		typ    Type
		amount money.Amount
		cur    string
		want   int64
	}{
		{"collab beats type; priority among equals", 7, TypeDeposit, amt, "PHP", 4},
		{"type beats none", 1, TypeDeposit, amt, "PHP", 2},
		{"none left", 1, TypeWithdrawal, amt, "PHP", 1},
		{"lower id on a tie", 8, TypeWithdrawal, money.Cents(50_00), "PHP", 6},
		{"amount out of range", 8, TypeWithdrawal, amt, "PHP", 1},
		{"other currency", 7, TypeDeposit, amt, "USD", 0},
	}
	for _, tt := range tests {
		f, ok := SelectFee(fees, tt.collab, tt.typ, 1, tt.cur, tt.amount)
		if (tt.want == 0) == ok || ok && f.ID != tt.want {
			t.Errorf("%s: got %d (%v), want %d", tt.name, f.ID, ok, tt.want)
		}
	}
}

func TestCharge(t *testing.T) {
	t.Parallel()
	pct := func(s string) Fee { v, _ := ParseDecimal4(s); return Fee{FeeType: FeePercent, Value: v} }
	fix := func(s string) Fee { v, _ := ParseDecimal4(s); return Fee{FeeType: FeeFixed, Value: v} }
	tests := []struct {
		fee    Fee
		amount int64
		want   string
	}{
		{pct("1.5"), 1000_00, "15.00"},
		{pct("2.5"), 1_01, "0.03"}, // 0.02525 rounds half up
		{pct("0.0001"), 99_999_999_999_999_999, "1000000000.00"},
		{fix("15"), 10_00, "15.00"},
		{fix("0.005"), 10_00, "0.01"},
	}
	for _, tt := range tests {
		if got := tt.fee.Charge(money.Cents(tt.amount)).String(); got != tt.want {
			t.Errorf("%v on %d = %s, want %s", tt.fee, tt.amount, got, tt.want)
		}
	}
}

func FuzzParseAmount(f *testing.F) {
	for _, s := range []string{"10", "10.5", "10.50", "0", "-1", "1e3", "", " 7.00 ", "999999999999999.99"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		if err != nil {
			return
		}
		if a.CentsValue() <= 0 {
			t.Fatalf("%q parsed to %d", s, a.CentsValue())
		}
		again, err := ParseAmount(a.String())
		if err != nil || again != a {
			t.Fatalf("%q → %s does not round-trip", s, a)
		}
	})
}
