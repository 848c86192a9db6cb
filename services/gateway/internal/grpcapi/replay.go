package grpcapi

import (
	"context"

	"google.golang.org/grpc"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/currency"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/apperr"
)

// ReplayBatch is the most transactions one StreamTransactions message
// carries (and one query reads).
const ReplayBatch = 1000

// ReplaySource is what ReplayService reads the transactions from
// (postgres.Payments).
type ReplaySource interface {
	// TransactionIDRange returns the lowest and highest transaction id, 0
	// and 0 without transactions.
	TransactionIDRange(ctx context.Context) (minID, maxID int64, err error)
	// TransactionsFrom returns up to limit transactions with fromID <= id <
	// toID in id order.
	TransactionsFrom(ctx context.Context, fromID, toID int64, limit int) ([]payment.Transaction, error)
}

// replayServer serves ReplayService, the internal calls with which another
// service rebuilds what it derives from the gateway's events
// (docs/contracts-replay.md). Its rules are Internal: only callers with the
// internal token reach it.
type replayServer struct {
	gatewayv1.UnimplementedReplayServiceServer
	transactions ReplaySource
	currencies   *currency.Service
}

var _ gatewayv1.ReplayServiceServer = (*replayServer)(nil)

// NewReplayServer returns the ReplayService implementation.
func NewReplayServer(transactions ReplaySource, currencies *currency.Service) gatewayv1.ReplayServiceServer {
	return &replayServer{transactions: transactions, currencies: currencies}
}

// GetTransactionIdRange implements gatewayv1.ReplayServiceServer.
func (s *replayServer) GetTransactionIdRange(ctx context.Context, _ *gatewayv1.GetTransactionIdRangeRequest) (*gatewayv1.GetTransactionIdRangeResponse, error) {
	lo, hi, err := s.transactions.TransactionIDRange(ctx)
	if err != nil {
		return nil, err
	}
	return &gatewayv1.GetTransactionIdRangeResponse{MinId: lo, MaxId: hi}, nil
}

// StreamTransactions implements gatewayv1.ReplayServiceServer: batches of
// up to ReplayBatch transactions in id order, each batch one query by
// keyset, so that memory stays bounded whatever the range.
func (s *replayServer) StreamTransactions(req *gatewayv1.StreamTransactionsRequest, stream grpc.ServerStreamingServer[gatewayv1.StreamTransactionsResponse]) error {
	from, to := req.GetFromId(), req.GetToId()
	switch {
	case from < 0:
		return apperr.Invalid("fromId must not be negative.")
	case to < from:
		return apperr.Invalid("toId must not be less than fromId.")
	}
	ctx := stream.Context()
	for from < to {
		ts, err := s.transactions.TransactionsFrom(ctx, from, to, ReplayBatch)
		if err != nil {
			return err
		}
		if len(ts) == 0 {
			return nil
		}
		msg := &gatewayv1.StreamTransactionsResponse{Transactions: make([]*eventsv1.TransactionState, len(ts))}
		for i, t := range ts {
			msg.Transactions[i] = payment.State(t)
		}
		if err := stream.Send(msg); err != nil {
			return err
		}
		if len(ts) < ReplayBatch {
			return nil
		}
		from = ts[len(ts)-1].ID + 1
	}
	return nil
}

// StreamCurrencyRates implements gatewayv1.ReplayServiceServer: every rate
// ever set, oldest first, one per message.
func (s *replayServer) StreamCurrencyRates(_ *gatewayv1.StreamCurrencyRatesRequest, stream grpc.ServerStreamingServer[gatewayv1.StreamCurrencyRatesResponse]) error {
	return s.currencies.EachRate(stream.Context(), func(r currency.Rate) error {
		return stream.Send(&gatewayv1.StreamCurrencyRatesResponse{Rate: r.Event()})
	})
}
