// Command auth is Paygate's authentication service: sign-in, token refresh and
// logout, the signed-in user, password changes, and the JWKS every other
// service verifies access tokens against. "auth signing-keys …" manages the
// keys that sign access tokens (signingkeys.go).
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	goredis "github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/auth/internal/grpcapi"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/passkey"
	"github.com/paygate/paygate/services/auth/internal/postgres"
	authredis "github.com/paygate/paygate/services/auth/internal/redis"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/telemetry"
)

// Config is the auth service's configuration, read from PAYGATE_* variables.
type Config struct {
	config.Common
	// Schema is the Postgres schema the service owns (tests use their own).
	Schema string `env:"PAYGATE_DATABASE_SCHEMA" default:"auth"`
	// RedisKeyPrefix starts every Redis key the service writes.
	RedisKeyPrefix string `env:"PAYGATE_REDIS_KEY_PREFIX" default:"paygate:auth:"`
	// AdminPassword is the first admin's temporary password (production).
	AdminPassword string `env:"PAYGATE_ADMIN_PASSWORD"`
	// AccessTTL is the lifetime of access tokens.
	AccessTTL time.Duration `env:"PAYGATE_ACCESS_TOKEN_TTL" default:"5m"`
	// RefreshTTL is the lifetime of refresh tokens (renewed on rotation).
	RefreshTTL time.Duration `env:"PAYGATE_REFRESH_TOKEN_TTL" default:"24h"`
	// RefreshGrace is how long a spent refresh token is still accepted, so
	// that two tabs refreshing together do not end the session (at most 10s).
	RefreshGrace time.Duration `env:"PAYGATE_REFRESH_GRACE" default:"10s"`
	// LoginIPLimit is how many distinct usernames may fail to sign in from
	// one address within 15 minutes before the address is locked (a browser
	// with a device cookie for its username still passes).
	LoginIPLimit int `env:"PAYGATE_LOGIN_IP_LIMIT" default:"20"`
	// SessionCleanupInterval is how often the job auth.session-cleanup
	// deletes expired refresh tokens and ended sessions.
	SessionCleanupInterval time.Duration `env:"PAYGATE_SESSION_CLEANUP_INTERVAL" default:"10m"`
	// PasswordMinLen is the shortest new password a user may choose (at
	// least 8).
	PasswordMinLen int `env:"PAYGATE_PASSWORD_MIN_LENGTH" default:"12"`
	// SessionRetention is how long an ended session (expired or revoked) is
	// kept before the cleanup deletes it.
	SessionRetention time.Duration `env:"PAYGATE_SESSION_RETENTION" default:"24h"`
	// RevocationRefillInterval is how often each replica writes the sessions
	// revoked within the access-token lifetime back into Redis (repairing
	// lost or failed writes). A Redis that lost all its data is refilled
	// within authz.FilledCheckInterval instead, and readers wait for that
	// (authz.RevocationsFilledKey).
	RevocationRefillInterval time.Duration `env:"PAYGATE_REVOCATION_REFILL_INTERVAL" default:"30s"`
	// SigningKeyReload is how often each replica reloads the signing keys
	// from the database, so that a key added, activated or retired with
	// "auth signing-keys" takes effect everywhere without a restart.
	SigningKeyReload time.Duration `env:"PAYGATE_SIGNING_KEY_RELOAD_INTERVAL" default:"30s"`
	// WebAuthnRPID is the passkeys' relying party id: the host name of the
	// console (no scheme, no port).
	WebAuthnRPID string `env:"PAYGATE_WEBAUTHN_RP_ID" default:"localhost"`
	// WebAuthnOrigins are the origins passkey ceremonies may come from (the
	// console's), comma separated.
	WebAuthnOrigins []string `env:"PAYGATE_WEBAUTHN_ORIGINS" default:"http://localhost:8080"`
}

// cleanupBatch is how many rows one statement of the session cleanup
// deletes at most.
const cleanupBatch = 1000

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "signing-keys":
		err = signingKeysCommand(ctx, os.Getenv, os.Args[2:], os.Stdout)
	case len(os.Args) > 1:
		err = fmt.Errorf("unknown command %q: run without arguments to serve, or with signing-keys", os.Args[1])
	default:
		err = run(ctx, os.Getenv, os.Stdout)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "auth:", err)
		os.Exit(1)
	}
}

// run builds every dependency, serves until ctx ends and stops in reverse
// order.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg, config.Ports(":8081", ":9081")); err != nil {
		return err
	}
	if cfg.LoginIPLimit < 1 {
		return errors.New("PAYGATE_LOGIN_IP_LIMIT: at least 1")
	}
	if cfg.PasswordMinLen < identity.MinPasswordLen || cfg.PasswordMinLen > identity.MaxPasswordLen {
		return fmt.Errorf("PAYGATE_PASSWORD_MIN_LENGTH: between %d and %d", identity.MinPasswordLen, identity.MaxPasswordLen)
	}
	if cfg.RefreshGrace > 10*time.Second {
		return errors.New("PAYGATE_REFRESH_GRACE: at most 10s")
	}
	if cfg.SessionCleanupInterval <= 0 || cfg.SessionRetention < 0 {
		return errors.New("PAYGATE_SESSION_CLEANUP_INTERVAL must be positive and PAYGATE_SESSION_RETENTION not negative")
	}
	if cfg.RevocationRefillInterval <= 0 {
		return errors.New("PAYGATE_REVOCATION_REFILL_INTERVAL must be positive")
	}
	if cfg.SigningKeyReload <= 0 {
		return errors.New("PAYGATE_SIGNING_KEY_RELOAD_INTERVAL must be positive")
	}
	log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.SlogLevel()})).With("service", "auth")
	// Probes get answers (live, not ready) while the schema migrates, which
	// may take longer than the startup probe's budget; the server takes the
	// ports over once everything is up.
	startup, err := server.Start(server.OptionsFrom("auth", cfg.Common, log, nil))
	if err != nil {
		return err
	}
	defer startup.Close()

	if err := pgdb.Migrate(ctx, cfg.DatabaseURL, cfg.Schema, postgres.Migrations(), pgdb.WithLogger(log)); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, cfg.Schema)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.New(pool)

	ropts, err := goredis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("PAYGATE_REDIS_URL: %w", err)
	}
	rdb := goredis.NewClient(ropts)
	defer rdb.Close()

	nc, js, err := bus.Connect(ctx, cfg.NATSURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := bus.EnsureStreamReplicas(ctx, js, cfg.NATSStreamReplicas); err != nil {
		return err
	}

	signingKeys, err := store.SigningKeys(ctx)
	if err != nil {
		return err
	}
	keys, err := identity.NewKeySet(signingKeys)
	if err != nil {
		return err
	}
	revocations := authz.NewRedisRevocations(rdb)
	allowLists := authz.NewRedisAllowLists(rdb)
	svc, err := identity.NewService(store, keys, authredis.NewThrottle(rdb, cfg.RedisKeyPrefix+"throttle:"), revocations, log, nil,
		identity.Config{AccessTTL: cfg.AccessTTL, RefreshTTL: cfg.RefreshTTL, RefreshGrace: cfg.RefreshGrace,
			MaxFailuresPerIP: cfg.LoginIPLimit, AllowLists: allowLists, PasswordMinLen: cfg.PasswordMinLen})
	if err != nil {
		return err
	}

	if cfg.Demo {
		n, err := identity.EnsureUsers(ctx, store, identity.DemoUsers, identity.DefaultArgon2)
		if err != nil {
			return fmt.Errorf("seed demo users: %w", err)
		}
		log.InfoContext(ctx, "demo users ready", "created", n)
	} else if created, err := identity.BootstrapAdmin(ctx, store, cfg.AdminPassword, identity.DefaultArgon2); err != nil {
		return err
	} else if created {
		log.InfoContext(ctx, "created the first admin with a temporary password", "username", "admin")
	}

	tracing, err := telemetry.Setup("auth", cfg.TracingEndpoint)
	if err != nil {
		return fmt.Errorf("PAYGATE_OTLP_ENDPOINT: %w", err)
	}
	defer tracing.Close()

	// --- Passkeys (WebAuthnService): the relying party, its rules merged
	// into the interceptor's, the gRPC service and its REST routes.
	passkeys, err := passkey.New(passkey.Config{RPID: cfg.WebAuthnRPID, RPDisplayName: "Paygate", Origins: cfg.WebAuthnOrigins},
		postgres.NewPasskeys(pool), svc, log, nil)
	if err != nil {
		return fmt.Errorf("PAYGATE_WEBAUTHN_RP_ID / PAYGATE_WEBAUTHN_ORIGINS: %w", err)
	}
	rules := maps.Clone(grpcapi.Rules)
	maps.Copy(rules, grpcapi.WebAuthnRules)
	// --- end passkeys (the rest of the wiring is in the registrations below)

	srvOpts := server.OptionsFrom("auth", cfg.Common, log, tracing,
		authz.UnaryInterceptor(authz.NewKeyVerifier(keys.PublicKey), rules, revocations,
			authz.WithAllowLists(allowLists, server.ClientIP)))
	srvOpts.Startup = startup
	srv := server.New(srvOpts)
	srv.Register(&authv1.AuthService_ServiceDesc, grpcapi.NewServer(svc))
	srv.Register(&authv1.UserService_ServiceDesc, grpcapi.NewUserServer(svc))
	srv.Register(&authv1.SessionService_ServiceDesc, grpcapi.NewSessionServer(svc))
	srv.Register(&authv1.AllowedIpService_ServiceDesc, grpcapi.NewAllowedIPServer(svc))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return errors.Join(
			authv1.RegisterAuthServiceHandlerClient(ctx, mux, authv1.NewAuthServiceClient(cc)),
			authv1.RegisterUserServiceHandlerClient(ctx, mux, authv1.NewUserServiceClient(cc)),
			authv1.RegisterSessionServiceHandlerClient(ctx, mux, authv1.NewSessionServiceClient(cc)),
			authv1.RegisterAllowedIpServiceHandlerClient(ctx, mux, authv1.NewAllowedIpServiceClient(cc)),
		)
	})
	// --- Passkeys: WebAuthnService and its REST routes.
	srv.Register(&authv1.WebAuthnService_ServiceDesc, grpcapi.NewWebAuthnServer(passkeys))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return authv1.RegisterWebAuthnServiceHandlerClient(ctx, mux, authv1.NewWebAuthnServiceClient(cc))
	})
	// --- end passkeys
	jwks, err := grpcapi.JWKSHandler(keys)
	if err != nil {
		return err
	}
	srv.Handle("/.well-known/jwks.json", jwks)
	srv.AddReadyCheck("postgres", func(ctx context.Context) error { return pool.Ping(ctx) })
	srv.AddReadyCheck("redis", func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
	srv.AddReadyCheck("nats", bus.Connected(nc))

	if err := srv.Listen(); err != nil {
		return err
	}
	// The background jobs (docs/jobs.md): one replica runs each, and every
	// run is reported through the outbox.
	runner := jobs.NewRunner("auth", pool, js, jobs.Options{Logger: log})
	if err := runner.Add(authJobs(cfg, store, bus.NewRelay(pool, js, log))...); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return runner.Run(gctx) })
	// Revocations live in Redis, which may lose them; Postgres has them too.
	g.Go(func() error {
		return revocations.KeepRefilled(gctx, store.RevokedSessionsSince, cfg.AccessTTL, cfg.RevocationRefillInterval, log)
	})
	// Signing keys added, activated or retired by "auth signing-keys".
	g.Go(func() error { return keys.KeepLoaded(gctx, store.SigningKeys, cfg.SigningKeyReload, log) })
	g.Go(func() error { return srv.Run(gctx) })
	return g.Wait()
}

// authJobs are the auth service's background jobs.
func authJobs(cfg Config, store *postgres.Store, relay *bus.Relay) []jobs.Job {
	return []jobs.Job{
		{
			Name: "auth.session-cleanup",
			Description: "Deletes expired refresh tokens, and sessions that ended (expired or revoked) more than PAYGATE_SESSION_RETENTION ago, " +
				"every PAYGATE_SESSION_CLEANUP_INTERVAL.",
			Every: cfg.SessionCleanupInterval,
			Run: func(ctx context.Context, run *jobs.Run) error {
				// A revoked session stays until its tokens expire: the
				// revocation refill reads it.
				retention := max(cfg.SessionRetention, cfg.AccessTTL+authz.Leeway)
				tokens, sessions, err := store.CleanUp(ctx, time.Now(), retention, cleanupBatch, run.Stopping())
				run.Notifyf(jobs.LevelInformation, "Deleted %d expired refresh tokens and %d ended sessions.", tokens, sessions)
				if err != nil {
					return jobs.Failed(err, "The cleanup stopped before it finished; the next run goes on.")
				}
				return nil
			},
		},
		jobs.OutboxRelay("auth", relay),
	}
}
