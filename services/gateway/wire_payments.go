package main

import (
	"context"
	"fmt"
	"net/http"
	"time"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/currency"
	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/providers"
	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/gateway/internal/validationclient"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/server"
)

// The areas behind the transactions remote's screens and the merchants'
// API: payments, validation endpoints, currencies, the aggregator's replay,
// frauds and the live transaction stream.

// wirePayments serves the transactions (docs/contracts-transactions.md):
// the payment path on the configuration in memory, the merchants' signed
// initialize call, the providers' webhooks, and the payment jobs.
func (g *gateway) wirePayments(context.Context) error {
	validationCaller := validationclient.New(g.urlPolicy, g.cfg.ValidationTimeout)
	g.Defer(validationCaller.CloseIdleConnections)
	config, box := g.config, g.box
	// The payment path's credentials come from the configuration in
	// memory, as fresh as the rest of it (migration 0037).
	payCredentials := g.credentials.ReadingFrom(config.Credentials(postgres.NewCredentials(g.Pool)))
	accepting := maintenance.NewService(postgres.NewMaintenance(config, g.store), time.Now).CheckAcceptingTransactions
	g.payments = payment.NewService(config.Payments(g.payStore),
		providers.NewClient(&http.Client{Transport: g.providerTransport, Timeout: g.cfg.ProviderTimeout}),
		box, accepting, time.Now,
		payment.Options{PollInterval: g.cfg.PollInterval, RecoverAfter: g.cfg.RecoverAfter, Logger: g.Log.With("component", "payments"),
			Credentials: func(ctx context.Context, collabID int32) (map[string]any, error) {
				return payCredentials.Of(ctx, collabID)
			},
			Validation: payment.Validation{Store: config.Validations(g.validations), Caller: validationCaller, Timeout: g.cfg.ValidationTimeout,
				MerchantKey: func(ctx context.Context, merchantID int32) ([]byte, error) {
					sealed, err := config.MerchantSecretByID(ctx, merchantID)
					if err != nil {
						return nil, err
					}
					return box.Open(sealed, payment.MerchantSecretOwner(merchantID))
				}}})
	// Validation calls not awaited finish (each within its timeout) before
	// the pool closes.
	g.Defer(g.payments.Wait)
	secretLookup := func(fresh bool) httpapi.SecretLookup {
		return func(ctx context.Context, hash string) (int32, []httpapi.Key, error) {
			id, sealed, err := config.MerchantSecret(ctx, hash, fresh)
			if err != nil {
				return 0, nil, err
			}
			keys := make([]httpapi.Key, len(sealed))
			for i, s := range sealed {
				secret, err := box.Open(s.Sealed, payment.MerchantSecretOwner(id))
				if err != nil {
					return 0, nil, fmt.Errorf("open api secret %d of merchant %d: %w", s.ID, id, err)
				}
				keys[i] = httpapi.Key{ID: s.ID, Secret: secret, ExpiresAt: s.ExpiresAt}
			}
			return id, keys, nil
		}
	}
	merchantAuth, err := httpapi.NewMerchantAuth(secretLookup(false), time.Now)
	if err != nil {
		return err
	}
	merchantAuth.Fresh = secretLookup(true)
	// A secret's last use is recorded at most once a minute per secret and
	// gateway; a failure to record it does not fail the payment.
	merchantAuth.Used = func(ctx context.Context, secretID int64, at time.Time) {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		if err := g.payStore.TouchSecret(ctx, secretID, at); err != nil {
			g.Log.Warn("record the use of a merchant api secret", "secret", secretID, "err", err)
		}
	}
	g.srv.Register(&gatewayv1.TransactionService_ServiceDesc, grpcapi.NewTransactionServer(g.payments, merchantAuth.VerifiedMerchant))
	g.confirmations.Observe(grpcapi.MethodSetTransactionStatus, grpcapi.ObserveTransaction(g.payments))
	g.confirmations.Observe(grpcapi.MethodCancelTransaction, grpcapi.ObserveTransaction(g.payments))
	g.confirmations.Observe(grpcapi.MethodCancelTransactionCallbacks, grpcapi.ObserveTransactionStatus(g.payments))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterTransactionServiceHandlerClient, gatewayv1.NewTransactionServiceClient))
	// The signature check must see the raw body, so it runs in front of the
	// REST mux on the initialize route, then hands the call to that mux.
	g.srv.Handle("POST /api/v1/transactions/initialize", merchantAuth.Wrap(g.viaREST()))
	g.srv.Handle(httpapi.WebhookPattern, httpapi.WebhookHandler(g.payments, g.Log))

	paymentJobs := []jobs.Job{
		payment.PollingJob(g.payments, g.tunables.PollingInterval),
		payment.RecoveryJob(g.payments, g.tunables.PollingInterval),
	}
	// 0 turns folding off: the list stays exact, reading the deltas.
	if g.cfg.TotalsFoldInterval > 0 {
		paymentJobs = append(paymentJobs, payment.TotalsFoldJob(g.payStore.FoldTotalsOnce, g.cfg.TotalsFoldInterval))
	}
	paymentJobs = append(paymentJobs,
		postgres.PartitionsJob(postgres.NewPartitions(g.Pool), g.cfg.PartitionMonthsAhead),
		secretsResealJob(box, g.payStore))
	return g.Jobs.Add(paymentJobs...)
}

// wireValidation serves the merchants' validation endpoints and the
// transactions' validation results (docs/contracts-validation.md).
func (g *gateway) wireValidation(context.Context) error {
	g.srv.Register(&gatewayv1.ValidationService_ServiceDesc, grpcapi.NewValidationServer(
		validation.NewService(g.validations, g.urlPolicy, time.Now), g.payments))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterValidationServiceHandlerClient, gatewayv1.NewValidationServiceClient))
	return nil
}

// wireCurrencies serves the currencies and their rates
// (docs/contracts-currencies.md).
func (g *gateway) wireCurrencies(context.Context) error {
	g.currencies = currency.NewService(postgres.NewCurrencies(g.Pool), time.Now)
	g.srv.Register(&gatewayv1.CurrencyService_ServiceDesc, grpcapi.NewCurrencyServer(g.currencies))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterCurrencyServiceHandlerClient, gatewayv1.NewCurrencyServiceClient))
	return nil
}

// wireReplay serves the transactions and rates the aggregator rebuilds its
// figures from: internal, gRPC only, no REST route
// (docs/contracts-replay.md).
func (g *gateway) wireReplay(context.Context) error {
	g.srv.Register(&gatewayv1.ReplayService_ServiceDesc, grpcapi.NewReplayServer(g.payStore, g.currencies))
	return nil
}

// wireFrauds serves the frauds (docs/contracts-frauds.md) and runs their
// detection on the FraudDetection setting's thresholds.
func (g *gateway) wireFrauds(context.Context) error {
	frauds := postgres.NewFrauds(g.Pool)
	g.srv.Register(&gatewayv1.FraudService_ServiceDesc, grpcapi.NewFraudServer(fraud.NewService(frauds, time.Now)))
	g.srv.RegisterGateway(restRoutes(gatewayv1.RegisterFraudServiceHandlerClient, gatewayv1.NewFraudServiceClient))
	// The thresholds are the FraudDetection setting, read on every run (a
	// stored value passed its schema; Check holds them to the rules' own).
	thresholds := func(ctx context.Context) (fraud.Thresholds, error) {
		t, err := g.tunables.FraudDetection(ctx)
		if err != nil {
			return t, err
		}
		return t, t.Check()
	}
	return g.Jobs.Add(fraud.DetectionJob(frauds, thresholds, g.cfg.FraudInterval, g.cfg.FraudSettle))
}

// wireStream serves the live transaction stream to the console
// (docs/contracts-transactions.md), fed from NATS.
func (g *gateway) wireStream(context.Context) error {
	hub := httpapi.NewHub(g.Log.With("component", "stream"))
	g.hub = hub
	g.srv.Handle(httpapi.StreamPattern, hub.Handler(httpapi.StreamOptions{
		Verifier: g.verifier, Revocations: g.revocations, AllowLists: g.allowLists, Heartbeat: g.cfg.StreamHeartbeat,
		ClientIP: func(r *http.Request) string { return server.RequestClientIP(r, g.cfg.TrustedProxyHops) }}))
	g.Go(func(ctx context.Context) error { return hub.Run(ctx, g.NATS) })
	return nil
}
