// Command aggregator runs the aggregator service: the Financial Dashboard's
// statistics, rolled up from the gateway's transaction events, and the stats
// of every service's background jobs (docs/contracts-statistics.md,
// docs/contracts-jobs.md, docs/statistics.md).
//
// "aggregator rebuild" empties the statistics, replays them from the
// gateway and exits; the service also does so by itself when its schema is
// new (or a rebuild did not finish) and the gateway has transactions.
package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	aggregatorv1 "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/aggregator/internal/gatewayclient"
	"github.com/paygate/paygate/services/aggregator/internal/grpcapi"
	"github.com/paygate/paygate/services/aggregator/internal/jobstats"
	aggnats "github.com/paygate/paygate/services/aggregator/internal/nats"
	"github.com/paygate/paygate/services/aggregator/internal/postgres"
	"github.com/paygate/paygate/services/aggregator/internal/statistics"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/pgdb"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/telemetry"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	switch {
	case len(os.Args) > 1 && os.Args[1] == "rebuild":
		err = rebuild(ctx, os.Getenv, os.Stdout)
	case len(os.Args) > 1:
		err = fmt.Errorf("unknown command %q: run without arguments to serve, or with rebuild", os.Args[1])
	default:
		err = run(ctx, os.Getenv, os.Stdout)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "aggregator:", err)
		os.Exit(1)
	}
}

// Config is the aggregator's configuration: the shared keys, with its
// ports as defaults, and its own.
type Config struct {
	config.Common
	// Schema is the Postgres schema the service owns (tests use their own).
	Schema string `env:"PAYGATE_DATABASE_SCHEMA"`
	// GatewayGRPCAddr is the gateway's gRPC address, where a rebuild reads
	// its transactions and rates (ReplayService).
	GatewayGRPCAddr string `env:"PAYGATE_GATEWAY_GRPC_ADDR" default:"127.0.0.1:9082"`
	// EventsFrom is where the event consumers start when they are first
	// made: "all" events the stream holds, "new" ones, or those since an
	// RFC 3339 time.
	EventsFrom string `env:"PAYGATE_AGGREGATOR_EVENTS_FROM" default:"all"`
	// BatchSize is the most transaction events applied in one Postgres
	// transaction.
	BatchSize int `env:"PAYGATE_AGGREGATOR_BATCH_SIZE" default:"500"`
	// BatchLinger is how long a batch of events waits to fill.
	BatchLinger time.Duration `env:"PAYGATE_AGGREGATOR_BATCH_LINGER" default:"50ms"`
	// AutoRebuild rebuilds at start when the schema is new and the gateway
	// has transactions.
	AutoRebuild bool `env:"PAYGATE_AGGREGATOR_AUTO_REBUILD" default:"true"`
	// RebuildSpan is how many transaction ids one replay call covers, and
	// RebuildParallel how many calls are in flight.
	RebuildSpan     int64 `env:"PAYGATE_AGGREGATOR_REBUILD_SPAN" default:"100000"`
	RebuildParallel int   `env:"PAYGATE_AGGREGATOR_REBUILD_PARALLEL" default:"4"`
}

// check reports every value Load cannot judge on its own.
func (c Config) check() error {
	var problems []string
	if c.BatchSize < 1 {
		problems = append(problems, "PAYGATE_AGGREGATOR_BATCH_SIZE must be at least 1")
	}
	if c.BatchLinger <= 0 {
		problems = append(problems, "PAYGATE_AGGREGATOR_BATCH_LINGER must be positive")
	}
	if c.RebuildSpan < 1 || c.RebuildParallel < 1 {
		problems = append(problems, "PAYGATE_AGGREGATOR_REBUILD_SPAN and PAYGATE_AGGREGATOR_REBUILD_PARALLEL must be at least 1")
	}
	if _, err := aggnats.ParseFrom(c.EventsFrom); err != nil {
		problems = append(problems, "PAYGATE_AGGREGATOR_EVENTS_FROM: "+err.Error())
	}
	if _, err := c.Internal(); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("config: %s", strings.Join(problems, "; "))
	}
	return nil
}

func loadConfig(getenv func(string) string) (Config, error) {
	var cfg Config
	if err := config.Load(getenv, &cfg, config.Ports(":8084", ":9084"), config.Default("PAYGATE_DATABASE_SCHEMA", postgres.Schema)); err != nil {
		return cfg, err
	}
	return cfg, cfg.check()
}

// deps are what both the service and the rebuild command use.
type deps struct {
	cfg       Config
	log       *slog.Logger
	pool      *pgxpool.Pool
	stats     *statistics.Service
	rebuilder *statistics.Rebuilder
	// startup holds the service's ports until its server runs (nil for the
	// rebuild command).
	startup *server.Startup
	close   func()
}

// open migrates the schema and connects to Postgres and the gateway. With
// probes (the service, not the rebuild command) it first binds the
// service's ports and answers probes on them (live, not ready) while the
// schema migrates, which may take longer than the startup probe's budget;
// run's server takes them over.
func open(ctx context.Context, getenv func(string) string, stdout io.Writer, probes bool) (_ *deps, err error) {
	cfg, err := loadConfig(getenv)
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.SlogLevel()}))
	var startup *server.Startup
	if probes {
		if startup, err = server.Start(server.OptionsFrom("aggregator", cfg.Common, log, nil)); err != nil {
			return nil, err
		}
		defer func() {
			if err != nil {
				startup.Close()
			}
		}()
	}
	if err := pgdb.Migrate(ctx, cfg.DatabaseURL, cfg.Schema, postgres.Migrations, pgdb.WithLogger(log)); err != nil {
		return nil, err
	}
	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, cfg.Schema)
	if err != nil {
		return nil, err
	}
	internalToken, _ := cfg.Internal() // checked by cfg.check
	gatewayConn, err := grpc.NewClient(cfg.GatewayGRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(authz.InternalCredentials(internalToken)))
	if err != nil {
		pool.Close()
		return nil, fmt.Errorf("PAYGATE_GATEWAY_GRPC_ADDR: %w", err)
	}
	store := postgres.NewStore(pool)
	stats := statistics.NewService(store)
	rebuilder := statistics.NewRebuilder(stats, store, gatewayclient.NewReplay(gatewayv1.NewReplayServiceClient(gatewayConn)),
		log.With("component", "rebuild"))
	rebuilder.Span, rebuilder.Parallel = cfg.RebuildSpan, cfg.RebuildParallel
	return &deps{cfg: cfg, log: log, pool: pool, stats: stats, rebuilder: rebuilder, startup: startup, close: func() {
		_ = gatewayConn.Close()
		pool.Close()
		if startup != nil {
			startup.Close()
		}
	}}, nil
}

// rebuild is the rebuild command: it replays the statistics from the
// gateway and returns.
func rebuild(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	d, err := open(ctx, getenv, stdout, false)
	if err != nil {
		return err
	}
	defer d.close()
	return d.rebuilder.Rebuild(ctx)
}

// run builds every dependency, serves until ctx ends, then stops.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	d, err := open(ctx, getenv, stdout, true)
	if err != nil {
		return err
	}
	defer d.close()
	cfg, log := d.cfg, d.log

	nc, js, err := bus.Connect(ctx, cfg.NATSURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := bus.EnsureStreamReplicas(ctx, js, cfg.NATSStreamReplicas); err != nil {
		return err
	}
	flags, err := aggnats.OpenFlags(ctx, js)
	if err != nil {
		return err
	}

	redisOpts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("parse redis url: %w", err)
	}
	rdb := redis.NewClient(redisOpts)
	defer rdb.Close()

	tracing, err := telemetry.Setup("aggregator", cfg.TracingEndpoint)
	if err != nil {
		return fmt.Errorf("PAYGATE_OTLP_ENDPOINT: %w", err)
	}
	defer tracing.Close()

	jobStats := jobstats.NewService(postgres.NewStore(d.pool), flags, time.Now)
	verifier := authz.NewJWKSVerifier(cfg.JWKSURL, &http.Client{Timeout: 5 * time.Second})
	srvOpts := server.OptionsFrom("aggregator", cfg.Common, log, tracing,
		authz.UnaryInterceptor(verifier, grpcapi.Rules, authz.NewRedisRevocations(rdb),
			authz.WithAllowLists(authz.NewRedisAllowLists(rdb), server.ClientIP)))
	srvOpts.Startup = d.startup
	srv := server.New(srvOpts)
	srv.Register(&aggregatorv1.StatisticsService_ServiceDesc, grpcapi.NewStatistics(d.stats))
	srv.Register(&aggregatorv1.JobService_ServiceDesc, grpcapi.NewJobs(jobStats))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		if err := aggregatorv1.RegisterStatisticsServiceHandlerClient(ctx, mux, aggregatorv1.NewStatisticsServiceClient(cc)); err != nil {
			return err
		}
		return aggregatorv1.RegisterJobServiceHandlerClient(ctx, mux, aggregatorv1.NewJobServiceClient(cc))
	})
	srv.AddReadyCheck("postgres", d.pool.Ping)
	srv.AddReadyCheck("redis", func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
	srv.AddReadyCheck("nats", bus.Connected(nc))

	from, _ := aggnats.ParseFrom(cfg.EventsFrom) // checked by cfg.check
	opts := aggnats.Options{BatchSize: cfg.BatchSize, Linger: cfg.BatchLinger, From: from}
	loops := loops{js: js, group: cfg.Schema, stats: d.stats, jobStats: jobStats, rebuilder: d.rebuilder, opts: opts, log: log}

	// The background jobs (docs/jobs.md): one replica runs each, and every
	// run is reported through the outbox, like every other service's.
	runner := jobs.NewRunner("aggregator", d.pool, js, jobs.Options{Logger: log})
	if err := runner.Add(loops.backgroundJobs(cfg, bus.NewRelay(d.pool, js, log))...); err != nil {
		return err
	}
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(gctx) })
	g.Go(func() error { return runner.Run(gctx) })
	return g.Wait()
}

// backgroundJobs are the aggregator's background jobs: the two consumers run
// continuously (one replica at a time, so one writer of the rollups), the
// rebuild check every minute when automatic rebuilds are on.
func (l loops) backgroundJobs(cfg Config, relay *bus.Relay) []jobs.Job {
	list := []jobs.Job{
		{
			Name:        "aggregator.statistics-consumer",
			Description: "Applies the gateway's transaction events and currency rates to the statistics rollups.",
			Continuous:  true,
			Run: func(ctx context.Context, run *jobs.Run) error {
				return untilStopping(ctx, run, l.statisticsConsumer)
			},
		},
		{
			Name:        "aggregator.job-events-consumer",
			Description: "Applies every service's job run events to the job stats the Jobs page shows.",
			Continuous:  true,
			Run: func(ctx context.Context, run *jobs.Run) error {
				return untilStopping(ctx, run, l.jobEventsConsumer)
			},
		},
		jobs.OutboxRelay("aggregator", relay),
	}
	if cfg.AutoRebuild {
		list = append(list, jobs.Job{
			Name:        "aggregator.rebuild",
			Description: "Rebuilds the statistics from the gateway's transactions when the schema is new or a rebuild was interrupted.",
			Every:       time.Minute,
			Run: func(ctx context.Context, run *jobs.Run) error {
				if err := l.rebuilder.RebuildIfNeeded(ctx); err != nil {
					return jobs.Failed(err, "The rebuild did not finish and is tried again at the next run.")
				}
				return nil
			},
		})
	}
	return list
}

// untilStopping runs loop until the job's run is asked to stop (its lease
// ended, it was disabled, or the process stops). Events in flight are not
// acknowledged when it stops, so JetStream delivers them again.
func untilStopping(ctx context.Context, run *jobs.Run, loop func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-run.Stopping():
			cancel()
		case <-ctx.Done():
		}
	}()
	err := loop(ctx)
	if ctx.Err() != nil || err == nil {
		return nil
	}
	return jobs.Failed(err, "The consumer stopped on an error; the next run starts it again.")
}

// loops are the service's background work, each a function that runs until
// ctx ends (or, for the rebuild, until it is done), so that a job runner can
// hold them as aggregator.statistics-consumer, aggregator.job-events-consumer
// and aggregator.rebuild.
type loops struct {
	js        jetstream.JetStream
	group     string
	stats     *statistics.Service
	jobStats  *jobstats.Service
	rebuilder *statistics.Rebuilder
	opts      aggnats.Options
	log       *slog.Logger
}

// statisticsConsumer applies transaction events and currency rates.
func (l loops) statisticsConsumer(ctx context.Context) error {
	g, gctx := errgroup.WithContext(ctx)
	o := l.opts
	o.Logger = l.log.With("component", "statistics-consumer")
	g.Go(func() error { return aggnats.RunTransactions(gctx, l.js, l.group, l.stats.Apply, o) })
	g.Go(func() error { return aggnats.RunRates(gctx, l.js, l.group, l.stats.ApplyRates, o) })
	return g.Wait()
}

// jobEventsConsumer applies every service's job run events.
func (l loops) jobEventsConsumer(ctx context.Context) error {
	o := l.opts
	o.Logger = l.log.With("component", "job-events-consumer")
	return aggnats.RunJobs(ctx, l.js, l.group, l.jobStats, o)
}
