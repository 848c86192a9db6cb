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
	"syscall"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/nats-io/nats.go/jetstream"
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
	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/jobs"
	"github.com/paygate/paygate/services/internal/server"
	"github.com/paygate/paygate/services/internal/stepup"
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

// Check reports every value Load cannot judge on its own (config.Load
// reports them with the keys it cannot parse).
func (c Config) Check() []string {
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
	if _, err := bus.ParseStart(c.EventsFrom); err != nil {
		problems = append(problems, "PAYGATE_AGGREGATOR_EVENTS_FROM: "+err.Error())
	}
	if _, err := c.Internal(); err != nil {
		problems = append(problems, err.Error())
	}
	return problems
}

// describe describes the aggregator to app.Run; command makes it the
// rebuild command (no listeners, server or jobs).
func describe(cfg *Config, command bool, wire func(ctx context.Context, p *app.Parts, c core) error) app.Service {
	return app.Service{
		Name: "aggregator", Config: cfg,
		Defaults:   []config.Option{config.Ports(":8084", ":9084"), config.Default("PAYGATE_DATABASE_SCHEMA", postgres.Schema)},
		Migrations: postgres.Migrations, Schema: &cfg.Schema, Redis: !command, NATS: !command, Command: command,
		Wire: func(ctx context.Context, p *app.Parts) error {
			c, err := newCore(*cfg, p)
			if err != nil {
				return err
			}
			return wire(ctx, p, c)
		},
	}
}

// core is what both the service and the rebuild command use: the
// statistics and their rebuilder, which replays the gateway's transactions.
type core struct {
	stats     *statistics.Service
	rebuilder *statistics.Rebuilder
}

func newCore(cfg Config, p *app.Parts) (core, error) {
	internalToken, _ := cfg.Internal() // checked by Config.Check
	gatewayConn, err := grpc.NewClient(cfg.GatewayGRPCAddr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithPerRPCCredentials(authz.InternalCredentials(internalToken)))
	if err != nil {
		return core{}, fmt.Errorf("PAYGATE_GATEWAY_GRPC_ADDR: %w", err)
	}
	p.Defer(func() { _ = gatewayConn.Close() })
	store := postgres.NewStore(p.Pool)
	stats := statistics.NewService(store)
	rebuilder := statistics.NewRebuilder(stats, store, gatewayclient.NewReplay(gatewayv1.NewReplayServiceClient(gatewayConn)),
		p.Log.With("component", "rebuild"))
	rebuilder.Span, rebuilder.Parallel = cfg.RebuildSpan, cfg.RebuildParallel
	return core{stats: stats, rebuilder: rebuilder}, nil
}

// rebuild is the rebuild command: it replays the statistics from the
// gateway and returns.
func rebuild(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	return app.Run(ctx, getenv, stdout, describe(&cfg, true, func(ctx context.Context, _ *app.Parts, c core) error {
		return c.rebuilder.Rebuild(ctx)
	}))
}

// run builds every dependency, serves until ctx ends, then stops (app.Run).
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	return app.Run(ctx, getenv, stdout, describe(&cfg, false, func(ctx context.Context, p *app.Parts, c core) error {
		return wire(ctx, cfg, p, c)
	}))
}

// wire builds the aggregator on p's connections: the statistics and job
// stats services, their routes, and the jobs that consume the events.
func wire(ctx context.Context, cfg Config, p *app.Parts, c core) error {
	flags, err := aggnats.OpenFlags(ctx, p.JetStream)
	if err != nil {
		return err
	}
	jobStats := jobstats.NewService(postgres.NewStore(p.Pool), flags, time.Now)
	verifier := authz.NewJWKSVerifier(cfg.JWKSURL, &http.Client{Timeout: 5 * time.Second})
	// Sensitive changes (docs/contracts-approvals.md): confirmation tokens
	// are signed with the access tokens' keys; used ones are kept in
	// used_confirmations.
	confirmations := stepup.New(stepup.Config{Tokens: authz.Confirmations(verifier),
		Store: stepup.NewPostgresStore(p.Pool), Log: p.Log.With("component", "stepup")})
	confirmations.Observe(grpcapi.MethodSetJobEnabled, grpcapi.ObserveJob(jobStats))
	srv := p.Server(nil, authz.UnaryInterceptor(verifier, grpcapi.Rules, authz.NewRedisRevocations(p.Redis),
		authz.WithAllowLists(authz.NewRedisAllowLists(p.Redis), server.ClientIP)), confirmations.Unary())
	srv.Register(&aggregatorv1.StatisticsService_ServiceDesc, grpcapi.NewStatistics(c.stats))
	srv.Register(&aggregatorv1.JobService_ServiceDesc, grpcapi.NewJobs(jobStats))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		if err := aggregatorv1.RegisterStatisticsServiceHandlerClient(ctx, mux, aggregatorv1.NewStatisticsServiceClient(cc)); err != nil {
			return err
		}
		return aggregatorv1.RegisterJobServiceHandlerClient(ctx, mux, aggregatorv1.NewJobServiceClient(cc))
	})

	from, _ := bus.ParseStart(cfg.EventsFrom) // checked by Config.Check
	opts := aggnats.Options{BatchSize: cfg.BatchSize, Linger: cfg.BatchLinger, From: from}
	loops := loops{js: p.JetStream, group: cfg.Schema, stats: c.stats, jobStats: jobStats, rebuilder: c.rebuilder, opts: opts, log: p.Log}
	// The background jobs (docs/jobs.md): one replica runs each, and every
	// run is reported through the outbox, like every other service's.
	return p.Jobs.Add(loops.backgroundJobs(cfg, bus.NewRelay(p.Pool, p.JetStream, p.Log))...)
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
		{
			Name:        "aggregator.minute-prune",
			Description: "Deletes the statistics' minute buckets older than 49 hours (ranges on whole minutes reach 48 hours back).",
			Every:       10 * time.Minute,
			Run: func(ctx context.Context, run *jobs.Run) error {
				n, err := l.stats.PruneMinutes(ctx)
				if err != nil {
					return jobs.Failed(err, "The minute buckets could not be pruned; the next run tries again.")
				}
				if n > 0 {
					run.Notifyf(jobs.LevelInformation, "Deleted %d minute buckets.", n)
				}
				return nil
			},
		},
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
