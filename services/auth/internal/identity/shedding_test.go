package identity

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// Load shedding of password checks (issue 31): with every hashing slot
// taken, a check waits at most HashWait, at most HashQueue checks wait, and
// the others are refused at once with 429 and a Retry-After; a slot freed
// in time is taken.
func TestPasswordChecksShedLoad(t *testing.T) {
	hash, err := HashPassword("right-password", DefaultArgon2)
	if err != nil {
		t.Fatal(err)
	}
	s := &Service{hashSlots: make(chan struct{}, runtime.GOMAXPROCS(0)), cfg: Config{HashQueue: 1, HashWait: 300 * time.Millisecond}}
	for range cap(s.hashSlots) {
		s.hashSlots <- struct{}{}
	}
	busy := func(err error) bool {
		e := apperr.As(err)
		return e != nil && e.Kind == apperr.KindTooManyRequests && e.PublicMessage() == MsgSignInBusy && e.RetryAfter > 0
	}

	// One waits; a second arriving meanwhile is refused at once.
	first := make(chan error, 1)
	go func() { _, err := s.verifyPassword(context.Background(), hash, "right-password"); first <- err }()
	deadline := time.Now().Add(5 * time.Second)
	for s.hashWaiting.Load() != 1 && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	start := time.Now()
	if _, err := s.verifyPassword(context.Background(), hash, "right-password"); !busy(err) {
		t.Fatalf("a check beyond the queue = %v, want the busy refusal", err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("the refusal beyond the queue took %v, want at once", d)
	}
	// The waiter gives up after HashWait.
	if err := <-first; !busy(err) {
		t.Fatalf("a check that waited past HashWait = %v, want the busy refusal", err)
	}
	if n := s.hashWaiting.Load(); n != 0 {
		t.Fatalf("%d checks still counted as waiting", n)
	}

	// A slot freed within the wait is taken, and the check runs.
	go func() { time.Sleep(50 * time.Millisecond); <-s.hashSlots }()
	ok, err := s.verifyPassword(context.Background(), hash, "right-password")
	if err != nil || !ok {
		t.Fatalf("a check whose slot freed in time = %v, %v", ok, err)
	}
	// A caller that gives up while waiting is not refused as busy.
	s.hashSlots <- struct{}{}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.verifyPassword(ctx, hash, "right-password"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a check whose caller gave up = %v", err)
	}
}
