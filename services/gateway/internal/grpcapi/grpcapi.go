// Package grpcapi serves the gateway's gRPC services, one server type per
// area of paygate.gateway.v1 (merchantServer, collabServer,
// maintenanceServer, activityServer, transactionServer, validationServer,
// currencyServer, and the internal replayServer among them;
// docs/contracts.md lists them), and forwards the aggregator's and auth's
// REST calls made on the gateway's host (AggregatorRoutes, AuthRoutes): it
// maps protos to the domain, and the caller's verified claims and client
// address to the actor of a change and its merchant scope. Rules says who
// may call each method.
package grpcapi

import (
	"context"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/server"
)

// scopeOf is the merchant scope of a caller.
func scopeOf(c *access.Claims) merchant.Scope {
	return merchant.Scope{All: c.GlobalScope(), MerchantIDs: c.MerchantIDs}
}

// callerScope is the merchant scope of the signed-in caller.
func callerScope(ctx context.Context) (merchant.Scope, error) {
	claims, ok := access.FromContext(ctx)
	if !ok {
		return merchant.Scope{}, apperr.Unauthenticated("Please sign in to continue.")
	}
	return scopeOf(claims), nil
}

// actorOf is the signed-in caller as the author of a change: who (from the
// token), from where (server.ClientInfo) and within which scope.
func actorOf(ctx context.Context) (activity.Actor, error) {
	claims, ok := access.FromContext(ctx)
	if !ok {
		return activity.Actor{}, apperr.Unauthenticated("Please sign in to continue.")
	}
	id, err := claims.UserID()
	if err != nil {
		return activity.Actor{}, apperr.New(apperr.KindUnauthenticated, err, "Please sign in to continue.")
	}
	ip, ua := server.ClientInfo(ctx)
	return activity.Actor{UserID: id, Username: claims.Username, IP: ip, UserAgent: ua, Scope: scopeOf(claims)}, nil
}
