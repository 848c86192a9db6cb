package collab

import "github.com/paygate/paygate/services/gateway/internal/money"

// DemoPayTypes are the demo pay types (docs/contracts-providers.md).
func DemoPayTypes() []PayType {
	return []PayType{
		{ID: 1, Name: "GCash", Code: "GCASH"},
		{ID: 2, Name: "Maya", Code: "MAYA"},
		{ID: 3, Name: "QR Ph", Code: "QRPH"},
		{ID: 4, Name: "Bank Transfer", Code: "BANK"},
		{ID: 5, Name: "InstaPay", Code: "INSTAPAY"},
		{ID: 6, Name: "USDT TRC20", Code: "USDT_TRC20"},
	}
}

// DemoProviders are the demo providers with the pay types each offers
// (docs/contracts-providers.md).
func DemoProviders() []Provider {
	pt := DemoPayTypes()
	gcash, maya, qrph, bank, instapay, usdt := pt[0], pt[1], pt[2], pt[3], pt[4], pt[5]
	both := func(p PayType) ProviderPayType { return ProviderPayType{PayType: p, CashIn: true, CashOut: true} }
	in := func(p PayType) ProviderPayType { return ProviderPayType{PayType: p, CashIn: true} }
	out := func(p PayType) ProviderPayType { return ProviderPayType{PayType: p, CashOut: true} }
	return []Provider{
		{ID: 1, Name: "GoVip", IsEnabled: true, SupportsCashIn: true, SupportsCashOut: true, SupportsPolling: true, PathSegment: "govip",
			PayTypes: []ProviderPayType{both(gcash), both(maya)}},
		{ID: 2, Name: "QRPh", IsEnabled: true, SupportsCashIn: true, PathSegment: "qrph",
			PayTypes: []ProviderPayType{in(qrph)}},
		{ID: 3, Name: "FbPay", IsEnabled: true, SupportsCashIn: true, SupportsCashOut: true, SupportsPolling: true, SupportsBalance: true, PathSegment: "fbpay",
			PayTypes: []ProviderPayType{both(gcash), out(bank)}},
		{ID: 4, Name: "HumPas", IsEnabled: true, SupportsCashIn: true, SupportsCashOut: true, SupportsPolling: true, SupportsBalance: true, PathSegment: "humpas",
			PayTypes: []ProviderPayType{both(maya), both(instapay)}},
		{ID: 5, Name: "Crypto Manager", IsEnabled: true, SupportsCashIn: true, SupportsCashOut: true, SupportsPolling: true, SupportsBalance: true, PathSegment: "crypto-manager",
			PayTypes: []ProviderPayType{both(usdt)}},
		{ID: 6, Name: "Crypto Sender", IsEnabled: true, SupportsCashOut: true, SupportsPolling: true, PathSegment: "crypto-sender",
			PayTypes: []ProviderPayType{out(usdt)}},
		{ID: 19, Name: "RollingPay", IsEnabled: true, SupportsCashIn: true, SupportsCashOut: true, SupportsPolling: true, SupportsBalance: true, PathSegment: "rollingpay",
			PayTypes: []ProviderPayType{both(gcash), in(qrph)}},
	}
}

// DemoCollabs are the demo collabs (docs/contracts-providers.md), with
// their merchant and provider given by id only and their pay types by pay
// type id and switches; seeding creates each once and leaves it alone after.
func DemoCollabs() []Collab {
	settings := func(enabled, cashIn, cashOut bool) Settings {
		s := DefaultSettings()
		s.IsEnabled, s.IsCashInEnabled, s.IsCashOutEnabled = enabled, cashIn, cashOut
		return s
	}
	pt := func(id int32, cashIn, cashOut bool, l Limits) CollabPayType {
		return CollabPayType{ProviderPayType: ProviderPayType{PayType: PayType{ID: id}}, IsCashInEnabled: cashIn, IsCashOutEnabled: cashOut, Limits: l}
	}
	return []Collab{
		{
			Merchant: MerchantRef{ID: 1}, Provider: ProviderRef{ID: 1},
			Settings: settings(true, true, true),
			Limits:   Limits{MinDeposit: money.Cents(100_00), MaxDeposit: money.Cents(50_000_00)},
			PayTypes: []CollabPayType{pt(1, true, true, Limits{MaxDeposit: money.Cents(20_000_00)}), pt(2, true, true, Limits{})},
		},
		{
			Merchant: MerchantRef{ID: 1}, Provider: ProviderRef{ID: 2},
			Settings: settings(false, true, false),
			PayTypes: []CollabPayType{pt(3, true, false, Limits{})},
		},
		{
			Merchant: MerchantRef{ID: 2}, Provider: ProviderRef{ID: 3},
			Settings: settings(true, true, false),
			PayTypes: []CollabPayType{pt(1, true, false, Limits{})},
		},
		{
			Merchant: MerchantRef{ID: 3}, Provider: ProviderRef{ID: 19},
			Settings: settings(true, true, true),
			Limits:   Limits{MinWithdraw: money.Cents(500_00), MaxWithdraw: money.Cents(100_000_00)},
			PayTypes: []CollabPayType{pt(1, true, true, Limits{}), pt(3, true, false, Limits{})},
		},
	}
}
