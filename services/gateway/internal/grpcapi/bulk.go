package grpcapi

import (
	"context"
	"strconv"

	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/bulk"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
)

// MethodStartBulkRun is the sensitive method that starts a bulk run.
const MethodStartBulkRun = gatewayv1.BulkService_StartBulkRun_FullMethodName

// bulkPermission is the permission each action needs: that of its
// single-transaction call (Rules: EnqueueTransactionPolling,
// CallbacksService.EnqueueTransactionCallbacks, CancelTransaction,
// CancelTransactionCallbacks, FileService.ExportFile).
var bulkPermission = map[bulk.Action]string{
	bulk.RequeuePolling:  access.PermEditTransactions,
	bulk.ResendCallbacks: access.PermEditTransactions,
	bulk.MarkFailed:      access.PermEditTransactions,
	bulk.CancelCallbacks: access.PermEditTransactions,
	bulk.Export:          access.PermFilesAccess,
}

type bulkServer struct {
	gatewayv1.UnimplementedBulkServiceServer
	svc *bulk.Service
}

var _ gatewayv1.BulkServiceServer = (*bulkServer)(nil)

// NewBulkServer returns the BulkService server (docs/contracts-bulk.md).
func NewBulkServer(svc *bulk.Service) gatewayv1.BulkServiceServer { return &bulkServer{svc: svc} }

// bulkOperator reads the caller and checks they may run action a.
func bulkOperator(ctx context.Context, name string) (bulk.Operator, bulk.Action, error) {
	a, err := bulk.ParseAction(name)
	if err != nil {
		return bulk.Operator{}, "", err
	}
	actor, err := actorOf(ctx)
	if err != nil {
		return bulk.Operator{}, "", err
	}
	claims, _ := access.FromContext(ctx)
	if perm := bulkPermission[a]; !claims.HasPermission(perm) {
		return bulk.Operator{}, "", apperr.Forbidden("The action %s needs the permission %s.", a, perm)
	}
	return bulk.Operator{UserID: actor.UserID, Username: actor.Username, Scope: actor.Scope}, a, nil
}

// listQuery is the list's query of a ListTransactionsRequest (as
// ListTransactions reads it).
func listQuery(req *gatewayv1.ListTransactionsRequest) payment.ListQuery {
	return payment.ListQuery{
		CollabID: req.GetCollabId(), MerchantID: req.GetMerchantId(),
		Type: req.GetType(), Statuses: req.GetStatuses(), ProviderTID: req.GetProviderTid(),
		MerchantCID: req.GetMerchantCid(), Nonce: req.GetNonce(), From: req.GetFrom(), To: req.GetTo(),
		MinAmount: req.GetMinAmount(), MaxAmount: req.GetMaxAmount(), Currency: req.GetCurrency(),
		PaymentMethodValue: req.GetPaymentMethodValue(), PaymentMethodType: req.GetPaymentMethodType(),
		PaymentIP: req.GetPaymentIpAddress(), Search: req.GetSearch(),
	}
}

func listRequest(q payment.ListQuery) *gatewayv1.ListTransactionsRequest {
	return &gatewayv1.ListTransactionsRequest{
		CollabId: q.CollabID, MerchantId: q.MerchantID, Type: q.Type, Statuses: q.Statuses, ProviderTid: q.ProviderTID,
		MerchantCid: q.MerchantCID, Nonce: q.Nonce, From: q.From, To: q.To, MinAmount: q.MinAmount, MaxAmount: q.MaxAmount,
		Currency: q.Currency, PaymentMethodValue: q.PaymentMethodValue, PaymentMethodType: q.PaymentMethodType,
		PaymentIpAddress: q.PaymentIP, Search: q.Search,
	}
}

func bulkCounts(cs []bulk.Count) []*gatewayv1.BulkCount {
	out := make([]*gatewayv1.BulkCount, 0, len(cs))
	for _, c := range cs {
		out = append(out, &gatewayv1.BulkCount{Key: c.Key, Reason: c.Reason, Count: c.Count})
	}
	return out
}

func bulkRunToProto(r bulk.Run) *gatewayv1.BulkRun {
	p := &gatewayv1.BulkRun{
		Id: r.ID, Action: string(r.Action), State: string(r.State), Filter: listRequest(r.Query), Reason: r.Reason,
		CreatedBy:     &gatewayv1.BulkRunUser{UserId: r.CreatedBy, Username: r.CreatedByName},
		ExpectedCount: r.ExpectedCount, Total: r.Total, Processed: r.Processed, Applied: r.Applied, Skipped: r.Skipped,
		Failed: r.Failed, LastError: r.LastError, ThroughputPerSecond: r.Throughput(),
		CreatedAt: timestamppb.New(r.CreatedAt), UpdatedAt: timestamppb.New(r.UpdatedAt),
	}
	if r.StartedAt != nil {
		p.StartedAt = timestamppb.New(*r.StartedAt)
	}
	if r.FinishedAt != nil {
		p.FinishedAt = timestamppb.New(*r.FinishedAt)
	}
	return p
}

// DryRunBulkAction implements gatewayv1.BulkServiceServer.
func (s *bulkServer) DryRunBulkAction(ctx context.Context, req *gatewayv1.DryRunBulkActionRequest) (*gatewayv1.DryRunBulkActionResponse, error) {
	op, a, err := bulkOperator(ctx, req.GetAction())
	if err != nil {
		return nil, err
	}
	d, err := s.svc.DryRun(ctx, op, a, listQuery(req.GetFilter()))
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.DryRunBulkActionResponse{Action: string(d.Action), Matched: d.Matched, WouldApply: d.WouldApply,
		Skipped: bulkCounts(d.Skipped), ByStatus: bulkCounts(d.ByStatus), ByCollab: bulkCounts(d.ByCollab),
		Sample: make([]*gatewayv1.Transaction, 0, len(d.Sample)), Cap: d.Cap, OverCap: d.OverCap}
	for _, t := range d.Sample {
		resp.Sample = append(resp.Sample, transactionToProto(t))
	}
	return resp, nil
}

// StartBulkRun implements gatewayv1.BulkServiceServer.
func (s *bulkServer) StartBulkRun(ctx context.Context, req *gatewayv1.StartBulkRunRequest) (*gatewayv1.StartBulkRunResponse, error) {
	op, a, err := bulkOperator(ctx, req.GetAction())
	if err != nil {
		return nil, err
	}
	r, err := s.svc.Start(ctx, op, a, listQuery(req.GetFilter()), req.GetReason(), req.GetExpectedCount())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.StartBulkRunResponse{Run: bulkRunToProto(r)}, nil
}

// ListBulkRuns implements gatewayv1.BulkServiceServer.
func (s *bulkServer) ListBulkRuns(ctx context.Context, req *gatewayv1.ListBulkRunsRequest) (*gatewayv1.ListBulkRunsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	var before int64
	if t := req.GetPageToken(); t != "" {
		if before, err = strconv.ParseInt(t, 10, 64); err != nil || before <= 0 {
			return nil, apperr.Invalid("pageToken is not one this list gave; start again without it.")
		}
	}
	runs, next, err := s.svc.List(ctx, scope, req.GetState(), before, req.GetPageSize())
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListBulkRunsResponse{Runs: make([]*gatewayv1.BulkRun, 0, len(runs))}
	for _, r := range runs {
		resp.Runs = append(resp.Runs, bulkRunToProto(r))
	}
	if next > 0 {
		resp.NextPageToken = strconv.FormatInt(next, 10)
	}
	return resp, nil
}

// GetBulkRun implements gatewayv1.BulkServiceServer.
func (s *bulkServer) GetBulkRun(ctx context.Context, req *gatewayv1.GetBulkRunRequest) (*gatewayv1.GetBulkRunResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.svc.Get(ctx, scope, req.GetId())
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetBulkRunResponse{Run: bulkRunToProto(r)}, nil
}

// changeRun checks the caller may run the run's action, then applies fn.
func (s *bulkServer) changeRun(ctx context.Context, id int64, fn func(context.Context, bulk.Operator, int64) (bulk.Run, error)) (*gatewayv1.BulkRun, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	r, err := s.svc.Get(ctx, scope, id)
	if err != nil {
		return nil, err
	}
	op, _, err := bulkOperator(ctx, string(r.Action))
	if err != nil {
		return nil, err
	}
	out, err := fn(ctx, op, id)
	if err != nil {
		return nil, err
	}
	return bulkRunToProto(out), nil
}

// PauseBulkRun implements gatewayv1.BulkServiceServer.
func (s *bulkServer) PauseBulkRun(ctx context.Context, req *gatewayv1.PauseBulkRunRequest) (*gatewayv1.PauseBulkRunResponse, error) {
	r, err := s.changeRun(ctx, req.GetId(), func(ctx context.Context, op bulk.Operator, id int64) (bulk.Run, error) {
		return s.svc.Pause(ctx, op.Scope, id)
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.PauseBulkRunResponse{Run: r}, nil
}

// ResumeBulkRun implements gatewayv1.BulkServiceServer.
func (s *bulkServer) ResumeBulkRun(ctx context.Context, req *gatewayv1.ResumeBulkRunRequest) (*gatewayv1.ResumeBulkRunResponse, error) {
	r, err := s.changeRun(ctx, req.GetId(), func(ctx context.Context, op bulk.Operator, id int64) (bulk.Run, error) {
		return s.svc.Resume(ctx, op.Scope, id)
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.ResumeBulkRunResponse{Run: r}, nil
}

// CancelBulkRun implements gatewayv1.BulkServiceServer.
func (s *bulkServer) CancelBulkRun(ctx context.Context, req *gatewayv1.CancelBulkRunRequest) (*gatewayv1.CancelBulkRunResponse, error) {
	r, err := s.changeRun(ctx, req.GetId(), func(ctx context.Context, op bulk.Operator, id int64) (bulk.Run, error) {
		return s.svc.Cancel(ctx, op.Scope, id)
	})
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CancelBulkRunResponse{Run: r}, nil
}
