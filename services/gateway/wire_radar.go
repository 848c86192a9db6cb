package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/radar"
	gwredis "github.com/paygate/paygate/services/gateway/internal/redis"
	"github.com/paygate/paygate/services/internal/apperr"
)

// wireRadar serves the stuck-money radar (docs/contracts-radar.md): its
// status inquiries go through the payment path's own provider call, so it
// comes after wirePayments.
func (g *gateway) wireRadar(context.Context) error {
	r := radar.NewService(postgres.NewRadar(g.Pool), statusInquirer(g.payments), gwredis.NewRadarCache(g.Redis, g.cfg.Schema),
		time.Now, g.Log.With("component", "radar"))
	g.srv.Register(&gatewayv1.RadarService_ServiceDesc, grpcapi.NewRadarServer(r))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterRadarServiceHandlerClient, gatewayv1.NewRadarServiceClient))
	return nil
}

// statusInquirer asks a transaction's provider through payments (the
// poller's inquiry: provider adapter, collab credentials, failure
// sentences) and turns the exchange into the radar's provider status.
func statusInquirer(payments *payment.Service) radar.Inquirer {
	return func(ctx context.Context, r radar.Row) radar.ProviderStatus {
		ex, err := payments.AskProviderStatus(ctx, payment.Transaction{ID: r.ID, ProviderID: r.ProviderID,
			CollabID: r.CollabID, ProviderTID: r.ProviderTID, Status: r.Status})
		switch {
		case errors.Is(err, payment.ErrNoStatusInquiry):
			return radar.ProviderStatus{State: radar.StateNotAsked, Message: "This provider does not answer status inquiries."}
		case apperr.KindOf(err) == apperr.KindNotFound:
			return radar.ProviderStatus{State: radar.StateNotAsked, Message: "The provider has no connection configured."}
		case err != nil:
			return radar.ProviderStatus{State: radar.StateError, Message: "The provider's connection could not be read."}
		case ex.Err != nil:
			return radar.ProviderStatus{State: radar.StateError, Message: ex.Failure}
		}
		switch ex.Outcome {
		case payment.OutcomeSuccess, payment.OutcomeFailed, payment.OutcomePending, payment.OutcomeCancelled:
			return radar.ProviderStatus{State: string(ex.Outcome), Message: ex.ProviderMessage}
		}
		return radar.ProviderStatus{State: radar.StateError,
			Message: fmt.Sprintf("The provider answered with an unknown status %q.", ex.Outcome)}
	}
}
