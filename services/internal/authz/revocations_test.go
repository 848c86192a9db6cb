package authz_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

// token is the claims of a token of this release's auth in session sid.
func token(sid string) *access.Claims {
	return &access.Claims{SessionID: sid, Version: access.TokenVersion}
}

// olderAuthToken is the claims of a token of an auth release from before
// the ver claim, which never writes RevocationsFilledKey.
func olderAuthToken(sid string) *access.Claims {
	return &access.Claims{SessionID: sid}
}

// testRedis returns a client of the test Redis and a function that makes
// session ids of this test's own (its keys are the only ones it deletes:
// the Redis is shared, so no test flushes it).
func testRedis(t *testing.T) (*redis.Client, func() string) {
	t.Helper()
	opts, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	rdb := redis.NewClient(opts)
	var keys []string
	t.Cleanup(func() {
		if len(keys) > 0 {
			rdb.Del(context.Background(), keys...)
		}
		_ = rdb.Close()
	})
	return rdb, func() string {
		b := make([]byte, 8)
		_, _ = rand.Read(b)
		sid := "test-refill-" + hex.EncodeToString(b)
		keys = append(keys, authz.RevokedSessionKey(sid))
		return sid
	}
}

// A Redis that lost its revocations gets back those whose tokens can still
// be valid, each until its last token expires.
func TestRedisRevocationsRefill(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	rdb, newSID := testRedis(t)
	rev := authz.NewRedisRevocations(rdb)
	now := time.Now()
	const accessTTL = 5 * time.Minute
	recent := authz.RevokedSession{ID: newSID(), RevokedAt: now.Add(-time.Minute)}
	old := authz.RevokedSession{ID: newSID(), RevokedAt: now.Add(-accessTTL - authz.Leeway - time.Second)}
	for _, s := range []authz.RevokedSession{recent, old} {
		if err := rev.Revoke(ctx, s.ID, accessTTL); err != nil {
			t.Fatal(err)
		}
	}
	// Redis loses them (this test's keys only).
	if err := rdb.Del(ctx, authz.RevokedSessionKey(recent.ID), authz.RevokedSessionKey(old.ID)).Err(); err != nil {
		t.Fatal(err)
	}
	if revoked, err := rev.IsRevoked(ctx, token(recent.ID)); err != nil || revoked {
		t.Fatalf("IsRevoked after the flush = %v, %v", revoked, err)
	}

	n, err := rev.Refill(ctx, []authz.RevokedSession{recent, old}, accessTTL, now)
	if err != nil || n != 1 {
		t.Fatalf("Refill = %d, %v; want 1 (the old one is past its tokens)", n, err)
	}
	if revoked, err := rev.IsRevoked(ctx, token(recent.ID)); err != nil || !revoked {
		t.Errorf("IsRevoked(recent) after Refill = %v, %v", revoked, err)
	}
	if revoked, err := rev.IsRevoked(ctx, token(old.ID)); err != nil || revoked {
		t.Errorf("IsRevoked(old) after Refill = %v, %v", revoked, err)
	}
	ttl, err := rdb.TTL(ctx, authz.RevokedSessionKey(recent.ID)).Result()
	if want := accessTTL + authz.Leeway - time.Minute; err != nil || ttl > want || ttl < want-5*time.Second {
		t.Errorf("TTL = %v, %v; want about %v", ttl, err, want)
	}
	if n, err := rev.Refill(ctx, nil, accessTTL, now); err != nil || n != 0 {
		t.Errorf("Refill of nothing = %d, %v", n, err)
	}
}

// KeepRefilled puts back a lost revocation within its interval, survives a
// failing source, and returns when its context ends.
func TestRedisRevocationsKeepRefilled(t *testing.T) {
	t.Parallel()
	rdb, newSID := testRedis(t)
	rev := authz.NewRedisRevocations(rdb)
	sid := newSID()
	revokedAt := time.Now()
	fail := make(chan bool, 1)
	fail <- true // the first call fails: the loop goes on
	var since time.Time
	sinceSet := make(chan struct{})
	list := func(ctx context.Context, s time.Time) ([]authz.RevokedSession, error) {
		select {
		case <-fail:
			return nil, errors.New("database down")
		default:
		}
		select {
		case <-sinceSet:
		default:
			since = s
			close(sinceSet)
		}
		return []authz.RevokedSession{{ID: sid, RevokedAt: revokedAt}}, nil
	}
	ctx, cancel := context.WithCancel(testContext(t))
	done := make(chan error, 1)
	go func() {
		done <- rev.KeepRefilled(ctx, list, time.Minute, 20*time.Millisecond, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	waitRevoked := func(what string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for {
			revoked, err := rev.IsRevoked(ctx, token(sid))
			if err != nil {
				t.Fatal(err)
			}
			if revoked {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: session not revoked again within 5s", what)
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	waitRevoked("first refill")
	<-sinceSet
	if d := time.Since(since); d < time.Minute+authz.Leeway || d > time.Minute+authz.Leeway+5*time.Second {
		t.Errorf("asked for sessions revoked in the last %v, want the access TTL plus the leeway", d)
	}
	if err := rdb.Del(ctx, authz.RevokedSessionKey(sid)).Err(); err != nil {
		t.Fatal(err)
	}
	waitRevoked("after a flush")
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("KeepRefilled = %v, want nil", err)
		}
	case <-time.After(3 * time.Second):
		t.Fatal("KeepRefilled still running 3s after its context ended")
	}
}

// privateRedis returns a client of a Redis database of this test's own
// (PAYGATE_TEST_REDIS_URL's server, database 10), emptied, since the test
// flushes it: the shared test database is never flushed.
func privateRedis(t *testing.T) *redis.Client {
	t.Helper()
	opts, err := redis.ParseURL(redisURL())
	if err != nil {
		t.Fatal(err)
	}
	opts.DB = 10
	rdb := redis.NewClient(opts)
	t.Cleanup(func() {
		rdb.FlushDB(context.Background())
		_ = rdb.Close()
	})
	if err := rdb.FlushDB(testContext(t)).Err(); err != nil {
		t.Fatal(err)
	}
	return rdb
}

// After Redis lost its data (FLUSHDB), an absent mark is not trusted for a
// token of this release's auth: a reader waits for the auth service's refill, which comes within
// FilledCheckInterval instead of the refill interval, and then answers
// right; with no refill coming it refuses (fails closed). A whole Redis
// answers in one round trip either way. A token of an older auth, which
// never refills, is answered at once from its mark, as before the key.
func TestRedisRevocationsAfterFlush(t *testing.T) {
	t.Parallel()
	ctx := testContext(t)
	rdb := privateRedis(t)
	rev := authz.NewRedisRevocations(rdb)
	const accessTTL = 5 * time.Minute
	revoked := authz.RevokedSession{ID: "flush-revoked", RevokedAt: time.Now().Add(-time.Minute)}
	const live = "flush-live"

	// A token of an auth from before the filled key: that auth never
	// refills, so its tokens are read as its release read them, at once —
	// revoked with a mark, not revoked without one.
	const olderRevoked = "flush-older-revoked"
	if err := rev.Revoke(ctx, olderRevoked, accessTTL); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if got, err := rev.IsRevoked(ctx, olderAuthToken(olderRevoked)); err != nil || !got {
		t.Errorf("IsRevoked(an older auth's revoked token) = %v, %v; want true", got, err)
	}
	if got, err := rev.IsRevoked(ctx, olderAuthToken(live)); err != nil || got {
		t.Errorf("IsRevoked(an older auth's live token) on a Redis never filled = %v, %v; want false", got, err)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("an older auth's tokens answered after %v: they must not wait for a refill that auth never makes", d)
	}

	// Never filled (or flushed before this process started): not trusted.
	start = time.Now()
	if _, err := rev.IsRevoked(ctx, token(live)); !errors.Is(err, authz.ErrRevocationsLost) {
		t.Fatalf("IsRevoked on a Redis never filled = %v, want ErrRevocationsLost", err)
	}
	if d := time.Since(start); d < authz.RefillWait || d > authz.RefillWait+2*time.Second {
		t.Errorf("refused after %v, want after RefillWait (%v)", d, authz.RefillWait)
	}

	// The auth service keeps them refilled, every hour only: recovering
	// from a flush must not wait for that.
	list := func(context.Context, time.Time) ([]authz.RevokedSession, error) {
		return []authz.RevokedSession{revoked}, nil
	}
	kctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- rev.KeepRefilled(kctx, list, accessTTL, time.Hour, slog.New(slog.NewTextHandler(io.Discard, nil)))
	}()
	defer func() {
		stop()
		<-done
	}()
	check := func(what string) {
		t.Helper()
		start := time.Now()
		if got, err := rev.IsRevoked(ctx, token(revoked.ID)); err != nil || !got {
			t.Errorf("%s: IsRevoked(revoked) = %v, %v; want true", what, got, err)
		}
		if got, err := rev.IsRevoked(ctx, token(live)); err != nil || got {
			t.Errorf("%s: IsRevoked(live) = %v, %v; want false", what, got, err)
		}
		if d := time.Since(start); d > 2*authz.FilledCheckInterval+time.Second {
			t.Errorf("%s: answered after %v", what, d)
		}
	}
	check("first refill")

	for i := range 3 {
		if err := rdb.FlushDB(ctx).Err(); err != nil {
			t.Fatal(err)
		}
		// Many calls at once share one wait.
		var wg sync.WaitGroup
		for range 20 {
			wg.Go(func() { check(fmt.Sprintf("right after flush %d", i+1)) })
		}
		wg.Wait()
	}

	// No auth service to refill: the readers refuse, then recover once one
	// refills.
	stop()
	if err := <-done; err != nil {
		t.Errorf("KeepRefilled = %v", err)
	}
	done <- nil // for the deferred stop
	if err := rdb.FlushDB(ctx).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := rev.IsRevoked(ctx, token(revoked.ID)); !errors.Is(err, authz.ErrRevocationsLost) {
		t.Errorf("IsRevoked with nobody refilling = %v, want ErrRevocationsLost", err)
	}
	if n, err := rev.Refill(ctx, []authz.RevokedSession{revoked}, accessTTL, time.Now()); err != nil || n != 1 {
		t.Fatalf("Refill = %d, %v", n, err)
	}
	check("after a refill")
}
