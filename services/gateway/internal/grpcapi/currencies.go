package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/currency"
)

// currencyServer serves CurrencyService: the currencies and their dated
// rates against USD (docs/contracts-currencies.md).
type currencyServer struct {
	gatewayv1.UnimplementedCurrencyServiceServer
	currencies *currency.Service
}

var _ gatewayv1.CurrencyServiceServer = (*currencyServer)(nil)

// NewCurrencyServer returns the CurrencyService implementation.
func NewCurrencyServer(currencies *currency.Service) gatewayv1.CurrencyServiceServer {
	return &currencyServer{currencies: currencies}
}

// ListCurrencies implements gatewayv1.CurrencyServiceServer.
func (s *currencyServer) ListCurrencies(ctx context.Context, _ *gatewayv1.ListCurrenciesRequest) (*gatewayv1.ListCurrenciesResponse, error) {
	cs, err := s.currencies.List(ctx)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListCurrenciesResponse{Currencies: make([]*gatewayv1.Currency, 0, len(cs))}
	for _, c := range cs {
		p := &gatewayv1.Currency{Id: c.ID, Code: c.Code, Name: c.Name, Decimals: c.Decimals}
		if c.Rate != nil {
			p.UsdRate, p.RateEffectiveFrom = c.Rate.USDRate, c.Rate.EffectiveFrom.Format(currency.DayLayout)
		}
		resp.Currencies = append(resp.Currencies, p)
	}
	return resp, nil
}

// ListCurrencyRates implements gatewayv1.CurrencyServiceServer.
func (s *currencyServer) ListCurrencyRates(ctx context.Context, req *gatewayv1.ListCurrencyRatesRequest) (*gatewayv1.ListCurrencyRatesResponse, error) {
	rs, err := s.currencies.Rates(ctx, req.GetCurrency())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListCurrencyRatesResponse{Rates: make([]*gatewayv1.CurrencyRate, 0, len(rs))}
	for _, r := range rs {
		resp.Rates = append(resp.Rates, rateToProto(r))
	}
	return resp, nil
}

// SetCurrencyRate implements gatewayv1.CurrencyServiceServer.
func (s *currencyServer) SetCurrencyRate(ctx context.Context, req *gatewayv1.SetCurrencyRateRequest) (*gatewayv1.SetCurrencyRateResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.currencies.Set(ctx, actor, currency.SetRequest{
		Currency: req.GetCurrency(), USDRate: req.GetUsdRate(), EffectiveFrom: req.GetEffectiveFrom(),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.SetCurrencyRateResponse{Rate: rateToProto(r)}, nil
}

func rateToProto(r currency.Rate) *gatewayv1.CurrencyRate {
	return &gatewayv1.CurrencyRate{Id: r.ID, Currency: r.Currency, UsdRate: r.USDRate,
		EffectiveFrom: r.EffectiveFrom.Format(currency.DayLayout), SetBy: r.SetBy, SetAt: timestamppb.New(r.SetAt)}
}
