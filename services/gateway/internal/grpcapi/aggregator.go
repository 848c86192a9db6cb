package grpcapi

import (
	"context"
	"errors"
	"fmt"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	aggregatorv1 "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
	"github.com/paygate/paygate/services/internal/server"
)

// AggregatorRoutes is the REST of the aggregator's StatisticsService and
// JobService on the gateway's host: the console's statistics and job calls
// are forwarded over gRPC to the aggregator, which owns that data, with the
// caller's token (the aggregator checks it, as the callbacks service does
// for the callback calls the gateway forwards).
type AggregatorRoutes struct {
	conn *grpc.ClientConn
}

// NewAggregatorRoutes connects (lazily) to the aggregator's gRPC address.
// The caller's address travels with the internal token (server.ForwardClientIP).
func NewAggregatorRoutes(addr string, trustedHops int, internalToken string) (*AggregatorRoutes, error) {
	conn, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(server.ForwardClientIP(trustedHops, internalToken)))
	if err != nil {
		return nil, fmt.Errorf("aggregator address %q: %w", addr, err)
	}
	return &AggregatorRoutes{conn: conn}, nil
}

// Register adds the forwarded routes to the gateway's REST mux; its
// signature is server.Server.RegisterGateway's.
func (a *AggregatorRoutes) Register(ctx context.Context, mux *runtime.ServeMux, _ grpc.ClientConnInterface) error {
	return errors.Join(
		aggregatorv1.RegisterStatisticsServiceHandlerClient(ctx, mux, aggregatorv1.NewStatisticsServiceClient(a.conn)),
		aggregatorv1.RegisterJobServiceHandlerClient(ctx, mux, aggregatorv1.NewJobServiceClient(a.conn)),
	)
}

// Close closes the connection to the aggregator.
func (a *AggregatorRoutes) Close() error { return a.conn.Close() }
