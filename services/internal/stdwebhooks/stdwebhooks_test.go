package stdwebhooks_test

import (
	"encoding/base64"
	"testing"

	"github.com/paygate/paygate/services/internal/stdwebhooks"
)

// The Standard Webhooks specification's own example.
func TestSpecificationVector(t *testing.T) {
	t.Parallel()
	key, err := base64.StdEncoding.DecodeString("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw")
	if err != nil {
		t.Fatal(err)
	}
	body := []byte(`{"test": 2432232314}`)
	got := stdwebhooks.Sign(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body)
	if want := "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="; got != want {
		t.Fatalf("Sign = %s, want %s", got, want)
	}
	if !stdwebhooks.Verify(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, "v1,bogus "+got) {
		t.Fatal("Verify refused a header listing the right signature second")
	}
	for name, tamper := range map[string]func() bool{
		"body": func() bool {
			return stdwebhooks.Verify(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, []byte(`{"test": 1}`), got)
		},
		"timestamp": func() bool { return stdwebhooks.Verify(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body, got) },
		"id":        func() bool { return stdwebhooks.Verify(key, "msg_other", 1614265330, body, got) },
		"key": func() bool {
			return stdwebhooks.Verify([]byte("other"), "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265330, body, got)
		},
	} {
		if tamper() {
			t.Errorf("Verify accepted a changed %s", name)
		}
	}
}
