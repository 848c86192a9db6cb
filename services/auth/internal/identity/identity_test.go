package identity

import (
	"net/netip"
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

func TestIPRangeContains(t *testing.T) {
	t.Parallel()
	r := IPRange{From: netip.MustParseAddr("10.0.0.10"), To: netip.MustParseAddr("10.0.0.20")}
	v6 := IPRange{From: netip.MustParseAddr("2001:db8::1"), To: netip.MustParseAddr("2001:db8::ff")}
	for _, tc := range []struct {
		r    IPRange
		ip   string
		want bool
	}{
		{r, "10.0.0.10", true},
		{r, "10.0.0.15", true},
		{r, "10.0.0.20", true},
		{r, "10.0.0.9", false},
		{r, "10.0.0.21", false},
		{r, "::ffff:10.0.0.15", true},
		{r, "2001:db8::10", false},
		{v6, "2001:db8::10", true},
		{v6, "2001:db8::100", false},
		{v6, "10.0.0.15", false},
	} {
		if got := tc.r.Contains(netip.MustParseAddr(tc.ip)); got != tc.want {
			t.Errorf("%v-%v contains %s = %v, want %v", tc.r.From, tc.r.To, tc.ip, got, tc.want)
		}
	}
	if ipAllowed("not-an-ip", []IPRange{r}) {
		t.Error("an unparsable client address was allowed")
	}
}
