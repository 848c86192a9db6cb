// Command gateway runs the gateway service: merchants, providers and their
// collaborations, the activity log and the maintenance switch today, the
// payment gateway as it grows. See docs/contracts.md for its configuration
// and docs/contracts-providers.md for its calls.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	// Time zone names of exports resolve without the host's zoneinfo
	// (distroless images have none).
	_ "time/tzdata"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/callbacksclient"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/currency"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/fee"
	"github.com/paygate/paygate/services/gateway/internal/filestore"
	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	"github.com/paygate/paygate/services/gateway/internal/maintenance"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	gwnats "github.com/paygate/paygate/services/gateway/internal/nats"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/providers"
	"github.com/paygate/paygate/services/gateway/internal/settings"
	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/gateway/internal/validationclient"
	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/netguard"
	"github.com/paygate/paygate/services/internal/server"
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

// Config is the gateway's configuration: the shared keys, with the
// gateway's ports as defaults, and its schema.
type Config struct {
	config.Common
	// Schema is the Postgres schema the service owns (tests use their own).
	Schema string `env:"PAYGATE_DATABASE_SCHEMA"`
	// EncryptionKey is the base64 AES-256 key that seals merchants' API
	// secrets and providers' webhook secrets under the key id "default" when
	// EncryptionKeys is empty; one of them is required unless demo mode,
	// which falls back to a public demo key.
	EncryptionKey string `env:"PAYGATE_ENCRYPTION_KEY"`
	// EncryptionKeys is the keyring of those secrets, "id:base64key,…": the
	// first key seals, the others still open what they sealed, and the job
	// gateway.secrets-reseal moves values to the first (docs/operations.md,
	// "Rotate keys"). When set, EncryptionKey is not read.
	EncryptionKeys string `env:"PAYGATE_ENCRYPTION_KEYS"`
	// SandboxURL is where demo seeding points the demo providers.
	SandboxURL string `env:"PAYGATE_SANDBOX_URL" default:"http://127.0.0.1:8085"`
	// CallbacksGRPCAddr is the callbacks service's gRPC address: the
	// gateway host forwards the callback-URL and attempts calls there.
	CallbacksGRPCAddr string `env:"PAYGATE_CALLBACKS_GRPC_ADDR" default:"127.0.0.1:9083"`
	// ConsumeCallbackEvents runs the consumers of the callbacks service's
	// events (delivery tallies, callback-URL changes for the activity log).
	ConsumeCallbackEvents bool `env:"PAYGATE_CONSUME_CALLBACK_EVENTS" default:"true"`
	// TotalsFoldInterval is how often the transaction list's count/totals
	// deltas are folded into their rollups; 0 turns folding off (the list
	// stays exact, reading the deltas).
	TotalsFoldInterval time.Duration `env:"PAYGATE_TOTALS_FOLD_INTERVAL" default:"1s"`
	// PartitionMonthsAhead is how many months ahead of the current one the
	// job gateway.transaction-partitions keeps the transactions' monthly
	// partitions created (docs/partitioning.md).
	PartitionMonthsAhead int `env:"PAYGATE_PARTITION_MONTHS_AHEAD" default:"3"`
	// PollInterval is the first delay before polling a pending transaction
	// (doubling per attempt) and the poller's tick.
	PollInterval time.Duration `env:"PAYGATE_POLL_INTERVAL" default:"2s"`
	// RecoverAfter is how long a transaction may stay Not Confirmed before
	// the recovery sweep resolves it (a crash stranded it); keep it above
	// ProviderTimeout.
	RecoverAfter time.Duration `env:"PAYGATE_RECOVERY_AFTER" default:"30s"`
	// ProviderTimeout bounds one call to a provider.
	ProviderTimeout time.Duration `env:"PAYGATE_PROVIDER_TIMEOUT" default:"10s"`
	// StreamHeartbeat is the interval of the transaction stream's keep-alive
	// comments.
	StreamHeartbeat time.Duration `env:"PAYGATE_STREAM_HEARTBEAT" default:"15s"`
	// ValidationTimeout bounds one call to a merchant's validation
	// endpoint; keep it below RecoverAfter.
	ValidationTimeout time.Duration `env:"PAYGATE_VALIDATION_TIMEOUT" default:"5s"`
	// AggregatorGRPCAddr is the aggregator's gRPC address: the gateway host
	// forwards the statistics and job calls there.
	AggregatorGRPCAddr string `env:"PAYGATE_AGGREGATOR_GRPC_ADDR" default:"127.0.0.1:9084"`
	// AuthGRPCAddr is the auth service's gRPC address: the gateway host
	// forwards the user, session and allowed-IP calls there.
	AuthGRPCAddr string `env:"PAYGATE_AUTH_GRPC_URL" default:"127.0.0.1:9081"`
	// FilesDir is the directory export files are kept in
	// (docs/contracts-files.md).
	FilesDir string `env:"PAYGATE_FILES_DIR" default:".data/files"`
	// FilesS3Endpoint selects an S3-compatible bucket for the export files
	// instead of FilesDir (host[:port], or an http(s) URL); the other
	// PAYGATE_FILES_S3_* keys configure it (docs/contracts-files.md).
	FilesS3Endpoint string `env:"PAYGATE_FILES_S3_ENDPOINT"`
	// FilesS3Bucket is the bucket that holds the files.
	FilesS3Bucket string `env:"PAYGATE_FILES_S3_BUCKET" default:"paygate-files"`
	// FilesS3Region is the bucket's region (empty: asked of the server).
	FilesS3Region string `env:"PAYGATE_FILES_S3_REGION"`
	// FilesS3AccessKey and FilesS3SecretKey are the static credentials.
	FilesS3AccessKey string `env:"PAYGATE_FILES_S3_ACCESS_KEY"`
	FilesS3SecretKey string `env:"PAYGATE_FILES_S3_SECRET_KEY"`
	// FilesS3UseSSL selects https.
	FilesS3UseSSL bool `env:"PAYGATE_FILES_S3_USE_SSL" default:"true"`
	// FilesS3Insecure skips TLS certificate checks (a development endpoint
	// with a self-signed certificate only).
	FilesS3Insecure bool `env:"PAYGATE_FILES_S3_INSECURE"`
	// FilesS3Prefix is put before every key, so deployments can share a
	// bucket.
	FilesS3Prefix string `env:"PAYGATE_FILES_S3_PREFIX"`
	// FilesS3CreateBucket makes the bucket at start when it is missing.
	FilesS3CreateBucket bool `env:"PAYGATE_FILES_S3_CREATE_BUCKET"`
	// FilesWorkers is how many export files this process writes at once;
	// 0 runs no export worker here (another replica writes them).
	FilesWorkers int `env:"PAYGATE_FILES_WORKERS" default:"1"`
	// FilesLease is how long an export worker's claim on a file lasts
	// unless renewed (every third of it): a worker that died leaves its file
	// to another after about this long.
	FilesLease time.Duration `env:"PAYGATE_FILES_LEASE" default:"30s"`
	// FilesRowsPerSecond throttles each export worker (0: no limit), to
	// spare a busy database.
	FilesRowsPerSecond int `env:"PAYGATE_FILES_ROWS_PER_SECOND" default:"0"`
	// FilesRetention is how long export files are kept (spec 02 §4: 3 days).
	FilesRetention time.Duration `env:"PAYGATE_FILES_RETENTION" default:"72h"`
	// FilesRetentionInterval is how often the retention job looks.
	FilesRetentionInterval time.Duration `env:"PAYGATE_FILES_RETENTION_INTERVAL" default:"1h"`
	// FraudInterval is how often the fraud-detection job scans the new
	// transactions (docs/contracts-frauds.md).
	FraudInterval time.Duration `env:"PAYGATE_FRAUD_INTERVAL" default:"1m"`
	// FraudSettle is how long a new transaction is left to commit before
	// the fraud-detection job reads past its creation time.
	FraudSettle time.Duration `env:"PAYGATE_FRAUD_SETTLE" default:"5s"`
	// FraudThresholds overrides the detection thresholds: a JSON object
	// with the fields of the FraudDetection setting; absent fields keep
	// their defaults.
	FraudThresholds string `env:"PAYGATE_FRAUD_THRESHOLDS"`
	// CredentialsKeys is the keyring sealing providers' credentials,
	// "id:base64key,…", the first key current (docs/contracts-credentials.md);
	// empty: the keyring of PAYGATE_ENCRYPTION_KEYS (by default
	// PAYGATE_ENCRYPTION_KEY, or the demo key, under id "default").
	CredentialsKeys string `env:"PAYGATE_CREDENTIALS_KEYS"`
	// BalanceCacheTTL is how long a provider's balance answer is cached per
	// collab (docs/contracts-balances.md).
	BalanceCacheTTL time.Duration `env:"PAYGATE_BALANCE_CACHE_TTL" default:"15s"`
}

// Check reports every bad value of the gateway's own keys at once (config.Load
// reports them with the keys it cannot parse).
func (c Config) Check() []string {
	var bad []string
	if c.FilesWorkers < 0 {
		bad = append(bad, "PAYGATE_FILES_WORKERS must be 0 or more")
	}
	if c.FilesLease < 3*time.Second {
		bad = append(bad, "PAYGATE_FILES_LEASE must be at least 3s")
	}
	if c.FilesRowsPerSecond < 0 {
		bad = append(bad, "PAYGATE_FILES_ROWS_PER_SECOND must be 0 or more")
	}
	if c.FilesRetention <= 0 || c.FilesRetentionInterval <= 0 {
		bad = append(bad, "PAYGATE_FILES_RETENTION and PAYGATE_FILES_RETENTION_INTERVAL must be positive")
	}
	if c.PartitionMonthsAhead < 1 || c.PartitionMonthsAhead > 24 {
		bad = append(bad, "PAYGATE_PARTITION_MONTHS_AHEAD must be between 1 and 24")
	}
	if c.FraudInterval <= 0 || c.FraudSettle < 0 {
		bad = append(bad, "PAYGATE_FRAUD_INTERVAL must be positive and PAYGATE_FRAUD_SETTLE 0 or more")
	}
	if _, err := fraud.ParseThresholds(c.FraudThresholds); err != nil {
		bad = append(bad, "PAYGATE_FRAUD_THRESHOLDS: "+err.Error())
	}
	if strings.TrimSpace(c.FilesDir) == "" && c.FilesS3Endpoint == "" {
		bad = append(bad, "PAYGATE_FILES_DIR must name a directory (or set PAYGATE_FILES_S3_ENDPOINT)")
	}
	if c.FilesS3Endpoint != "" && strings.TrimSpace(c.FilesS3Bucket) == "" {
		bad = append(bad, "PAYGATE_FILES_S3_BUCKET must name a bucket when PAYGATE_FILES_S3_ENDPOINT is set")
	}
	return bad
}

// box returns the keyring of the gateway's secrets: PAYGATE_ENCRYPTION_KEYS,
// or PAYGATE_ENCRYPTION_KEY under the id "default" (the demo key in demo
// mode when neither is set).
func (c Config) box() (*keyring.Keyring, error) {
	return keyring.FromConfig("PAYGATE_ENCRYPTION_KEYS", c.EncryptionKeys, "PAYGATE_ENCRYPTION_KEY", c.EncryptionKey, c.Demo)
}

// run builds every dependency, serves until ctx ends, then stops (app.Run).
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	return app.Run(ctx, getenv, stdout, app.Service{
		Name: "gateway", Config: &cfg,
		Defaults:   []config.Option{config.Ports(":8082", ":9082"), config.Default("PAYGATE_DATABASE_SCHEMA", postgres.Schema)},
		Migrations: postgres.Migrations, Schema: &cfg.Schema, Redis: true, NATS: true,
		Wire: func(ctx context.Context, p *app.Parts) error { return wire(ctx, cfg, p) },
	})
}

// wire builds the gateway on p's connections: its services, their gRPC and
// REST routes, the routes it forwards to the other services, its jobs and
// its consumers.
func wire(ctx context.Context, cfg Config, p *app.Parts) error {
	log, pool, rdb, nc, js := p.Log, p.Pool, p.Redis, p.NATS, p.JetStream
	box, err := cfg.box()
	if err != nil {
		return err
	}
	store := postgres.NewStore(pool)
	payStore := postgres.NewPayments(pool)
	if cfg.Demo {
		if err := store.SeedDemo(ctx); err != nil {
			return err
		}
		if err := payStore.SeedPaymentsDemo(ctx, box, strings.TrimRight(cfg.SandboxURL, "/")); err != nil {
			return err
		}
		log.Info("demo merchants, providers, collabs, API secrets and fees seeded", "sandbox_url", cfg.SandboxURL)
	}
	internalToken, err := cfg.Internal()
	if err != nil {
		return err
	}
	verifier := authz.NewJWKSVerifier(cfg.JWKSURL, &http.Client{Timeout: 5 * time.Second})
	revocations := authz.NewRedisRevocations(rdb)
	allowLists := authz.NewRedisAllowLists(rdb)
	authzOpts := []authz.Option{authz.WithInternalToken(internalToken), authz.WithAllowLists(allowLists, server.ClientIP)}
	srv := p.Server(func(o *server.Options) {
		// ReplayService streams; its calls pass the same rules (all Internal).
		o.StreamInterceptors = []grpc.StreamServerInterceptor{
			authz.StreamInterceptor(verifier, grpcapi.Rules, revocations, authzOpts...)}
	}, authz.UnaryInterceptor(verifier, grpcapi.Rules, revocations, authzOpts...))
	collabs := collab.NewService(store, time.Now)
	providerTransport := &http.Transport{MaxIdleConnsPerHost: 64}
	p.Defer(providerTransport.CloseIdleConnections)
	urlPolicy := netguard.Policy{AllowPrivate: cfg.AllowPrivateURLs}
	validationCaller := validationclient.New(urlPolicy, cfg.ValidationTimeout)
	p.Defer(validationCaller.CloseIdleConnections)
	validations := postgres.NewValidations(pool)
	// The payment path reads the configuration from memory, kept current by
	// the configuration version (migration 0011); the console's calls read
	// the tables.
	config := postgres.NewConfigCache(pool)
	// Providers' credentials (docs/contracts-credentials.md): sent with
	// every call to a collab's provider, and read by the Credentials page.
	credentials, err := credentialService(cfg, pool, box)
	if err != nil {
		return err
	}
	accepting := maintenance.NewService(postgres.NewMaintenance(config, store), time.Now).CheckAcceptingTransactions
	payments := payment.NewService(config.Payments(payStore),
		providers.NewClient(&http.Client{Transport: providerTransport, Timeout: cfg.ProviderTimeout}),
		box, accepting, time.Now,
		payment.Options{PollInterval: cfg.PollInterval, RecoverAfter: cfg.RecoverAfter, Logger: log.With("component", "payments"),
			Credentials: func(ctx context.Context, collabID int32) (map[string]any, error) {
				return credentials.Of(ctx, collabID)
			},
			Validation: payment.Validation{Store: config.Validations(validations), Caller: validationCaller, Timeout: cfg.ValidationTimeout,
				MerchantKey: func(ctx context.Context, merchantID int32) ([]byte, error) {
					sealed, err := config.MerchantSecretByID(ctx, merchantID)
					if err != nil {
						return nil, err
					}
					return box.Open(sealed, payment.MerchantSecretOwner(merchantID))
				}}})
	// Validation calls not awaited finish (each within its timeout) before
	// the pool closes.
	p.Defer(payments.Wait)
	secretLookup := func(fresh bool) httpapi.SecretLookup {
		return func(ctx context.Context, hash string) (int32, []byte, error) {
			id, sealed, err := config.MerchantSecret(ctx, hash, fresh)
			if err != nil {
				return 0, nil, err
			}
			secret, err := box.Open(sealed, payment.MerchantSecretOwner(id))
			if err != nil {
				return 0, nil, fmt.Errorf("open api secret of merchant %d: %w", id, err)
			}
			return id, secret, nil
		}
	}
	merchantAuth, err := httpapi.NewMerchantAuth(secretLookup(false), time.Now)
	if err != nil {
		return err
	}
	merchantAuth.Fresh = secretLookup(true)
	// One gRPC service per area (docs/contracts.md), each with its REST
	// routes. The routes are added in this order, which is the order of the
	// contracts before they were split, so that the REST mux matches as it did.
	srv.Register(&gatewayv1.MerchantService_ServiceDesc, grpcapi.NewMerchantServer(merchant.NewService(store)))
	srv.Register(&gatewayv1.CollabService_ServiceDesc, grpcapi.NewCollabServer(collabs, maintenance.NewService(postgres.NewMaintenance(store, store), time.Now), activity.NewLog(store, time.Now)))
	srv.Register(&gatewayv1.TransactionService_ServiceDesc, grpcapi.NewTransactionServer(payments, merchantAuth.VerifiedMerchant))
	srv.Register(&gatewayv1.ValidationService_ServiceDesc, grpcapi.NewValidationServer(
		validation.NewService(validations, urlPolicy, time.Now), payments))
	currencies := currency.NewService(postgres.NewCurrencies(pool), time.Now)
	srv.Register(&gatewayv1.CurrencyService_ServiceDesc, grpcapi.NewCurrencyServer(currencies))
	// Internal: gRPC only, no REST route (docs/contracts-replay.md).
	srv.Register(&gatewayv1.ReplayService_ServiceDesc, grpcapi.NewReplayServer(payStore, currencies))
	fileStore, err := filestore.FromConfig(ctx, cfg.fileStore())
	if err != nil {
		return fmt.Errorf("export file store: %w", err)
	}
	fileRows := postgres.NewFiles(pool)
	files := export.NewService(fileRows, fileStore, time.Now)
	srv.Register(&gatewayv1.FileService_ServiceDesc, grpcapi.NewFileServer(files))
	// Live tunables (docs/contracts-settings.md); the jobs below read them.
	// PAYGATE_FRAUD_THRESHOLDS (checked above) gives FraudDetection's default.
	fraudDefault, _ := fraud.ParseThresholds(cfg.FraudThresholds)
	tunables := settings.NewService(postgres.NewSettings(pool),
		settings.Defaults{PollInterval: cfg.PollInterval, ExportRetention: cfg.FilesRetention, FraudDetection: &fraudDefault,
			BalanceCache: cfg.BalanceCacheTTL},
		time.Now, log.With("component", "settings"))
	srv.Register(&gatewayv1.SettingService_ServiceDesc, grpcapi.NewSettingServer(tunables))
	fees := fee.NewService(postgres.NewFees(pool), time.Now)
	srv.Register(&gatewayv1.FeeService_ServiceDesc, grpcapi.NewFeeServer(fees))
	srv.Register(&gatewayv1.PayTypeService_ServiceDesc, grpcapi.NewPayTypeServer(fees))
	fraudStore := postgres.NewFrauds(pool)
	srv.Register(&gatewayv1.FraudService_ServiceDesc, grpcapi.NewFraudServer(fraud.NewService(fraudStore, time.Now)))
	// The balance cache's lifetime is the BalanceCacheSeconds setting.
	balances := balanceService(cfg, pool, rdb, providerTransport, credentials, tunables.BalanceCacheTTL)
	srv.Register(&gatewayv1.CredentialService_ServiceDesc, grpcapi.NewCredentialServer(credentials))
	srv.Register(&gatewayv1.BalanceService_ServiceDesc, grpcapi.NewBalanceServer(balances))
	// The signature check must see the raw body, so it runs in front of the
	// REST mux on the initialize route, then hands the call to that mux.
	// The download route writes a file's bytes itself (httpapi.Download).
	var restMux atomic.Pointer[runtime.ServeMux]
	var restConn atomic.Value // grpc.ClientConnInterface
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		restMux.Store(mux)
		restConn.Store(cc)
		return errors.Join(
			gatewayv1.RegisterMerchantServiceHandlerClient(ctx, mux, gatewayv1.NewMerchantServiceClient(cc)),
			gatewayv1.RegisterCollabServiceHandlerClient(ctx, mux, gatewayv1.NewCollabServiceClient(cc)),
			gatewayv1.RegisterTransactionServiceHandlerClient(ctx, mux, gatewayv1.NewTransactionServiceClient(cc)),
			gatewayv1.RegisterValidationServiceHandlerClient(ctx, mux, gatewayv1.NewValidationServiceClient(cc)),
			gatewayv1.RegisterCurrencyServiceHandlerClient(ctx, mux, gatewayv1.NewCurrencyServiceClient(cc)),
			gatewayv1.RegisterFileServiceHandlerClient(ctx, mux, gatewayv1.NewFileServiceClient(cc)),
			gatewayv1.RegisterSettingServiceHandlerClient(ctx, mux, gatewayv1.NewSettingServiceClient(cc)),
			gatewayv1.RegisterFeeServiceHandlerClient(ctx, mux, gatewayv1.NewFeeServiceClient(cc)),
			gatewayv1.RegisterPayTypeServiceHandlerClient(ctx, mux, gatewayv1.NewPayTypeServiceClient(cc)),
			gatewayv1.RegisterFraudServiceHandlerClient(ctx, mux, gatewayv1.NewFraudServiceClient(cc)),
			gatewayv1.RegisterCredentialServiceHandlerClient(ctx, mux, gatewayv1.NewCredentialServiceClient(cc)),
			gatewayv1.RegisterBalanceServiceHandlerClient(ctx, mux, gatewayv1.NewBalanceServiceClient(cc)),
		)
	})
	srv.Handle(httpapi.ExportPattern, httpapi.ExportQuery(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { restMux.Load().ServeHTTP(w, r) })))
	srv.Handle(httpapi.DownloadPattern, httpapi.Download(restMux.Load,
		func() grpc.ClientConnInterface { return restConn.Load().(grpc.ClientConnInterface) }))
	srv.Handle("POST /api/v1/transactions/initialize", merchantAuth.Wrap(
		http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { restMux.Load().ServeHTTP(w, r) })))
	srv.Handle(httpapi.WebhookPattern, httpapi.WebhookHandler(payments, log))
	// Callback URLs and attempts belong to the callbacks service; the gateway
	// host forwards their REST calls to it over gRPC with the caller's token.
	callbacksConn, err := grpc.NewClient(cfg.CallbacksGRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithUnaryInterceptor(server.ForwardClientIP(cfg.TrustedProxyHops, internalToken)))
	if err != nil {
		return fmt.Errorf("PAYGATE_CALLBACKS_GRPC_ADDR: %w", err)
	}
	p.Defer(func() { _ = callbacksConn.Close() })
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, _ grpc.ClientConnInterface) error {
		return callbacksv1.RegisterCallbacksServiceHandlerClient(ctx, mux, callbacksv1.NewCallbacksServiceClient(callbacksConn))
	})
	// Statistics and job stats belong to the aggregator; the gateway host
	// forwards their REST calls to it over gRPC with the caller's token.
	aggregatorRoutes, err := grpcapi.NewAggregatorRoutes(cfg.AggregatorGRPCAddr, cfg.TrustedProxyHops, internalToken)
	if err != nil {
		return fmt.Errorf("PAYGATE_AGGREGATOR_GRPC_ADDR: %w", err)
	}
	p.Defer(func() { _ = aggregatorRoutes.Close() })
	srv.RegisterGateway(aggregatorRoutes.Register)
	// Users, sessions and allowed IPs belong to the auth service.
	authRoutes, err := grpcapi.NewAuthRoutes(cfg.AuthGRPCAddr, cfg.TrustedProxyHops, internalToken)
	if err != nil {
		return fmt.Errorf("PAYGATE_AUTH_GRPC_URL: %w", err)
	}
	p.Defer(func() { _ = authRoutes.Close() })
	srv.RegisterGateway(authRoutes.Register)
	hub := httpapi.NewHub(log.With("component", "stream"))
	srv.Handle(httpapi.StreamPattern, hub.Handler(httpapi.StreamOptions{
		Verifier: verifier, Revocations: revocations, AllowLists: allowLists, Heartbeat: cfg.StreamHeartbeat,
		ClientIP: func(r *http.Request) string { return server.RequestClientIP(r, cfg.TrustedProxyHops) }}))

	// The background jobs (docs/jobs.md): one replica runs each, and every
	// run is reported through the outbox.
	sweeper, ok := fileStore.(export.TempSweeper)
	if !ok {
		return fmt.Errorf("export file store %T cannot sweep its temporary files", fileStore)
	}
	// The thresholds are the FraudDetection setting, read on every run (a
	// stored value passed its schema; Check holds them to the rules' own).
	fraudThresholds := func(ctx context.Context) (fraud.Thresholds, error) {
		t, err := tunables.FraudDetection(ctx)
		if err != nil {
			return t, err
		}
		return t, t.Check()
	}
	gatewayJobs := []jobs.Job{
		payment.PollingJob(payments, tunables.PollingInterval),
		payment.RecoveryJob(payments, tunables.PollingInterval),
		jobs.OutboxRelay("gateway", bus.NewRelay(pool, js, log)),
	}
	// 0 turns folding off: the list stays exact, reading the deltas.
	if cfg.TotalsFoldInterval > 0 {
		gatewayJobs = append(gatewayJobs, payment.TotalsFoldJob(payStore.FoldTotalsOnce, cfg.TotalsFoldInterval))
	}
	gatewayJobs = append(gatewayJobs,
		export.RetentionJob(files, sweeper, tunables.ExportRetention, cfg.FilesRetentionInterval),
		fraud.DetectionJob(fraudStore, fraudThresholds, cfg.FraudInterval, cfg.FraudSettle),
		credentialsResealJob(credentials),
		postgres.PartitionsJob(postgres.NewPartitions(pool), cfg.PartitionMonthsAhead),
		secretsResealJob(box, payStore),
	)
	if err := p.Jobs.Add(gatewayJobs...); err != nil {
		return err
	}
	// The export workers consume the export requests outside the jobs
	// runner, on every replica (docs/contracts-files.md): the runner runs a
	// job on one replica at a time, and files are written in parallel.
	host, _ := os.Hostname()
	worker := export.NewWorker(fileRows, fileStore, callbacksclient.NewAttempts(callbacksConn, internalToken, 30*time.Second), time.Now,
		export.WorkerOptions{Name: fmt.Sprintf("%s:%d", host, os.Getpid()), Lease: cfg.FilesLease,
			RowsPerSecond: cfg.FilesRowsPerSecond, Logger: log.With("component", "export-worker")})
	p.Go(func(ctx context.Context) error { return hub.Run(ctx, nc) })
	if cfg.FilesWorkers > 0 {
		p.Go(func(ctx context.Context) error {
			return gwnats.RunFileExports(ctx, js, cfg.Schema, worker, gwnats.ExportOptions{Workers: cfg.FilesWorkers,
				Logger: log.With("component", "export-worker")})
		})
	}
	if cfg.ConsumeCallbackEvents {
		p.Go(func(ctx context.Context) error {
			return gwnats.RunCallbackEvents(ctx, js, cfg.Schema, payStore, collabs, log.With("component", "callback-events"))
		})
	}
	return nil
}

// fileStore is the export file store's configuration: S3 when an endpoint
// is set, the local directory otherwise.
func (c Config) fileStore() filestore.Config {
	return filestore.Config{Dir: c.FilesDir, S3: filestore.S3Config{
		Endpoint: c.FilesS3Endpoint, Bucket: c.FilesS3Bucket, Region: c.FilesS3Region,
		AccessKey: c.FilesS3AccessKey, SecretKey: c.FilesS3SecretKey, UseSSL: c.FilesS3UseSSL,
		Insecure: c.FilesS3Insecure, Prefix: c.FilesS3Prefix, CreateBucket: c.FilesS3CreateBucket}}
}
