package grpcapi

import (
	"context"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/fee"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/paging"
)

// feeServer serves FeeService: the fee rules, their conflicts, winners and
// what-if preview (docs/contracts-fees.md).
type feeServer struct {
	gatewayv1.UnimplementedFeeServiceServer
	fees *fee.Service
}

var _ gatewayv1.FeeServiceServer = (*feeServer)(nil)

// NewFeeServer returns the FeeService implementation.
func NewFeeServer(fees *fee.Service) gatewayv1.FeeServiceServer {
	return &feeServer{fees: fees}
}

// feeCaller is the signed-in caller as the author of a fee change and a
// viewer of fees.
func feeCaller(ctx context.Context) (activity.Actor, fee.Viewer, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return actor, fee.Viewer{}, err
	}
	claims, _ := access.FromContext(ctx)
	return actor, fee.Viewer{Scope: actor.Scope, Admin: access.ReqGlobalFees.MetBy(claims)}, nil
}

func feeToProto(f fee.Fee) *gatewayv1.Fee {
	return &gatewayv1.Fee{Id: f.ID, CollabId: f.CollabID, TransactionType: int32(f.Type), PayTypeId: f.PayTypeID,
		CurrencyFromId: f.CurrencyFromID, CurrencyToId: f.CurrencyToID, AmountMin: f.AmountMin.String(),
		AmountMax: f.AmountMax.String(), Priority: f.Priority, Enabled: f.Enabled, FeeType: int32(f.FeeType),
		Value: f.Value.String(), Payer: int32(f.Payer), CurrencyFrom: f.CurrencyFrom, CurrencyTo: f.CurrencyTo,
		CreatedUtc: timestamppb.New(f.CreatedAt)}
}

func feeInput(in *gatewayv1.FeeInput) fee.Input {
	return fee.Input{CollabID: in.GetCollabId(), TransactionType: in.GetTransactionType(), PayTypeID: in.GetPayTypeId(),
		CurrencyFromID: in.GetCurrencyFromId(), CurrencyToID: in.GetCurrencyToId(), AmountMin: in.GetAmountMin(),
		AmountMax: in.GetAmountMax(), Priority: in.GetPriority(), Enabled: in.Enabled, FeeType: in.GetFeeType(),
		Value: in.GetValue(), Payer: in.GetPayer()}
}

// ListFees implements gatewayv1.FeeServiceServer.
func (s *feeServer) ListFees(ctx context.Context, req *gatewayv1.ListFeesRequest) (*gatewayv1.ListFeesResponse, error) {
	_, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	page, take, err := paging.Resolve(req.Page, req.Take, fee.DefaultTake, fee.MaxTake)
	if err != nil {
		return nil, err
	}
	p, err := s.fees.List(ctx, v, fee.Filter{CollabID: req.CollabId, TransactionType: req.TransactionType,
		PayTypeID: req.PayTypeId, CurrencyFromID: req.CurrencyFromId, CurrencyToID: req.CurrencyToId, Enabled: req.Enabled},
		int(page), int(take))
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListFeesResponse{Fees: make([]*gatewayv1.Fee, 0, len(p.Fees)), TotalCount: p.TotalCount,
		CurrentPage: page, TotalPages: int32((p.TotalCount + int64(take) - 1) / int64(take))}
	for _, f := range p.Fees {
		resp.Fees = append(resp.Fees, feeToProto(f))
	}
	return resp, nil
}

// GetFee implements gatewayv1.FeeServiceServer.
func (s *feeServer) GetFee(ctx context.Context, req *gatewayv1.GetFeeRequest) (*gatewayv1.GetFeeResponse, error) {
	_, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	f, err := s.fees.Get(ctx, v, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetFeeResponse{Fee: feeToProto(f)}, nil
}

// CreateFee implements gatewayv1.FeeServiceServer.
func (s *feeServer) CreateFee(ctx context.Context, req *gatewayv1.CreateFeeRequest) (*gatewayv1.CreateFeeResponse, error) {
	actor, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	f, err := s.fees.Create(ctx, actor, v.Admin, feeInput(&gatewayv1.FeeInput{CollabId: req.GetCollabId(),
		TransactionType: req.GetTransactionType(), PayTypeId: req.GetPayTypeId(), CurrencyFromId: req.GetCurrencyFromId(),
		CurrencyToId: req.GetCurrencyToId(), AmountMin: req.GetAmountMin(), AmountMax: req.GetAmountMax(),
		Priority: req.GetPriority(), Enabled: req.Enabled, FeeType: req.GetFeeType(), Value: req.GetValue(),
		Payer: req.GetPayer()}), req.GetAllowConflict())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CreateFeeResponse{Fee: feeToProto(f)}, nil
}

// UpdateFee implements gatewayv1.FeeServiceServer.
func (s *feeServer) UpdateFee(ctx context.Context, req *gatewayv1.UpdateFeeRequest) (*gatewayv1.UpdateFeeResponse, error) {
	actor, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	f, err := s.fees.Update(ctx, actor, v.Admin, req.GetId(), feeInput(&gatewayv1.FeeInput{CollabId: req.GetCollabId(),
		TransactionType: req.GetTransactionType(), PayTypeId: req.GetPayTypeId(), CurrencyFromId: req.GetCurrencyFromId(),
		CurrencyToId: req.GetCurrencyToId(), AmountMin: req.GetAmountMin(), AmountMax: req.GetAmountMax(),
		Priority: req.GetPriority(), Enabled: req.Enabled, FeeType: req.GetFeeType(), Value: req.GetValue(),
		Payer: req.GetPayer()}), req.GetAllowConflict())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.UpdateFeeResponse{Fee: feeToProto(f)}, nil
}

// DeleteFee implements gatewayv1.FeeServiceServer.
func (s *feeServer) DeleteFee(ctx context.Context, req *gatewayv1.DeleteFeeRequest) (*gatewayv1.DeleteFeeResponse, error) {
	actor, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.fees.Delete(ctx, actor, v.Admin, req.GetId()); err != nil {
		return nil, err
	}
	return &gatewayv1.DeleteFeeResponse{}, nil
}

// CheckFeeConflicts implements gatewayv1.FeeServiceServer.
func (s *feeServer) CheckFeeConflicts(ctx context.Context, req *gatewayv1.CheckFeeConflictsRequest) (*gatewayv1.CheckFeeConflictsResponse, error) {
	_, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetFee() == nil {
		return nil, apperr.Invalid("fee is required: the fee as it would be saved.")
	}
	cs, err := s.fees.Check(ctx, v, req.GetId(), feeInput(req.GetFee()))
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.CheckFeeConflictsResponse{Conflicts: make([]*gatewayv1.FeeConflict, 0, len(cs)), WinsAll: true}
	for _, c := range cs {
		resp.Conflicts = append(resp.Conflicts, &gatewayv1.FeeConflict{Fee: feeToProto(c.Fee), WinnerId: c.WinnerID})
		if c.WinnerID == c.Fee.ID {
			resp.WinsAll = false
		}
	}
	return resp, nil
}

// PreviewFee implements gatewayv1.FeeServiceServer.
func (s *feeServer) PreviewFee(ctx context.Context, req *gatewayv1.PreviewFeeRequest) (*gatewayv1.PreviewFeeResponse, error) {
	_, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	if req.GetFee() == nil {
		return nil, apperr.Invalid("fee is required: the fee as it would be saved.")
	}
	p, err := s.fees.Preview(ctx, v, req.GetId(), feeInput(req.GetFee()))
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.PreviewFeeResponse{FromUtc: timestamppb.New(p.From), ToUtc: timestamppb.New(p.To),
		Currencies: make([]*gatewayv1.FeePreviewCurrency, 0, len(p.Currencies))}
	for _, c := range p.Currencies {
		resp.Currencies = append(resp.Currencies, &gatewayv1.FeePreviewCurrency{Currency: c.Currency,
			TransactionCount: c.Count, ChangedCount: c.Changed, FeeBefore: c.Before, FeeAfter: c.After})
	}
	return resp, nil
}

// ListFeeWinners implements gatewayv1.FeeServiceServer.
func (s *feeServer) ListFeeWinners(ctx context.Context, req *gatewayv1.ListFeeWinnersRequest) (*gatewayv1.ListFeeWinnersResponse, error) {
	_, v, err := feeCaller(ctx)
	if err != nil {
		return nil, err
	}
	ws, err := s.fees.Winners(ctx, v, req.GetCollabId())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListFeeWinnersResponse{Winners: make([]*gatewayv1.FeeWinner, 0, len(ws))}
	for _, w := range ws {
		resp.Winners = append(resp.Winners, &gatewayv1.FeeWinner{TransactionType: int32(w.Type), PayTypeId: w.PayTypeID,
			CurrencyId: w.CurrencyID, Currency: w.Currency, AmountMin: w.AmountMin.String(), AmountMax: w.AmountMax.String(),
			FeeId: w.FeeID})
	}
	return resp, nil
}

// payTypeServer serves PayTypeService.
type payTypeServer struct {
	gatewayv1.UnimplementedPayTypeServiceServer
	fees *fee.Service
}

var _ gatewayv1.PayTypeServiceServer = (*payTypeServer)(nil)

// NewPayTypeServer returns the PayTypeService implementation.
func NewPayTypeServer(fees *fee.Service) gatewayv1.PayTypeServiceServer {
	return &payTypeServer{fees: fees}
}

// ListPayTypes implements gatewayv1.PayTypeServiceServer.
func (s *payTypeServer) ListPayTypes(ctx context.Context, _ *gatewayv1.ListPayTypesRequest) (*gatewayv1.ListPayTypesResponse, error) {
	pts, err := s.fees.PayTypes(ctx)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListPayTypesResponse{PayTypes: make([]*gatewayv1.PayType, 0, len(pts))}
	for _, p := range pts {
		resp.PayTypes = append(resp.PayTypes, &gatewayv1.PayType{Id: p.ID, Name: p.Name, Code: p.Code})
	}
	return resp, nil
}
