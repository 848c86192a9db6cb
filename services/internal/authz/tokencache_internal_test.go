package authz

import (
	"crypto/sha256"
	"testing"
)

// TestTokenCacheBound: the cache never holds more than two generations, a
// token read from the old generation moves to the current one and so
// outlives the next turn, and one not read is dropped.
func TestTokenCacheBound(t *testing.T) {
	t.Parallel()
	c := newTokenCache(3)
	sum := func(i int) [sha256.Size]byte { return sha256.Sum256([]byte{byte(i)}) }
	for i := range 10 {
		c.put(sum(i), verifiedToken{kid: string(rune('a' + i))})
		if n := c.len(); n > 6 {
			t.Fatalf("after %d puts the cache holds %d, want at most 6", i+1, n)
		}
	}
	// Generations now: old {6, 7, 8}, current {9}.
	if _, ok := c.get(sum(6)); !ok {
		t.Fatal("token 6 (old generation) not found")
	}
	// Current {9, 6}; one more put fills it, the next turns it.
	c.put(sum(10), verifiedToken{})
	c.put(sum(11), verifiedToken{})
	if _, ok := c.get(sum(6)); !ok {
		t.Fatal("token 6, read from the old generation, was dropped at the next turn")
	}
	if _, ok := c.get(sum(7)); ok {
		t.Fatal("token 7, never read, survived two turns")
	}
	if e, ok := c.get(sum(9)); !ok || e.kid != "j" {
		t.Fatalf("token 9 = %+v, %v", e, ok)
	}
}
