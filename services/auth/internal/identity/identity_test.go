package identity

import (
	"strings"
	"testing"
)

// cheap keeps the unit tests fast; the cost parameters are tested by reading
// them back from an encoded hash.
var cheap = Argon2Params{MemoryKiB: 64, Time: 1, Threads: 1, SaltLen: 16, KeyLen: 32}

func TestHashPasswordRoundTrip(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("correct horse", cheap)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		password string
		want     bool
	}{
		{"correct horse", true},
		{"correct horsE", false},
		{"", false},
	} {
		got, err := VerifyPassword(h, tc.password)
		if err != nil {
			t.Fatalf("verify %q: %v", tc.password, err)
		}
		if got != tc.want {
			t.Errorf("verify %q = %v, want %v", tc.password, got, tc.want)
		}
	}
}

func TestHashPasswordUsesOWASPParameters(t *testing.T) {
	t.Parallel()
	h, err := HashPassword("x", DefaultArgon2)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") {
		t.Fatalf("hash %q does not carry argon2id m=19456,t=2,p=1", h)
	}
	h2, _ := HashPassword("x", DefaultArgon2)
	if h == h2 {
		t.Fatal("two hashes of one password are equal: salt is not random")
	}
}

func TestVerifyPasswordRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, enc := range []string{
		"",
		"plain",
		"$2a$10$abcdefghijklmnopqrstuv",
		"$argon2id$v=18$m=64,t=1,p=1$c2FsdA$aGFzaA",
		"$argon2id$v=19$m=64,t=1$c2FsdA$aGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$!!!$aGFzaA",
		"$argon2id$v=19$m=64,t=1,p=1$c2FsdA$",
	} {
		if ok, err := VerifyPassword(enc, "x"); err == nil || ok {
			t.Errorf("VerifyPassword(%q) = %v, %v; want an error", enc, ok, err)
		}
	}
}
