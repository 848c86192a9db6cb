package grpcapi

import (
	"context"
	"math"
	"net/http"
	"time"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/server"
)

// accepted marks the answer of a queueing call: REST answers 202.
func accepted(ctx context.Context) { server.SetHTTPStatus(ctx, http.StatusAccepted) }

// operatorOf is the signed-in caller as a payment.Operator.
func operatorOf(ctx context.Context) (payment.Operator, error) {
	actor, err := actorOf(ctx)
	if err != nil {
		return payment.Operator{}, err
	}
	return payment.Operator{UserID: actor.UserID, Username: actor.Username, IP: actor.IP, UserAgent: actor.UserAgent, Scope: actor.Scope}, nil
}

// ListTransactions implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) ListTransactions(ctx context.Context, req *gatewayv1.ListTransactionsRequest) (*gatewayv1.ListTransactionsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	q := payment.ListQuery{
		CollabID: req.GetCollabId(), MerchantID: req.GetMerchantId(), Page: req.Page, Take: req.Take,
		Type: req.GetType(), Statuses: req.GetStatuses(), ProviderTID: req.GetProviderTid(),
		MerchantCID: req.GetMerchantCid(), Nonce: req.GetNonce(), From: req.GetFrom(), To: req.GetTo(),
		MinAmount: req.GetMinAmount(), MaxAmount: req.GetMaxAmount(), Currency: req.GetCurrency(),
		PaymentMethodValue: req.GetPaymentMethodValue(), PaymentMethodType: req.GetPaymentMethodType(),
		PaymentIP: req.GetPaymentIpAddress(), IncludeTotals: req.GetIncludeTotalAmounts(), Search: req.GetSearch(),
	}
	page, err := s.payments.List(ctx, scope, q)
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.ListTransactionsResponse{
		Transactions: make([]*gatewayv1.Transaction, 0, len(page.Transactions)),
		TotalCount:   clamp32(page.TotalCount),
		TotalPages:   clamp32((page.TotalCount + page.Take - 1) / page.Take),
		CurrentPage:  int32(page.Page),
		TotalAmounts: map[string]string{},
	}
	for _, t := range page.Transactions {
		resp.Transactions = append(resp.Transactions, transactionToProto(t))
	}
	for cur, a := range page.Totals {
		resp.TotalAmounts[cur] = a.String()
	}
	if page.Lag >= time.Second {
		resp.DataLagSeconds = proto.Int32(clamp32(int((page.Lag + time.Second - 1) / time.Second)))
	}
	return resp, nil
}

func clamp32(n int) int32 {
	if n > math.MaxInt32 {
		return math.MaxInt32
	}
	return int32(n)
}

// seenStatus reads the required status the operator saw.
func seenStatus(v *int32) (payment.Status, error) {
	if v == nil {
		return 0, apperr.Invalid("transactionStatus, the status you saw, is required: ?transactionStatus=<code>.")
	}
	return payment.Status(*v), nil
}

// CancelTransaction implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) CancelTransaction(ctx context.Context, req *gatewayv1.CancelTransactionRequest) (*gatewayv1.CancelTransactionResponse, error) {
	op, err := operatorOf(ctx)
	if err != nil {
		return nil, err
	}
	seen, err := seenStatus(req.TransactionStatus)
	if err != nil {
		return nil, err
	}
	t, err := s.payments.Cancel(ctx, op, req.GetId(), seen)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CancelTransactionResponse{Transaction: transactionToProto(t)}, nil
}

// CancelTransactionCallbacks implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) CancelTransactionCallbacks(ctx context.Context, req *gatewayv1.CancelTransactionCallbacksRequest) (*gatewayv1.CancelTransactionCallbacksResponse, error) {
	op, err := operatorOf(ctx)
	if err != nil {
		return nil, err
	}
	seen, err := seenStatus(req.TransactionStatus)
	if err != nil {
		return nil, err
	}
	t, err := s.payments.CancelCallbacks(ctx, op, req.GetId(), seen)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.CancelTransactionCallbacksResponse{Transaction: transactionToProto(t)}, nil
}

// EnqueueTransaction implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) EnqueueTransaction(ctx context.Context, req *gatewayv1.EnqueueTransactionRequest) (*gatewayv1.EnqueueTransactionResponse, error) {
	op, err := operatorOf(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.payments.Restart(ctx, op, req.GetId())
	if err != nil {
		return nil, err
	}
	accepted(ctx)
	return &gatewayv1.EnqueueTransactionResponse{Id: t.ID, TransactionStatus: int32(t.Status),
		Message: "The transaction was restarted from the beginning; it is now " + t.Status.String() + "."}, nil
}

// EnqueueTransactionPolling implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) EnqueueTransactionPolling(ctx context.Context, req *gatewayv1.EnqueueTransactionPollingRequest) (*gatewayv1.EnqueueTransactionPollingResponse, error) {
	op, err := operatorOf(ctx)
	if err != nil {
		return nil, err
	}
	t, err := s.payments.EnqueuePolling(ctx, op, req.GetId())
	if err != nil {
		return nil, err
	}
	accepted(ctx)
	return &gatewayv1.EnqueueTransactionPollingResponse{Id: t.ID, TransactionStatus: int32(t.Status),
		Message: "The transaction will be polled at the poller's next tick."}, nil
}

// SearchTransactionLogs implements gatewayv1.TransactionServiceServer.
func (s *transactionServer) SearchTransactionLogs(ctx context.Context, req *gatewayv1.SearchTransactionLogsRequest) (*gatewayv1.SearchTransactionLogsResponse, error) {
	scope, err := callerScope(ctx)
	if err != nil {
		return nil, err
	}
	matches, err := s.payments.SearchLogs(ctx, scope, payment.LogSearchQuery{
		Type: req.GetTransactionType(), FromDate: req.GetFromDate(), ToDate: req.GetToDate(), Term: req.GetSearchTerm(),
		Amount: req.GetAmount(), Currency: req.GetCurrency(), MerchantClientID: req.GetMerchantClientId(),
		OffsetMinutes: req.TimezoneOffsetMinutes,
	})
	if err != nil {
		return nil, err
	}
	resp := &gatewayv1.SearchTransactionLogsResponse{TotalCount: clamp32(len(matches)),
		Transactions: make([]*gatewayv1.LogSearchResult, 0, len(matches))}
	for _, m := range matches {
		t := m.Transaction
		resp.Transactions = append(resp.Transactions, &gatewayv1.LogSearchResult{
			Id: t.ID, MerchantName: t.MerchantName, ProviderName: t.ProviderName, MerchantClientId: t.MerchantClientID,
			Amount: t.Amount.String(), Currency: t.Currency, TransactionStatus: int32(t.Status),
			CreatedUtc: timestamppb.New(t.CreatedAt), UpdatedUtc: timestamppb.New(t.UpdatedAt),
			MatchedJsonKey: m.Key, MatchScore: int32(m.Score), JsonSource: m.Source,
		})
	}
	return resp, nil
}
