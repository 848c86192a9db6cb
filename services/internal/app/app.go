// Package app runs a Paygate service: the start-up and the shutdown every
// service shares, so that a service's run only wires its own parts.
//
// Run goes through the same steps for every service, in this order:
//
//  1. the configuration (config.Load: every bad key in one error);
//  2. the JSON logger at PAYGATE_LOG_LEVEL, tagged with the service's name;
//  3. the listeners, which answer probes (live, not ready) while the rest
//     starts: migrations may take longer than a startup probe's budget;
//  4. the migrations of the service's schema, then the Postgres pool (and
//     the read pool of PAYGATE_DATABASE_READ_URL when it names a replica);
//  5. Redis and NATS JetStream (with the events stream's replicas), when the
//     service uses them, and tracing;
//  6. the jobs runner (a service with a database and NATS);
//  7. the service's Wire, which builds its parts on these connections,
//     makes its server and adds its jobs and its loops;
//  8. the server (which takes over the probes' listeners once its routes are
//     all registered), the jobs runner and the loops, until ctx ends or one
//     of them fails;
//  9. the shutdown, in the reverse order of the start: what Wire deferred,
//     then tracing, NATS, Redis, the pool and the listeners.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"slices"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"

	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/telemetry"
)

// Service describes a service to Run.
type Service struct {
	// Name is the service's name ("gateway"): its logs' service attribute,
	// its server's and its jobs runner's name.
	Name string
	// Config points to the service's configuration struct. A struct that
	// embeds config.Common gets the shared steps (listeners, database,
	// Redis, NATS, tracing); one that does not (the sandbox) gets the
	// logger, the loops and the shutdown only, and names its log level
	// with LogLevel.
	Config any
	// Defaults are the service's own defaults (its ports, its schema).
	Defaults []config.Option
	// Migrations are the migrations of the service's schema; nil for a
	// service without a database.
	Migrations fs.FS
	// Schema points to the configuration's schema field (set with
	// Migrations).
	Schema *string
	// ReadPool says whether the service routes its lag-tolerant reads to
	// PAYGATE_DATABASE_READ_URL (Parts.ReadPool); a service that does not
	// opens no second pool whatever the setting.
	ReadPool bool
	// Redis and NATS say whether the service connects to them.
	Redis, NATS bool
	// LogLevel returns the log level of a configuration without
	// config.Common (nil: info).
	LogLevel func() slog.Level
	// Command makes Run a one-off command on the service's connections
	// ("aggregator rebuild"): no listeners, server, jobs or loops; Run
	// returns once Wire has, with Wire's error.
	Command bool
	// Wire builds the service's parts on the connections in p: it makes
	// the server (p.Server), adds jobs (p.Jobs) and loops (p.Go), and defers
	// what must close (p.Defer). An error stops the start.
	Wire func(ctx context.Context, p *Parts) error
}

// Parts are what Run gives a service's Wire.
type Parts struct {
	// Log is the service's logger.
	Log *slog.Logger
	// Pool is the Postgres pool on the service's schema (nil without
	// Migrations).
	Pool *pgxpool.Pool
	// ReadPool is the pool of the reads that tolerate a replica's lag
	// (PAYGATE_DATABASE_READ_URL, with Service.ReadPool): read-only
	// sessions on the replica, or Pool itself when no replica is
	// configured. Never for writes, nor for
	// a read that decides a write.
	ReadPool *pgxpool.Pool
	// Redis is the Redis client (nil unless Service.Redis).
	Redis *redis.Client
	// NATS and JetStream are the NATS connection and its JetStream (nil
	// unless Service.NATS).
	NATS      *nats.Conn
	JetStream jetstream.JetStream
	// Tracing is the service's tracing (a no-op without an endpoint).
	Tracing *telemetry.Tracing
	// Jobs is the service's jobs runner (nil without a database and NATS):
	// Wire adds the service's jobs, Run runs them.
	Jobs *jobs.Runner

	name    string
	base    *slog.Logger // Log without the service attribute, which the server adds itself
	common  *config.Common
	startup *server.Startup
	srv     *server.Server
	loops   []func(context.Context) error
	closers []func()
}

// shared is a configuration that embeds config.Common.
type shared interface {
	Shared() *config.Common
}

// Server makes the service's server on the shared configuration with
// interceptors (the callers' checks, authz.UnaryInterceptor), lets configure
// change its options (stream interceptors, say), and adds the readiness
// checks of the connections Run made. It takes over the listeners that
// answered the probes. A service makes one server.
func (p *Parts) Server(configure func(*server.Options), interceptors ...grpc.UnaryServerInterceptor) *server.Server {
	if p.srv != nil {
		panic("app: the service made a second server")
	}
	o := server.OptionsFrom(p.name, *p.common, p.base, p.Tracing, interceptors...)
	o.Startup = p.startup
	if configure != nil {
		configure(&o)
	}
	p.srv = server.New(o)
	if p.Pool != nil {
		p.srv.AddReadyCheck("postgres", p.Pool.Ping)
	}
	if p.Redis != nil {
		rdb := p.Redis
		p.srv.AddReadyCheck("redis", func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
	}
	if p.NATS != nil {
		p.srv.AddReadyCheck("nats", bus.Connected(p.NATS))
	}
	return p.srv
}

// Go runs loop beside the server until the service stops (ctx ends); an
// error from it stops the service.
func (p *Parts) Go(loop func(ctx context.Context) error) { p.loops = append(p.loops, loop) }

// Defer runs f when the service stops, after the server, the jobs and the
// loops ended and before the connections close; the last deferred runs
// first.
func (p *Parts) Defer(f func()) { p.closers = append(p.closers, f) }

// Run starts svc, serves until ctx ends or a part fails, then stops it (the
// steps are in the package's doc). Its error is the first that stopped the
// service; it is nil when ctx ended.
func Run(ctx context.Context, getenv func(string) string, stdout io.Writer, svc Service) (err error) {
	if err := config.Load(getenv, svc.Config, svc.Defaults...); err != nil {
		return err
	}
	p := &Parts{name: svc.Name}
	defer func() {
		for _, f := range slices.Backward(p.closers) {
			f()
		}
	}()
	level := slog.LevelInfo
	if c, ok := svc.Config.(shared); ok {
		p.common = c.Shared()
		level = p.common.SlogLevel()
	} else if svc.LogLevel != nil {
		level = svc.LogLevel()
	}
	p.base = slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: level}))
	p.Log = p.base.With("service", svc.Name)
	if p.common != nil {
		if err := p.open(ctx, svc); err != nil {
			return err
		}
	}
	if err := svc.Wire(ctx, p); err != nil {
		return err
	}
	if svc.Command {
		return nil
	}
	if p.common != nil && p.srv == nil {
		return fmt.Errorf("app: %s made no server", svc.Name)
	}
	g, gctx := errgroup.WithContext(ctx)
	if p.srv != nil {
		g.Go(func() error { return p.srv.Run(gctx) })
	}
	if p.Jobs != nil {
		g.Go(func() error { return p.Jobs.Run(gctx) })
	}
	for _, loop := range p.loops {
		g.Go(func() error { return loop(gctx) })
	}
	return g.Wait()
}

// open makes the shared connections of a service with config.Common, each
// closed by the deferred closers in the reverse order.
func (p *Parts) open(ctx context.Context, svc Service) error {
	c := p.common
	if !svc.Command {
		startup, err := server.Start(server.OptionsFrom(svc.Name, *c, p.base, nil))
		if err != nil {
			return err
		}
		p.startup = startup
		p.Defer(startup.Close)
	}

	if svc.Migrations != nil {
		if svc.Schema == nil {
			return errors.New("app: a service with migrations names its schema")
		}
		if err := pgdb.Migrate(ctx, c.DatabaseURL, *svc.Schema, svc.Migrations, pgdb.WithLogger(p.Log)); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		pool, err := pgdb.Open(ctx, c.DatabaseURL, *svc.Schema)
		if err != nil {
			return err
		}
		p.Pool, p.ReadPool = pool, pool
		p.Defer(pool.Close)
		if svc.ReadPool && c.SeparateReads() {
			reads, err := pgdb.OpenReadOnly(ctx, c.DatabaseReadURL, *svc.Schema)
			if err != nil {
				return fmt.Errorf("%s: %w", config.KeyDatabaseReadURL, err)
			}
			p.ReadPool = reads
			p.Defer(reads.Close)
		}
	}
	if svc.Redis {
		opts, err := redis.ParseURL(c.RedisURL)
		if err != nil {
			return fmt.Errorf("%s: %w", config.KeyRedisURL, err)
		}
		rdb := redis.NewClient(opts)
		p.Redis = rdb
		p.Defer(func() { _ = rdb.Close() })
	}
	if svc.NATS {
		nc, js, err := bus.Connect(ctx, c.NATSURL)
		if err != nil {
			return err
		}
		p.NATS, p.JetStream = nc, js
		p.Defer(nc.Close)
		if err := bus.EnsureStreamReplicas(ctx, js, c.NATSStreamReplicas); err != nil {
			return err
		}
	}
	tracing, err := telemetry.Setup(svc.Name, c.TracingEndpoint)
	if err != nil {
		return fmt.Errorf("PAYGATE_OTLP_ENDPOINT: %w", err)
	}
	p.Tracing = tracing
	p.Defer(tracing.Close)
	if p.Pool != nil && p.JetStream != nil && !svc.Command {
		p.Jobs = jobs.NewRunner(svc.Name, p.Pool, p.JetStream, jobs.Options{Logger: p.Log})
	}
	return nil
}
