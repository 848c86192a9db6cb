package app_test

import (
	"context"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/app"
)

// plainConfig has no config.Common: Run gives it the logger, the loops and
// the shutdown only.
type plainConfig struct {
	Name string `env:"PAYGATE_TEST_NAME" default:"x"`
	Size int    `env:"PAYGATE_TEST_SIZE" default:"1"`
}

func (c plainConfig) Check() []string {
	if c.Size < 1 {
		return []string{"PAYGATE_TEST_SIZE must be at least 1"}
	}
	return nil
}

func TestRunStopsInReverseOrder(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(t.Context())
	var cfg plainConfig
	var order []string
	started := make(chan struct{})
	err := make(chan error, 1)
	go func() {
		err <- app.Run(ctx, func(string) string { return "" }, io.Discard, app.Service{
			Name: "test", Config: &cfg,
			Wire: func(ctx context.Context, p *app.Parts) error {
				p.Defer(func() { order = append(order, "first") })
				p.Defer(func() { order = append(order, "second") })
				p.Go(func(ctx context.Context) error {
					close(started)
					<-ctx.Done()
					order = append(order, "loop")
					return nil
				})
				return nil
			},
		})
	}()
	<-started
	cancel()
	select {
	case e := <-err:
		if e != nil {
			t.Fatalf("Run = %v", e)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Run did not stop")
	}
	if want := []string{"loop", "second", "first"}; !slices.Equal(order, want) {
		t.Fatalf("stop order %v, want %v", order, want)
	}
}

func TestRunStopsWhenALoopFails(t *testing.T) {
	t.Parallel()
	var cfg plainConfig
	closed := false
	boom := errors.New("boom")
	err := app.Run(t.Context(), func(string) string { return "" }, io.Discard, app.Service{
		Name: "test", Config: &cfg,
		Wire: func(ctx context.Context, p *app.Parts) error {
			p.Defer(func() { closed = true })
			p.Go(func(ctx context.Context) error { <-ctx.Done(); return nil })
			p.Go(func(context.Context) error { return boom })
			return nil
		},
	})
	if !errors.Is(err, boom) || !closed {
		t.Fatalf("Run = %v (closed %v), want the loop's error and the deferred closed", err, closed)
	}
}

func TestRunReportsConfigAndWireErrors(t *testing.T) {
	t.Parallel()
	var cfg plainConfig
	wired := false
	err := app.Run(t.Context(), func(k string) string {
		return map[string]string{"PAYGATE_TEST_SIZE": "0"}[k]
	}, io.Discard, app.Service{Name: "test", Config: &cfg,
		Wire: func(context.Context, *app.Parts) error { wired = true; return nil }})
	if err == nil || !strings.Contains(err.Error(), "PAYGATE_TEST_SIZE must be at least 1") || wired {
		t.Fatalf("Run = %v (wired %v), want the config's problem and no wiring", err, wired)
	}
	closed := false
	err = app.Run(t.Context(), func(string) string { return "" }, io.Discard, app.Service{Name: "test", Config: &cfg,
		Wire: func(_ context.Context, p *app.Parts) error {
			p.Defer(func() { closed = true })
			return errors.New("wire failed")
		}})
	if err == nil || err.Error() != "wire failed" || !closed {
		t.Fatalf("Run = %v (closed %v), want Wire's error with what it deferred closed", err, closed)
	}
}

func TestCommandReturnsAfterWire(t *testing.T) {
	t.Parallel()
	var cfg plainConfig
	ran := false
	err := app.Run(t.Context(), func(string) string { return "" }, io.Discard, app.Service{Name: "test", Config: &cfg, Command: true,
		Wire: func(_ context.Context, p *app.Parts) error {
			ran = true
			p.Go(func(ctx context.Context) error { <-ctx.Done(); return nil }) // never started by a command
			return nil
		}})
	if err != nil || !ran {
		t.Fatalf("Run = %v (ran %v)", err, ran)
	}
}
