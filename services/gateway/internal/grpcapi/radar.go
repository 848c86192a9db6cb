package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/radar"
)

// radarServer serves RadarService: the stuck-money radar and its SLAs
// (docs/contracts-radar.md).
type radarServer struct {
	gatewayv1.UnimplementedRadarServiceServer
	radar *radar.Service
}

var _ gatewayv1.RadarServiceServer = (*radarServer)(nil)

// NewRadarServer returns the RadarService implementation.
func NewRadarServer(r *radar.Service) gatewayv1.RadarServiceServer {
	return &radarServer{radar: r}
}

// ListRadarTransactions implements gatewayv1.RadarServiceServer.
func (s *radarServer) ListRadarTransactions(ctx context.Context, req *gatewayv1.ListRadarTransactionsRequest) (*gatewayv1.ListRadarTransactionsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	p, err := s.radar.List(ctx, scope, radar.Filter{ProviderID: req.ProviderId, CollabID: req.CollabId,
		MerchantID: req.MerchantId, Type: req.TransactionType, Take: req.Take, PageToken: req.PageToken,
		Refresh: req.RefreshProviderStatus})
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListRadarTransactionsResponse{Transactions: make([]*gatewayv1.RadarTransaction, len(p.Items)),
		NextPageToken: p.Next, AsOf: timestamppb.New(p.AsOf)}
	for i, it := range p.Items {
		ps := &gatewayv1.RadarProviderStatus{State: it.Provider.State, Message: it.Provider.Message, Cached: it.Provider.Cached}
		if !it.Provider.CheckedAt.IsZero() {
			ps.CheckedUtc = timestamppb.New(it.Provider.CheckedAt)
		}
		resp.Transactions[i] = &gatewayv1.RadarTransaction{Id: it.ID, ReferenceId: it.ReferenceID,
			MerchantId: it.MerchantID, MerchantName: it.MerchantName, CollabId: it.CollabID, ProviderId: it.ProviderID,
			ProviderName: it.ProviderName, PayTypeId: it.PayTypeID, PayTypeName: it.PayTypeName,
			TransactionType: int32(it.Type), Status: int32(it.Status), StatusName: it.Status.String(), Amount: it.Amount,
			Currency: it.Currency, ProviderTransactionId: it.ProviderTID, CreatedUtc: timestamppb.New(it.CreatedAt),
			AgeSeconds: int64(it.Age.Seconds()), SlaId: it.SLAID, SlaSeconds: it.SLASeconds,
			LateSeconds: int64(it.Late.Seconds()), ProviderStatus: ps, Mismatch: it.Mismatch}
	}
	return resp, nil
}

func radarSLAToProto(s radar.SLA) *gatewayv1.RadarSla {
	return &gatewayv1.RadarSla{Id: s.ID, ProviderId: s.ProviderID, ProviderName: s.ProviderName, PayTypeId: s.PayTypeID,
		PayTypeName: s.PayTypeName, TransactionType: int32(s.Type), OverdueAfterSeconds: s.Seconds,
		IsDefault: s.IsDefault(), UpdatedUtc: timestamppb.New(s.UpdatedAt), UpdatedBy: s.UpdatedBy}
}

// ListRadarSlas implements gatewayv1.RadarServiceServer.
func (s *radarServer) ListRadarSlas(ctx context.Context, _ *gatewayv1.ListRadarSlasRequest) (*gatewayv1.ListRadarSlasResponse, error) {
	slas, err := s.radar.SLAs(ctx)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListRadarSlasResponse{Slas: make([]*gatewayv1.RadarSla, len(slas))}
	for i, sla := range slas {
		resp.Slas[i] = radarSLAToProto(sla)
	}
	return resp, nil
}

// SetRadarSla implements gatewayv1.RadarServiceServer.
func (s *radarServer) SetRadarSla(ctx context.Context, req *gatewayv1.SetRadarSlaRequest) (*gatewayv1.SetRadarSlaResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	sla, err := s.radar.SetSLA(ctx, actor, radar.SLAInput{ProviderID: req.ProviderId, PayTypeID: req.PayTypeId,
		Type: req.TransactionType, Seconds: req.OverdueAfterSeconds})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.SetRadarSlaResponse{Sla: radarSLAToProto(sla)}, nil
}

// DeleteRadarSla implements gatewayv1.RadarServiceServer.
func (s *radarServer) DeleteRadarSla(ctx context.Context, req *gatewayv1.DeleteRadarSlaRequest) (*gatewayv1.DeleteRadarSlaResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.radar.DeleteSLA(ctx, actor, req.Id); err != nil {
		return nil, err
	}
	return &gatewayv1.DeleteRadarSlaResponse{}, nil
}
