package payment

import (
	"context"
	"errors"
)

// ErrNoStatusInquiry is returned by AskProviderStatus for a provider that
// does not answer status inquiries (its connection does not support
// polling).
var ErrNoStatusInquiry = errors.New("the provider does not answer status inquiries")

// AskProviderStatus asks t's provider for the status of t (by
// t.ProviderTID) the way the poller does: through the provider adapter,
// with the credentials of t's collab. It records nothing: no journal entry,
// no status change (the stuck-money radar shows the answer beside ours). A
// failed call is in the exchange (Err, Failure); the error is for a provider
// without a connection (not found) or without status inquiries
// (ErrNoStatusInquiry).
func (s *Service) AskProviderStatus(ctx context.Context, t Transaction) (Exchange, error) {
	conn, err := s.store.Connection(ctx, t.ProviderID)
	if err != nil {
		return Exchange{}, err
	}
	if !conn.SupportsPolling {
		return Exchange{}, ErrNoStatusInquiry
	}
	ex := s.askStatus(ctx, conn, t)
	s.logProviderFailure(ctx, t, ex, "radar.inquiry")
	return ex, nil
}

// askStatus asks conn's provider for t's status with the credentials of
// t's collab: the one status inquiry of the poller and the radar.
func (s *Service) askStatus(ctx context.Context, conn Connection, t Transaction) Exchange {
	return s.providers.PaymentStatus(ctx, s.withCredentials(ctx, conn, t.CollabID), t.ProviderTID)
}
