package grpcapi

import (
	"context"
	"strconv"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/paging"
)

// fraudServer serves FraudService: the frauds the detection job flagged and
// their review (docs/contracts-frauds.md).
type fraudServer struct {
	gatewayv1.UnimplementedFraudServiceServer
	frauds *fraud.Service
}

var _ gatewayv1.FraudServiceServer = (*fraudServer)(nil)

// NewFraudServer returns the FraudService implementation.
func NewFraudServer(frauds *fraud.Service) gatewayv1.FraudServiceServer {
	return &fraudServer{frauds: frauds}
}

// ListFrauds implements gatewayv1.FraudServiceServer.
func (s *fraudServer) ListFrauds(ctx context.Context, req *gatewayv1.ListFraudsRequest) (*gatewayv1.ListFraudsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	page, take, err := paging.Resolve(req.Page, req.Take, fraud.DefaultTake, fraud.MaxTake)
	if err != nil {
		return nil, err
	}
	p, err := s.frauds.List(ctx, scope, fraud.ListRequest{
		Page: page, Take: take, Status: req.Status, ClientID: req.GetClientId(), MerchantID: req.MerchantId,
		MerchantClientID: req.GetMerchantClientId(), TransactionID: req.TransactionId, ReferenceID: req.GetReferenceId(),
		StartDate: req.GetStartDate(), EndDate: req.GetEndDate(),
	})
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListFraudsResponse{ClientFrauds: make([]*gatewayv1.Fraud, 0, len(p.Frauds)), TotalCount: p.TotalCount,
		CurrentPage: page, TotalPages: int32((p.TotalCount + int64(take) - 1) / int64(take))}
	for _, f := range p.Frauds {
		resp.ClientFrauds = append(resp.ClientFrauds, fraudToProto(f))
	}
	return resp, nil
}

// UpdateFraudStatus implements gatewayv1.FraudServiceServer. Stopping the
// callbacks also needs Cancel Callbacks, as on a transaction.
func (s *fraudServer) UpdateFraudStatus(ctx context.Context, req *gatewayv1.UpdateFraudStatusRequest) (*gatewayv1.UpdateFraudStatusResponse, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetIsCallbacksSendingCanceled() {
		if claims, ok := access.FromContext(ctx); !ok || !claims.HasPermission(access.PermCancelCallbacks) {
			return nil, apperr.Forbidden("Stopping callbacks needs the Cancel Callbacks permission.")
		}
	}
	f, err := s.frauds.UpdateStatus(ctx, actor, fraud.Review{
		ID: req.GetId(), Status: fraud.ReviewStatus(req.GetStatus()), Notes: req.GetNotes(),
		CancelCallbacks: req.GetIsCallbacksSendingCanceled(),
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateFraudStatusResponse{Fraud: fraudToProto(f)}, nil
}

func fraudToProto(f fraud.Fraud) *gatewayv1.Fraud {
	p := &gatewayv1.Fraud{
		Id: f.ID, ReferenceId: f.ReferenceID, ClientId: f.ClientID, MerchantClientId: f.MerchantClientID, Level: f.Level,
		DetectedAtUtc: timestamppb.New(f.DetectedAt), UpdatedAtUtc: timestamppb.New(f.UpdatedAt), Reason: f.Reason,
		ReviewStatus: int32(f.ReviewStatus), ReviewedBy: f.ReviewedBy, Notes: f.Notes,
		IsCallbacksSendingCanceled: f.CallbacksCanceled, Rule: string(f.Rule), MerchantId: f.MerchantID,
		TransactionCount: f.TransactionCount, TransactionsDtos: make([]*gatewayv1.FraudTransaction, 0, len(f.Transactions)),
	}
	if f.ReviewCompletedAt != nil {
		p.ReviewCompletedAtUtc = timestamppb.New(*f.ReviewCompletedAt)
	}
	for _, x := range f.Transactions {
		p.TransactionsDtos = append(p.TransactionsDtos, &gatewayv1.FraudTransaction{
			Id: x.ID, Amount: x.Amount, Currency: x.Currency, TransactionType: x.Type, CreatedUtc: timestamppb.New(x.CreatedAt),
			ProviderName: x.ProviderName, MerchantName: x.MerchantName, MerchantId: x.MerchantID,
			CallbackDeliveryStatus: strconv.Itoa(int(x.CallbacksSent)) + "/" + strconv.Itoa(int(x.CallbacksTotal)),
			TransactionStatus:      x.Status, IsCallbacksSendingCanceled: x.CallbacksCanceled, TransactionReferenceId: x.ReferenceID,
		})
	}
	return p
}
