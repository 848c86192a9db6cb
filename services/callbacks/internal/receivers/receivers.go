// Package receivers is the callbacks service's client of merchants'
// callback receivers: the Sender that posts deliveries to their URLs through
// the SSRF-guarded client and reads what they answer. Each request is an
// HTTP client span, and carries its W3C trace context (traceparent) so that
// a receiver that traces can join the trace; the Standard Webhooks signature
// covers the webhook id, timestamp and body only, so the header leaves it
// valid.
package receivers

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptrace"
	"net/netip"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/callfailure"
	"github.com/paygate/paygate/services/internal/netguard"
)

// UserAgent is the User-Agent of every delivery.
const UserAgent = "Paygate-Webhooks/1"

// snippetLimit bounds the part of a failed answer's body kept in the
// attempt's error message.
const snippetLimit = 200

// Sender posts deliveries with an HTTP client (netguard.Policy.Client).
type Sender struct {
	client *http.Client
	limit  int64
	// public tells whether a receiver's address is public; only a public
	// receiver's answer is quoted in an attempt (a private one's could be
	// an internal service's, shown to a merchant user).
	public func(netip.Addr) bool
	tracer trace.Tracer
}

// tracerName names the spans the sender starts.
const tracerName = "github.com/paygate/paygate/services/callbacks/internal/receivers"

// traceContext writes the request's traceparent whatever propagator the
// process installed globally.
var traceContext = propagation.TraceContext{}

var _ callback.Sender = (*Sender)(nil)

// NewSender returns a sender using client that reads at most limit bytes of
// an answer (netguard.DefaultResponseLimit when limit ≤ 0).
func NewSender(client *http.Client, limit int64) *Sender {
	if limit <= 0 {
		limit = netguard.DefaultResponseLimit
	}
	return &Sender{client: client, limit: limit, public: netguard.IsPublic, tracer: otel.Tracer(tracerName)}
}

// Send implements callback.Sender. The request is a client span, a child of
// the span in ctx (the delivery attempt's), whose context it carries in its
// traceparent header.
func (s *Sender) Send(ctx context.Context, r callback.Request) callback.Response {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return callback.Response{Err: err, Reason: s.reason(err)}
	}
	// The span names no URL: a merchant's path or query may hold a token.
	attrs := []attribute.KeyValue{attribute.String("http.request.method", http.MethodPost),
		attribute.String("url.scheme", req.URL.Scheme), attribute.String("server.address", req.URL.Hostname())}
	if p, err := strconv.Atoi(req.URL.Port()); err == nil {
		attrs = append(attrs, attribute.Int("server.port", p))
	}
	ctx, span := s.tracer.Start(ctx, http.MethodPost, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(attrs...))
	defer span.End()
	req = req.WithContext(ctx)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	traceContext.Inject(ctx, propagation.HeaderCarrier(req.Header))
	out := s.send(ctx, req)
	if out.StatusCode != 0 {
		span.SetAttributes(attribute.Int("http.response.status_code", out.StatusCode))
	}
	switch {
	case out.StatusCode == 0 && out.Err != nil:
		span.SetAttributes(attribute.String("error.type", "no answer"))
		span.SetStatus(codes.Error, out.Err.Error())
	case out.StatusCode >= 400:
		span.SetAttributes(attribute.String("error.type", strconv.Itoa(out.StatusCode)))
		span.SetStatus(codes.Error, "")
	}
	return out
}

// send posts req and reads the answer.
func (s *Sender) send(ctx context.Context, req *http.Request) callback.Response {
	var remote netip.Addr
	req = req.WithContext(httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		if ap, err := netip.ParseAddrPort(info.Conn.RemoteAddr().String()); err == nil {
			remote = ap.Addr()
		}
	}}))
	resp, err := s.client.Do(req)
	if err != nil {
		return callback.Response{Err: err, Reason: s.reason(err)}
	}
	defer resp.Body.Close()
	body, err := netguard.ReadLimited(resp.Body, s.limit)
	out := callback.Response{StatusCode: resp.StatusCode}
	if err != nil {
		out.Err, out.Reason = err, s.reason(err)
	}
	if (resp.StatusCode < 200 || resp.StatusCode > 299) && remote.IsValid() && s.public(remote) {
		out.Snippet = snippet(body)
	}
	return out
}

// reason words a client error for the attempt's error message: a network
// error's own text can name internal addresses and is not shown to the
// merchant users who read attempts (callfailure).
func (s *Sender) reason(err error) string {
	f := callfailure.Of(err)
	f.Limit, f.Timeout = s.limit, s.client.Timeout
	return f.Sentence("receiver")
}

func snippet(b []byte) string {
	if len(b) > snippetLimit {
		b = b[:snippetLimit]
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
}
