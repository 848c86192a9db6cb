// Package telemetry sets up OpenTelemetry tracing for a service: spans are
// exported over OTLP/HTTP when an endpoint is configured, and nothing is
// recorded (at next to no cost) when it is not. It also holds Metrics, the
// Prometheus registry of the shared plumbing's series.
package telemetry

import (
	"context"
	"fmt"
	"net/url"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
)

// Tracing is a service's tracer provider. Its zero value is not usable: get
// one from Setup.
type Tracing struct {
	provider trace.TracerProvider
	shutdown func(context.Context) error
}

// Setup returns tracing for service. With an empty endpoint (e.g.
// "http://otel-collector:4318") it is a no-op; otherwise spans are batched
// and exported over OTLP/HTTP, and W3C trace context is read from incoming
// calls. It also installs the provider and propagator as OpenTelemetry's
// globals, so libraries that trace on their own join the same traces.
func Setup(service, endpoint string) (*Tracing, error) {
	if endpoint == "" {
		return &Tracing{provider: noop.NewTracerProvider(), shutdown: func(context.Context) error { return nil }}, nil
	}
	u, err := url.Parse(endpoint)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("tracing endpoint %q: want http(s)://host:port", endpoint)
	}
	opts := []otlptracehttp.Option{otlptracehttp.WithEndpoint(u.Host)}
	if u.Scheme == "http" {
		opts = append(opts, otlptracehttp.WithInsecure())
	}
	if u.Path != "" && u.Path != "/" {
		opts = append(opts, otlptracehttp.WithURLPath(u.Path))
	}
	exp, err := otlptracehttp.New(context.Background(), opts...)
	if err != nil {
		return nil, fmt.Errorf("otlp exporter: %w", err)
	}
	res := resource.NewSchemaless(attribute.String("service.name", "paygate-"+service))
	tp := sdktrace.NewTracerProvider(
		sdktrace.WithBatcher(exp, sdktrace.WithBatchTimeout(2*time.Second)),
		sdktrace.WithResource(res),
	)
	otel.SetTracerProvider(tp)
	otel.SetTextMapPropagator(propagation.TraceContext{})
	return &Tracing{provider: tp, shutdown: tp.Shutdown}, nil
}

// Shutdown flushes the spans not yet exported.
func (t *Tracing) Shutdown(ctx context.Context) error { return t.shutdown(ctx) }

// Close flushes the spans not yet exported, giving up after five seconds (an
// unreachable collector must not hold up a service's exit).
func (t *Tracing) Close() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = t.shutdown(ctx)
}

// UnaryInterceptor starts a server span per RPC, continuing the caller's
// trace from the traceparent metadata (gRPC) or header (REST, which
// grpc-gateway forwards as metadata).
func (t *Tracing) UnaryInterceptor() grpc.UnaryServerInterceptor {
	tracer := t.provider.Tracer("github.com/paygate/paygate/services/internal/telemetry")
	prop := propagation.TraceContext{}
	return func(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
		if md, ok := metadata.FromIncomingContext(ctx); ok {
			ctx = prop.Extract(ctx, metadataCarrier(md))
		}
		ctx, span := tracer.Start(ctx, info.FullMethod, trace.WithSpanKind(trace.SpanKindServer),
			trace.WithAttributes(attribute.String("rpc.system", "grpc"), attribute.String("rpc.method", info.FullMethod)))
		defer span.End()
		resp, err := handler(ctx, req)
		if err != nil {
			span.SetStatus(codes.Error, "rpc failed")
		}
		return resp, err
	}
}

// metadataCarrier reads W3C trace context from gRPC metadata.
type metadataCarrier metadata.MD

func (c metadataCarrier) Get(key string) string {
	if v := metadata.MD(c).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (c metadataCarrier) Set(key, value string) { metadata.MD(c).Set(key, value) }

func (c metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}
