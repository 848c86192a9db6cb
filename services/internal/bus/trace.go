package bus

import (
	"context"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"
)

// OutboxTraceDDL adds the outbox column that carries the W3C trace context
// (traceparent) of the request that wrote each event, so that the relay can
// pass it on in the message's headers. Each service with an outbox copies it
// verbatim into a migration after the one holding OutboxDDL. Rows written
// before it, or outside any trace, have none.
const OutboxTraceDDL = `ALTER TABLE outbox ADD COLUMN traceparent text;
`

// HeaderTraceparent is the message header (and outbox column) carrying the
// W3C trace context of the event's writer.
const HeaderTraceparent = "traceparent"

// traceContext is the W3C trace context propagator: events carry the
// writer's trace whatever propagator the process installed globally.
var traceContext = propagation.TraceContext{}

// traceparent returns the W3C traceparent of the span in ctx, "" when ctx
// holds no valid span context.
func traceparent(ctx context.Context) string {
	if !trace.SpanContextFromContext(ctx).IsValid() {
		return ""
	}
	c := propagation.MapCarrier{}
	traceContext.Inject(ctx, c)
	return c[HeaderTraceparent]
}

// headerCarrier reads and writes W3C trace context in NATS headers.
type headerCarrier nats.Header

func (c headerCarrier) Get(key string) string { return nats.Header(c).Get(key) }
func (c headerCarrier) Set(key, value string) { nats.Header(c).Set(key, value) }
func (c headerCarrier) Keys() []string {
	keys := make([]string, 0, len(c))
	for k := range c {
		keys = append(keys, k)
	}
	return keys
}

// ContextFrom returns ctx continuing the trace of the request that wrote
// msg's event (its traceparent header), or ctx itself when msg carries none.
func ContextFrom(ctx context.Context, msg jetstream.Msg) context.Context {
	h := msg.Headers()
	if h == nil || h.Get(HeaderTraceparent) == "" {
		return ctx
	}
	return traceContext.Extract(ctx, headerCarrier(h))
}

// tracerName names the spans the bus starts.
const tracerName = "github.com/paygate/paygate/services/internal/bus"

// StartConsumeSpan starts the consumer span of msg ("consume <subject>"),
// a child of the trace that wrote its event (ContextFrom), with the
// process's tracer provider. End the span when the event is handled.
func StartConsumeSpan(ctx context.Context, msg jetstream.Msg, consumer string) (context.Context, trace.Span) {
	return otel.Tracer(tracerName).Start(ContextFrom(ctx, msg), "consume "+msg.Subject(),
		trace.WithSpanKind(trace.SpanKindConsumer),
		trace.WithAttributes(
			attribute.String("messaging.system", "nats"),
			attribute.String("messaging.destination.name", msg.Subject()),
			attribute.String("messaging.consumer.group.name", consumer),
		))
}

// FormatTraceparent returns the W3C traceparent of sc, "" when sc is not
// valid: the form in which a span context is stored beside data that is
// acted on later (an outbox row, a callback delivery).
func FormatTraceparent(sc trace.SpanContext) string {
	return traceparent(trace.ContextWithSpanContext(context.Background(), sc))
}

// ParseTraceparent returns the remote span context of a W3C traceparent,
// an invalid one when s is empty or malformed.
func ParseTraceparent(s string) trace.SpanContext {
	if s == "" {
		return trace.SpanContext{}
	}
	ctx := traceContext.Extract(context.Background(), propagation.MapCarrier{HeaderTraceparent: s})
	return trace.SpanContextFromContext(ctx)
}
