package server_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/grpc-ecosystem/grpc-gateway/v2/runtime"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	authv1 "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	"github.com/paygate/paygate/services/internal/server"
)

// probeClient asks a service's HTTP and gRPC ports what its probes ask.
type probeClient struct {
	httpURL string
	client  *http.Client
	health  healthpb.HealthClient
	cc      *grpc.ClientConn
}

func newProbeClient(t *testing.T, grpcAddr, httpAddr string) *probeClient {
	t.Helper()
	cc, err := grpc.NewClient(grpcAddr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	t.Cleanup(func() {
		_ = cc.Close()
		tr.CloseIdleConnections()
	})
	return &probeClient{httpURL: "http://" + httpAddr, client: &http.Client{Transport: tr, Timeout: 5 * time.Second},
		health: healthpb.NewHealthClient(cc), cc: cc}
}

func (p *probeClient) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := p.client.Get(p.httpURL + path)
	if err != nil {
		t.Fatalf("GET %s: %v", path, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// live is what the startup and liveness probes ask: gRPC health of "".
func (p *probeClient) live(t *testing.T) healthpb.HealthCheckResponse_ServingStatus {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	resp, err := p.health.Check(ctx, &healthpb.HealthCheckRequest{})
	if err != nil {
		t.Fatalf("gRPC health: %v", err)
	}
	return resp.GetStatus()
}

// A service that is still starting answers its probes as live and not
// ready on its own ports, refuses everything else as unavailable, and hands
// the same ports to its server, which then answers ready.
func TestStartupAnswersProbesThenHandsOver(t *testing.T) {
	t.Parallel()
	st, err := server.Start(server.Options{Name: "test", GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	grpcAddr, httpAddr := st.Addrs()
	p := newProbeClient(t, grpcAddr, httpAddr)

	// Starting (migrating): live, not ready.
	if s := p.live(t); s != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("liveness while starting = %v, want SERVING", s)
	}
	if code, body := p.get(t, "/healthz"); code != 200 {
		t.Errorf("/healthz while starting = %d %s", code, body)
	}
	if code, body := p.get(t, "/readyz"); code != 503 || !strings.Contains(body, `"starting"`) {
		t.Errorf("/readyz while starting = %d %s, want 503 starting", code, body)
	}
	if code, body := p.get(t, "/metrics"); code != 200 || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics while starting = %d", code)
	}
	code, body := p.get(t, "/api/v1/validate-token")
	var eb server.ErrorBody
	if code != 503 || json.Unmarshal([]byte(body), &eb) != nil || eb.Code != "unavailable" {
		t.Errorf("REST while starting = %d %s, want 503 unavailable", code, body)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_, err = authv1.NewAuthServiceClient(p.cc).Login(ctx, &authv1.LoginRequest{Username: "ann"})
	if status.Code(err) != codes.Unavailable {
		t.Errorf("gRPC call while starting = %v, want Unavailable", err)
	}

	// Started: the server takes the same ports over.
	o := server.Options{Name: "test", Logger: quietLogger(), Startup: st}
	srv := server.New(o)
	srv.Register(&authv1.AuthService_ServiceDesc, &fakeAuth{})
	srv.RegisterGateway(func(ctx context.Context, mux *runtime.ServeMux, cc grpc.ClientConnInterface) error {
		return authv1.RegisterAuthServiceHandlerClient(ctx, mux, authv1.NewAuthServiceClient(cc))
	})
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	if g, h := srv.Addrs(); g != grpcAddr || h != httpAddr {
		t.Errorf("server Addrs = %s %s, want the startup's %s %s", g, h, grpcAddr, httpAddr)
	}
	runCtx, stop := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	defer func() {
		stop()
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	}()
	deadline := time.Now().Add(5 * time.Second)
	for {
		code, _ := p.get(t, "/readyz")
		if code == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/readyz = %d 5s after the server ran, want 200", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	if s := p.live(t); s != healthpb.HealthCheckResponse_SERVING {
		t.Errorf("liveness once started = %v, want SERVING", s)
	}
	resp, err := authv1.NewAuthServiceClient(p.cc).Login(ctx, &authv1.LoginRequest{Username: "ann"})
	if err != nil || resp.GetAccessToken() != "ann" {
		t.Errorf("gRPC call once started = %v, %v", resp, err)
	}
	if code, body := p.get(t, "/healthz"); code != 200 {
		t.Errorf("/healthz once started = %d %s", code, body)
	}
	st.Close() // run's deferred Close after the hand-over leaves the ports open
	if code, _ := p.get(t, "/readyz"); code != 200 {
		t.Errorf("/readyz after the startup's Close = %d, want 200", code)
	}
}

// A service that fails before its server runs releases its ports.
func TestStartupCloseReleasesPorts(t *testing.T) {
	t.Parallel()
	st, err := server.Start(server.Options{Name: "test", GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	grpcAddr, httpAddr := st.Addrs()
	st.Close()
	st.Close()
	for _, addr := range []string{grpcAddr, httpAddr} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("port %s still taken after Close: %v", addr, err)
			continue
		}
		_ = l.Close()
	}
	srv := server.New(server.Options{Name: "test", Logger: quietLogger(), Startup: st})
	if err := srv.Run(context.Background()); err == nil || errors.Is(err, context.Canceled) {
		t.Errorf("Run on a closed startup = %v, want an error", err)
	}
}

// A service that fails after its server took the ports (Listen) but before
// it ran releases them too.
func TestStartupCloseAfterListenReleasesPorts(t *testing.T) {
	t.Parallel()
	st, err := server.Start(server.Options{Name: "test", GRPCAddr: "127.0.0.1:0", HTTPAddr: "127.0.0.1:0", Logger: quietLogger()})
	if err != nil {
		t.Fatal(err)
	}
	srv := server.New(server.Options{Name: "test", Logger: quietLogger(), Startup: st})
	if err := srv.Listen(); err != nil {
		t.Fatal(err)
	}
	grpcAddr, httpAddr := srv.Addrs()
	st.Close()
	for _, addr := range []string{grpcAddr, httpAddr} {
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Errorf("port %s still taken after Close: %v", addr, err)
			continue
		}
		_ = l.Close()
	}
}
