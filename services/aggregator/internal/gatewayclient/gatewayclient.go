// Package gatewayclient reads the gateway's transactions and rates for a
// rebuild, through its internal ReplayService, presenting the deployment's
// internal token.
package gatewayclient

import (
	"context"
	"errors"
	"fmt"
	"io"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	aggnats "github.com/paygate/paygate/services/aggregator/internal/nats"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
)

// Replay is statistics.Source on the gateway's ReplayService.
type Replay struct {
	client gatewayv1.ReplayServiceClient
}

var _ statistics.Source = (*Replay)(nil)

// NewReplay returns the source on client (whose connection carries the
// internal token).
func NewReplay(client gatewayv1.ReplayServiceClient) *Replay { return &Replay{client: client} }

// IDRange implements statistics.Source.
func (r *Replay) IDRange(ctx context.Context) (int64, int64, error) {
	resp, err := r.client.GetTransactionIdRange(ctx, &gatewayv1.GetTransactionIdRangeRequest{})
	if err != nil {
		return 0, 0, fmt.Errorf("get transaction id range: %w", err)
	}
	return resp.GetMinId(), resp.GetMaxId(), nil
}

// Transactions implements statistics.Source.
func (r *Replay) Transactions(ctx context.Context, fromID, toID int64, page func([]statistics.State) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := r.client.StreamTransactions(ctx, &gatewayv1.StreamTransactionsRequest{FromId: fromID, ToId: toID})
	if err != nil {
		return fmt.Errorf("stream transactions %d..%d: %w", fromID, toID, err)
	}
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("stream transactions %d..%d: %w", fromID, toID, err)
		}
		states := make([]statistics.State, 0, len(resp.GetTransactions()))
		for _, ts := range resp.GetTransactions() {
			st, err := aggnats.StateOf(ts)
			if err != nil {
				return fmt.Errorf("replayed transaction: %w", err)
			}
			states = append(states, st)
		}
		if err := page(states); err != nil {
			return err
		}
	}
}

// Rates implements statistics.Source.
func (r *Replay) Rates(ctx context.Context, page func([]statistics.Rate) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	stream, err := r.client.StreamCurrencyRates(ctx, &gatewayv1.StreamCurrencyRatesRequest{})
	if err != nil {
		return fmt.Errorf("stream currency rates: %w", err)
	}
	var batch []statistics.Rate
	for {
		resp, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("stream currency rates: %w", err)
		}
		rate, err := aggnats.RateOf(orEmpty(resp.GetRate()))
		if err != nil {
			return fmt.Errorf("replayed rate: %w", err)
		}
		batch = append(batch, rate)
	}
	if len(batch) == 0 {
		return nil
	}
	return page(batch)
}

func orEmpty(r *eventsv1.CurrencyRateSet) *eventsv1.CurrencyRateSet {
	if r == nil {
		return &eventsv1.CurrencyRateSet{}
	}
	return r
}
