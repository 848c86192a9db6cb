// Package callbacksclient reads from the callbacks service what the
// gateway's own work needs: the callback attempts of transactions, for the
// export worker, through the internal RPC ListAttemptsOfTransactions.
package callbacksclient

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
)

// Attempts implements export.AttemptSource over the callbacks service.
type Attempts struct {
	client  callbacksv1.CallbacksServiceClient
	creds   grpc.CallOption
	timeout time.Duration
}

var _ export.AttemptSource = (*Attempts)(nil)

// NewAttempts returns the source on a connection to the callbacks service;
// every call carries the internal token and lasts at most timeout.
func NewAttempts(cc grpc.ClientConnInterface, internalToken string, timeout time.Duration) *Attempts {
	return &Attempts{client: callbacksv1.NewCallbacksServiceClient(cc),
		creds: grpc.PerRPCCredentials(authz.InternalCredentials(internalToken)), timeout: timeout}
}

// AttemptsOf implements export.AttemptSource.
func (a *Attempts) AttemptsOf(ctx context.Context, ids []int64) ([]export.Attempt, error) {
	ctx, cancel := context.WithTimeout(ctx, a.timeout)
	defer cancel()
	resp, err := a.client.ListAttemptsOfTransactions(ctx, &callbacksv1.ListAttemptsOfTransactionsRequest{TransactionIds: ids}, a.creds)
	if err != nil {
		return nil, fmt.Errorf("attempts of %d transactions: %w", len(ids), err)
	}
	out := make([]export.Attempt, 0, len(resp.GetAttempts()))
	for _, p := range resp.GetAttempts() {
		out = append(out, export.Attempt{
			ID: p.GetId(), TransactionID: p.GetTransactionId(), CreatedAt: p.GetCreatedUtc().AsTime(), URL: p.GetCallbackUrl(),
			ResponseCode: p.GetResponseCode(), Status: p.GetCallbackAttemptStatus(), Number: p.GetAttemptNumber(),
			WebhookID: p.GetWebhookId(), ErrorMessage: p.GetErrorMessage(), RequestBody: p.GetRequestBody(),
		})
	}
	return out, nil
}

// Resender sends transactions' callbacks again through the callbacks
// service (EnqueueTransactionCallbacks with an idempotency key), for the
// bulk runs.
type Resender struct {
	client  callbacksv1.CallbacksServiceClient
	creds   grpc.CallOption
	timeout time.Duration
}

// NewResender returns the resender on a connection to the callbacks
// service; every call carries the internal token and lasts at most timeout.
func NewResender(cc grpc.ClientConnInterface, internalToken string, timeout time.Duration) *Resender {
	return &Resender{client: callbacksv1.NewCallbacksServiceClient(cc),
		creds: grpc.PerRPCCredentials(authz.InternalCredentials(internalToken)), timeout: timeout}
}

// Resend queues a final transaction's callbacks again, once per key. The
// callbacks service's refusals come back as their kinds (not found, failed
// precondition, invalid); anything else is the service being unreachable.
func (r *Resender) Resend(ctx context.Context, transactionID int64, key string) error {
	ctx, cancel := context.WithTimeout(ctx, r.timeout)
	defer cancel()
	_, err := r.client.EnqueueTransactionCallbacks(ctx, &callbacksv1.EnqueueTransactionCallbacksRequest{Id: transactionID, IdempotencyKey: key}, r.creds)
	if err == nil {
		return nil
	}
	st, _ := status.FromError(err)
	switch st.Code() {
	case codes.NotFound:
		return apperr.New(apperr.KindNotFound, err, "%s", st.Message())
	case codes.FailedPrecondition:
		return apperr.New(apperr.KindFailedPrecondition, err, "%s", st.Message())
	case codes.InvalidArgument:
		return apperr.New(apperr.KindInvalid, err, "%s", st.Message())
	}
	return fmt.Errorf("enqueue callbacks of transaction %d: %w", transactionID, err)
}
