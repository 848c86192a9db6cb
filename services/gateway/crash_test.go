package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/payment"
	"github.com/paygate/paygate/services/internal/bus"
)

// cutProxy forwards TCP to a NATS server until cut, which closes the
// listener and every connection: the gateway behind it can no longer publish
// (its client keeps trying to reconnect to a closed port).
type cutProxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []net.Conn
	wg     sync.WaitGroup
	once   sync.Once
}

func newCutProxy(t *testing.T, target string) *cutProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &cutProxy{ln: ln, target: target}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.cut)
	return p
}

func (p *cutProxy) url() string { return "nats://" + p.ln.Addr().String() }

func (p *cutProxy) accept() {
	defer p.wg.Done()
	for {
		in, err := p.ln.Accept()
		if err != nil {
			return
		}
		out, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = in.Close()
			continue
		}
		p.mu.Lock()
		p.conns = append(p.conns, in, out)
		p.mu.Unlock()
		p.wg.Add(2)
		go p.pipe(in, out)
		go p.pipe(out, in)
	}
}

func (p *cutProxy) pipe(dst, src net.Conn) {
	defer p.wg.Done()
	_, _ = io.Copy(dst, src)
	_ = dst.Close()
	_ = src.Close()
}

func (p *cutProxy) cut() {
	p.once.Do(func() {
		_ = p.ln.Close()
		p.mu.Lock()
		for _, c := range p.conns {
			_ = c.Close()
		}
		p.mu.Unlock()
		p.wg.Wait()
	})
}

// sandboxGate holds the sandbox's create-payment calls while on: every second
// call reaches the sandbox first (the provider made the payment, its answer
// is then lost), the others never do. Each held call is signalled on arrived
// and ends only when the caller gives up.
type sandboxGate struct {
	on      atomic.Bool
	seen    atomic.Int64
	arrived chan struct{}
}

func (g *sandboxGate) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !g.on.Load() || r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/payments") {
			next.ServeHTTP(w, r)
			return
		}
		if g.seen.Add(1)%2 == 0 {
			next.ServeHTTP(httptest.NewRecorder(), r)
		}
		// A read body lets the server notice the caller hanging up.
		_, _ = io.Copy(io.Discard, r.Body)
		select {
		case g.arrived <- struct{}{}:
		default:
		}
		<-r.Context().Done()
	})
}

// TestGatewayKilledMidway kills a gateway while payments wait on the provider
// and while its relay cannot reach NATS, then starts a second gateway on the
// same schema: every transaction reaches a final status (recovery, then
// polling), and every transaction event arrives on JetStream exactly once
// per event id — one TransactionCreated and one TransactionFinalized each.
func TestGatewayKilledMidway(t *testing.T) {
	t.Parallel()
	const n = 8
	natsURL := testEnv("PAYGATE_TEST_NATS_URL", "nats://127.0.0.1:4222")
	proxy := newCutProxy(t, strings.TrimPrefix(natsURL, "nats://"))
	gate := &sandboxGate{arrived: make(chan struct{}, 4*n)}
	e := newPayEnvWith(t, payEnvOptions{
		env:         map[string]string{"PAYGATE_NATS_URL": proxy.url(), "PAYGATE_RECOVERY_AFTER": "1h"},
		wrapSandbox: gate.wrap,
	})
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()

	// Read the transaction subjects from the stream's current end on.
	js, err := jetstream.New(e.nc)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := js.Stream(ctx, bus.StreamName)
	if err != nil {
		t.Fatal(err)
	}
	info, err := stream.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	subjects := []string{bus.Subject(&eventsv1.TransactionCreated{}), bus.Subject(&eventsv1.TransactionUpdated{}),
		bus.Subject(&eventsv1.TransactionFinalized{})}
	cons, err := js.OrderedConsumer(ctx, bus.StreamName, jetstream.OrderedConsumerConfig{
		// One filter (older servers take no more): every event, transaction subjects picked below.
		FilterSubjects: []string{bus.SubjectPrefix + ">"},
		DeliverPolicy:  jetstream.DeliverByStartSequencePolicy, OptStartSeq: info.State.LastSeq + 1})
	if err != nil {
		t.Fatal(err)
	}

	// Gateway 1 loses NATS, then takes n payments that hang at the provider.
	proxy.cut()
	gate.on.Store(true)
	reqCtx, cancelReqs := context.WithCancel(ctx)
	var wg sync.WaitGroup
	for i := range n {
		tags := []string{}
		if i%3 == 0 {
			tags = append(tags, "sandbox:outcome=pending-success", "sandbox:pending=300ms")
		}
		body, _ := json.Marshal(e.payload(fmt.Sprintf("crash-%d", i), "150.00", 1, "1", tags...))
		wg.Go(func() {
			req, err := http.NewRequestWithContext(reqCtx, http.MethodPost, e.HTTPURL+"/api/v1/transactions/initialize", bytes.NewReader(body))
			if err != nil {
				return
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+e.admin.token)
			if resp, err := e.client.Do(req); err == nil {
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
		})
	}
	for i := range n {
		select {
		case <-gate.arrived:
		case <-time.After(20 * time.Second):
			cancelReqs()
			wg.Wait()
			t.Fatalf("only %d of %d provider calls arrived", i, n)
		}
	}
	// Kill: the callers go away mid-call and the gateway stops.
	cancelReqs()
	wg.Wait()
	_ = e.Stop() // run's error, if any, fails the test at its end
	gate.on.Store(false)

	if got := e.queryInt(t, `SELECT count(*) FROM transactions WHERE merchant_id = $1 AND status = 1`, e.merchantID); got != n {
		t.Fatalf("%d transactions stranded at Not Confirmed after the kill, want %d", got, n)
	}
	if got := e.queryInt(t, `SELECT count(*) FROM outbox WHERE published_at IS NULL AND subject = $1`, subjects[0]); got != n {
		t.Fatalf("%d TransactionCreated events unpublished after the kill, want %d", got, n)
	}

	// Gateway 2 on the same schema recovers and publishes.
	var sandboxURL string
	if err := e.pool.QueryRow(ctx, `SELECT base_url FROM provider_connections WHERE provider_id = 1`).Scan(&sandboxURL); err != nil {
		t.Fatal(err)
	}
	g2 := startGatewayIn(t, e.schema, "http://127.0.0.1:9/jwks", map[string]string{
		"PAYGATE_SANDBOX_URL": strings.TrimSuffix(sandboxURL, "/govip"), "PAYGATE_POLL_INTERVAL": "100ms",
		"PAYGATE_RECOVERY_AFTER": "1ms",
	})

	refs := map[string]bool{}
	rows, err := e.pool.Query(ctx, `SELECT reference_id FROM transactions WHERE merchant_id = $1`, e.merchantID)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var ref string
		if err := rows.Scan(&ref); err != nil {
			t.Fatal(err)
		}
		refs[ref] = true
	}
	if rows.Err() != nil || len(refs) != n {
		t.Fatalf("read %d references (%v), want %d", len(refs), rows.Err(), n)
	}

	it, err := cons.Messages()
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan jetstream.Msg)
	readDone := make(chan struct{})
	go func() {
		defer close(readDone)
		for {
			m, err := it.Next()
			if err != nil {
				return
			}
			select {
			case msgs <- m:
			case <-ctx.Done():
				return
			}
		}
	}()
	defer func() { it.Stop(); <-readDone }()

	perID := map[string]int{}
	kinds := map[string]map[string]int{} // reference → event kind → count
	var lastSeq uint64
	finalized := func() bool {
		for ref := range refs {
			if kinds[ref]["finalized"] == 0 {
				return false
			}
		}
		return true
	}
	var fence uint64 // stream sequence of the last transaction event once the outbox is drained
	recheck := time.NewTicker(50 * time.Millisecond)
	defer recheck.Stop()
	for fence == 0 || lastSeq < fence {
		select {
		case <-recheck.C:
		case m := <-msgs:
			meta, err := m.Metadata()
			if err != nil {
				t.Fatal(err)
			}
			lastSeq = meta.Sequence.Stream
			var ref, kind string
			switch m.Subject() {
			case subjects[0]:
				var ev eventsv1.TransactionCreated
				err, kind = proto.Unmarshal(m.Data(), &ev), "created"
				ref = ev.GetTransaction().GetReferenceId()
			case subjects[1]:
				var ev eventsv1.TransactionUpdated
				err, kind = proto.Unmarshal(m.Data(), &ev), "updated"
				ref = ev.GetTransaction().GetReferenceId()
			case subjects[2]:
				var ev eventsv1.TransactionFinalized
				err, kind = proto.Unmarshal(m.Data(), &ev), "finalized"
				ref = ev.GetTransaction().GetReferenceId()
			}
			if kind == "" || err != nil || !refs[ref] {
				continue
			}
			perID[m.Headers().Get(nats.MsgIdHdr)]++
			if kinds[ref] == nil {
				kinds[ref] = map[string]int{}
			}
			kinds[ref][kind]++
		case <-ctx.Done():
			var states string
			_ = e.pool.QueryRow(context.Background(), `SELECT string_agg(id || ':' || status || ':' || recovery_attempts, ' ')
				FROM transactions WHERE merchant_id = $1`, e.merchantID).Scan(&states)
			for line := range strings.SplitSeq(g2.Logs(), "\n") {
				if strings.Contains(line, "recover") {
					t.Log(line)
				}
			}
			t.Fatalf("events did not all arrive: %v; transactions %s; fence %d, last %d", kinds, states, fence, lastSeq)
		}
		if fence == 0 && finalized() && e.queryInt(t, `SELECT count(*) FROM outbox WHERE published_at IS NULL`) == 0 {
			for _, s := range subjects {
				last, err := stream.GetLastMsgForSubject(ctx, s)
				if err != nil && !errors.Is(err, jetstream.ErrMsgNotFound) {
					t.Fatal(err)
				}
				if err == nil {
					fence = max(fence, last.Sequence)
				}
			}
		}
	}

	for id, c := range perID {
		if c != 1 {
			t.Errorf("event %s received %d times", id, c)
		}
	}
	for ref := range refs {
		if kinds[ref]["created"] != 1 || kinds[ref]["finalized"] != 1 {
			t.Errorf("transaction %s: events %v, want one created and one finalized", ref, kinds[ref])
		}
	}
	// Every transaction event of the schema's outbox arrived, and nothing else.
	var outboxIDs []string
	oRows, err := e.pool.Query(ctx, `SELECT id::text FROM outbox WHERE subject = ANY($1)`, subjects)
	if err != nil {
		t.Fatal(err)
	}
	for oRows.Next() {
		var id string
		if err := oRows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		outboxIDs = append(outboxIDs, id)
		if perID[id] != 1 {
			t.Errorf("outbox event %s received %d times", id, perID[id])
		}
	}
	if len(outboxIDs) != len(perID) {
		t.Errorf("received %d distinct event ids, the outbox holds %d", len(perID), len(outboxIDs))
	}
	if got := e.queryInt(t, `SELECT count(*) FROM transactions WHERE merchant_id = $1 AND status = 4 AND recovery_attempts = 1`, e.merchantID); got != n {
		t.Errorf("%d transactions recovered to Success, want %d", got, n)
	}
	if got := e.queryInt(t, `SELECT count(DISTINCT transaction_id) FROM transaction_logs l JOIN transactions t ON t.id = l.transaction_id
		WHERE t.merchant_id = $1 AND l.stage = $2 AND l.message LIKE 'Recovery attempt 1 of 1:%'`, e.merchantID, payment.StageInitialization); got != n {
		t.Errorf("%d transactions journal their recovery, want %d", got, n)
	}
}
