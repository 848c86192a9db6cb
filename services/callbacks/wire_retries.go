package main

import (
	"context"
	"fmt"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/callbacks/internal/grpcapi"
	"github.com/paygate/paygate/services/callbacks/internal/postgres"
	"github.com/paygate/paygate/services/callbacks/internal/retry"
	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/bulkqueue"
	"github.com/paygate/paygate/services/internal/server"
)

// retryRunKind is the river job kind of the callbacks service's bulk
// retries.
type retryRunKind struct{}

// Name implements bulkqueue.Kind.
func (retryRunKind) Name() string { return "callbacks.retry_run" }

// wireRetries serves the bulk retries of failed deliveries
// (docs/contracts-bulk.md): river's tables in the service's schema, the
// CallbackRetryService, and the river client that works the runs.
func wireRetries(ctx context.Context, cfg Config, p *app.Parts, srv *server.Server, wake func()) (*retry.Service, error) {
	if err := bulkqueue.Migrate(ctx, p.Pool, cfg.Schema, p.Log.With("component", "river")); err != nil {
		return nil, err
	}
	store := postgres.NewRetries(p.Pool)
	svc := retry.NewService(store, retry.Options{Cap: int64(cfg.RetryCap), Rate: cfg.RetryRate, Wake: wake}, time.Now)
	queue, err := bulkqueue.New[retryRunKind](p.Pool, cfg.Schema, svc.Work, bulkqueue.Options{
		Workers: cfg.RetryWorkers, Slice: cfg.RetrySlice, RescueAfter: cfg.RetryRescueAfter, Logger: p.Log.With("component", "retries")})
	if err != nil {
		return nil, err
	}
	store.Enqueue = queue.InsertTx
	srv.Register(&callbacksv1.CallbackRetryService_ServiceDesc, grpcapi.NewRetryServer(svc))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return callbacksv1.RegisterCallbackRetryServiceHandlerClient(ctx, mux, callbacksv1.NewCallbackRetryServiceClient(cc))
	})
	if cfg.RetryWorkers > 0 {
		p.Go(queue.Run)
	}
	return svc, nil
}

// recoverSince starts "recover since disabled" runs: a bulk retry of a
// callback URL's deliveries that failed since a time (its dry run's count
// confirmed).
func recoverSince(svc *retry.Service) callback.Recoverer {
	return func(ctx context.Context, a callback.Actor, urlID int64, since time.Time) (int64, error) {
		f := retry.Filter{CallbackURLID: urlID, From: since.UTC().Format(time.RFC3339Nano)}
		dry, err := svc.DryRun(ctx, a.Scope, f)
		if err != nil {
			return 0, err
		}
		run, err := svc.Start(ctx, a, f, fmt.Sprintf("Recover since callback URL %d was disabled automatically.", urlID), dry.WouldRetry)
		if err != nil {
			return 0, err
		}
		return run.ID, nil
	}
}
