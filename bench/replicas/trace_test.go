package replicas_test

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
)

// span is what the test keeps of a span a service exported.
type span struct {
	service, name           string
	traceID, spanID, parent string
}

// spanSink is an OTLP/HTTP trace collector (POST /v1/traces, protobuf)
// that keeps every span the services export.
type spanSink struct {
	url   string
	mu    sync.Mutex
	spans []span
}

func newSpanSink(t *testing.T) *spanSink {
	t.Helper()
	k := &spanSink{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, err := io.ReadAll(r.Body)
		var req coltracepb.ExportTraceServiceRequest
		if err != nil || r.URL.Path != "/v1/traces" || proto.Unmarshal(raw, &req) != nil {
			http.Error(w, "not an OTLP trace export", http.StatusBadRequest)
			return
		}
		var got []span
		for _, rs := range req.GetResourceSpans() {
			service := ""
			for _, kv := range rs.GetResource().GetAttributes() {
				if kv.GetKey() == "service.name" {
					service = kv.GetValue().GetStringValue()
				}
			}
			for _, ss := range rs.GetScopeSpans() {
				for _, s := range ss.GetSpans() {
					got = append(got, span{service: service, name: s.GetName(), traceID: hex.EncodeToString(s.GetTraceId()),
						spanID: hex.EncodeToString(s.GetSpanId()), parent: hex.EncodeToString(s.GetParentSpanId())})
				}
			}
		}
		k.mu.Lock()
		k.spans = append(k.spans, got...)
		k.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	k.url = srv.URL
	return k
}

// inTrace returns the spans of trace id received so far.
func (k *spanSink) inTrace(id string) []span {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []span
	for _, s := range k.spans {
		if s.traceID == id {
			out = append(out, s)
		}
	}
	return out
}

// checkTraces follows one payment finalized by the gateways' polling (the
// sandbox sends no webhooks here) across the processes: its
// TransactionFinalized on the stream carries a traceparent, whose trace
// holds a gateway's "poll transaction" span (the event's parent), a
// callbacks replica's consumer span under it, the delivery attempt's span
// under that, and the POST to the merchant under the attempt; and the
// merchant received the POST's traceparent.
func (s *stack) checkTraces(t *testing.T) {
	t.Helper()
	began := time.Now()
	parents := map[int64]string{}
	s.readStream(t, func(subject, _ string, data []byte, traceparent string) {
		if subject != "paygate.events.transaction_finalized" {
			return
		}
		var ev eventsv1.TransactionFinalized
		if proto.Unmarshal(data, &ev) == nil && ev.GetSource() == "Polling" {
			parents[ev.GetTransaction().GetTransactionId()] = traceparent
		}
	})
	var id int64
	var traceparent string
	for tx, p := range parents {
		if id == 0 || tx < id {
			id, traceparent = tx, p
		}
	}
	if id == 0 {
		t.Fatal("no transaction was finalized by polling")
	}
	parts := strings.Split(traceparent, "-")
	if len(parts) != 4 {
		t.Fatalf("transaction %d's TransactionFinalized carries traceparent %q", id, traceparent)
	}
	traceID := parts[1]
	find := func(spans []span, service, name, parent string) *span {
		for i, sp := range spans {
			if sp.service == service && sp.name == name && (parent == "" || sp.parent == parent) {
				return &spans[i]
			}
		}
		return nil
	}
	var spans []span
	var poll, consume, attempt, post *span
	// The services export every 2 s.
	ok := eventually(15*time.Second, func() bool {
		spans = s.spans.inTrace(traceID)
		poll = find(spans, "paygate-gateway", "poll transaction", "")
		if poll == nil || poll.spanID != parts[2] {
			return false
		}
		consume = find(spans, "paygate-callbacks", "consume paygate.events.transaction_finalized", poll.spanID)
		if consume == nil {
			return false
		}
		attempt = find(spans, "paygate-callbacks", "callback delivery attempt", consume.spanID)
		if attempt == nil {
			return false
		}
		post = find(spans, "paygate-callbacks", "POST", attempt.spanID)
		return post != nil
	})
	if !ok {
		t.Fatalf("transaction %d: trace %s holds %v; want the poll span %s, a callbacks consumer span under it, an attempt under that and its POST",
			id, traceID, spans, parts[2])
	}
	got := s.receiver.traceparents(id)
	want := "00-" + traceID + "-" + post.spanID + "-01"
	found := false
	for _, h := range got {
		found = found || h == want
	}
	if !found {
		t.Errorf("transaction %d: the merchant received traceparents %q, want %q among them", id, got, want)
	}
	t.Logf("transaction %d finalized by polling: one trace from the gateway's poll span through a callbacks replica's consumer and attempt spans to the merchant's request (%d spans), checked in %s",
		id, len(spans), time.Since(began).Round(time.Millisecond))
}
