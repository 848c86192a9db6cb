// Command callbacks runs the callbacks service: merchants' callback URLs,
// and the signed delivery of every final transaction's outcome to them with
// retries (docs/contracts-callbacks.md, which also lists its configuration).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/callbacks/internal/gatewayclient"
	"github.com/paygate/paygate/services/callbacks/internal/grpcapi"
	cbnats "github.com/paygate/paygate/services/callbacks/internal/nats"
	"github.com/paygate/paygate/services/callbacks/internal/postgres"
	"github.com/paygate/paygate/services/callbacks/internal/receivers"
	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/keyring/resealjob"
	"github.com/paygate/paygate/services/internal/netguard"
	"github.com/paygate/paygate/services/internal/server"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "callbacks:", err)
		os.Exit(1)
	}
}

// Config is the callbacks service's configuration: the shared keys, with
// its ports as defaults, and its own.
type Config struct {
	config.Common
	// Schema is the Postgres schema the service owns (tests use their own).
	Schema string `env:"PAYGATE_DATABASE_SCHEMA"`
	// EncryptionKey is the base64 AES-256 key that seals merchants' signing
	// keys under the key id "default" when EncryptionKeys is empty; one of
	// them is required unless demo mode, which falls back to a public key.
	EncryptionKey string `env:"PAYGATE_ENCRYPTION_KEY"`
	// EncryptionKeys is the keyring of those keys, "id:base64key,…": the
	// first key seals, the others still open what they sealed, and the job
	// callbacks.secrets-reseal moves values to the first (docs/operations.md,
	// "Rotate keys"). When set, EncryptionKey is not read.
	EncryptionKeys string `env:"PAYGATE_ENCRYPTION_KEYS"`
	// GatewayGRPCAddr is the gateway's gRPC address, where collabs are
	// resolved to their merchants with the caller's token.
	GatewayGRPCAddr string `env:"PAYGATE_GATEWAY_GRPC_ADDR" default:"127.0.0.1:9082"`
	// CallbackTimeout bounds one delivery attempt (connect to last byte).
	CallbackTimeout time.Duration `env:"PAYGATE_CALLBACK_TIMEOUT" default:"5s"`
	// Workers is how many deliveries are in flight at most.
	Workers int `env:"PAYGATE_CALLBACK_WORKERS" default:"64"`
	// URLWorkers is how many of them may go to one callback URL, so that a
	// receiver holding requests until the timeout cannot take every slot
	// before its breaker opens; 0, or Workers or more, is no limit but
	// Workers. A delivery over it waits for one of its URL's requests to
	// end (callback.DispatcherOptions.URLWorkers).
	URLWorkers int `env:"PAYGATE_CALLBACK_URL_WORKERS" default:"16"`
	// BatchSize is the most deliveries claimed, results recorded and events
	// applied at once.
	BatchSize int `env:"PAYGATE_CALLBACK_BATCH_SIZE" default:"256"`
	// BackoffBase and BackoffCap shape the retry delays: after the n-th
	// failure a random wait up to min(cap, base·2^(n-1)).
	BackoffBase time.Duration `env:"PAYGATE_CALLBACK_BACKOFF_BASE" default:"1s"`
	BackoffCap  time.Duration `env:"PAYGATE_CALLBACK_BACKOFF_CAP" default:"10m"`
	// Lease is how long a claimed delivery is held; one whose result was
	// never recorded (a crash) is sent again after it. Above the timeout.
	Lease time.Duration `env:"PAYGATE_CALLBACK_LEASE" default:"1m"`
	// PollInterval is how often due deliveries are looked for when nothing
	// in this process queued any (other replicas, retries coming due).
	PollInterval time.Duration `env:"PAYGATE_CALLBACK_POLL_INTERVAL" default:"250ms"`
	// EventsFrom is where the transaction-event consumers start when they are
	// first made: "all" events the stream holds, "new" ones, or those since
	// an RFC 3339 time.
	EventsFrom string `env:"PAYGATE_CALLBACK_EVENTS_FROM" default:"all"`
	// EventsAckWait is how long a transaction event read but not settled
	// (a crash) waits before it is delivered again. An event is settled once
	// the first attempts of its deliveries are stored, which takes up to the
	// fresh wait (2s) plus PAYGATE_CALLBACK_TIMEOUT, so it must exceed both
	// with room to spare.
	EventsAckWait time.Duration `env:"PAYGATE_CALLBACK_EVENTS_ACK_WAIT" default:"1m"`
	// RetryCap is the most failed deliveries one bulk retry may select
	// (docs/contracts-bulk.md).
	RetryCap int `env:"PAYGATE_CALLBACK_RETRY_CAP" default:"100000"`
	// RetryRate is how many deliveries per second a bulk retry requeues.
	RetryRate int `env:"PAYGATE_CALLBACK_RETRY_RATE" default:"2000"`
	// RetryWorkers is how many bulk retries this replica works at once (0:
	// none, it only serves the calls).
	RetryWorkers int `env:"PAYGATE_CALLBACK_RETRY_WORKERS" default:"2"`
	// RetrySlice is how long a bulk retry's job works before it comes back
	// to the queue.
	RetrySlice time.Duration `env:"PAYGATE_CALLBACK_RETRY_SLICE" default:"20s"`
	// BreakerFailures is the consecutive failed attempts that open a
	// callback URL's circuit breaker.
	BreakerFailures int `env:"PAYGATE_CALLBACK_BREAKER_FAILURES" default:"5"`
	// BreakerCooldown is an open breaker's first wait before its probe,
	// doubled per failed probe up to BreakerCooldownCap.
	BreakerCooldown    time.Duration `env:"PAYGATE_CALLBACK_BREAKER_COOLDOWN" default:"30s"`
	BreakerCooldownCap time.Duration `env:"PAYGATE_CALLBACK_BREAKER_COOLDOWN_CAP" default:"10m"`
	// DisableAfter is how long every attempt to a callback URL must have
	// failed for it to be disabled automatically.
	DisableAfter time.Duration `env:"PAYGATE_CALLBACK_DISABLE_AFTER" default:"72h"`
	// PayloadRetention is how long delivered request bodies (and the start
	// of receivers' answers) are kept; PayloadPurgeInterval how often the
	// job callbacks.payload-purge runs.
	PayloadRetention     time.Duration `env:"PAYGATE_CALLBACK_PAYLOAD_RETENTION" default:"720h"`
	PayloadPurgeInterval time.Duration `env:"PAYGATE_CALLBACK_PAYLOAD_PURGE_INTERVAL" default:"1h"`
	// RetryRescueAfter is when a bulk retry's job whose worker died is
	// taken back by river's leader (more than RetrySlice).
	RetryRescueAfter time.Duration `env:"PAYGATE_CALLBACK_RETRY_RESCUE_AFTER" default:"1m"`
}

// freshWait is the longest a fresh delivery waits for a request slot before
// it is stored pending instead (callback.DispatcherOptions.FreshWait).
const freshWait = 2 * time.Second

// Check reports every value Load cannot judge on its own (config.Load
// reports them with the keys it cannot parse).
func (c Config) Check() []string {
	var problems []string
	if c.CallbackTimeout <= 0 {
		problems = append(problems, "PAYGATE_CALLBACK_TIMEOUT must be positive")
	}
	if c.Workers < 1 {
		problems = append(problems, "PAYGATE_CALLBACK_WORKERS must be at least 1")
	}
	if c.URLWorkers < 0 {
		problems = append(problems, "PAYGATE_CALLBACK_URL_WORKERS must be 0 (no limit) or more")
	}
	if c.BatchSize < 1 {
		problems = append(problems, "PAYGATE_CALLBACK_BATCH_SIZE must be at least 1")
	}
	if c.BackoffBase <= 0 || c.BackoffCap < c.BackoffBase {
		problems = append(problems, "PAYGATE_CALLBACK_BACKOFF_BASE must be positive and at most PAYGATE_CALLBACK_BACKOFF_CAP")
	}
	if c.Lease <= c.CallbackTimeout {
		problems = append(problems, "PAYGATE_CALLBACK_LEASE must be longer than PAYGATE_CALLBACK_TIMEOUT")
	}
	if c.EventsAckWait < c.CallbackTimeout+freshWait+5*time.Second {
		problems = append(problems, "PAYGATE_CALLBACK_EVENTS_ACK_WAIT must exceed PAYGATE_CALLBACK_TIMEOUT by at least 7s")
	}
	if c.PollInterval <= 0 {
		problems = append(problems, "PAYGATE_CALLBACK_POLL_INTERVAL must be positive")
	}
	if _, err := bus.ParseStart(c.EventsFrom); err != nil {
		problems = append(problems, "PAYGATE_CALLBACK_EVENTS_FROM: "+err.Error())
	}
	if c.BreakerFailures < 1 {
		problems = append(problems, "PAYGATE_CALLBACK_BREAKER_FAILURES must be at least 1")
	}
	if c.BreakerCooldown <= 0 || c.BreakerCooldownCap < c.BreakerCooldown {
		problems = append(problems, "PAYGATE_CALLBACK_BREAKER_COOLDOWN must be positive and at most PAYGATE_CALLBACK_BREAKER_COOLDOWN_CAP")
	}
	if c.PayloadRetention <= 0 || c.PayloadPurgeInterval <= 0 {
		problems = append(problems, "PAYGATE_CALLBACK_PAYLOAD_RETENTION and PAYGATE_CALLBACK_PAYLOAD_PURGE_INTERVAL must be positive")
	}
	if c.DisableAfter <= 0 {
		problems = append(problems, "PAYGATE_CALLBACK_DISABLE_AFTER must be positive")
	}
	if _, err := c.sealer(); err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

// sealer returns the keyring of merchants' signing keys:
// PAYGATE_ENCRYPTION_KEYS, or PAYGATE_ENCRYPTION_KEY under the id "default"
// (the demo key in demo mode when neither is set).
func (c Config) sealer() (*keyring.Keyring, error) {
	return keyring.FromConfig("PAYGATE_ENCRYPTION_KEYS", c.EncryptionKeys, "PAYGATE_ENCRYPTION_KEY", c.EncryptionKey, c.Demo)
}

// run builds every dependency, serves until ctx ends, then stops (app.Run).
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	return app.Run(ctx, getenv, stdout, app.Service{
		Name: "callbacks", Config: &cfg,
		Defaults:   []config.Option{config.Ports(":8083", ":9083"), config.Default("PAYGATE_DATABASE_SCHEMA", postgres.Schema)},
		Migrations: postgres.Migrations, Schema: &cfg.Schema, Redis: true, NATS: true,
		Wire: func(ctx context.Context, p *app.Parts) error { return wire(ctx, cfg, p) },
	})
}

// wire builds the callbacks service on p's connections: the dispatcher,
// the service, its routes, its jobs and the consumer of transaction events.
func wire(ctx context.Context, cfg Config, p *app.Parts) error {
	sealer, err := cfg.sealer()
	if err != nil {
		return err
	}
	store := postgres.NewStore(p.Pool)
	store.Breakers = callback.BreakerSettings{Failures: int32(cfg.BreakerFailures), Cooldown: cfg.BreakerCooldown,
		CooldownCap: cfg.BreakerCooldownCap, DisableAfter: cfg.DisableAfter}
	gatewayConn, err := grpc.NewClient(cfg.GatewayGRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		return fmt.Errorf("PAYGATE_GATEWAY_GRPC_ADDR: %w", err)
	}
	p.Defer(func() { _ = gatewayConn.Close() })

	guard := netguard.Policy{AllowPrivate: cfg.AllowPrivateURLs}
	client := guard.Client(cfg.CallbackTimeout)
	p.Defer(client.CloseIdleConnections)
	secrets := callback.NewSecrets(store, sealer, cfg.Demo, time.Now)
	dispatcher := callback.NewDispatcher(store, secrets, receivers.NewSender(client, netguard.DefaultResponseLimit), callback.DispatcherOptions{
		Workers: cfg.Workers, URLWorkers: cfg.URLWorkers, BatchSize: cfg.BatchSize, Lease: cfg.Lease, PollInterval: cfg.PollInterval, FreshWait: freshWait,
		Backoff: callback.Backoff{Base: cfg.BackoffBase, Cap: cfg.BackoffCap},
		// The claim loop is the job callbacks.delivery-claim.
		ExternalClaims: true,
		Logger:         p.Log.With("component", "dispatcher"),
	})
	svc := callback.NewService(store, gatewayclient.NewGatewayCollabs(gatewayv1.NewCollabServiceClient(gatewayConn), 5*time.Second),
		gatewayclient.NewGatewayMerchants(gatewayv1.NewMerchantServiceClient(gatewayConn), 5*time.Second),
		guard, secrets, time.Now, dispatcher)

	verifier := authz.NewJWKSVerifier(cfg.JWKSURL, &http.Client{Timeout: 5 * time.Second})
	// The internal methods (the export worker's batch read of attempts)
	// admit the deployment's internal token; without one configured they
	// refuse every caller.
	internalToken, _ := cfg.Internal()
	srv := p.Server(nil, authz.UnaryInterceptor(verifier, grpcapi.Rules, authz.NewRedisRevocations(p.Redis),
		authz.WithAllowLists(authz.NewRedisAllowLists(p.Redis), server.ClientIP), authz.WithInternalToken(internalToken)))
	srv.Register(&callbacksv1.CallbacksService_ServiceDesc, grpcapi.NewServer(svc))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return callbacksv1.RegisterCallbacksServiceHandlerClient(ctx, mux, callbacksv1.NewCallbacksServiceClient(cc))
	})

	retries, err := wireRetries(ctx, cfg, p, srv, dispatcher.Wake)
	if err != nil {
		return err
	}
	endpoints := callback.NewEndpoints(svc, store, recoverSince(retries))
	srv.Register(&callbacksv1.CallbackEndpointService_ServiceDesc, grpcapi.NewEndpointServer(endpoints))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return callbacksv1.RegisterCallbackEndpointServiceHandlerClient(ctx, mux, callbacksv1.NewCallbackEndpointServiceClient(cc))
	})

	// The background jobs (docs/jobs.md): one replica runs each, and every
	// run is reported through the outbox. Fresh deliveries are sent by every
	// replica's dispatcher, outside the jobs.
	if err := p.Jobs.Add(callbacksJobs(cfg, dispatcher, bus.NewRelay(p.Pool, p.JetStream, p.Log), sealer, store)...); err != nil {
		return err
	}
	p.Go(dispatcher.Run)
	from, _ := bus.ParseStart(cfg.EventsFrom) // checked by Config.Check
	p.Go(func(ctx context.Context) error {
		return cbnats.Run(ctx, p.JetStream, cfg.Schema, svc.HandleTransactionEvents, cbnats.Options{
			BatchSize: cfg.BatchSize, From: from, AckWait: cfg.EventsAckWait, Logger: p.Log.With("component", "transaction-events"),
		})
	})
	return nil
}

// callbacksJobs are the callbacks service's background jobs.
func callbacksJobs(cfg Config, dispatcher *callback.Dispatcher, relay *bus.Relay, sealer *keyring.Keyring, store *postgres.Store) []jobs.Job {
	return []jobs.Job{
		{
			Name: "callbacks.payload-purge",
			Description: "Empties the request bodies of callbacks older than PAYGATE_CALLBACK_PAYLOAD_RETENTION whose deliveries are all delivered or cancelled, " +
				"and the start of receivers' answers in their attempts' errors; the attempts stay. Every PAYGATE_CALLBACK_PAYLOAD_PURGE_INTERVAL.",
			Every: cfg.PayloadPurgeInterval,
			Run: func(ctx context.Context, run *jobs.Run) error {
				now := time.Now()
				n, err := store.PurgePayloads(ctx, now.Add(-cfg.PayloadRetention), now, 1000, run.Stopping())
				run.Notifyf(jobs.LevelInformation, "Purged the payloads of %d callbacks older than %s.", n, cfg.PayloadRetention)
				if err != nil {
					return jobs.Failed(err, "The purge stopped before it finished; the next run goes on.")
				}
				return nil
			},
		},
		{
			Name: "callbacks.secrets-reseal",
			Description: "Re-seals merchants' callback signing keys and callback URLs' secret header values still sealed under an older key " +
				"of PAYGATE_ENCRYPTION_KEYS under the current (first) key, every hour.",
			Every: time.Hour,
			Run: func(ctx context.Context, run *jobs.Run) error {
				keys, err := store.AllSealedKeys(ctx)
				if err != nil {
					return jobs.Failed(err, "The sealed signing keys could not be read; the next run tries again.")
				}
				stored := make([]keyring.Stored, len(keys))
				for i, k := range keys {
					stored[i] = keyring.Stored{Name: fmt.Sprintf("signing key of merchant %d", k.MerchantID),
						AAD: callback.Owner(k.MerchantID), Sealed: k.Sealed}
				}
				if err := resealjob.Run(ctx, sealer, run, "signing keys", stored, func(ctx context.Context, i int, sealed []byte) (bool, error) {
					return store.ResealKey(ctx, keys[i].MerchantID, keys[i].Sealed, sealed)
				}); err != nil {
					return err
				}
				headers, err := store.AllSealedHeaders(ctx)
				if err != nil {
					return jobs.Failed(err, "The sealed header values could not be read; the next run tries again.")
				}
				stored = make([]keyring.Stored, len(headers))
				for i, h := range headers {
					stored[i] = keyring.Stored{Name: fmt.Sprintf("header %q of callback URL %d", h.Name, h.CallbackURLID),
						AAD: callback.HeaderOwner(h.CallbackURLID, h.Name), Sealed: h.Sealed}
				}
				return resealjob.Run(ctx, sealer, run, "secret header values", stored, func(ctx context.Context, i int, sealed []byte) (bool, error) {
					return store.ResealHeader(ctx, headers[i], sealed)
				})
			},
		},
		{
			Name: "callbacks.delivery-claim",
			Description: "Sends the stored deliveries that are due (retries after their backoff, deliveries enqueued again, fresh ones that waited too long for a request slot), " +
				"looking every PAYGATE_CALLBACK_POLL_INTERVAL or when woken.",
			Continuous: true,
			Run: func(ctx context.Context, run *jobs.Run) error {
				rep, err := dispatcher.Claim(ctx, run.Stopping())
				if errors.Is(err, callback.ErrStopped) {
					return nil // the process is stopping
				}
				if err != nil {
					return jobs.Failed(err, "The due deliveries could not be claimed; the next run tries again.")
				}
				if rep.Sent > 0 {
					run.Notifyf(jobs.LevelInformation, "Sent %d due deliveries.", rep.Sent)
				}
				if rep.Failures > 0 {
					run.NotifyErr(jobs.LevelError, rep.LastError, "%d claims of due deliveries failed and are tried again.", rep.Failures)
				}
				return nil
			},
		},
		jobs.OutboxRelay("callbacks", relay),
	}
}
