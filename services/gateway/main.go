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
	"log/slog"
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
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/internal/callbacksclient"
	"github.com/paygate/paygate/services/gateway/internal/collab"
	"github.com/paygate/paygate/services/gateway/internal/currency"
	"github.com/paygate/paygate/services/gateway/internal/export"
	"github.com/paygate/paygate/services/gateway/internal/fee"
	"github.com/paygate/paygate/services/gateway/internal/filestore"
	"github.com/paygate/paygate/services/gateway/internal/fraud"
	"github.com/paygate/paygate/services/gateway/internal/grpcapi"
	"github.com/paygate/paygate/services/gateway/internal/httpapi"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	gwnats "github.com/paygate/paygate/services/gateway/internal/nats"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/gateway/internal/postgres"
	"github.com/paygate/paygate/services/gateway/internal/providers"
	"github.com/paygate/paygate/services/gateway/internal/settings"
	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/gateway/internal/validationclient"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/netguard"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/telemetry"
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

// check reports every bad value of the gateway's own keys at once.
func (c Config) check() error {
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
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

// box returns the keyring of the gateway's secrets: PAYGATE_ENCRYPTION_KEYS,
// or PAYGATE_ENCRYPTION_KEY under the id "default" (the demo key in demo
// mode when neither is set).
func (c Config) box() (*keyring.Keyring, error) {
	return keyring.FromConfig("PAYGATE_ENCRYPTION_KEYS", c.EncryptionKeys, "PAYGATE_ENCRYPTION_KEY", c.EncryptionKey, c.Demo)
}

// run builds every dependency, serves until ctx ends, then stops.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg, config.Ports(":8082", ":9082"), config.Default("PAYGATE_DATABASE_SCHEMA", postgres.Schema)); err != nil {
		return err
	}
	if err := cfg.check(); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
	box, err := cfg.box()
	if err != nil {
		return err
	}
	// Probes get answers (live, not ready) while the schema migrates, which
	// may take longer than the startup probe's budget; the server takes the
	// ports over once everything is up.
	startup, err := server.Start(server.OptionsFrom("gateway", cfg.Common, log, nil))
	if err != nil {
		return err
	}
	defer startup.Close()

	if err := pgdb.Migrate(ctx, cfg.DatabaseURL, cfg.Schema, postgres.Migrations, pgdb.WithLogger(log)); err != nil {
		return err
	}
	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, cfg.Schema)
	if err != nil {
		return err
	}
	defer pool.Close()
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

	nc, js, err := bus.Connect(ctx, cfg.NATSURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := bus.EnsureStreamReplicas(ctx, js, cfg.NATSStreamReplicas); err != nil {
		return err
	}

	redisOpts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("parse redis url: %w", err)
	}
	rdb := redis.NewClient(redisOpts)
	defer rdb.Close()

	tracing, err := telemetry.Setup("gateway", cfg.TracingEndpoint)
	if err != nil {
		return fmt.Errorf("PAYGATE_OTLP_ENDPOINT: %w", err)
	}
	defer tracing.Close()

	internalToken, err := cfg.Internal()
	if err != nil {
		return err
	}
	verifier := authz.NewJWKSVerifier(cfg.JWKSURL, &http.Client{Timeout: 5 * time.Second})
	revocations := authz.NewRedisRevocations(rdb)
	allowLists := authz.NewRedisAllowLists(rdb)
	authzOpts := []authz.Option{authz.WithInternalToken(internalToken), authz.WithAllowLists(allowLists, server.ClientIP)}
	srvOpts := server.OptionsFrom("gateway", cfg.Common, log, tracing,
		authz.UnaryInterceptor(verifier, grpcapi.Rules, revocations, authzOpts...))
	// ReplayService streams; its calls pass the same rules (all Internal).
	srvOpts.StreamInterceptors = []grpc.StreamServerInterceptor{
		authz.StreamInterceptor(verifier, grpcapi.Rules, revocations, authzOpts...)}
	srvOpts.Startup = startup
	srv := server.New(srvOpts)
	collabs := collab.NewService(store, time.Now)
	providerTransport := &http.Transport{MaxIdleConnsPerHost: 64}
	defer providerTransport.CloseIdleConnections()
	urlPolicy := netguard.Policy{AllowPrivate: cfg.AllowPrivateURLs}
	validationCaller := validationclient.New(urlPolicy, cfg.ValidationTimeout)
	defer validationCaller.CloseIdleConnections()
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
	accepting := collab.NewService(config.Collabs(store), time.Now).CheckAcceptingTransactions
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
	defer payments.Wait()
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
	srv.Register(&gatewayv1.CollabService_ServiceDesc, grpcapi.NewCollabServer(collabs))
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
	defer callbacksConn.Close()
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, _ grpc.ClientConnInterface) error {
		return callbacksv1.RegisterCallbacksServiceHandlerClient(ctx, mux, callbacksv1.NewCallbacksServiceClient(callbacksConn))
	})
	// Statistics and job stats belong to the aggregator; the gateway host
	// forwards their REST calls to it over gRPC with the caller's token.
	aggregatorRoutes, err := grpcapi.NewAggregatorRoutes(cfg.AggregatorGRPCAddr, cfg.TrustedProxyHops, internalToken)
	if err != nil {
		return fmt.Errorf("PAYGATE_AGGREGATOR_GRPC_ADDR: %w", err)
	}
	defer aggregatorRoutes.Close()
	srv.RegisterGateway(aggregatorRoutes.Register)
	// Users, sessions and allowed IPs belong to the auth service.
	authRoutes, err := grpcapi.NewAuthRoutes(cfg.AuthGRPCAddr, cfg.TrustedProxyHops, internalToken)
	if err != nil {
		return fmt.Errorf("PAYGATE_AUTH_GRPC_URL: %w", err)
	}
	defer authRoutes.Close()
	srv.RegisterGateway(authRoutes.Register)
	hub := httpapi.NewHub(log.With("component", "stream"))
	srv.Handle(httpapi.StreamPattern, hub.Handler(httpapi.StreamOptions{
		Verifier: verifier, Revocations: revocations, AllowLists: allowLists, Heartbeat: cfg.StreamHeartbeat,
		ClientIP: func(r *http.Request) string { return server.RequestClientIP(r, cfg.TrustedProxyHops) }}))
	srv.AddReadyCheck("postgres", pool.Ping)
	srv.AddReadyCheck("redis", func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
	srv.AddReadyCheck("nats", bus.Connected(nc))

	// The background jobs (docs/jobs.md): one replica runs each, and every
	// run is reported through the outbox.
	runner := jobs.NewRunner("gateway", pool, js, jobs.Options{Logger: log})
	if err := runner.Add(gatewayJobs(cfg, payments, payStore, bus.NewRelay(pool, js, log), tunables.PollingInterval)...); err != nil {
		return err
	}
	sweeper, ok := fileStore.(tempSweeper)
	if !ok {
		return fmt.Errorf("export file store %T cannot sweep its temporary files", fileStore)
	}
	if err := runner.Add(retentionJob(cfg, files, sweeper, tunables.ExportRetention)); err != nil {
		return err
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
	if err := runner.Add(fraudDetectionJob(cfg, fraudStore, fraudThresholds)); err != nil {
		return err
	}
	if err := runner.Add(credentialsResealJob(credentials)); err != nil {
		return err
	}
	if err := runner.Add(partitionsJob(cfg, postgres.NewPartitions(pool))); err != nil {
		return err
	}
	if err := runner.Add(secretsResealJob(box, payStore)); err != nil {
		return err
	}
	// The export workers consume the export requests outside the jobs
	// runner, on every replica (docs/contracts-files.md): the runner runs a
	// job on one replica at a time, and files are written in parallel.
	host, _ := os.Hostname()
	worker := export.NewWorker(fileRows, fileStore, callbacksclient.NewAttempts(callbacksConn, internalToken, 30*time.Second), time.Now,
		export.WorkerOptions{Name: fmt.Sprintf("%s:%d", host, os.Getpid()), Lease: cfg.FilesLease,
			RowsPerSecond: cfg.FilesRowsPerSecond, Logger: log.With("component", "export-worker")})
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(gctx) })
	g.Go(func() error { return runner.Run(gctx) })
	g.Go(func() error { return hub.Run(gctx, nc) })
	g.Go(func() error {
		if cfg.FilesWorkers == 0 {
			return nil
		}
		return gwnats.RunFileExports(gctx, js, cfg.Schema, worker, gwnats.ExportOptions{Workers: cfg.FilesWorkers,
			Logger: log.With("component", "export-worker")})
	})
	g.Go(func() error {
		if !cfg.ConsumeCallbackEvents {
			return nil
		}
		return gwnats.RunCallbackEvents(gctx, js, cfg.Schema, payStore, collabs, log.With("component", "callback-events"))
	})
	return g.Wait()
}

// gatewayJobs are the gateway's background jobs. The recovery sweep ran in
// the poller's loop before it was a job; they are separate jobs now, both
// continuous and checking every pollEvery (the PollingIntervalSeconds
// setting, read on every tick; PAYGATE_POLL_INTERVAL by default).
func gatewayJobs(cfg Config, payments *payment.Service, payStore *postgres.Payments, relay *bus.Relay,
	pollEvery func(context.Context) time.Duration) []jobs.Job {
	js := []jobs.Job{
		{
			Name:        "gateway.provider-polling",
			Description: "Asks providers for the status of pending transactions due for a poll (each waits longer after every attempt), looking every PollingIntervalSeconds (setting; PAYGATE_POLL_INTERVAL by default).",
			Continuous:  true,
			Run: func(ctx context.Context, run *jobs.Run) error {
				total := sweepLoop(ctx, run, pollEvery, payments.PollDue, "Polling could not claim the transactions due")
				if total.Claimed > 0 {
					run.Notifyf(jobs.LevelInformation, "Polled %d pending transactions; %d became final.", total.Claimed, total.Final)
				}
				if total.Failed > 0 {
					run.NotifyErr(jobs.LevelError, total.LastError, "%d polls could not be recorded and are tried again later.", total.Failed)
				}
				return nil
			},
		},
		{
			Name:        "gateway.recovery-sweep",
			Description: "Resolves transactions left Not Confirmed longer than PAYGATE_RECOVERY_AFTER (a process died mid-call) by polling or resubmitting them, looking every PollingIntervalSeconds (setting; PAYGATE_POLL_INTERVAL by default).",
			Continuous:  true,
			Run: func(ctx context.Context, run *jobs.Run) error {
				total := sweepLoop(ctx, run, pollEvery, payments.RecoverDue, "The recovery sweep could not claim the stranded transactions")
				if total.Claimed > 0 {
					run.Notifyf(jobs.LevelWarning, "Took %d transactions stranded at Not Confirmed for recovery.", total.Claimed)
				}
				if total.Failed > 0 {
					run.NotifyErr(jobs.LevelError, total.LastError, "%d recoveries failed and are tried again later.", total.Failed)
				}
				return nil
			},
		},
		jobs.OutboxRelay("gateway", relay),
	}
	// 0 turns folding off: the list stays exact, reading the deltas.
	if cfg.TotalsFoldInterval > 0 {
		js = append(js, jobs.Job{
			Name:        "gateway.totals-fold",
			Description: "Folds the transaction list's count and totals deltas into their hourly and daily rollups every PAYGATE_TOTALS_FOLD_INTERVAL, building the rollups first on a table that predates them.",
			Continuous:  true,
			Run: func(ctx context.Context, run *jobs.Run) error {
				var moved, failed int64
				var lastErr error
				for {
					n, err := payStore.FoldTotalsOnce(ctx)
					moved += n
					if err != nil && ctx.Err() == nil {
						failed++
						lastErr = err
					}
					if !run.Wait(cfg.TotalsFoldInterval) {
						break
					}
				}
				if moved > 0 {
					run.Notifyf(jobs.LevelInformation, "Folded %d deltas into the transaction list's totals.", moved)
				}
				if failed > 0 {
					run.NotifyErr(jobs.LevelError, lastErr, "%d folds failed; the deltas wait and the list stays exact.", failed)
				}
				return nil
			},
		})
	}
	return js
}

// tempSweeper removes what workers that died mid-file left behind: a local
// directory's temporary files, an S3 bucket's abandoned uploads.
type tempSweeper interface {
	SweepTemp(ctx context.Context, olderThan time.Duration) (int, error)
}

// fileStore is the export file store's configuration: S3 when an endpoint
// is set, the local directory otherwise.
func (c Config) fileStore() filestore.Config {
	return filestore.Config{Dir: c.FilesDir, S3: filestore.S3Config{
		Endpoint: c.FilesS3Endpoint, Bucket: c.FilesS3Bucket, Region: c.FilesS3Region,
		AccessKey: c.FilesS3AccessKey, SecretKey: c.FilesS3SecretKey, UseSSL: c.FilesS3UseSSL,
		Insecure: c.FilesS3Insecure, Prefix: c.FilesS3Prefix, CreateBucket: c.FilesS3CreateBucket}}
}

// retentionJob deletes export files older than retention (the
// ExportRetentionHours setting, read on every run; PAYGATE_FILES_RETENTION by
// default): their bytes go, their rows stay as Deleted. It also sweeps the
// temporary files of workers that died mid-file (older than a day: no export
// takes that long).
// partitionsJob keeps the transactions' monthly partitions created
// PAYGATE_PARTITION_MONTHS_AHEAD months ahead, every hour (migration 0028,
// docs/partitioning.md).
func partitionsJob(cfg Config, partitions *postgres.Partitions) jobs.Job {
	return jobs.Job{
		Name:        "gateway.transaction-partitions",
		Description: "Creates the transactions table's monthly partitions PAYGATE_PARTITION_MONTHS_AHEAD months ahead (3 by default), every hour, and warns when rows fell outside them into the default partition.",
		Every:       time.Hour,
		Run: func(ctx context.Context, run *jobs.Run) error {
			created, strays, err := partitions.Ensure(ctx, cfg.PartitionMonthsAhead)
			if err != nil {
				return jobs.Failed(err, "The transactions' partitions could not be created ahead; the next run tries again.")
			}
			if created > 0 {
				run.Notifyf(jobs.LevelInformation, "Created %d monthly partitions of transactions.", created)
			}
			if strays {
				run.Notifyf(jobs.LevelWarning, "Some transactions are in the default partition, outside every monthly partition; docs/partitioning.md says how to move them.")
			}
			return nil
		},
	}
}

func retentionJob(cfg Config, files *export.Service, store tempSweeper, retention func(context.Context) time.Duration) jobs.Job {
	return jobs.Job{
		Name:        "gateway.files-retention",
		Description: "Deletes export files older than ExportRetentionHours (setting; PAYGATE_FILES_RETENTION, 3 days, by default): their bytes are removed and they stay listed as Deleted, looking every PAYGATE_FILES_RETENTION_INTERVAL.",
		Every:       cfg.FilesRetentionInterval,
		Run: func(ctx context.Context, run *jobs.Run) error {
			const batch = 500
			total := 0
			keep := retention(ctx)
			for {
				n, err := files.DeleteExpired(ctx, time.Now().Add(-keep), batch)
				total += n
				if err != nil {
					run.Notifyf(jobs.LevelError, "Deleted %d export files, then stopped.", total)
					return jobs.Failed(err, "The expired export files could not all be deleted; the next run tries again.")
				}
				if n < batch {
					break
				}
			}
			if total > 0 {
				run.Notifyf(jobs.LevelInformation, "Deleted %d export files older than %s.", total, keep)
			}
			swept, err := store.SweepTemp(ctx, 24*time.Hour)
			if err != nil {
				run.NotifyErr(jobs.LevelError, err, "The temporary files of interrupted exports could not be swept; the next run tries again.")
			} else if swept > 0 {
				run.Notifyf(jobs.LevelWarning, "Removed %d temporary files left by export workers that stopped mid-file.", swept)
			}
			return nil
		},
	}
}

// fraudDetectionJob scans the transactions created since its last run for
// the fraud rules (docs/contracts-frauds.md), every PAYGATE_FRAUD_INTERVAL.
func fraudDetectionJob(cfg Config, detector fraud.Detector, thresholds func(context.Context) (fraud.Thresholds, error)) jobs.Job {
	return jobs.Job{
		Name:        "gateway.fraud-detection",
		Description: "Scans the transactions made since its last run for velocity, amount spikes, failures followed by a success and identities shared by several clients, and flags them for review on the Fraud Management page, every PAYGATE_FRAUD_INTERVAL.",
		Every:       cfg.FraudInterval,
		Run: func(ctx context.Context, run *jobs.Run) error {
			rep, err := fraud.Detect(ctx, detector, fraud.DetectOptions{Thresholds: thresholds, Settle: cfg.FraudSettle}, time.Now())
			if rep.Scanned > 0 || rep.Flagged > 0 {
				run.Notifyf(jobs.LevelInformation, "Scanned %d transactions made until %s: %d new frauds, %d raised, %d transactions linked.",
					rep.Scanned, rep.To.Format(time.RFC3339), rep.Flagged, rep.Updated, rep.Linked)
			}
			if err != nil {
				return jobs.Failed(err, "The fraud detection could not finish; the next run starts where this one stopped.")
			}
			return nil
		},
	}
}

// sweepLoop runs sweep every interval (asked again after every pass) until
// the run ends and returns the sum of its reports; a pass that could not
// claim its transactions is notified at once.
func sweepLoop(ctx context.Context, run *jobs.Run, interval func(context.Context) time.Duration,
	sweep func(context.Context) (payment.SweepReport, error), failure string) payment.SweepReport {
	var total payment.SweepReport
	for {
		rep, err := sweep(ctx)
		total.Add(rep)
		if err != nil && ctx.Err() == nil {
			run.NotifyErr(jobs.LevelError, err, "%s; the next pass tries again.", failure)
		}
		if !nextTick(ctx, time.Now(), interval, run.Wait) {
			return total
		}
	}
}

// maxTickWait is the longest nextTick waits before asking the interval
// again.
const maxTickWait = time.Second

// nextTick waits until interval has passed since began (the end of a
// pass), asking interval
// again at least every maxTickWait, so that a shorter interval set
// meanwhile (PollingIntervalSeconds down from 300 to 1, say) takes effect
// within a second rather than after the old one. It reports false as soon
// as wait does (the run ends).
func nextTick(ctx context.Context, began time.Time, interval func(context.Context) time.Duration,
	wait func(time.Duration) bool) bool {
	for {
		left := time.Until(began.Add(interval(ctx)))
		if left <= 0 {
			return true
		}
		if !wait(min(left, maxTickWait)) {
			return false
		}
	}
}
