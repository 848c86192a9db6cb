package main

import (
	"context"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/view"
	"github.com/paygate/paygate/services/internal/apperr"
)

// wireViews serves the saved views (docs/contracts-views.md). It runs after
// wireCollabs: an opened view's collab filter is checked against the
// reader's scope as GetCollab checks it.
func (g *gateway) wireViews(context.Context) error {
	service := view.NewService(postgres.NewViews(g.Pool), visibleCollabs{g.collabs})
	g.srv.Register(&gatewayv1.ViewService_ServiceDesc, grpcapi.NewViewServer(service))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterViewServiceHandlerClient, gatewayv1.NewViewServiceClient))
	return nil
}

// visibleCollabs says whether a collab is in a scope: collab.Service.Collab
// answers not found for a collab that is gone or outside it.
type visibleCollabs struct{ collabs *collab.Service }

// Visible implements view.Collabs.
func (v visibleCollabs) Visible(ctx context.Context, scope merchant.Scope, id int32) (bool, error) {
	_, err := v.collabs.Collab(ctx, scope, id)
	switch {
	case err == nil:
		return true, nil
	case apperr.KindOf(err) == apperr.KindNotFound:
		return false, nil
	}
	return false, err
}
