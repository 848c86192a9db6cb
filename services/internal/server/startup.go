package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/paygate/paygate/services/internal/telemetry/metrics"
)

// startingMessage is what a caller reads while the service starts.
const startingMessage = "The service is starting. Try again in a moment."

// Startup answers the probes of a service that is still starting (running
// its migrations, connecting to its dependencies) on the service's own
// ports, so that an orchestrator sees a live process that is not ready yet
// rather than one that does not answer, and does not restart it in the
// middle of a long migration:
//
//   - gRPC health of the whole server ("", the startup and liveness probes)
//     answers SERVING; any other gRPC call is Unavailable;
//   - /healthz answers 200, /readyz 503 {"status":"starting"}, /metrics
//     serves the process's metrics; any other HTTP request is a 503.
//
// A Server whose Options.Startup is set takes the ports over when it runs,
// without closing them: connections that arrive meanwhile wait in the
// listen queue. Until then, Close releases them (run returned early).
type Startup struct {
	log              *slog.Logger
	grpcLis, httpLis *sharedListener
	grpc             *grpc.Server
	http             *http.Server
	served           sync.WaitGroup

	mu         sync.Mutex
	stopped    bool // the startup servers stopped (handed over or closed)
	adopted    bool // a Server has the listeners (Listen)
	handedOver bool // that Server runs: the ports are its to close
}

// Start binds o.GRPCAddr and o.HTTPAddr and answers probes on them until a
// Server built with Options.Startup runs, or Close. It reads o's Name,
// addresses and Logger only, and logs "listening" with both addresses
// (the "serving" line comes once the service is fully started).
func Start(o Options) (*Startup, error) {
	log := o.Logger
	if log == nil {
		log = slog.Default()
	}
	log = log.With("service", o.Name)
	var lc net.ListenConfig
	grpcLis, err := lc.Listen(context.Background(), "tcp", o.GRPCAddr)
	if err != nil {
		return nil, fmt.Errorf("listen grpc %s: %w", o.GRPCAddr, err)
	}
	httpLis, err := lc.Listen(context.Background(), "tcp", o.HTTPAddr)
	if err != nil {
		_ = grpcLis.Close()
		return nil, fmt.Errorf("listen http %s: %w", o.HTTPAddr, err)
	}
	st := &Startup{log: log, grpcLis: share(grpcLis), httpLis: share(httpLis)}

	hs := health.NewServer() // "" is SERVING: the process is alive
	st.grpc = grpc.NewServer(grpc.UnknownServiceHandler(func(any, grpc.ServerStream) error {
		return status.Error(codes.Unavailable, startingMessage)
	}))
	healthpb.RegisterHealthServer(st.grpc, hs)

	reg := prometheus.NewRegistry()
	reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"status":"ok"}`))
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		_ = json.NewEncoder(w).Encode(readyzBody{Status: "starting"})
	})
	mux.Handle("GET /metrics", promhttp.HandlerFor(prometheus.Gatherers{reg, metrics.Registry}, promhttp.HandlerOpts{Registry: reg}))
	mux.HandleFunc("/", func(w http.ResponseWriter, _ *http.Request) {
		body, _ := json.Marshal(ErrorBody{Code: "unavailable", Message: startingMessage})
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "1")
		w.WriteHeader(http.StatusServiceUnavailable)
		_, _ = w.Write(body)
	})
	st.http = &http.Server{
		Handler:           securityHeaders(mux),
		ReadHeaderTimeout: 10 * time.Second,
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}

	grpcPhase, httpPhase := st.grpcLis.phase(false), st.httpLis.phase(false)
	st.served.Add(2)
	go func() {
		defer st.served.Done()
		_ = st.grpc.Serve(grpcPhase) // ends when stop closes the phase
	}()
	go func() {
		defer st.served.Done()
		_ = st.http.Serve(httpPhase)
	}()
	log.Info("listening", "grpc_addr", grpcLis.Addr().String(), "http_addr", httpLis.Addr().String(),
		"note", "answering probes (live, not ready) until the service has started")
	return st, nil
}

// Addrs returns the bound gRPC and HTTP addresses.
func (st *Startup) Addrs() (grpcAddr, httpAddr string) {
	return st.grpcLis.Addr().String(), st.httpLis.Addr().String()
}

// Close stops answering probes and, unless a Server runs on the ports,
// closes them. It is safe to call more than once, and after the hand-over
// (a deferred Close in run is then a no-op).
func (st *Startup) Close() {
	st.stop()
	st.mu.Lock()
	handedOver := st.handedOver
	st.mu.Unlock()
	if !handedOver {
		_ = st.grpcLis.Close()
		_ = st.httpLis.Close()
	}
}

// handOver stops the startup servers for good: the Server that adopted the
// ports serves them from now on, and closes them.
func (st *Startup) handOver() error {
	st.mu.Lock()
	if st.stopped {
		st.mu.Unlock()
		return errors.New("server: the startup was closed")
	}
	st.handedOver = true
	st.mu.Unlock()
	st.stop()
	return nil
}

// adopt gives the ports to a Server: listeners that accept for it once the
// startup servers stopped (handOver), and close the ports when closed.
func (st *Startup) adopt() (grpcLis, httpLis net.Listener, err error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.adopted {
		return nil, nil, errors.New("server: the startup's ports were already taken over")
	}
	if st.stopped {
		return nil, nil, errors.New("server: the startup was closed")
	}
	st.adopted = true
	return st.grpcLis.phase(true), st.httpLis.phase(true), nil
}

// stop ends the startup servers without closing the ports. Probes in flight
// finish (they are quick); idle connections close.
func (st *Startup) stop() {
	st.mu.Lock()
	if st.stopped {
		st.mu.Unlock()
		return
	}
	st.stopped = true
	st.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if err := st.http.Shutdown(ctx); err != nil {
		_ = st.http.Close()
	}
	stopGRPC(ctx, st.grpc)
	st.served.Wait()
}

// sharedListener accepts connections on one bound port for a sequence of
// servers: each phase is a net.Listener whose Close stops that server's
// accepting without closing the port, except the owner's, which closes it.
type sharedListener struct {
	inner    net.Listener
	accepted chan net.Conn
	closed   chan struct{} // the port is closed
	once     sync.Once
	start    sync.Once
}

func share(l net.Listener) *sharedListener {
	return &sharedListener{inner: l, accepted: make(chan net.Conn), closed: make(chan struct{})}
}

// loop accepts until the port closes, handing each connection to whichever
// phase accepts next. A connection accepted as the port closes is dropped.
func (s *sharedListener) loop() {
	for {
		c, err := s.inner.Accept()
		if errors.Is(err, net.ErrClosed) {
			_ = s.Close()
			return
		}
		if err != nil {
			// Out of file descriptors and the like: try again shortly, as
			// net/http does.
			select {
			case <-s.closed:
				return
			case <-time.After(10 * time.Millisecond):
			}
			continue
		}
		select {
		case s.accepted <- c:
		case <-s.closed:
			_ = c.Close()
			return
		}
	}
}

// Close closes the port; every phase's Accept then fails.
func (s *sharedListener) Close() error {
	var err error
	s.once.Do(func() {
		close(s.closed)
		err = s.inner.Close()
	})
	return err
}

// Addr is the port's address.
func (s *sharedListener) Addr() net.Addr { return s.inner.Addr() }

// phase returns a listener for the next server; owner makes its Close
// close the port.
func (s *sharedListener) phase(owner bool) net.Listener {
	s.start.Do(func() { go s.loop() })
	return &phaseListener{s: s, owner: owner, done: make(chan struct{})}
}

type phaseListener struct {
	s     *sharedListener
	owner bool
	done  chan struct{}
	once  sync.Once
}

func (p *phaseListener) Accept() (net.Conn, error) {
	// A phase that was closed takes no more connections, even when one is
	// waiting: it is the next phase's.
	select {
	case <-p.done:
		return nil, net.ErrClosed
	default:
	}
	select {
	case c := <-p.s.accepted:
		return c, nil
	case <-p.done:
		return nil, net.ErrClosed
	case <-p.s.closed:
		return nil, net.ErrClosed
	}
}

func (p *phaseListener) Close() error {
	p.once.Do(func() { close(p.done) })
	if p.owner {
		return p.s.Close()
	}
	return nil
}

func (p *phaseListener) Addr() net.Addr { return p.s.Addr() }
