package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/paygate/paygate/services/internal/pgdb/pgtest"
	"github.com/paygate/paygate/services/internal/servicetest"
)

// While a replica waits for the migration lock (another replica is
// migrating) or migrates, its ports already answer: the startup and
// liveness probes (gRPC health) see it alive, /readyz says 503 until the
// service has started, then 200. Kubernetes therefore leaves a long
// migration alone instead of restarting the pod in the middle of it.
func TestProbesAnswerWhileMigrating(t *testing.T) {
	t.Parallel()
	own := "auth_test_start_" + randomHex(6)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if conn, err := pgx.Connect(ctx, databaseURL); err == nil {
			_, _ = conn.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{own}.Sanitize()+" CASCADE")
			_ = conn.Close(ctx)
		}
	})
	// Another replica is migrating this schema.
	release := pgtest.HoldMigrationLock(t, own)

	env := map[string]string{
		"PAYGATE_DATABASE_URL":     databaseURL,
		"PAYGATE_DATABASE_SCHEMA":  own,
		"PAYGATE_REDIS_URL":        redisURL,
		"PAYGATE_REDIS_KEY_PREFIX": "paygate:test:" + own + ":",
		"PAYGATE_NATS_URL":         natsURL,
		"PAYGATE_HTTP_ADDR":        "127.0.0.1:0",
		"PAYGATE_GRPC_ADDR":        "127.0.0.1:0",
		"PAYGATE_DEMO":             "true",
	}
	logs := servicetest.NewLogs()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- run(ctx, func(k string) string { return env[k] }, logs) }()
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		cancel()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("run: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Error("run still running 30s after its context ended")
		}
	}
	defer stop()

	select {
	case <-logs.Listening():
	case err := <-done:
		stopped = true
		t.Fatalf("run returned before listening: %v\n%s", err, logs)
	case <-time.After(30 * time.Second):
		t.Fatalf("not listening after 30s:\n%s", logs)
	}
	httpURL, grpcAddr := logs.ProbeAddrs()
	cc, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	health := healthpb.NewHealthClient(cc)
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: 5 * time.Second}
	get := func(path string) (int, string) {
		t.Helper()
		resp, err := client.Get(httpURL + path)
		if err != nil {
			t.Fatalf("GET %s: %v", path, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	live := func() healthpb.HealthCheckResponse_ServingStatus {
		t.Helper()
		cctx, ccancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer ccancel()
		resp, err := health.Check(cctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			t.Fatalf("gRPC health: %v", err)
		}
		return resp.GetStatus()
	}

	// Several rounds of probes, as the kubelet would send them, while the
	// migration lock is held.
	for range 5 {
		if s := live(); s != healthpb.HealthCheckResponse_SERVING {
			t.Fatalf("startup/liveness probe while migrating = %v, want SERVING", s)
		}
		if code, body := get("/healthz"); code != http.StatusOK {
			t.Fatalf("/healthz while migrating = %d %s", code, body)
		}
		if code, body := get("/readyz"); code != http.StatusServiceUnavailable {
			t.Fatalf("/readyz while migrating = %d %s, want 503", code, body)
		}
		if code, _ := get("/.well-known/jwks.json"); code != http.StatusServiceUnavailable {
			t.Fatalf("a service route while migrating = %d, want 503", code)
		}
		time.Sleep(100 * time.Millisecond)
	}
	select {
	case <-logs.Serving():
		t.Fatal("the service says it serves while the migration lock is held")
	default:
	}

	// The other replica is done: this one migrates, starts and is ready on
	// the same ports.
	release()
	select {
	case <-logs.Serving():
	case err := <-done:
		stopped = true
		t.Fatalf("run returned before serving: %v\n%s", err, logs)
	case <-time.After(60 * time.Second):
		t.Fatalf("not serving 60s after the lock was released:\n%s", logs)
	}
	if servingHTTP, servingGRPC := logs.Addrs(); servingHTTP != httpURL || servingGRPC != grpcAddr {
		t.Errorf("served on %s %s, want the probes' ports %s %s", servingHTTP, servingGRPC, httpURL, grpcAddr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, body := get("/readyz")
		if code == http.StatusOK {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz = %d %s 10s after the service started, want 200", code, body)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if s := live(); s != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("liveness once started = %v, want SERVING", s)
	}
	if code, body := get("/.well-known/jwks.json"); code != http.StatusOK || !strings.Contains(body, `"keys"`) {
		t.Errorf("JWKS once started = %d %s", code, body)
	}
	stop()
}
