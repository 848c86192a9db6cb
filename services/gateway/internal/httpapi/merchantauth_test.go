package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/server"
)

func testAuth(t testing.TB, now time.Time) *MerchantAuth {
	a, err := NewMerchantAuth(func(_ context.Context, hash string) (int32, []Key, error) {
		if hash != "m1" {
			return 0, nil, apperr.NotFound("The merchant was not found.")
		}
		return 1, []Key{{ID: 7, Secret: []byte("secret")}}, nil
	}, func() time.Time { return now })
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func TestVerifyAndMarker(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_750_000_000, 0)
	a := testAuth(t, now)
	body := []byte(`{"a":1}`)
	h := http.Header{}
	h.Set(HeaderMerchant, "m1")
	h.Set(HeaderTimestamp, strconv.FormatInt(now.Unix(), 10))
	h.Set(HeaderSignature, Sign([]byte("secret"), now.Unix(), body))
	id, err := a.verify(context.Background(), h, body)
	if err != nil || id != 1 {
		t.Fatalf("verify = %d, %v", id, err)
	}
	if _, err := a.verify(context.Background(), h, []byte(`{"a":2}`)); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Errorf("another body: %v", err)
	}
	m := a.marker(1, now)
	if got, ok := a.VerifiedMerchant([]string{m}); !ok || got != 1 {
		t.Errorf("own marker refused")
	}
	if _, ok := testAuth(t, now).VerifiedMerchant([]string{m}); ok {
		t.Error("marker of another process accepted")
	}
	if _, ok := a.VerifiedMerchant([]string{m[:len(m)-1] + "0"}); ok && m[len(m)-1] != '0' {
		t.Error("tampered marker accepted")
	}
	later := testAuth(t, now.Add(time.Minute))
	later.key = a.key
	if _, ok := later.VerifiedMerchant([]string{m}); ok {
		t.Error("old marker accepted")
	}
}

// FuzzSignatureHeaders checks that no header or body makes the check panic
// or pass without the right signature.
func FuzzSignatureHeaders(f *testing.F) {
	now := time.Unix(1_750_000_000, 0)
	f.Add("m1", "1750000000", "v1="+"00", []byte(`{}`))
	f.Add("m1", "1750000000", Sign([]byte("secret"), now.Unix(), []byte(`{}`)), []byte(`{}`))
	f.Add("", "-1", "v1=", []byte(nil))
	f.Add("m2", "99999999999999", "v2=abc", []byte("x"))
	a := testAuth(f, now)
	f.Fuzz(func(t *testing.T, merchant, ts, sig string, body []byte) {
		h := http.Header{}
		h.Set(HeaderMerchant, merchant)
		h.Set(HeaderTimestamp, ts)
		h.Set(HeaderSignature, sig)
		id, err := a.verify(context.Background(), h, body)
		if err != nil {
			return
		}
		n, perr := ParseTimestamp(ts)
		if perr != nil || id != 1 || sig != Sign([]byte("secret"), n, body) && !sameDigest(sig, Sign([]byte("secret"), n, body)) {
			t.Fatalf("accepted merchant %q ts %q sig %q", merchant, ts, sig)
		}
		_, _ = a.VerifiedMerchant([]string{sig})
	})
}

func sameDigest(a, b string) bool {
	x, err1 := ParseSignature(a)
	y, err2 := ParseSignature(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}

// TestOversizedBodiesAre413 sends a body over the limit on the signed
// initialize path: a 413 naming the limit, read no further, and nothing
// behind the check runs (the webhook's 413 is tested with a real provider
// secret in the gateway's transactions test).
func TestOversizedBodiesAre413(t *testing.T) {
	t.Parallel()
	a := testAuth(t, time.Now())
	reached := false
	signed := a.Wrap(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true }))
	big := strings.Repeat("x", server.MaxBodyBytes+1)
	for name, h := range map[string]http.Handler{"signed initialize": signed} {
		req := httptest.NewRequest(http.MethodPost, "/api/v1/transactions/initialize", strings.NewReader(big))
		req.Header.Set(HeaderMerchant, "m1")
		req.Header.Set(HeaderTimestamp, strconv.FormatInt(time.Now().Unix(), 10))
		req.Header.Set(HeaderSignature, "v1=00")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		var body server.ErrorBody
		_ = json.Unmarshal(rec.Body.Bytes(), &body)
		if rec.Code != http.StatusRequestEntityTooLarge || body.Message != server.TooLargeMessage {
			t.Errorf("%s: %d %+v, want 413 %q", name, rec.Code, body, server.TooLargeMessage)
		}
	}
	if reached {
		t.Error("the handler behind the signature check ran")
	}
}

// TestVerifyAnyLiveKey: a signature made with any of a merchant's keys that
// has not expired verifies; an expired one's does not; uses are reported
// at most once per UseInterval per key.
func TestVerifyAnyLiveKey(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_750_000_000, 0)
	keys := []Key{
		{ID: 3, Secret: []byte("new")},
		{ID: 2, Secret: []byte("old"), ExpiresAt: now.Add(time.Hour)},
		{ID: 1, Secret: []byte("gone"), ExpiresAt: now.Add(-time.Second)},
	}
	clock := now
	a, err := NewMerchantAuth(func(context.Context, string) (int32, []Key, error) { return 5, keys, nil },
		func() time.Time { return clock })
	if err != nil {
		t.Fatal(err)
	}
	var used []int64
	a.Used = func(_ context.Context, id int64, _ time.Time) { used = append(used, id) }
	body := []byte(`{}`)
	signed := func(secret string) http.Header {
		h := http.Header{}
		h.Set(HeaderMerchant, "m")
		h.Set(HeaderTimestamp, strconv.FormatInt(clock.Unix(), 10))
		h.Set(HeaderSignature, Sign([]byte(secret), clock.Unix(), body))
		return h
	}
	for _, secret := range []string{"new", "old", "new"} {
		if id, err := a.verify(context.Background(), signed(secret), body); err != nil || id != 5 {
			t.Errorf("%s: verify = %d, %v", secret, id, err)
		}
	}
	if _, err := a.verify(context.Background(), signed("gone"), body); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Errorf("expired key: %v", err)
	}
	if want := []int64{3, 2}; len(used) != 2 || used[0] != want[0] || used[1] != want[1] {
		t.Errorf("used = %v, want %v", used, want)
	}
	clock = now.Add(UseInterval)
	if _, err := a.verify(context.Background(), signed("new"), body); err != nil {
		t.Fatal(err)
	}
	if len(used) != 3 || used[2] != 3 {
		t.Errorf("used after a minute = %v", used)
	}
	clock = now.Add(2 * time.Hour)
	if _, err := a.verify(context.Background(), signed("old"), body); apperr.KindOf(err) != apperr.KindUnauthenticated {
		t.Errorf("key past its expiry: %v", err)
	}
}
