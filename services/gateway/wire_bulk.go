package main

import (
	"context"
	"time"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/bulk"
	"github.com/paygate/paygate/services/gateway/internal/callbacksclient"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/bulkqueue"
)

// wireBulk serves the filter-wide bulk actions (docs/contracts-bulk.md):
// river's tables migrated into the gateway's schema, the BulkService, and
// the river client that works the runs on every replica (river's leader
// election runs its maintenance on one).
func (g *gateway) wireBulk(ctx context.Context) error {
	if err := bulkqueue.Migrate(ctx, g.Pool, g.cfg.Schema, g.Log.With("component", "river")); err != nil {
		return err
	}
	store := postgres.NewBulkRuns(g.Pool)
	resender := callbacksclient.NewResender(g.callbacksConn, g.internalToken, 10*time.Second)
	svc := bulk.NewService(store, bulk.Limits{Cap: g.tunables.BulkActionCap, Rate: g.tunables.BulkActionRate},
		resender.Resend, time.Now)
	queue, err := bulkqueue.New[bulkRunKind](g.Pool, g.cfg.Schema, svc.Work, bulkqueue.Options{
		Workers: g.cfg.BulkWorkers, Slice: g.cfg.BulkSlice, RescueAfter: g.cfg.BulkRescueAfter, Logger: g.Log.With("component", "bulk")})
	if err != nil {
		return err
	}
	store.Enqueue = queue.InsertTx
	g.srv.Register(&gatewayv1.BulkService_ServiceDesc, grpcapi.NewBulkServer(svc))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterBulkServiceHandlerClient, gatewayv1.NewBulkServiceClient))
	if g.cfg.BulkWorkers > 0 {
		g.Go(queue.Run)
	}
	return nil
}

// bulkRunKind is the river job kind of the gateway's bulk runs.
type bulkRunKind struct{}

// Name implements bulkqueue.Kind.
func (bulkRunKind) Name() string { return "gateway.bulk_run" }
