package server

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"runtime/debug"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/apperr/grpcstatus"
)

// chainUnary composes interceptors, the first outermost, into one (the
// in-process channel takes a single interceptor).
func chainUnary(interceptors ...grpc.UnaryServerInterceptor) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		next := handler
		for i := len(interceptors) - 1; i >= 0; i-- {
			icpt, inner := interceptors[i], next
			next = func(ctx context.Context, req any) (any, error) { return icpt(ctx, req, info, inner) }
		}
		return next(ctx, req)
	}
}

// chainStream is chainUnary for streams.
func chainStream(interceptors ...grpc.StreamServerInterceptor) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		next := handler
		for i := len(interceptors) - 1; i >= 0; i-- {
			icpt, inner := interceptors[i], next
			next = func(srv any, ss grpc.ServerStream) error { return icpt(srv, ss, info, inner) }
		}
		return next(srv, ss)
	}
}

// mappedError is what the mapping interceptor returns: the public status for
// gRPC and grpc-gateway, and the original error for the logs.
type mappedError struct {
	st    *status.Status
	cause error
}

func (e *mappedError) Error() string              { return e.st.Message() }
func (e *mappedError) GRPCStatus() *status.Status { return e.st }
func (e *mappedError) Unwrap() error              { return e.cause }

func toMapped(err error) error {
	if err == nil {
		return nil
	}
	var me *mappedError
	if errors.As(err, &me) {
		return err
	}
	return &mappedError{st: grpcstatus.ToStatus(err), cause: err}
}

// mapErrors turns handler errors into statuses (apperr kinds to codes,
// unknown errors to a generic Internal).
func mapErrors(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	resp, err := handler(ctx, req)
	if err != nil {
		return nil, toMapped(err)
	}
	return resp, nil
}

func mapStreamErrors(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return toMapped(handler(srv, ss))
}

// recovery turns a panic into an Internal error, logging it with its stack.
func recovery(log *slog.Logger) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
		defer func() {
			if r := recover(); r != nil {
				log.ErrorContext(ctx, "panic in rpc", "method", info.FullMethod, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				resp, err = nil, toMapped(fmt.Errorf("panic: %v", r))
			}
		}()
		return handler(ctx, req)
	}
}

func streamRecovery(log *slog.Logger) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) (err error) {
		defer func() {
			if r := recover(); r != nil {
				log.ErrorContext(ss.Context(), "panic in rpc", "method", info.FullMethod, "panic", fmt.Sprint(r), "stack", string(debug.Stack()))
				err = toMapped(fmt.Errorf("panic: %v", r))
			}
		}()
		return handler(srv, ss)
	}
}

// rpcMetrics counts and times calls by service, method, code and transport
// ("grpc" or "rest").
type rpcMetrics struct {
	handled  *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

func newRPCMetrics(reg prometheus.Registerer) *rpcMetrics {
	m := &rpcMetrics{
		handled: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "grpc_server_handled_total",
			Help: "RPCs completed on the server, by code and transport (grpc, or rest through grpc-gateway).",
		}, []string{"grpc_service", "grpc_method", "grpc_code", "transport"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "grpc_server_handling_seconds",
			Help:    "Time to handle an RPC on the server.",
			Buckets: []float64{0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10},
		}, []string{"grpc_service", "grpc_method", "transport"}),
	}
	reg.MustRegister(m.handled, m.duration)
	return m
}

func splitMethod(full string) (service, method string) {
	full = strings.TrimPrefix(full, "/")
	service, method, _ = strings.Cut(full, "/")
	return service, method
}

func (m *rpcMetrics) unary(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (resp any, err error) {
	start := time.Now()
	service, method := splitMethod(info.FullMethod)
	transport := transportOf(ctx)
	panicked := true
	defer func() {
		code := status.Code(err)
		if panicked {
			code = codes.Internal
		}
		m.handled.WithLabelValues(service, method, code.String(), transport).Inc()
		m.duration.WithLabelValues(service, method, transport).Observe(time.Since(start).Seconds())
	}()
	resp, err = handler(ctx, req)
	panicked = false
	return resp, err
}

// logging logs each call once it ends: client errors at Warn, server errors
// at Error with their cause, successes at Info (health checks at Debug). It
// logs no request or response bodies and no metadata besides the client IP.
// It also resolves the caller's address for ClientInfo.
func logging(log *slog.Logger, clients clientResolver) grpc.UnaryServerInterceptor {
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		start := time.Now()
		ip, ua := clients.resolve(ctx)
		ctx = context.WithValue(ctx, clientInfoKey{}, clientInfo{ip: ip, userAgent: ua})
		resp, err := handler(ctx, req)
		logCall(ctx, log, info.FullMethod, transportOf(ctx), ip, start, err)
		return resp, err
	}
}

func streamLogging(log *slog.Logger, clients clientResolver) grpc.StreamServerInterceptor {
	return func(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
		start := time.Now()
		ip, ua := clients.resolve(ss.Context())
		ctx := context.WithValue(ss.Context(), clientInfoKey{}, clientInfo{ip: ip, userAgent: ua})
		err := handler(srv, &contextStream{ServerStream: ss, ctx: ctx})
		logCall(ctx, log, info.FullMethod, transportOf(ctx), ip, start, err)
		return err
	}
}

type contextStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s *contextStream) Context() context.Context { return s.ctx }

func logCall(ctx context.Context, log *slog.Logger, method, transport, ip string, start time.Time, err error) {
	st := status.Convert(err)
	attrs := []slog.Attr{
		slog.String("method", method),
		slog.String("code", st.Code().String()),
		slog.String("transport", transport),
		slog.String("client_ip", ip),
		slog.Duration("duration", time.Since(start)),
	}
	if err == nil {
		level := slog.LevelInfo
		if strings.HasPrefix(method, "/grpc.health.v1.Health/") {
			level = slog.LevelDebug
		}
		log.LogAttrs(ctx, level, "rpc", attrs...)
		return
	}
	kind := grpcstatus.KindOf(st)
	attrs = append(attrs, slog.String("kind", string(kind)))
	if isServerError(st.Code(), kind) {
		attrs = append(attrs, slog.String("error", causeOf(err)))
		log.LogAttrs(ctx, slog.LevelError, "rpc failed", attrs...)
		return
	}
	attrs = append(attrs, slog.String("message", st.Message()))
	log.LogAttrs(ctx, slog.LevelWarn, "rpc refused", attrs...)
}

func isServerError(c codes.Code, kind apperr.Kind) bool {
	switch c {
	case codes.Canceled:
		return false
	case codes.Internal, codes.Unknown, codes.DataLoss, codes.Unavailable, codes.DeadlineExceeded, codes.Unimplemented:
		return true
	}
	return kind == apperr.KindInternal
}

// causeOf returns the text of the original error behind a mapped status.
func causeOf(err error) string {
	var me *mappedError
	if errors.As(err, &me) && me.cause != nil {
		return me.cause.Error()
	}
	return err.Error()
}

// denyStreams refuses streaming calls other than health and reflection when
// the service gave no stream interceptors: without them no authorization
// would run.
func denyStreams(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if strings.HasPrefix(info.FullMethod, "/grpc.health.v1.Health/") || strings.HasPrefix(info.FullMethod, "/grpc.reflection.") {
		return handler(srv, ss)
	}
	return apperr.Forbidden("This operation is not available.")
}

// Transports of a call.
const (
	transportGRPC = "grpc"
	transportREST = "rest"
)

// transportOf tells REST calls (grpc-gateway over the in-process channel)
// from direct gRPC calls by their peer.
func transportOf(ctx context.Context) string {
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil && p.Addr.Network() == "inproc" {
		return transportREST
	}
	return transportGRPC
}

type clientInfoKey struct{}

type clientInfo struct {
	ip, userAgent string
}

// ClientInfo returns the caller's IP address and user agent, for direct gRPC
// and REST calls alike. For REST calls the IP is taken from the
// X-Forwarded-For list that grpc-gateway builds (the client's header plus
// the connection's address, appended last): the entry TrustedProxyHops from
// the right, so a client cannot choose its IP by sending its own header. For
// gRPC calls the peer address is the last entry of the same list. The user
// agent comes from the User-Agent header (REST) or user-agent metadata
// (gRPC).
func ClientInfo(ctx context.Context) (ip, userAgent string) {
	if ci, ok := ctx.Value(clientInfoKey{}).(clientInfo); ok {
		return ci.ip, ci.userAgent
	}
	return resolveClient(ctx, 0)
}

func resolveClient(ctx context.Context, trustedHops int) (ip, userAgent string) {
	md, _ := metadata.FromIncomingContext(ctx)
	var chain []string
	if xff := md.Get("x-forwarded-for"); len(xff) > 0 {
		// grpc-gateway sets one joined value, after any a client smuggled in.
		chain = splitChain(chain, xff[len(xff)-1])
	}
	if transportOf(ctx) == transportREST {
		userAgent = last(md.Get("grpcgateway-user-agent"))
	} else {
		userAgent = last(md.Get("user-agent"))
		peerIP := ""
		if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
			peerIP = hostOf(p.Addr.String())
		}
		if trustedHops == 0 {
			// No proxy of ours in front of gRPC: metadata is the client's word.
			chain = nil
		}
		chain = append(chain, peerIP)
	}
	return fromRight(chain, trustedHops), userAgent
}

func last(vals []string) string {
	if len(vals) == 0 {
		return ""
	}
	return vals[len(vals)-1]
}

// hostOf strips a port from an address, if it has one.
func hostOf(addr string) string {
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return strings.Trim(addr, "[]")
}
