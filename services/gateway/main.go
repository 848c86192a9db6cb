// Command gateway runs the gateway service: merchants, providers and their
// collaborations, the activity log and the maintenance switch, the payment
// path, fees, frauds, files, credentials and balances; its host also
// forwards the REST calls of the callbacks, aggregator and auth services.
// See docs/contracts.md for its configuration and docs/contracts-*.md for
// its calls.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	// Time zone names of exports resolve without the host's zoneinfo
	// (distroless images have none).
	_ "time/tzdata"

	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/config"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "gateway:", err)
		os.Exit(1)
	}
}

// run builds every dependency, serves until ctx ends, then stops (app.Run).
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	return app.Run(ctx, getenv, stdout, app.Service{
		Name: "gateway", Config: &cfg,
		Defaults:   []config.Option{config.Ports(":8082", ":9082"), config.Default("PAYGATE_DATABASE_SCHEMA", postgres.Schema)},
		Migrations: postgres.Migrations, Schema: &cfg.Schema, ReadPool: true, Redis: true, NATS: true,
		Wire: func(ctx context.Context, p *app.Parts) error { return wire(ctx, cfg, p) },
	})
}

// wire builds the gateway on p's connections: what its areas share
// (newGateway, gateway.go), then each area (wire_*.go) with its gRPC
// services, their REST routes, the routes it serves in front of the REST
// mux, its jobs and its consumers.
//
// The areas go in this order for two reasons: an area may use the services
// of one before it (validation the payment path, the replay the currencies,
// the callback events the collabs), and each adds its REST routes in turn,
// which keeps the order of the contracts before they were split, so that
// the REST mux, which tries the routes added last first, matches as it did.
func wire(ctx context.Context, cfg Config, p *app.Parts) error {
	g, err := newGateway(ctx, cfg, p)
	if err != nil {
		return err
	}
	for _, area := range []func(context.Context) error{
		g.wireMerchants,   // MerchantService
		g.wireCollabs,     // CollabService, MaintenanceService, ActivityService
		g.wirePayments,    // TransactionService, the signed initialize, webhooks, payment jobs
		g.wireValidation,  // ValidationService
		g.wireCurrencies,  // CurrencyService
		g.wireReplay,      // ReplayService (internal)
		g.wireFiles,       // FileService, export and download routes, retention, export workers
		g.wireSettings,    // SettingService
		g.wireFees,        // FeeService, PayTypeService
		g.wireFrauds,      // FraudService, fraud detection
		g.wireCredentials, // CredentialService, re-sealing
		g.wireBalances,    // BalanceService
		g.wireRadar,       // RadarService (the stuck-money radar)
		g.wireCallbacks,   // the callbacks service's routes and events
		g.wireAggregator,  // the aggregator's routes
		g.wireAuth,        // the auth service's routes
		g.wireBulk,        // BulkService, the bulk runs on river
		g.wireStream,      // the live transaction stream
		g.wireWatchlists,  // WatchlistService, the watchlist evaluator, its stream messages
		g.wireViews,       // ViewService (saved views)
		g.wireOutbox,      // the events every area writes
	} {
		if err := area(ctx); err != nil {
			return err
		}
	}
	return nil
}
