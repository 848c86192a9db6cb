package main

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/gateway/internal/currency"
	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/settings"
	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/netguard"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/stepup"
)

// gateway holds what the gateway's areas share while wire builds them: the
// connections and the server (app.Parts), the keyring, the stores, and the
// services more than one area uses. newGateway makes the shared ones; an
// area sets the fields of its own services that a later area uses (collabs,
// payments, currencies).
type gateway struct {
	cfg Config
	*app.Parts
	srv *server.Server

	// box seals merchants' API secrets and providers' webhook secrets.
	box *keyring.Keyring
	// store serves the console's calls on merchants, providers, collabs and
	// the activity log; payStore the payment path's tables.
	store    *postgres.Store
	payStore *postgres.Payments
	// config is the payment path's copy of the configuration in memory,
	// kept current by the configuration version (migration 0011); the
	// console's calls read the tables.
	config *postgres.ConfigCache
	// validations stores the merchants' validation endpoints and results
	// (the payment path calls them, the Validation Endpoints page edits
	// them).
	validations *postgres.Validations
	// tunables are the live settings (docs/contracts-settings.md) that the
	// payment path, the jobs and the balances read.
	tunables *settings.Service
	// credentials are the providers' credentials, sent with every call to a
	// collab's provider (payments, balances).
	credentials *credential.Service
	// providerTransport carries every call to a provider.
	providerTransport *http.Transport
	// urlPolicy keeps merchants' URLs off private addresses (unless allowed).
	urlPolicy netguard.Policy

	// The callers' checks: the signing keys, the revoked sessions and the
	// allowed IPs, shared by the gRPC interceptors and the transaction
	// stream.
	internalToken string
	verifier      authz.Verifier
	revocations   *authz.RedisRevocations
	allowLists    *authz.RedisAllowLists
	// confirmations asks for and checks the confirmations of sensitive
	// changes (docs/contracts-approvals.md); each area registers the
	// observers of its sensitive methods.
	confirmations *stepup.Guard
	// callbacksConn reaches the callbacks service: its REST calls are
	// forwarded there, and the export worker reads callback attempts.
	callbacksConn *grpc.ClientConn

	// restMux and restConn are the REST mux and its in-process channel once
	// the server runs, for the routes served in front of the mux.
	restMux  atomic.Pointer[runtime.ServeMux]
	restConn atomic.Value // grpc.ClientConnInterface

	// Set by their areas for the areas after them.
	collabs    *collab.Service
	payments   *payment.Service
	currencies *currency.Service
	// hub is the live stream's fan-out (wireStream), which later areas
	// feed with their own messages (Forward).
	hub *httpapi.Hub
}

// newGateway opens what the areas share: the keyring, the stores (with the
// demo data in demo mode), the shared services, the callers' checks and the
// server.
func newGateway(ctx context.Context, cfg Config, p *app.Parts) (*gateway, error) {
	g := &gateway{cfg: cfg, Parts: p, urlPolicy: netguard.Policy{AllowPrivate: cfg.AllowPrivateURLs}}
	var err error
	if g.box, err = cfg.box(); err != nil {
		return nil, err
	}
	g.store, g.payStore = postgres.NewStore(p.Pool), postgres.NewPayments(p.Pool).WithReads(p.ReadPool)
	if cfg.Demo {
		if err := g.store.SeedDemo(ctx); err != nil {
			return nil, err
		}
		if err := g.payStore.SeedPaymentsDemo(ctx, g.box, strings.TrimRight(cfg.SandboxURL, "/")); err != nil {
			return nil, err
		}
		p.Log.Info("demo merchants, providers, collabs, API secrets and fees seeded", "sandbox_url", cfg.SandboxURL)
	}
	if g.internalToken, err = cfg.Internal(); err != nil {
		return nil, err
	}
	g.verifier = authz.NewJWKSVerifier(cfg.JWKSURL, &http.Client{Timeout: 5 * time.Second})
	g.revocations = authz.NewRedisRevocations(p.Redis)
	g.allowLists = authz.NewRedisAllowLists(p.Redis)
	authzOpts := []authz.Option{authz.WithInternalToken(g.internalToken), authz.WithAllowLists(g.allowLists, server.ClientIP)}
	// Confirmation tokens are signed with the access tokens' keys.
	g.confirmations = stepup.New(stepup.Config{Tokens: authz.Confirmations(g.verifier),
		Store: stepup.NewPostgresStore(p.Pool), Log: p.Log.With("component", "stepup")})
	journal := func(ctx context.Context, fn func(activity.Journal) error) error {
		return g.store.Tx(ctx, func(t collab.Tx) error { return fn(t) })
	}
	g.srv = p.Server(func(o *server.Options) {
		// ReplayService streams; its calls pass the same rules (all Internal).
		o.StreamInterceptors = []grpc.StreamServerInterceptor{
			authz.StreamInterceptor(g.verifier, grpcapi.Rules, g.revocations, authzOpts...)}
	}, authz.UnaryInterceptor(g.verifier, grpcapi.Rules, g.revocations, authzOpts...),
		g.confirmations.Unary(), grpcapi.ConfirmedActivity(journal, time.Now, p.Log.With("component", "stepup")))

	g.providerTransport = &http.Transport{MaxIdleConnsPerHost: 64}
	p.Defer(g.providerTransport.CloseIdleConnections)
	g.validations = postgres.NewValidations(p.Pool)
	g.config = postgres.NewConfigCache(p.Pool)
	if g.credentials, err = credentialService(cfg, p.Pool, g.box); err != nil {
		return nil, err
	}
	// PAYGATE_FRAUD_THRESHOLDS (checked by Config.Check) gives the
	// FraudDetection setting's default.
	fraudDefault, _ := fraud.ParseThresholds(cfg.FraudThresholds)
	g.tunables = settings.NewService(postgres.NewSettings(p.Pool),
		settings.Defaults{PollInterval: cfg.PollInterval, ExportRetention: cfg.FilesRetention, FraudDetection: &fraudDefault,
			BalanceCache: cfg.BalanceCacheTTL},
		time.Now, p.Log.With("component", "settings"))

	g.callbacksConn, err = grpc.NewClient(cfg.CallbacksGRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(server.ForwardClientIP(cfg.TrustedProxyHops, g.internalToken)))
	if err != nil {
		return nil, fmt.Errorf("PAYGATE_CALLBACKS_GRPC_ADDR: %w", err)
	}
	p.Defer(func() { _ = g.callbacksConn.Close() })
	// Added before any area's routes, so it adds none: it keeps the mux
	// for the routes served in front of it.
	g.srv.RegisterGateway(func(_ context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		g.restMux.Store(mux)
		g.restConn.Store(cc)
		return nil
	})
	return g, nil
}

// viaREST returns a handler that hands a request to the REST mux, for a
// route that runs a check in front of it.
func (g *gateway) viaREST() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { g.restMux.Load().ServeHTTP(w, r) })
}

// restRoutes adapts a gRPC service's generated REST registration (register, its
// Register…HandlerClient, with newClient, its New…Client) to
// server.RegisterGateway, which calls it on the in-process channel.
func restRoutes[C any](register func(context.Context, *runtime.ServeMux, C) error,
	newClient func(grpc.ClientConnInterface) C) func(context.Context, *runtime.ServeMux, grpc.ClientConnInterface) error {
	return func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return register(ctx, mux, newClient(cc))
	}
}

// wireOutbox relays the events every area writes to its outbox to NATS
// (docs/jobs.md).
func (g *gateway) wireOutbox(context.Context) error {
	return g.Jobs.Add(jobs.OutboxRelay("gateway", bus.NewRelay(g.Pool, g.JetStream, g.Log)))
}
