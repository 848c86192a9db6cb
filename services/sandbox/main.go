// Command sandbox plays the payment providers (GoVip, QRPh, FbPay, HumPas,
// Crypto Manager, Crypto Sender, RollingPay) over plain HTTP for demos and
// end-to-end tests: payments, their status, balances, and status webhooks
// pushed to the gateway. It also plays a demo merchant: validation endpoints
// that approve, reject or answer slowly, and a callback receiver that checks
// signatures and lists what it received. It keeps nothing durable. See
// docs/contracts-transactions.md and docs/contracts-validation.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/paygate/paygate/services/internal/app"
	"github.com/paygate/paygate/services/sandbox/internal/httpapi"
	"github.com/paygate/paygate/services/sandbox/internal/simulator"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Getenv, os.Stdout)
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "sandbox:", err)
		os.Exit(1)
	}
}

// Config is the sandbox's configuration.
type Config struct {
	// HTTPAddr is the listen address.
	HTTPAddr string `env:"PAYGATE_HTTP_ADDR" default:":8085"`
	// LogLevel is debug, info, warn or error.
	LogLevel string `env:"PAYGATE_LOG_LEVEL" default:"info" oneof:"debug,info,warn,error"`
	// GatewayURL is where webhooks go.
	GatewayURL string `env:"PAYGATE_SANDBOX_GATEWAY_URL" default:"http://127.0.0.1:8082"`
	// WebhookSecret is the shared secret webhooks carry.
	WebhookSecret string `env:"PAYGATE_SANDBOX_WEBHOOK_SECRET" default:"sandbox-webhook-secret"`
	// Outcome is every provider's default outcome.
	Outcome string `env:"PAYGATE_SANDBOX_OUTCOME" default:"success"`
	// Latency delays every answer.
	Latency time.Duration `env:"PAYGATE_SANDBOX_LATENCY" default:"0s"`
	// PendingFor is how long pending payments stay pending.
	PendingFor time.Duration `env:"PAYGATE_SANDBOX_PENDING_FOR" default:"3s"`
	// Webhooks turns the pushing of webhooks on or off.
	Webhooks bool `env:"PAYGATE_SANDBOX_WEBHOOKS" default:"true"`
	// Providers overrides per provider: "govip=pending-success/200ms,qrph=failed".
	Providers []string `env:"PAYGATE_SANDBOX_PROVIDERS"`
}

// behaviours returns the default behaviour and the per-provider ones.
func (c Config) behaviours() (simulator.Behaviour, map[string]simulator.Behaviour, error) {
	o, err := simulator.ParseOutcome(c.Outcome)
	if err != nil {
		return simulator.Behaviour{}, nil, fmt.Errorf("PAYGATE_SANDBOX_OUTCOME: %w", err)
	}
	def := simulator.Behaviour{Outcome: o, Latency: c.Latency, PendingFor: c.PendingFor, Webhook: c.Webhooks}
	per := map[string]simulator.Behaviour{}
	for _, item := range c.Providers {
		seg, spec, ok := strings.Cut(item, "=")
		seg = strings.TrimSpace(seg)
		if _, known := (&simulator.Simulator{}).Provider(seg); !ok || !known {
			return def, nil, fmt.Errorf("PAYGATE_SANDBOX_PROVIDERS: %q is not provider=outcome[/latency]", item)
		}
		b := def
		outcome, latency, hasLatency := strings.Cut(spec, "/")
		if b.Outcome, err = simulator.ParseOutcome(outcome); err != nil {
			return def, nil, fmt.Errorf("PAYGATE_SANDBOX_PROVIDERS: %w", err)
		}
		if hasLatency {
			if b.Latency, err = time.ParseDuration(latency); err != nil {
				return def, nil, fmt.Errorf("PAYGATE_SANDBOX_PROVIDERS: %w", err)
			}
		}
		per[seg] = b
	}
	return def, per, nil
}

// run serves until ctx ends (app.Run: the sandbox has no database, Redis or
// NATS, so it gets the configuration, the logger, its loops and the
// shutdown).
func run(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
	var cfg Config
	return app.Run(ctx, getenv, stdout, app.Service{
		Name: "sandbox", Config: &cfg,
		LogLevel: func() slog.Level {
			var level slog.Level
			_ = level.UnmarshalText([]byte(cfg.LogLevel))
			return level
		},
		Wire: func(ctx context.Context, p *app.Parts) error { return wire(ctx, cfg, p) },
	})
}

// wire starts the simulator's HTTP server and its webhook notifier.
func wire(ctx context.Context, cfg Config, p *app.Parts) error {
	def, per, err := cfg.behaviours()
	if err != nil {
		return err
	}
	sim := simulator.New(def, per, time.Now)

	var lc net.ListenConfig
	lis, err := lc.Listen(ctx, "tcp", cfg.HTTPAddr)
	if err != nil {
		return fmt.Errorf("listen http %s: %w", cfg.HTTPAddr, err)
	}
	srv := &http.Server{Handler: httpapi.Handler(sim, p.Log), ReadHeaderTimeout: 10 * time.Second}
	const webhookConcurrency = 16
	tr := &http.Transport{MaxIdleConnsPerHost: webhookConcurrency}
	p.Defer(tr.CloseIdleConnections)
	notifier := &httpapi.Notifier{Sim: sim, GatewayURL: cfg.GatewayURL, Secret: cfg.WebhookSecret,
		Client: &http.Client{Transport: tr, Timeout: 10 * time.Second}, Log: p.Log, Interval: 50 * time.Millisecond,
		Concurrency: webhookConcurrency}

	p.Go(func(context.Context) error {
		if err := srv.Serve(lis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve http: %w", err)
		}
		return nil
	})
	p.Go(notifier.Run)
	p.Go(func(ctx context.Context) error {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	})
	p.Log.Info("serving", "http_addr", lis.Addr().String())
	p.Defer(func() { p.Log.Info("stopped") })
	return nil
}
