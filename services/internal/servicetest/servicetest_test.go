package servicetest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/servicetest"
)

// TestLogsSeeServingAcrossWrites feeds the "serving" line in pieces, as a
// child process's pipe may deliver it.
func TestLogsSeeServingAcrossWrites(t *testing.T) {
	t.Parallel()
	logs := servicetest.NewLogs()
	line := `{"msg":"serving","grpc_addr":"127.0.0.1:2","http_addr":"127.0.0.1:1"}` + "\n"
	_, _ = io.WriteString(logs, `{"msg":"starting"}`+"\n"+line[:20])
	select {
	case <-logs.Serving():
		t.Fatal("serving before the line was complete")
	default:
	}
	_, _ = io.WriteString(logs, line[20:])
	<-logs.Serving()
	if h, g := logs.Addrs(); h != "http://127.0.0.1:1" || g != "127.0.0.1:2" {
		t.Errorf("Addrs = %q, %q", h, g)
	}
	if !strings.Contains(logs.String(), "starting") {
		t.Errorf("the lines are not kept: %q", logs.String())
	}
}

// TestGo runs a service that serves until cancelled, one that fails before
// serving, and reports the error a service stops with.
func TestGo(t *testing.T) {
	t.Parallel()
	stopErr := errors.New("stopped badly")
	serving := func(ctx context.Context, getenv func(string) string, stdout io.Writer) error {
		fmt.Fprintf(stdout, `{"msg":"serving","http_addr":%q,"grpc_addr":"g"}`+"\n", getenv("ADDR"))
		<-ctx.Done()
		return stopErr
	}
	s, err := servicetest.Go(serving, map[string]string{"ADDR": "127.0.0.1:9"})
	if err != nil {
		t.Fatal(err)
	}
	if s.HTTPURL != "http://127.0.0.1:9" || s.GRPCAddr != "g" {
		t.Errorf("addresses %q %q", s.HTTPURL, s.GRPCAddr)
	}
	if err := s.Stop(); !errors.Is(err, stopErr) {
		t.Errorf("Stop = %v", err)
	}
	if err := s.Stop(); !errors.Is(err, stopErr) {
		t.Errorf("second Stop = %v", err)
	}
	failing := func(context.Context, func(string) string, io.Writer) error { return errors.New("bad config") }
	if _, err := servicetest.Go(failing, nil); err == nil || !strings.Contains(err.Error(), "bad config") {
		t.Errorf("Go of a failing run = %v", err)
	}
}
