package grpcapi

import (
	"context"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/watchlist"
)

// watchlistServer serves WatchlistService: the caller's pinned watchlists,
// their values and alerts (docs/contracts-watchlists.md).
type watchlistServer struct {
	gatewayv1.UnimplementedWatchlistServiceServer
	watchlists *watchlist.Service
}

var _ gatewayv1.WatchlistServiceServer = (*watchlistServer)(nil)

// NewWatchlistServer returns the WatchlistService implementation.
func NewWatchlistServer(s *watchlist.Service) gatewayv1.WatchlistServiceServer {
	return &watchlistServer{watchlists: s}
}

// watchlistCaller is the signed-in caller of a watchlist call.
func watchlistCaller(ctx context.Context) (watchlist.Caller, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return watchlist.Caller{}, err
	}
	return watchlist.Caller{UserID: actor.UserID, Scope: actor.Scope}, nil
}

// listQueryOf is the list query of a ListTransactionsRequest (as
// ListTransactions reads it), without paging.
func listQueryOf(req *gatewayv1.ListTransactionsRequest) payment.ListQuery {
	return payment.ListQuery{
		CollabID: req.GetCollabId(), MerchantID: req.GetMerchantId(),
		Type: req.GetType(), Statuses: req.GetStatuses(), ProviderTID: req.GetProviderTid(),
		MerchantCID: req.GetMerchantCid(), Nonce: req.GetNonce(), From: req.GetFrom(), To: req.GetTo(),
		MinAmount: req.GetMinAmount(), MaxAmount: req.GetMaxAmount(), Currency: req.GetCurrency(),
		PaymentMethodValue: req.GetPaymentMethodValue(), PaymentMethodType: req.GetPaymentMethodType(),
		PaymentIP: req.GetPaymentIpAddress(), Search: req.GetSearch(),
	}
}

func listRequestOf(q payment.ListQuery) *gatewayv1.ListTransactionsRequest {
	return &gatewayv1.ListTransactionsRequest{
		CollabId: q.CollabID, MerchantId: q.MerchantID, Type: q.Type, Statuses: q.Statuses, ProviderTid: q.ProviderTID,
		MerchantCid: q.MerchantCID, Nonce: q.Nonce, From: q.From, To: q.To, MinAmount: q.MinAmount, MaxAmount: q.MaxAmount,
		Currency: q.Currency, PaymentMethodValue: q.PaymentMethodValue, PaymentMethodType: q.PaymentMethodType,
		PaymentIpAddress: q.PaymentIP, Search: q.Search,
	}
}

func watchlistInput(name string, filter *gatewayv1.ListTransactionsRequest, viewID *int64, query, metric string,
	window int32, th *gatewayv1.WatchlistThreshold) watchlist.Input {
	in := watchlist.Input{Name: name, Filter: listQueryOf(filter), ViewID: viewID, Query: query, Metric: metric, WindowMinutes: window}
	if th != nil {
		in.Threshold = &watchlist.ThresholdInput{Comparison: th.GetComparison(), Value: th.GetValue(), Currency: th.GetCurrency()}
	}
	return in
}

func watchlistToProto(w watchlist.Watchlist) *gatewayv1.Watchlist {
	p := &gatewayv1.Watchlist{Id: w.ID, Name: w.Name, Filter: listRequestOf(w.Filter), ViewId: w.ViewID, Query: w.Query,
		Metric: string(w.Metric), WindowMinutes: w.WindowMinutes, Crossed: w.Crossed,
		CreatedUtc: timestamppb.New(w.CreatedAt), UpdatedUtc: timestamppb.New(w.UpdatedAt)}
	if t := w.Threshold; t != nil {
		p.Threshold = &gatewayv1.WatchlistThreshold{Comparison: t.Comparison, Value: t.ValueText(), Currency: t.Currency}
	}
	return p
}

// WatchlistValueToProto is a value as the API answers it.
func WatchlistValueToProto(v watchlist.Value) *gatewayv1.WatchlistValue {
	p := &gatewayv1.WatchlistValue{WatchlistId: v.WatchlistID, Metric: string(v.Metric), WindowMinutes: v.WindowMinutes,
		Count: v.Count, Sums: map[string]string{}, SuccessCount: v.SuccessCount, FinalCount: v.FinalCount,
		WindowStartUtc: timestamppb.New(v.WindowStart), ComputedUtc: timestamppb.New(v.ComputedAt), Crossed: v.Crossed}
	for cur, s := range v.Sums {
		p.Sums[cur] = s
	}
	if r, ok := v.SuccessRate(); ok {
		p.SuccessRate = &r
	}
	return p
}

// liveJSON is how the stream writes a message: as REST does (JSON names,
// zero values emitted).
var liveJSON = protojson.MarshalOptions{EmitUnpopulated: true}

// WatchlistValueJSON is the data of a stream's `event: watchlist`.
func WatchlistValueJSON(v watchlist.Value) []byte {
	b, _ := liveJSON.Marshal(WatchlistValueToProto(v))
	return b
}

// AlertJSON is the data of a stream's `event: alert`.
func AlertJSON(a *gatewayv1.Alert) []byte {
	b, _ := liveJSON.Marshal(a)
	return b
}

func alertToProto(a watchlist.Alert) *gatewayv1.Alert {
	p := &gatewayv1.Alert{Id: a.ID, WatchlistId: a.WatchlistID, WatchlistName: a.WatchlistName, Metric: string(a.Metric),
		Comparison: a.Comparison, Threshold: a.Threshold, Currency: a.Currency, Value: a.Value, WindowMinutes: a.WindowMinutes,
		ViewId: a.ViewID, Query: a.Query, RaisedUtc: timestamppb.New(a.RaisedAt)}
	if a.AcknowledgedAt != nil {
		p.AcknowledgedUtc = timestamppb.New(*a.AcknowledgedAt)
	}
	return p
}

// CreateWatchlist implements gatewayv1.WatchlistServiceServer.
func (s *watchlistServer) CreateWatchlist(ctx context.Context, req *gatewayv1.CreateWatchlistRequest) (*gatewayv1.CreateWatchlistResponse, error) {
	c, err := watchlistCaller(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.watchlists.Create(ctx, c, watchlistInput(req.GetName(), req.GetFilter(), req.ViewId, req.GetQuery(),
		req.GetMetric(), req.GetWindowMinutes(), req.GetThreshold()))
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CreateWatchlistResponse{Watchlist: watchlistToProto(w)}, nil
}

// ListWatchlists implements gatewayv1.WatchlistServiceServer.
func (s *watchlistServer) ListWatchlists(ctx context.Context, _ *gatewayv1.ListWatchlistsRequest) (*gatewayv1.ListWatchlistsResponse, error) {
	c, err := watchlistCaller(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := s.watchlists.List(ctx, c)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListWatchlistsResponse{Watchlists: make([]*gatewayv1.Watchlist, 0, len(ws))}
	for _, w := range ws {
		resp.Watchlists = append(resp.Watchlists, watchlistToProto(w))
	}
	return resp, nil
}

// UpdateWatchlist implements gatewayv1.WatchlistServiceServer.
func (s *watchlistServer) UpdateWatchlist(ctx context.Context, req *gatewayv1.UpdateWatchlistRequest) (*gatewayv1.UpdateWatchlistResponse, error) {
	c, err := watchlistCaller(ctx)
	if err != nil {
		return nil, err
	}
	w, err := s.watchlists.Update(ctx, c, req.GetId(), watchlistInput(req.GetName(), req.GetFilter(), req.ViewId, req.GetQuery(),
		req.GetMetric(), req.GetWindowMinutes(), req.GetThreshold()))
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateWatchlistResponse{Watchlist: watchlistToProto(w)}, nil
}

// DeleteWatchlist implements gatewayv1.WatchlistServiceServer.
func (s *watchlistServer) DeleteWatchlist(ctx context.Context, req *gatewayv1.DeleteWatchlistRequest) (*gatewayv1.DeleteWatchlistResponse, error) {
	c, err := watchlistCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.watchlists.Delete(ctx, c, req.GetId()); err != nil {
		return nil, err
	}
	return &gatewayv1.DeleteWatchlistResponse{}, nil
}

// GetWatchlistValues implements gatewayv1.WatchlistServiceServer.
func (s *watchlistServer) GetWatchlistValues(ctx context.Context, _ *gatewayv1.GetWatchlistValuesRequest) (*gatewayv1.GetWatchlistValuesResponse, error) {
	c, err := watchlistCaller(ctx)
	if err != nil {
		return nil, err
	}
	vs, err := s.watchlists.Values(ctx, c)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.GetWatchlistValuesResponse{Values: make([]*gatewayv1.WatchlistValue, 0, len(vs))}
	for _, v := range vs {
		resp.Values = append(resp.Values, WatchlistValueToProto(v))
	}
	return resp, nil
}

// ListAlerts implements gatewayv1.WatchlistServiceServer.
func (s *watchlistServer) ListAlerts(ctx context.Context, req *gatewayv1.ListAlertsRequest) (*gatewayv1.ListAlertsResponse, error) {
	c, err := watchlistCaller(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.watchlists.Alerts(ctx, c, req.GetPageSize(), req.GetPageToken(), req.GetUnacknowledged())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListAlertsResponse{Alerts: make([]*gatewayv1.Alert, 0, len(p.Alerts)),
		NextPageToken: watchlist.NextToken(p), UnacknowledgedCount: p.UnacknowledgedCount}
	for _, a := range p.Alerts {
		resp.Alerts = append(resp.Alerts, alertToProto(a))
	}
	return resp, nil
}

// AcknowledgeAlert implements gatewayv1.WatchlistServiceServer.
func (s *watchlistServer) AcknowledgeAlert(ctx context.Context, req *gatewayv1.AcknowledgeAlertRequest) (*gatewayv1.AcknowledgeAlertResponse, error) {
	c, err := watchlistCaller(ctx)
	if err != nil {
		return nil, err
	}
	a, err := s.watchlists.Acknowledge(ctx, c, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.AcknowledgeAlertResponse{Alert: alertToProto(a)}, nil
}
