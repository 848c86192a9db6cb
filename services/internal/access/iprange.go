package access

import "net/netip"

// IPRange is an inclusive range of addresses.
type IPRange struct {
	From netip.Addr `json:"from"`
	To   netip.Addr `json:"to"`
}

// Contains reports whether ip lies within the range. Addresses of another
// family never match; IPv4-mapped IPv6 addresses count as IPv4.
func (r IPRange) Contains(ip netip.Addr) bool {
	ip = ip.Unmap()
	from, to := r.From.Unmap(), r.To.Unmap()
	if !ip.IsValid() || ip.BitLen() != from.BitLen() || ip.BitLen() != to.BitLen() {
		return false
	}
	return from.Compare(ip) <= 0 && ip.Compare(to) <= 0
}

// IPAllowed reports whether ip (text) lies in any of ranges.
func IPAllowed(ip string, ranges []IPRange) bool {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return false
	}
	for _, r := range ranges {
		if r.Contains(addr) {
			return true
		}
	}
	return false
}
