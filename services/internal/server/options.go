package server

import (
	"log/slog"

	"google.golang.org/grpc"

	"github.com/paygate/paygate/services/internal/config"
	"github.com/paygate/paygate/services/internal/telemetry"
)

// OptionsFrom returns the options of service name's server from the
// configuration every service shares (listen addresses, CORS origins,
// trusted proxy hops, profiling address), with its logger, tracing and the
// unary interceptors that check its callers (authz.UnaryInterceptor).
func OptionsFrom(name string, c config.Common, log *slog.Logger, tracing *telemetry.Tracing, interceptors ...grpc.UnaryServerInterceptor) Options {
	// Without an internal token (outside demo mode) no forwarded address is
	// trusted; Internal's error is for the services that need the token.
	internal, _ := c.Internal()
	return Options{
		InternalToken:    internal,
		Name:             name,
		Tracing:          tracing,
		GRPCAddr:         c.GRPCAddr,
		HTTPAddr:         c.HTTPAddr,
		CORSOrigins:      c.ConsoleOrigins,
		TrustedProxyHops: c.TrustedProxyHops,
		PprofAddr:        c.PprofAddr,
		Logger:           log,
		Interceptors:     interceptors,
	}
}
