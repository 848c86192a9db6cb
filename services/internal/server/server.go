// Package server runs a Paygate service: gRPC on one port; REST
// (grpc-gateway), /healthz, /readyz and Prometheus /metrics on another; gRPC
// health; graceful shutdown.
//
// REST calls reach the service through an in-process gRPC channel with the
// very interceptor chain of direct gRPC calls, so authorization, error
// mapping, logging and metrics are the same for both. The chain, outermost
// first: recovery (panic → Internal), metrics, request logging (which also
// resolves ClientInfo), apperr → gRPC status mapping, then
// Options.Interceptors (authorization).
//
// Lifecycle: New, then Register / RegisterGateway / Handle / AddReadyCheck,
// then optionally Listen (binds both ports, after which Addrs reports them;
// tests listen on 127.0.0.1:0), then Run, which listens if needed and serves
// until its context ends. A service whose start takes long (migrations)
// binds its ports first with Start, which answers the probes as live and not
// ready meanwhile, and hands them to the Server through Options.Startup.
//
// Health: gRPC health of the whole server ("", what the startup and
// liveness probes ask) is SERVING from Start or Run until shutdown: the
// process is alive. /readyz and the gRPC health of each registered service
// follow the readiness checks, so a dependency that is down takes the pod out
// of the load balancer without getting it restarted.
package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/http/pprof"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fullstorydev/grpchan/inprocgrpc"
	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"golang.org/x/sync/errgroup"
	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/paygate/paygate/services/internal/telemetry"
	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// Timing of the runner.
const (
	// ShutdownTimeout bounds graceful shutdown; calls still running then are
	// cut off.
	ShutdownTimeout = 10 * time.Second
	// ReadyCheckTimeout bounds one readiness check.
	ReadyCheckTimeout = 2 * time.Second
	// ReadyCheckInterval is how often gRPC health is refreshed from the
	// readiness checks.
	ReadyCheckInterval = 5 * time.Second
	// MaxBodyBytes bounds the request bodies of every HTTP route
	// (guardBody).
	MaxBodyBytes = 4 << 20
)

// Options configure a Server.
type Options struct {
	// Name names the service in logs, e.g. "gateway".
	Name string
	// GRPCAddr and HTTPAddr are the listen addresses ("127.0.0.1:0" picks a
	// free port).
	GRPCAddr, HTTPAddr string
	// CORSOrigins are the browser origins allowed to call REST.
	CORSOrigins []string
	// TrustedProxyHops is how many right-most X-Forwarded-For entries are our
	// own proxies (see ClientInfo).
	TrustedProxyHops int
	// Logger receives request and lifecycle logs (slog.Default when nil).
	Logger *slog.Logger
	// Interceptors run innermost, after the built-in ones; the authorization
	// interceptor goes here.
	Interceptors []grpc.UnaryServerInterceptor
	// Tracing, when set, starts a span per RPC (see telemetry.Setup).
	Tracing *telemetry.Tracing
	// StreamInterceptors are the streaming counterparts of Interceptors.
	// Without any, streaming methods other than health are refused, since no
	// authorization would run for them.
	StreamInterceptors []grpc.StreamServerInterceptor
	// InternalToken, when set, makes the server trust the client address a
	// forwarding service of the deployment names (ForwardClientIP).
	InternalToken string
	// PprofAddr, when set, is the listen address of Go's runtime profiles
	// (net/http/pprof), apart from the public HTTP port.
	PprofAddr string
	// Startup, when set, holds the ports (see Start): the server serves on
	// them instead of binding GRPCAddr and HTTPAddr, and stops the startup's
	// answers when it runs.
	Startup *Startup
}

type readyCheck struct {
	name string
	fn   func(ctx context.Context) error
}

// Server serves one Paygate service over gRPC and REST.
type Server struct {
	o        Options
	log      *slog.Logger
	grpc     *grpc.Server
	inproc   *inprocgrpc.Channel
	gwMux    *runtime.ServeMux
	mux      *http.ServeMux
	health   *health.Server
	registry *prometheus.Registry

	mu       sync.Mutex
	gateways []func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error
	checks   []readyCheck
	services []string
	grpcLis  net.Listener
	httpLis  net.Listener
	ran      bool

	stopping atomic.Bool
}

// New returns a server configured by o. Nothing listens until Listen or Run.
// The first call also sets the process's garbage collector defaults
// (DefaultGCPercent, and a soft memory limit under the container's), which
// GOGC and GOMEMLIMIT override.
func New(o Options) *Server {
	tuneGC()
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("service", o.Name)
	reg := prometheus.NewRegistry()
	reg.MustRegister(
		collectors.NewGoCollector(),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}),
	)
	rpc := newRPCMetrics(reg)

	builtin := []grpc.UnaryServerInterceptor{recovery(log)}
	if o.Tracing != nil {
		builtin = append(builtin, o.Tracing.UnaryInterceptor())
	}
	clients := newClientResolver(o.TrustedProxyHops, o.InternalToken)
	builtin = append(builtin, rpc.unary, logging(log, clients), mapErrors)
	unary := chainUnary(slices.Concat(builtin, o.Interceptors, []grpc.UnaryServerInterceptor{checkValues})...)
	streamInner := o.StreamInterceptors
	if len(streamInner) == 0 {
		streamInner = []grpc.StreamServerInterceptor{denyStreams}
	}
	stream := chainStream(slices.Concat(
		[]grpc.StreamServerInterceptor{streamRecovery(log), streamLogging(log, clients), mapStreamErrors},
		streamInner,
		[]grpc.StreamServerInterceptor{streamCheckValues},
	)...)

	s := &Server{
		o:        o,
		log:      log,
		grpc:     grpc.NewServer(grpc.UnaryInterceptor(unary), grpc.StreamInterceptor(stream)),
		inproc:   (&inprocgrpc.Channel{}).WithServerUnaryInterceptor(unary).WithServerStreamInterceptor(stream),
		gwMux:    newGatewayMux(log),
		mux:      http.NewServeMux(),
		health:   health.NewServer(),
		registry: reg,
	}
	s.health.SetServingStatus("", healthpb.HealthCheckResponse_SERVING)
	healthpb.RegisterHealthServer(s.grpc, s.health)
	s.mux.HandleFunc("GET /healthz", s.serveHealthz)
	s.mux.HandleFunc("GET /readyz", s.serveReadyz)
	// The shared plumbing's metrics (outbox relay, consumers, jobs, callback
	// deliveries) live in one process-wide registry beside the server's own.
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(prometheus.Gatherers{reg, metrics.Registry}, promhttp.HandlerOpts{Registry: reg}))
	s.mux.Handle("/", s.gwMux)
	return s
}

// Register registers a gRPC service implementation on the gRPC server and on
// the in-process channel that REST uses.
func (s *Server) Register(desc *grpc.ServiceDesc, impl any) {
	s.grpc.RegisterService(desc, impl)
	s.inproc.RegisterService(desc, impl)
	s.mu.Lock()
	s.services = append(s.services, desc.ServiceName)
	s.mu.Unlock()
}

// RegisterGateway adds a service's REST routes. Run calls fn with the
// grpc-gateway mux and the in-process channel, e.g.
//
//	s.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
//		return gatewayv1.RegisterMerchantServiceHandlerClient(ctx, mux, gatewayv1.NewMerchantServiceClient(cc))
//	})
func (s *Server) RegisterGateway(fn func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.gateways = append(s.gateways, fn)
}

// Handle serves h at pattern (http.ServeMux syntax) on the HTTP port, beside
// REST, with the same CORS policy and no authorization.
func (s *Server) Handle(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
}

// AddReadyCheck adds a dependency check to /readyz and gRPC health; fn should
// answer within ReadyCheckTimeout.
func (s *Server) AddReadyCheck(name string, fn func(ctx context.Context) error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.checks = append(s.checks, readyCheck{name: name, fn: fn})
}

// GetServiceInfo lists the registered gRPC services (for
// authz.CheckRulesCover).
func (s *Server) GetServiceInfo() map[string]grpc.ServiceInfo { return s.grpc.GetServiceInfo() }

// Registry returns the Prometheus registry served at /metrics, for the
// service's own metrics.
func (s *Server) Registry() *prometheus.Registry { return s.registry }

// Listen binds the gRPC and HTTP ports. Run calls it when it has not been
// called; calling it first lets Addrs report ports picked by the system.
func (s *Server) Listen() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grpcLis != nil {
		return nil
	}
	if s.o.Startup != nil {
		grpcLis, httpLis, err := s.o.Startup.adopt()
		if err != nil {
			return err
		}
		s.grpcLis, s.httpLis = grpcLis, httpLis
		return nil
	}
	var lc net.ListenConfig
	grpcLis, err := lc.Listen(context.Background(), "tcp", s.o.GRPCAddr)
	if err != nil {
		return fmt.Errorf("listen grpc %s: %w", s.o.GRPCAddr, err)
	}
	httpLis, err := lc.Listen(context.Background(), "tcp", s.o.HTTPAddr)
	if err != nil {
		_ = grpcLis.Close()
		return fmt.Errorf("listen http %s: %w", s.o.HTTPAddr, err)
	}
	s.grpcLis, s.httpLis = grpcLis, httpLis
	return nil
}

// Addrs returns the bound gRPC and HTTP addresses, or empty strings before
// Listen.
func (s *Server) Addrs() (grpcAddr, httpAddr string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.grpcLis == nil {
		return "", ""
	}
	return s.grpcLis.Addr().String(), s.httpLis.Addr().String()
}

// Run serves until ctx ends, then shuts down gracefully: health turns
// NOT_SERVING, HTTP stops accepting and drains, gRPC drains, each within
// ShutdownTimeout. It returns nil after a clean shutdown. A Server runs once.
func (s *Server) Run(ctx context.Context) error {
	if err := s.Listen(); err != nil {
		return err
	}
	s.mu.Lock()
	if s.ran {
		s.mu.Unlock()
		return errors.New("server: Run called twice")
	}
	s.ran = true
	gateways := slices.Clone(s.gateways)
	grpcLis, httpLis := s.grpcLis, s.httpLis
	s.mu.Unlock()
	if s.o.Startup != nil {
		// From here on this server answers on the ports.
		if err := s.o.Startup.handOver(); err != nil {
			_ = grpcLis.Close()
			_ = httpLis.Close()
			return err
		}
	}

	for _, fn := range gateways {
		if err := fn(ctx, s.gwMux, s.inproc); err != nil {
			_ = grpcLis.Close()
			_ = httpLis.Close()
			return fmt.Errorf("register rest gateway: %w", err)
		}
	}
	httpSrv := &http.Server{
		Handler:           s.httpHandler(),
		ReadHeaderTimeout: 10 * time.Second,
		IdleTimeout:       2 * time.Minute,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}

	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		if err := s.grpc.Serve(grpcLis); err != nil && !errors.Is(err, grpc.ErrServerStopped) {
			return fmt.Errorf("serve grpc: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		if err := httpSrv.Serve(httpLis); err != nil && !errors.Is(err, http.ErrServerClosed) {
			return fmt.Errorf("serve http: %w", err)
		}
		return nil
	})
	g.Go(func() error {
		s.watchReadiness(gctx)
		return nil
	})
	if s.o.PprofAddr != "" {
		g.Go(func() error { return s.servePprof(gctx) })
	}
	g.Go(func() error {
		<-gctx.Done()
		return s.shutdown(httpSrv)
	})
	grpcAddr, httpAddr := grpcLis.Addr().String(), httpLis.Addr().String()
	s.log.Info("serving", "grpc_addr", grpcAddr, "http_addr", httpAddr)
	err := g.Wait()
	s.log.Info("stopped")
	return err
}

func (s *Server) shutdown(httpSrv *http.Server) error {
	s.stopping.Store(true)
	s.health.Shutdown()
	ctx, cancel := context.WithTimeout(context.Background(), ShutdownTimeout)
	defer cancel()

	var errs []error
	if err := httpSrv.Shutdown(ctx); err != nil {
		errs = append(errs, fmt.Errorf("shut down http: %w", err))
		_ = httpSrv.Close()
	}
	if stopGRPC(ctx, s.grpc) {
		s.log.Warn("grpc calls still running after the shutdown timeout; cut them off")
	}
	return errors.Join(errs...)
}

// stopGRPC stops g gracefully, and cuts off the calls still running when
// ctx ends first (reporting it with cut).
func stopGRPC(ctx context.Context, g *grpc.Server) (cut bool) {
	stopped := make(chan struct{})
	go func() {
		g.GracefulStop()
		close(stopped)
	}()
	select {
	case <-stopped:
		return false
	case <-ctx.Done():
		g.Stop()
		<-stopped
		return true
	}
}

// httpHandler wraps the HTTP routes with CORS, security headers and the
// body checks (guardBody), in that order, so that a refused body's answer
// carries the headers too.
func (s *Server) httpHandler() http.Handler {
	return cors(s.o.CORSOrigins, securityHeaders(guardBody(s.log, s.mux)))
}

func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.Header().Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

func (s *Server) serveHealthz(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(`{"status":"ok"}`))
}

// readyzBody is the /readyz answer: the failing checks by name (their errors
// go to the logs, not to the network).
type readyzBody struct {
	Status string   `json:"status"`
	Failed []string `json:"failed,omitempty"`
}

func (s *Server) serveReadyz(w http.ResponseWriter, r *http.Request) {
	failed := s.runChecks(r.Context())
	body := readyzBody{Status: "ok", Failed: failed}
	code := http.StatusOK
	if s.stopping.Load() {
		body.Status, code = "stopping", http.StatusServiceUnavailable
	} else if len(failed) > 0 {
		body.Status, code = "unavailable", http.StatusServiceUnavailable
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_ = json.NewEncoder(w).Encode(body)
}

// runChecks runs every readiness check concurrently and returns the names of
// those that failed, logging their errors.
func (s *Server) runChecks(ctx context.Context) []string {
	s.mu.Lock()
	checks := slices.Clone(s.checks)
	s.mu.Unlock()
	results := make([]error, len(checks))
	var wg sync.WaitGroup
	for i, c := range checks {
		wg.Go(func() {
			cctx, cancel := context.WithTimeout(ctx, ReadyCheckTimeout)
			defer cancel()
			results[i] = c.fn(cctx)
		})
	}
	wg.Wait()
	var failed []string
	for i, err := range results {
		if err != nil {
			failed = append(failed, checks[i].name)
			if ctx.Err() == nil {
				s.log.WarnContext(ctx, "readiness check failed", "check", checks[i].name, "error", err)
			}
		}
	}
	return failed
}

// watchReadiness keeps the gRPC health of each registered service in line
// with the readiness checks until ctx ends ("" stays SERVING: liveness).
func (s *Server) watchReadiness(ctx context.Context) {
	ticker := time.NewTicker(ReadyCheckInterval)
	defer ticker.Stop()
	for {
		status := healthpb.HealthCheckResponse_SERVING
		if len(s.runChecks(ctx)) > 0 {
			status = healthpb.HealthCheckResponse_NOT_SERVING
		}
		if ctx.Err() != nil {
			return
		}
		s.mu.Lock()
		services := slices.Clone(s.services)
		s.mu.Unlock()
		for _, name := range services {
			s.health.SetServingStatus(name, status)
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
	}
}

// servePprof serves net/http/pprof's handlers on PprofAddr until ctx ends.
func (s *Server) servePprof(ctx context.Context) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	srv := &http.Server{Addr: s.o.PprofAddr, Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		_ = srv.Close()
	}()
	s.log.Info("serving profiles", "pprof_addr", s.o.PprofAddr)
	if err := srv.ListenAndServe(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("serve pprof: %w", err)
	}
	return nil
}
