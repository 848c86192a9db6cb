package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/paygate/paygate/bench/internal/harness"
)

// deadSample is the state of the dead scenario at one second of its run.
type deadSample struct {
	at      time.Duration
	ok9     int64  // 2xx answers of the receivers that stay healthy
	okDead  int64  // 2xx answers of the receiver that dies (phase A only)
	reqDead int64  // requests that came to it, held ones included
	state   string // its URL's breaker ("closed" without a row)
	svcCPU  time.Duration
	load    string
}

// deadBreaker is the dead URL's breaker row.
type deadBreaker struct {
	state    string
	failures int32
	cooldown time.Duration
	retryAt  *time.Time
}

// dead runs the dead-endpoint scenario. One service, one schema, one
// publishing loop: after -warmup, phase A (every receiver answers at once)
// runs for -phase; then the last collab's receiver stops answering (it holds
// every request until the service's PAYGATE_CALLBACK_TIMEOUT cuts it) and
// phase B runs for -phase. The figure is the 2xx answers per second of the
// nine receivers that stay healthy, B over A, with phase B measured from the
// moment the receiver died: the requests held before the breaker opened
// count against it.
func (b *bench) dead(ctx context.Context) error {
	if *collabs < 2 {
		return errors.New("needs at least 2 collabs")
	}
	b.sink.reset(0)
	// A receiver (an HTTP server on a port of its own) per URL: merchants'
	// receivers share no host, so the dead one's connections are not the
	// healthy ones' (the service keeps a connection pool per host).
	urls := make([]string, *collabs)
	for c := range *collabs {
		lis, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return err
		}
		srv := &http.Server{Handler: b.sink, ReadHeaderTimeout: 5 * time.Second}
		go func() { _ = srv.Serve(lis) }()
		defer srv.Close()
		urls[c] = "http://" + lis.Addr().String() + "/hook/" + strconv.Itoa(c+1)
	}
	timeout := *deadWait
	env := map[string]string{
		"PAYGATE_CALLBACK_TIMEOUT": timeout.String(),
		// Above the timeout plus the 2 s fresh wait, as the service requires.
		"PAYGATE_CALLBACK_EVENTS_ACK_WAIT": max(10*time.Second, timeout+10*time.Second).String(),
		"PAYGATE_CALLBACK_LEASE":           max(10*time.Second, 2*timeout).String(),
		"PAYGATE_CALLBACK_URL_WORKERS":     strconv.Itoa(*urlWorkers),
	}
	schema, svc, err := b.prepare(ctx, "dead", 3, env, urls)
	if err != nil {
		return err
	}
	defer b.drop(ctx, schema)
	defer svc.Stop(20 * time.Second)
	deadCollab := *collabs
	var deadURL int64
	if err := b.pool.QueryRow(ctx, `SELECT id FROM `+pgx.Identifier{schema, "callback_urls"}.Sanitize()+` WHERE collab_id = $1`,
		deadCollab).Scan(&deadURL); err != nil {
		return fmt.Errorf("dead url: %w", err)
	}
	breaker := func() (deadBreaker, error) {
		var br deadBreaker
		var ms int64
		err := b.pool.QueryRow(ctx, `SELECT state, consecutive_failures, cooldown_ms, retry_at FROM `+
			pgx.Identifier{schema, "url_breakers"}.Sanitize()+` WHERE callback_url_id = $1`, deadURL).
			Scan(&br.state, &br.failures, &ms, &br.retryAt)
		if errors.Is(err, pgx.ErrNoRows) {
			return deadBreaker{state: "closed"}, nil
		}
		br.cooldown = time.Duration(ms) * time.Millisecond
		return br, err
	}
	ok9 := func() int64 { return b.sink.okCount() - b.sink.okOf(deadCollab) }

	// Publish in chunks while the nine's backlog is under a ceiling (the
	// dead receiver's deliveries never reach the sink in phase B).
	const chunk, backlog = 2000, 27_000
	first := b.nextTx(0)
	var published, published9 int64
	var samples []deadSample
	var iA, iFlip, iEnd, iOpen int = -1, -1, -1, -1
	start := time.Now()
	next := start
	for iEnd < 0 {
		if published9-ok9() < backlog {
			if err := b.publish(ctx, first+published, chunk); err != nil {
				return err
			}
			for id := first + published; id < first+published+chunk; id++ {
				if 1+int(id)%*collabs != deadCollab {
					published9++
				}
			}
			published += chunk
		} else {
			time.Sleep(20 * time.Millisecond)
		}
		if time.Now().Before(next) {
			continue
		}
		next = next.Add(time.Second)
		// The sink's counts, and the breaker's one-row read, every second in
		// both phases alike.
		br, err := breaker()
		if err != nil {
			return fmt.Errorf("read breaker: %w", err)
		}
		s := deadSample{at: time.Since(start), ok9: ok9(), okDead: b.sink.okOf(deadCollab), reqDead: b.sink.requestsOf(deadCollab),
			state: br.state, svcCPU: harness.ProcessCPU(svc.Pid()), load: harness.LoadAvg()}
		samples = append(samples, s)
		i := len(samples) - 1
		switch {
		case iA < 0 && s.at >= *warmup:
			iA = i
		case iA >= 0 && iFlip < 0 && s.at >= *warmup+*phase:
			iFlip = i
			b.sink.dead.Store(int64(deadCollab))
		case iFlip >= 0 && s.at >= samples[iFlip].at+*phase:
			iEnd = i
		}
		if iFlip >= 0 && iOpen < 0 && br.state == "open" {
			iOpen = i
		}
	}
	b.txBase = first + published
	publishedDead := published - published9

	// The nine's deliveries all settle; the dead URL's stay pending.
	type split struct{ delivered, failed, pending int64 }
	var healthy, dead split
	counts := func() error {
		rows, err := b.pool.Query(ctx, `SELECT status, callback_url_id = $1, count(*) FROM `+
			pgx.Identifier{schema, "deliveries"}.Sanitize()+` GROUP BY 1, 2`, deadURL)
		if err != nil {
			return err
		}
		healthy, dead = split{}, split{}
		var st string
		var isDead bool
		var n int64
		_, err = pgx.ForEachRow(rows, []any{&st, &isDead, &n}, func() error {
			t := &healthy
			if isDead {
				t = &dead
			}
			switch st {
			case "delivered":
				t.delivered = n
			case "failed":
				t.failed = n
			case "pending":
				t.pending = n
			}
			return nil
		})
		return err
	}
	deadline := time.Now().Add(5 * time.Minute)
	for {
		if err := counts(); err != nil {
			return err
		}
		if healthy.delivered+healthy.failed >= published9 && healthy.pending == 0 {
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the nine not settled after 5 min: %+v of %d", healthy, published9)
		}
		time.Sleep(250 * time.Millisecond)
	}
	drained := time.Since(start)
	// Every request sent is listed as an attempt once the held ones have
	// timed out and their results are stored (a probe may be in flight).
	var attempts, requests int64
	for try := 0; try < 3*int(timeout/time.Second+5); try++ {
		for b.sink.held.Load() > 0 {
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(500 * time.Millisecond)
		if attempts, err = b.count(ctx, schema, "attempts", ""); err != nil {
			return err
		}
		requests = b.sink.snapshot().requests
		if attempts == requests {
			break
		}
	}
	if err := counts(); err != nil {
		return err
	}
	br, err := breaker()
	if err != nil {
		return err
	}
	final := b.sink.snapshot()

	rate := func(from, to int) float64 {
		return float64(samples[to].ok9-samples[from].ok9) / (samples[to].at - samples[from].at).Seconds()
	}
	rateA, rateB := rate(iA, iFlip), rate(iFlip, iEnd)
	ratio := rateB / rateA
	// The service's CPU per delivery to the nine (Postgres is shared with
	// other work on the machine: its CPU is not the service's alone).
	cpuPer := func(from, to int) float64 {
		n := samples[to].ok9 - samples[from].ok9
		if n == 0 {
			return 0
		}
		return float64((samples[to].svcCPU - samples[from].svcCPU).Microseconds()) / float64(n)
	}
	timeline := func(from, to int) string {
		var parts []string
		for i := from; i+5 <= to; i += 5 {
			parts = append(parts, fmt.Sprintf("%.0f", rate(i, i+5)))
		}
		return strings.Join(parts, " ")
	}

	fmt.Printf("\n### dead: one of %d receivers stops answering; %s warm-up, phases of %s; %d workers\n\n", *collabs, warmup, phase, *workers)
	limit := strconv.Itoa(*urlWorkers)
	if *urlWorkers == 0 {
		limit = "0 (no limit)"
	}
	fmt.Printf("Service: PAYGATE_CALLBACK_TIMEOUT=%s, PAYGATE_CALLBACK_URL_WORKERS=%s, breaker defaults (5 failures, cool-down 30 s doubling to 10 min), max attempts 3.\n\n",
		timeout, limit)
	fmt.Printf("| measure | phase A: all %d healthy | phase B: receiver %d dead |\n|---|---|---|\n", *collabs, deadCollab)
	fmt.Printf("| window | %.0fs → %.0fs | %.0fs → %.0fs |\n", samples[iA].at.Seconds(), samples[iFlip].at.Seconds(),
		samples[iFlip].at.Seconds(), samples[iEnd].at.Seconds())
	fmt.Printf("| **deliveries/s to the %d that stay healthy** | **%.0f** | **%.0f** |\n", *collabs-1, rateA, rateB)
	fmt.Printf("| the same, per 5 s | %s | %s |\n", timeline(iA, iFlip), timeline(iFlip, iEnd))
	fmt.Printf("| deliveries/s to receiver %d | %.0f | 0 (%d requests held until the timeout) |\n", deadCollab,
		float64(samples[iFlip].okDead-samples[iA].okDead)/(samples[iFlip].at-samples[iA].at).Seconds(),
		samples[iEnd].reqDead-samples[iFlip].reqDead)
	opened := "not within the phase"
	if iOpen >= 0 {
		opened = fmt.Sprintf("seen open %.0fs after it died", (samples[iOpen].at - samples[iFlip].at).Seconds())
	}
	// Its changes, seconds after the death, to read the 5-s rates against.
	var changes []string
	for i := iFlip + 1; i <= iEnd; i++ {
		if samples[i].state != samples[i-1].state {
			changes = append(changes, fmt.Sprintf("%s at +%.0fs", samples[i].state, (samples[i].at-samples[iFlip].at).Seconds()))
		}
	}
	fmt.Printf("| its breaker | closed | %s (%s) |\n", opened, strings.Join(changes, ", "))
	fmt.Printf("| service CPU per delivery to the %d | %.0f µs | %.0f µs |\n", *collabs-1, cpuPer(iA, iFlip), cpuPer(iFlip, iEnd))
	fmt.Printf("| load average (1, 5, 15 min) at the start | %s | %s |\n", samples[iA].load, samples[iFlip].load)
	fmt.Printf("\n**B/A = %.3f** (load average at the end %s)", ratio, samples[iEnd].load)
	if iOpen >= 0 && iOpen < iEnd {
		fmt.Printf("; from the breaker's opening to the end of B: %.0f/s, %.3f of A", rate(iOpen, iEnd), rate(iOpen, iEnd)/rateA)
	}
	// The seconds the breaker cannot help with: before it opens, the dead
	// receiver holds every request sent to it until the timeout.
	early := min(iFlip+5, iEnd)
	fmt.Printf("; the first 5 s after it died: %.0f/s, %.3f of A", rate(iFlip, early), rate(iFlip, early)/rateA)
	fmt.Printf("\n\n| after publishing | value |\n|---|---|\n")
	fmt.Printf("| published | %d events: %d to the %d healthy, %d to receiver %d |\n", published, published9, *collabs-1, publishedDead, deadCollab)
	fmt.Printf("| the %d healthy, settled at %.1fs | %d delivered + %d failed + %d pending |\n", *collabs-1, drained.Seconds(),
		healthy.delivered, healthy.failed, healthy.pending)
	fmt.Printf("| receiver %d | %d delivered (before it died) + %d failed + %d pending: pending while its breaker is open |\n",
		deadCollab, dead.delivered, dead.failed, dead.pending)
	retry := "none"
	if br.retryAt != nil {
		retry = br.retryAt.UTC().Format(time.RFC3339)
	}
	fmt.Printf("| its breaker at the end | %s, %d consecutive failures, cool-down %s, next probe %s |\n", br.state, br.failures, br.cooldown, retry)
	fmt.Printf("| balance | published %d = delivered %d + failed %d + pending %d |\n", published,
		healthy.delivered+dead.delivered, healthy.failed+dead.failed, healthy.pending+dead.pending)
	fmt.Printf("| attempts persisted | %d = sink requests %d (held ones included) |\n", attempts, requests)

	var problems []string
	if got := healthy.delivered + dead.delivered + healthy.failed + dead.failed + healthy.pending + dead.pending; got != published {
		problems = append(problems, fmt.Sprintf("published %d, deliveries %d", published, got))
	}
	if healthy.delivered != published9 {
		problems = append(problems, fmt.Sprintf("%d delivered to the healthy, %d published to them", healthy.delivered, published9))
	}
	if dead.delivered != samples[iEnd].okDead {
		problems = append(problems, fmt.Sprintf("%d delivered to receiver %d, %d answered 2xx", dead.delivered, deadCollab, samples[iEnd].okDead))
	}
	if attempts != requests {
		problems = append(problems, fmt.Sprintf("%d attempts persisted for %d requests at the sink", attempts, requests))
	}
	if final.badSig > 0 {
		problems = append(problems, fmt.Sprintf("%d bad signatures", final.badSig))
	}
	if ratio < 0.90 {
		problems = append(problems, fmt.Sprintf("B/A = %.3f, below 0.90", ratio))
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "; "))
	}
	fmt.Printf("| checks | B/A >= 0.90; balance; the nine all delivered; attempts = requests |\n")
	return nil
}
