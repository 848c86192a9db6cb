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
	"google.golang.org/grpc"

	_ "github.com/paygate/paygate/gen/go/paygate/aggregator/v1" // request types of approved requests
	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	_ "github.com/paygate/paygate/gen/go/paygate/gateway/v1" // request types of approved requests
	"github.com/paygate/paygate/services/auth/internal/confirmation"
	"github.com/paygate/paygate/services/auth/internal/grpcapi"
	"github.com/paygate/paygate/services/auth/internal/identity"
	"github.com/paygate/paygate/services/auth/internal/passkey"
	"github.com/paygate/paygate/services/auth/internal/postgres"
	authredis "github.com/paygate/paygate/services/auth/internal/redis"
	"github.com/paygate/paygate/services/auth/internal/roles"
	"github.com/paygate/paygate/services/auth/internal/secondfactor"
	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/keyring"
	"github.com/paygate/paygate/services/internal/sensitive"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/stepup"
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
	// LoginQueue is how many password checks may wait for a core (0: four
	// per core) and LoginQueueWait how long one waits; beyond either a
	// sign-in is answered 429 with Retry-After at once (load shedding).
	LoginQueue     int           `env:"PAYGATE_LOGIN_QUEUE" default:"0"`
	LoginQueueWait time.Duration `env:"PAYGATE_LOGIN_QUEUE_WAIT" default:"1s"`
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
	// EncryptionKeys is the keyring sealing TOTP secrets, "id:base64key,…"
	// (the first key seals); without it EncryptionKey is the one key, under
	// the id "default"; without either, demo mode uses the public demo key.
	EncryptionKeys string `env:"PAYGATE_ENCRYPTION_KEYS"`
	// EncryptionKey is base64 of 32 random bytes (see EncryptionKeys).
	EncryptionKey string `env:"PAYGATE_ENCRYPTION_KEY"`
	// SessionMaxLifetime is the session lifetime until an admin sets one
	// (the auth settings); the idle timeout's default is RefreshTTL.
	SessionMaxLifetime time.Duration `env:"PAYGATE_SESSION_MAX_LIFETIME" default:"168h"`
	// SecondFactorIPLimit is how many wrong second-factor codes one address
	// may send within 15 minutes before its code checks are locked (5 per
	// user, whatever the address).
	SecondFactorIPLimit int `env:"PAYGATE_SECOND_FACTOR_IP_LIMIT" default:"20"`
	// GatewayGRPCAddr and AggregatorGRPCAddr are where an approved request
	// of those services is applied (docs/contracts-approvals.md).
	GatewayGRPCAddr    string `env:"PAYGATE_GATEWAY_GRPC_ADDR" default:"127.0.0.1:9082"`
	AggregatorGRPCAddr string `env:"PAYGATE_AGGREGATOR_GRPC_ADDR" default:"127.0.0.1:9084"`
	// ApprovalTTL is how long an approval request waits before it expires.
	ApprovalTTL time.Duration `env:"PAYGATE_APPROVAL_TTL" default:"24h"`
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

// Check reports every value Load cannot judge on its own (config.Load
// reports them with the keys it cannot parse).
func (c Config) Check() []string {
	var problems []string
	if c.SecondFactorIPLimit < 1 {
		problems = append(problems, "PAYGATE_SECOND_FACTOR_IP_LIMIT must be at least 1")
	}
	if c.LoginQueue < 0 {
		problems = append(problems, "PAYGATE_LOGIN_QUEUE must be 0 (four per core) or more")
	}
	if c.LoginQueueWait <= 0 {
		problems = append(problems, "PAYGATE_LOGIN_QUEUE_WAIT must be positive")
	}
	if c.LoginIPLimit < 1 {
		problems = append(problems, "PAYGATE_LOGIN_IP_LIMIT must be at least 1")
	}
	if c.PasswordMinLen < identity.MinPasswordLen || c.PasswordMinLen > identity.MaxPasswordLen {
		problems = append(problems, fmt.Sprintf("PAYGATE_PASSWORD_MIN_LENGTH must be between %d and %d", identity.MinPasswordLen, identity.MaxPasswordLen))
	}
	if c.RefreshGrace > 10*time.Second {
		problems = append(problems, "PAYGATE_REFRESH_GRACE must be at most 10s")
	}
	if c.SessionCleanupInterval <= 0 || c.SessionRetention < 0 {
		problems = append(problems, "PAYGATE_SESSION_CLEANUP_INTERVAL must be positive and PAYGATE_SESSION_RETENTION not negative")
	}
	if c.RevocationRefillInterval <= 0 {
		problems = append(problems, "PAYGATE_REVOCATION_REFILL_INTERVAL must be positive")
	}
	if c.SessionMaxLifetime < identity.MinMaxLifetime || c.SessionMaxLifetime > identity.MaxMaxLifetime {
		problems = append(problems, "PAYGATE_SESSION_MAX_LIFETIME must be between 1h and 2160h")
	}
	if c.ApprovalTTL < time.Minute {
		problems = append(problems, "PAYGATE_APPROVAL_TTL must be at least 1m")
	}
	if c.GatewayGRPCAddr == "" || c.AggregatorGRPCAddr == "" {
		problems = append(problems, "PAYGATE_GATEWAY_GRPC_ADDR and PAYGATE_AGGREGATOR_GRPC_ADDR must not be empty")
	}
	if c.SigningKeyReload <= 0 {
		problems = append(problems, "PAYGATE_SIGNING_KEY_RELOAD_INTERVAL must be positive")
	}
	return problems
}

// run builds every dependency, serves until ctx ends and stops in reverse
// order (app.Run).
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	return app.Run(ctx, getenv, stdout, app.Service{
		Name: "auth", Config: &cfg, Defaults: []config.Option{config.Ports(":8081", ":9081")},
		Migrations: postgres.Migrations(), Schema: &cfg.Schema, Redis: true, NATS: true,
		Wire: func(ctx context.Context, p *app.Parts) error { return wire(ctx, cfg, p) },
	})
}

// wire builds the auth service on p's connections: the identity and passkey
// services, their gRPC and REST routes, the JWKS, the jobs and the loops that
// keep the revocations and the signing keys current.
func wire(ctx context.Context, cfg Config, p *app.Parts) error {
	store := postgres.New(p.Pool)
	signingKeys, err := store.SigningKeys(ctx)
	if err != nil {
		return err
	}
	keys, err := identity.NewKeySet(signingKeys)
	if err != nil {
		return err
	}
	revocations := authz.NewRedisRevocations(p.Redis)
	allowLists := authz.NewRedisAllowLists(p.Redis)
	svc, err := identity.NewService(store, keys, authredis.NewThrottle(p.Redis, cfg.RedisKeyPrefix+"throttle:"), revocations, p.Log, nil,
		identity.Config{AccessTTL: cfg.AccessTTL, RefreshTTL: cfg.RefreshTTL, RefreshGrace: cfg.RefreshGrace,
			MaxFailuresPerIP: cfg.LoginIPLimit, AllowLists: allowLists, PasswordMinLen: cfg.PasswordMinLen,
			MaxLifetime: cfg.SessionMaxLifetime, HashQueue: cfg.LoginQueue, HashWait: cfg.LoginQueueWait})
	if err != nil {
		return err
	}
	box, err := keyring.FromConfig("PAYGATE_ENCRYPTION_KEYS", cfg.EncryptionKeys, "PAYGATE_ENCRYPTION_KEY", cfg.EncryptionKey, cfg.Demo)
	if err != nil {
		return err
	}
	if err := seedUsers(ctx, cfg, store, p.Log); err != nil {
		return err
	}

	// --- Passkeys (WebAuthnService): the relying party, its rules merged
	// into the interceptor's, the gRPC service and its REST routes.
	passkeys, err := passkey.New(passkey.Config{RPID: cfg.WebAuthnRPID, RPDisplayName: "Paygate", Origins: cfg.WebAuthnOrigins},
		postgres.NewPasskeys(p.Pool), svc, p.Log, nil)
	if err != nil {
		return fmt.Errorf("PAYGATE_WEBAUTHN_RP_ID / PAYGATE_WEBAUTHN_ORIGINS: %w", err)
	}
	rules := maps.Clone(grpcapi.Rules)
	maps.Copy(rules, grpcapi.WebAuthnRules)
	// --- end passkeys (the rest of the wiring is in the registrations below)

	// The second factor (SecondFactorService): the code step of every
	// password sign-in, with its own throttle beside the password's.
	second := secondfactor.New(store, box, svc, authredis.NewThrottle(p.Redis, cfg.RedisKeyPrefix+"throttle:"), passkeys, p.Log, nil, secondfactor.Config{MaxWrongPerIP: cfg.SecondFactorIPLimit})
	svc.UseSecondStep(second)
	maps.Copy(rules, grpcapi.SecondFactorRules)
	maps.Copy(rules, grpcapi.SettingsRules)

	// Step-up and four-eyes approval (docs/contracts-approvals.md): the
	// confirmation service, the cfm claim of every access token, and the
	// applier that calls an approved request's owning service.
	var srv *server.Server
	selfAddr := func() string { g, _ := srv.Addrs(); return g }
	applier := grpcapi.NewApplier(func(pkg string) (string, error) {
		switch pkg {
		case "paygate.gateway.v1":
			return cfg.GatewayGRPCAddr, nil
		case "paygate.aggregator.v1":
			return cfg.AggregatorGRPCAddr, nil
		case "paygate.auth.v1":
			return selfAddr(), nil
		}
		return "", fmt.Errorf("no service owns package %s", pkg)
	})
	confirmations := confirmation.New(postgres.NewConfirmations(p.Pool), confirmPasskeys{passkeys}, second, box,
		grpcapi.DecodeRequest, func(c *sensitive.Claims) (string, error) {
			k := keys.CurrentKey()
			return authz.SignConfirmation(k.Private, k.ID, c)
		}, applier, p.Log, nil, confirmation.Config{ApprovalTTL: cfg.ApprovalTTL})
	if _, err := confirmations.Confirm(ctx, true); err != nil {
		return err
	}
	svc.UseConfirmations(confirmations.Confirm)

	// Auth's own sensitive methods (a user's roles, merchants and allowed IPs,
	// custom roles, approving a request) pass the same guard as the gateway's
	// and the aggregator's (docs/contracts-approvals.md).
	guard := stepup.New(stepup.Config{Tokens: authz.NewKeyConfirmationVerifier(keys.PublicKey),
		Store: stepup.NewPostgresStore(p.Pool), Log: p.Log.With("component", "stepup")})
	srv = p.Server(nil, authz.UnaryInterceptor(authz.NewKeyVerifier(keys.PublicKey), rules, revocations,
		authz.WithAllowLists(allowLists, server.ClientIP)), guard.Unary())
	srv.Register(&authv1.AuthService_ServiceDesc, grpcapi.NewServer(svc))
	srv.Register(&authv1.UserService_ServiceDesc, grpcapi.NewUserServer(svc))
	srv.Register(&authv1.SessionService_ServiceDesc, grpcapi.NewSessionServer(svc))
	srv.Register(&authv1.AllowedIpService_ServiceDesc, grpcapi.NewAllowedIPServer(svc))
	srv.Register(&authv1.RoleService_ServiceDesc, grpcapi.NewRoleServer(svc,
		roles.NewService(postgres.NewRoles(p.Pool), revocations, cfg.AccessTTL, p.Log, nil)))
	srv.Register(&authv1.SecondFactorService_ServiceDesc, grpcapi.NewSecondFactorServer(second))
	srv.Register(&authv1.AuthSettingsService_ServiceDesc, grpcapi.NewSettingsServer(svc))
	srv.Register(&authv1.ConfirmationService_ServiceDesc, grpcapi.NewConfirmationServer(svc, confirmations))
	srv.Register(&authv1.ApprovalService_ServiceDesc, grpcapi.NewApprovalServer(svc, confirmations))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return errors.Join(
			authv1.RegisterAuthServiceHandlerClient(ctx, mux, authv1.NewAuthServiceClient(cc)),
			authv1.RegisterUserServiceHandlerClient(ctx, mux, authv1.NewUserServiceClient(cc)),
			authv1.RegisterSessionServiceHandlerClient(ctx, mux, authv1.NewSessionServiceClient(cc)),
			authv1.RegisterAllowedIpServiceHandlerClient(ctx, mux, authv1.NewAllowedIpServiceClient(cc)),
			authv1.RegisterRoleServiceHandlerClient(ctx, mux, authv1.NewRoleServiceClient(cc)),
			authv1.RegisterSecondFactorServiceHandlerClient(ctx, mux, authv1.NewSecondFactorServiceClient(cc)),
			authv1.RegisterAuthSettingsServiceHandlerClient(ctx, mux, authv1.NewAuthSettingsServiceClient(cc)),
			authv1.RegisterConfirmationServiceHandlerClient(ctx, mux, authv1.NewConfirmationServiceClient(cc)),
			authv1.RegisterApprovalServiceHandlerClient(ctx, mux, authv1.NewApprovalServiceClient(cc)),
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

	// The background jobs (docs/jobs.md): one replica runs each, and every
	// run is reported through the outbox.
	if err := p.Jobs.Add(append(authJobs(cfg, store, bus.NewRelay(p.Pool, p.JetStream, p.Log)), approvalSweep(confirmations))...); err != nil {
		return err
	}
	// Revocations live in Redis, which may lose them; Postgres has them too.
	p.Go(func(ctx context.Context) error {
		return revocations.KeepRefilled(ctx, store.RevokedSessionsSince, cfg.AccessTTL, cfg.RevocationRefillInterval, p.Log)
	})
	// Signing keys added, activated or retired by "auth signing-keys".
	p.Go(func(ctx context.Context) error {
		return keys.KeepLoaded(ctx, store.SigningKeys, cfg.SigningKeyReload, p.Log)
	})
	return nil
}

// seedUsers creates the demo users in demo mode, and otherwise the first
// admin (with a temporary password) when there is no user yet.
func seedUsers(ctx context.Context, cfg Config, store *postgres.Store, log *slog.Logger) error {
	if cfg.Demo {
		n, err := identity.EnsureUsers(ctx, store, identity.DemoUsers, identity.DefaultArgon2)
		if err != nil {
			return fmt.Errorf("seed demo users: %w", err)
		}
		log.InfoContext(ctx, "demo users ready", "created", n)
		return nil
	}
	created, err := identity.BootstrapAdmin(ctx, store, cfg.AdminPassword, identity.DefaultArgon2)
	if err != nil {
		return err
	}
	if created {
		log.InfoContext(ctx, "created the first admin with a temporary password", "username", "admin")
	}
	return nil
}

// approvalSweep marks the pending approval requests past their expiry
// expired, every minute.
func approvalSweep(c *confirmation.Service) jobs.Job {
	return jobs.Job{
		Name:        "auth.approval-expiry",
		Description: "Marks the pending approval requests past their expiry (PAYGATE_APPROVAL_TTL) expired, every minute.",
		Every:       time.Minute,
		Run: func(ctx context.Context, run *jobs.Run) error {
			n, err := c.Sweep(ctx)
			if err != nil {
				return jobs.Failed(err, "The approval requests could not be expired; the next run tries again.")
			}
			run.Notifyf(jobs.LevelInformation, "Expired %d approval requests.", n)
			return nil
		},
	}
}

// confirmPasskeys adapts the passkey service to confirmation.Passkeys.
type confirmPasskeys struct{ *passkey.Service }

func (p confirmPasskeys) VerifyAssertion(ctx context.Context, userID int64, challenge, response []byte) (confirmation.Assertion, error) {
	a, err := p.Service.VerifyAssertion(ctx, userID, challenge, response)
	return confirmation.Assertion(a), err
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
