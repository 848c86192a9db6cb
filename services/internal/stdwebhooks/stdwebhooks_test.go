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
		t.Error("a header listing the right signature second is refused")
	}
	if stdwebhooks.Verify(key, "msg_p5jXN8AQM9LWM0D4loKWxJek", 1614265331, body, got) {
		t.Error("another timestamp verifies")
	}
}
