package netguard

import (
	"context"
	"net/netip"
)

// WithAllowed returns p that also permits the addresses in allowed, so a
// test can let one loopback server through and refuse another.
func WithAllowed(p Policy, allowed ...netip.AddrPort) Policy {
	p.allow = func(ap netip.AddrPort) bool {
		for _, a := range allowed {
			if a == ap {
				return true
			}
		}
		return false
	}
	return p
}

// WithLookup returns p resolving host names with lookup.
func WithLookup(p Policy, lookup func(ctx context.Context, host string) ([]netip.Addr, error)) Policy {
	p.lookup = lookup
	return p
}
