// Package callbacksclient reads from the callbacks service what the
// gateway's own work needs: the callback attempts of transactions, for the
// export worker, through the internal RPC ListAttemptsOfTransactions.
package callbacksclient

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/gateway/internal/export"
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
