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
	"syscall"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/nats-io/nats.go"
	"github.com/redis/go-redis/v9"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/gateway/collab"
	"github.com/paygate/paygate/services/gateway/grpcapi"
	"github.com/paygate/paygate/services/gateway/merchant"
	"github.com/paygate/paygate/services/gateway/postgres"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/pgdb"
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
}

// run builds every dependency, serves until ctx ends, then stops.
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	if err := config.Load(getenv, &cfg, config.Ports(":8082", ":9082"), config.Default("PAYGATE_DATABASE_SCHEMA", postgres.Schema)); err != nil {
		return err
	}
	log := slog.New(slog.NewJSONHandler(stdout, &slog.HandlerOptions{Level: cfg.SlogLevel()}))

	if err := pgdb.Migrate(ctx, cfg.DatabaseURL, cfg.Schema, postgres.Migrations); err != nil {
		return err
	}
	pool, err := pgdb.Open(ctx, cfg.DatabaseURL, cfg.Schema)
	if err != nil {
		return err
	}
	defer pool.Close()
	store := postgres.NewStore(pool)
	if cfg.Demo {
		if err := store.SeedDemo(ctx); err != nil {
			return err
		}
		log.Info("demo merchants, providers and collabs seeded")
	}

	nc, js, err := bus.Connect(ctx, cfg.NATSURL)
	if err != nil {
		return err
	}
	defer nc.Close()
	if err := bus.EnsureStream(ctx, js); err != nil {
		return err
	}

	redisOpts, err := redis.ParseURL(cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("parse redis url: %w", err)
	}
	rdb := redis.NewClient(redisOpts)
	defer rdb.Close()

	verifier := authz.NewJWKSVerifier(cfg.JWKSURL, &http.Client{Timeout: 5 * time.Second})
	srv := server.New(server.Options{
		Name:             "gateway",
		GRPCAddr:         cfg.GRPCAddr,
		HTTPAddr:         cfg.HTTPAddr,
		CORSOrigins:      cfg.ConsoleOrigins,
		TrustedProxyHops: cfg.TrustedProxyHops,
		Logger:           log,
		Interceptors: []grpc.UnaryServerInterceptor{
			authz.UnaryInterceptor(verifier, grpcapi.Rules, authz.NewRedisRevocations(rdb)),
		},
	})
	collabs := collab.NewService(store, time.Now)
	srv.Register(&gatewayv1.GatewayService_ServiceDesc, grpcapi.NewServer(merchant.NewService(store), collabs))
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return gatewayv1.RegisterGatewayServiceHandlerClient(ctx, mux, gatewayv1.NewGatewayServiceClient(cc))
	})
	srv.AddReadyCheck("postgres", pool.Ping)
	srv.AddReadyCheck("redis", func(ctx context.Context) error { return rdb.Ping(ctx).Err() })
	srv.AddReadyCheck("nats", func(context.Context) error {
		if s := nc.Status(); s != nats.CONNECTED {
			return errors.New("nats connection is " + s.String())
		}
		return nil
	})

	relay := bus.NewRelay(pool, js, log)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error { return srv.Run(gctx) })
	g.Go(func() error { return relay.Run(gctx) })
	return g.Wait()
}
