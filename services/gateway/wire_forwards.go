package main

import (
	"context"
	"fmt"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	gwnats "github.com/paygate/paygate/services/gateway/internal/nats"
	"github.com/paygate/paygate/services/internal/bus"
)

// The areas other services own, whose REST calls the gateway's host
// forwards to them over gRPC with the caller's token, and the consumers of
// their events.

// wireCallbacks forwards the callback URLs and attempts to the callbacks
// service (docs/contracts-callbacks.md) and consumes its events: delivery
// tallies, and callback-URL changes for the activity log.
func (g *gateway) wireCallbacks(context.Context) error {
	g.srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, _ grpc.ClientConnInterface) error {
		if err := callbacksv1.RegisterCallbackRetryServiceHandlerClient(ctx, mux, callbacksv1.NewCallbackRetryServiceClient(g.callbacksConn)); err != nil {
			return err
		}
		if err := callbacksv1.RegisterCallbackEndpointServiceHandlerClient(ctx, mux, callbacksv1.NewCallbackEndpointServiceClient(g.callbacksConn)); err != nil {
			return err
		}
		return callbacksv1.RegisterCallbacksServiceHandlerClient(ctx, mux, callbacksv1.NewCallbacksServiceClient(g.callbacksConn))
	})
	if g.cfg.ConsumeCallbackEvents {
		g.Go(func(ctx context.Context) error {
			from, _ := bus.ParseStart(g.cfg.CallbackEventsFrom) // checked by Config.Check
			return gwnats.RunCallbackEvents(ctx, g.JetStream, g.cfg.Schema, from, g.payStore, g.collabs, g.Log.With("component", "callback-events"))
		})
	}
	return nil
}

// wireAggregator forwards the statistics and job stats to the aggregator
// (docs/contracts-statistics.md, docs/contracts-jobs.md).
func (g *gateway) wireAggregator(context.Context) error {
	routes, err := grpcapi.NewAggregatorRoutes(g.cfg.AggregatorGRPCAddr, g.cfg.TrustedProxyHops, g.internalToken)
	if err != nil {
		return fmt.Errorf("PAYGATE_AGGREGATOR_GRPC_ADDR: %w", err)
	}
	g.Defer(func() { _ = routes.Close() })
	g.srv.RegisterGateway(routes.Register)
	return nil
}

// wireAuth forwards the users, sessions and allowed IPs to the auth service
// (docs/contracts-security.md).
func (g *gateway) wireAuth(context.Context) error {
	routes, err := grpcapi.NewAuthRoutes(g.cfg.AuthGRPCAddr, g.cfg.TrustedProxyHops, g.internalToken)
	if err != nil {
		return fmt.Errorf("PAYGATE_AUTH_GRPC_URL: %w", err)
	}
	g.Defer(func() { _ = routes.Close() })
	g.srv.RegisterGateway(routes.Register)
	return nil
}
