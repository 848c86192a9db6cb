package collab

import (
	"reflect"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/money"
	"github.com/paygate/paygate/services/internal/apperr"
)

func TestLimitsApply(t *testing.T) {
	t.Parallel()
	s := func(v string) *string { return &v }
	start := Limits{MinDeposit: money.Cents(100_00), MaxDeposit: money.Cents(500_00)}
	tests := []struct {
		name   string
		change LimitsChange
		want   Limits
		err    string
	}{
		{"nothing", LimitsChange{}, start, ""},
		{"raise the maximum", LimitsChange{MaxDeposit: s("600")}, Limits{MinDeposit: money.Cents(100_00), MaxDeposit: money.Cents(600_00)}, ""},
		{"remove the minimum", LimitsChange{MinDeposit: s("")}, Limits{MaxDeposit: money.Cents(500_00)}, ""},
		{"equal ends", LimitsChange{MinDeposit: s("500.00")}, Limits{MinDeposit: money.Cents(500_00), MaxDeposit: money.Cents(500_00)}, ""},
		{"min above the kept max", LimitsChange{MinDeposit: s("500.01")}, start, "minimal deposit amount (500.01) cannot be greater"},
		{"withdrawals", LimitsChange{MinWithdraw: s("9"), MaxWithdraw: s("8")}, start, "minimal withdrawal amount (9.00)"},
		{"negative", LimitsChange{MaxWithdraw: s("-1")}, start, "cannot be negative"},
		{"bad text", LimitsChange{MaxWithdraw: s("ten")}, start, "maximalWithdrawAmount must be an amount"},
	}
	for _, tt := range tests {
		got, err := start.Apply(tt.change)
		if tt.err != "" {
			if apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error = %v, want one containing %q", tt.name, err, tt.err)
			}
		} else if err != nil {
			t.Errorf("%s: %v", tt.name, err)
		}
		if got != tt.want {
			t.Errorf("%s: limits = %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestSettings(t *testing.T) {
	t.Parallel()
	d := DefaultSettings()
	want := map[string]string{
		"IsEnabled": "true", "IsCashInEnabled": "true", "IsCashOutEnabled": "true", "ValidateCashIn": "true",
		"ValidateCashOut": "true", "IsMerchantCallbackEnabled": "true", "IsCreditingToClientsEnabled": "false",
		"IsWithdrawFromClientsEnabled": "false", "ExpandByPayType": "true", "AwailableOnlyOnDirectAccess": "false",
		"Position": "", "Mode": "1",
	}
	if !reflect.DeepEqual(d.Map(), want) {
		t.Errorf("defaults = %v", d.Map())
	}

	got, keys, err := d.Apply(map[string]string{"mode": "3", "POSITION": " 12 ", "isEnabled": "False", "AwailableOnlyOnDirectAccess": "TRUE"})
	if err != nil {
		t.Fatal(err)
	}
	if got.Mode != ModeAlwaysFailed || got.Position == nil || *got.Position != 12 || got.IsEnabled || !got.AvailableOnlyOnDirectAccess {
		t.Errorf("applied = %+v", got)
	}
	if !reflect.DeepEqual(keys, []string{KeyAvailableOnlyOnDirectAccess, KeyPosition, KeyIsEnabled, KeyMode}) {
		t.Errorf("keys = %v", keys)
	}
	before, after, changed := d.diff(got)
	if !reflect.DeepEqual(changed, []string{KeyIsEnabled, KeyAvailableOnlyOnDirectAccess, KeyPosition, KeyMode}) ||
		before[KeyPosition] != "" || after[KeyPosition] != "12" || after[KeyMode] != "3" {
		t.Errorf("diff = %v %v %v", before, after, changed)
	}
	cleared, _, err := got.Apply(map[string]string{"Position": "null"})
	if err != nil || cleared.Position != nil {
		t.Errorf("clearing Position: %+v, %v", cleared, err)
	}

	for _, bad := range []map[string]string{
		{"Colour": "red"}, {"IsEnabled": "1"}, {"Mode": "0"}, {"Mode": "4"}, {"Mode": "x"},
		{"Position": "-1"}, {"Position": "1.5"}, {"Position": "1000001"}, {"Mode": "2", "MODE": "3"},
	} {
		if s, _, err := d.Apply(bad); apperr.KindOf(err) != apperr.KindInvalid || s != d {
			t.Errorf("Apply(%v) = %+v, %v; want invalid and no change", bad, s, err)
		}
	}

	provider := ProviderRef{Name: "QRPh", SupportsCashIn: true}
	off := d
	off.IsCashOutEnabled = false
	if err := checkDirections(provider, off, d); err == nil || !strings.Contains(err.Error(), "QRPh does not support cash-out") {
		t.Errorf("turning on an unsupported direction: %v", err)
	}
	if err := checkDirections(provider, d, d); err != nil {
		t.Errorf("a direction already on is not checked again: %v", err)
	}
}

func TestDemoIsConsistent(t *testing.T) {
	t.Parallel()
	providers := map[int32]Provider{}
	for _, p := range DemoProviders() {
		providers[p.ID] = p
		for _, pt := range p.PayTypes {
			if pt.CashIn && !p.SupportsCashIn || pt.CashOut && !p.SupportsCashOut || pt.Name == "" {
				t.Errorf("%s offers %+v beyond its directions", p.Name, pt)
			}
		}
	}
	for _, c := range DemoCollabs() {
		p, ok := providers[c.Provider.ID]
		if !ok {
			t.Fatalf("demo collab of unknown provider %d", c.Provider.ID)
		}
		if c.Settings.IsCashInEnabled && !p.SupportsCashIn || c.Settings.IsCashOutEnabled && !p.SupportsCashOut {
			t.Errorf("demo collab with %s enables a direction it lacks", p.Name)
		}
		if err := c.Limits.Validate(); err != nil {
			t.Error(err)
		}
		for _, pt := range c.PayTypes {
			ppt, ok := p.PayType(pt.PayType.ID)
			if !ok || pt.IsCashInEnabled && !ppt.CashIn || pt.IsCashOutEnabled && !ppt.CashOut {
				t.Errorf("demo collab with %s: pay type %+v", p.Name, pt)
			}
			if err := pt.Limits.Validate(); err != nil {
				t.Error(err)
			}
		}
	}
}
