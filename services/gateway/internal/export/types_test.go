package export

import (
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/gateway/internal/payment"
)

func TestAmountTextIsAmountString(t *testing.T) {
	t.Parallel()
	for _, c := range []int64{0, 1, 5, 9, 10, 99, 100, 101, 150_00, 123_456_78, -1, -5, -99, -100, -150_05, 1 << 53, -(1 << 53)} {
		a := money.Cents(c)
		if got, want := amountText(a), a.String(); got != want {
			t.Errorf("amountText(%d cents) = %q, want %q", c, got, want)
		}
	}
	if got := amountText(money.Amount{}); got != "" {
		t.Errorf("amountText(unset) = %q, want empty", got)
	}
}

func TestTransactionCells(t *testing.T) {
	t.Parallel()
	ti, _ := TypeOf(TypeTransactions)
	r := Row{Transaction: payment.Transaction{ID: 7, Amount: money.Cents(-150_05), CallbacksDelivered: 2, CallbacksTotal: 13,
		Fee: payment.AppliedFee{Amount: money.Cents(3)}}}
	want := map[string]string{"amount": "-150.05", "callbackDeliveryStatus": "2/13", "appliedFeeAmount": "0.03", "destinationAmount": ""}
	for field, text := range want {
		col, ok := ti.Column(field)
		if !ok {
			t.Fatalf("no column %s", field)
		}
		if got := col.Cell(r); got.Text != text || got != col.cellOf(&r) {
			t.Errorf("%s: Cell %+v, cellOf %+v, want text %q", field, got, col.cellOf(&r), text)
		}
	}
}
