package merchant_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"strconv"
	"testing"
	"time"

	"github.com/paygate/paygate/services/sandbox/internal/merchant"
)

func TestDemoSecret(t *testing.T) {
	t.Parallel()
	// The shared definition: merchant 1's secret is whsec_ + base64 of
	// "paygate-demo-callback-secret-1".
	if got, want := merchant.DemoSecret(1), "whsec_cGF5Z2F0ZS1kZW1vLWNhbGxiYWNrLXNlY3JldC0x"; got != want {
		t.Errorf("DemoSecret(1) = %q, want %q", got, want)
	}
}

func TestSignMatchesTheStandardForm(t *testing.T) {
	t.Parallel()
	body := []byte(`{"type":"transaction.finalized"}`)
	got, err := merchant.Sign(merchant.DemoSecret(7), "msg_1", 1700000000, body)
	if err != nil {
		t.Fatal(err)
	}
	mac := hmac.New(sha256.New, []byte("paygate-demo-callback-secret-7"))
	mac.Write([]byte("msg_1.1700000000." + string(body)))
	if want := "v1," + base64.StdEncoding.EncodeToString(mac.Sum(nil)); got != want {
		t.Errorf("Sign = %q, want %q", got, want)
	}
	if _, err := merchant.Sign("not-a-secret", "msg_1", 1, body); !errors.Is(err, merchant.ErrSecret) {
		t.Errorf("Sign with a bad secret: %v", err)
	}
}

func TestVerify(t *testing.T) {
	t.Parallel()
	now := time.Unix(1_700_000_000, 0)
	secret := merchant.DemoSecret(3)
	body := []byte(`{"data":{"id":"1"}}`)
	ts := now.Unix()
	good, _ := merchant.Sign(secret, "msg_a", ts, body)
	other, _ := merchant.Sign(merchant.DemoSecret(4), "msg_a", ts, body)
	stale := now.Add(-merchant.Tolerance - time.Second).Unix()
	staleSig, _ := merchant.Sign(secret, "msg_a", stale, body)
	tests := []struct {
		name                string
		id, timestamp, sigs string
		body                []byte
		want                error
	}{
		{"good", "msg_a", strconv.FormatInt(ts, 10), good, body, nil},
		{"one of several signatures", "msg_a", strconv.FormatInt(ts, 10), "v1,AAAA " + good, body, nil},
		{"another merchant's secret", "msg_a", strconv.FormatInt(ts, 10), other, body, merchant.ErrSignature},
		{"body changed", "msg_a", strconv.FormatInt(ts, 10), good, []byte(`{"data":{"id":"2"}}`), merchant.ErrSignature},
		{"id changed", "msg_b", strconv.FormatInt(ts, 10), good, body, merchant.ErrSignature},
		{"stale", "msg_a", strconv.FormatInt(stale, 10), staleSig, body, merchant.ErrTimestamp},
		{"not a number", "msg_a", "yesterday", good, body, merchant.ErrTimestamp},
		{"no signature", "msg_a", strconv.FormatInt(ts, 10), "", body, merchant.ErrMissingHeaders},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if err := merchant.Verify(secret, tt.id, tt.timestamp, tt.sigs, tt.body, now); !errors.Is(err, tt.want) {
				t.Errorf("Verify = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestRecorderKeepsTheLast(t *testing.T) {
	t.Parallel()
	r := merchant.NewRecorder(3)
	for i := 1; i <= 5; i++ {
		r.Add(merchant.Callback{WebhookID: "msg_" + strconv.Itoa(i), TransactionID: strconv.Itoa(i % 2)})
	}
	all := r.Find("", "")
	if len(all) != 3 || all[0].WebhookID != "msg_3" || all[2].WebhookID != "msg_5" {
		t.Fatalf("kept %+v, want msg_3..msg_5 oldest first", all)
	}
	if odd := r.Find("1", ""); len(odd) != 2 || odd[0].WebhookID != "msg_3" || odd[1].WebhookID != "msg_5" {
		t.Errorf("transaction 1: %+v", odd)
	}
	if one := r.Find("1", "msg_5"); len(one) != 1 {
		t.Errorf("by webhook id: %+v", one)
	}
	if none := r.Find("9", ""); none == nil || len(none) != 0 {
		t.Errorf("no match must be an empty list: %#v", none)
	}
}
