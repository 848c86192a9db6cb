// Package netguard guards outbound calls to URLs that users supply (callback
// URLs, validation endpoints) against server-side request forgery: such a
// URL must not reach loopback, private, link-local, metadata or other
// reserved addresses of the network Paygate runs in.
//
// The guard works twice: CheckURL validates a URL when it is saved (a clear
// error for the person typing it), and the client from Client re-checks
// every address it actually connects to, so a host name that resolves to a
// public address when saved and to a private one later (DNS rebinding), or a
// redirect to a private address, is refused at connect time.
package netguard

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

// DefaultResponseLimit is how much of a response body callers read by
// default (64 KiB).
const DefaultResponseLimit = 64 << 10

// maxRedirects is how many redirects a guarded client follows.
const maxRedirects = 3

// ErrForbiddenAddress is in the chain of every error caused by an address
// the policy refuses.
var ErrForbiddenAddress = errors.New("address not allowed")

// ErrTooLarge is returned by ReadLimited when a body is larger than allowed.
var ErrTooLarge = errors.New("body too large")

// ErrRedirect is in the chain of every redirect a guarded client refuses:
// one too many, or one to a URL the policy does not allow (then
// ErrForbiddenAddress may be in the chain too).
var ErrRedirect = errors.New("redirect refused")

// Policy says which addresses user-supplied URLs may reach.
type Policy struct {
	// AllowPrivate lets URLs reach loopback and private addresses
	// (config.Common.AllowPrivateURLs); only for local demos and tests.
	// Link-local and cloud metadata addresses stay refused whatever it says
	// (IsAlwaysRefused).
	AllowPrivate bool

	// allow, when set, permits the addresses it returns true for on top of
	// the public ones. Tests use it to let one loopback server through.
	allow func(netip.AddrPort) bool
	// lookup resolves host names; nil means the system resolver.
	lookup func(ctx context.Context, host string) ([]netip.Addr, error)
}

// CheckURL parses raw and checks that it is an http or https URL with a host
// and no user name or password and, unless AllowPrivate, that every address
// its host resolves to is public. Its errors are apperr.Invalid with a
// sentence saying what is wrong.
func (p Policy) CheckURL(ctx context.Context, raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, apperr.Invalid("The URL is required.")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, apperr.Invalid("The URL %q is not a valid URL.", raw)
	}
	if err := p.checkTarget(ctx, u); err != nil {
		return nil, err
	}
	return u, nil
}

// checkTarget checks scheme, host, userinfo and, unless AllowPrivate, the
// addresses the host resolves to.
func (p Policy) checkTarget(ctx context.Context, u *url.URL) error {
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return apperr.Invalid("The URL must start with http:// or https://.")
	}
	host := u.Hostname()
	if host == "" {
		return apperr.Invalid("The URL must name a host.")
	}
	if u.User != nil {
		return apperr.Invalid("The URL must not contain a user name or password.")
	}
	port, err := portOf(u, scheme)
	if err != nil {
		return err
	}
	if err := checkHostForm(host); err != nil {
		return err
	}
	if p.AllowPrivate {
		// No look-up here (a demo's hosts may resolve only later), but a
		// literal address is checked now and every address at connect time.
		if a, err := netip.ParseAddr(host); err == nil && IsAlwaysRefused(a) {
			return apperr.New(apperr.KindInvalid, fmt.Errorf("%w: %s", ErrForbiddenAddress, a),
				"The URL's host %q points to a link-local or cloud metadata address, which is never allowed.", host)
		}
		return nil
	}
	addrs, err := p.resolve(ctx, host)
	if err != nil {
		return apperr.New(apperr.KindInvalid, err, "The URL's host %q could not be resolved.", host)
	}
	for _, a := range addrs {
		if !p.permitted(netip.AddrPortFrom(a, port)) {
			return apperr.New(apperr.KindInvalid, fmt.Errorf("%w: %s", ErrForbiddenAddress, a),
				"The URL's host %q points to a private or reserved address; only public addresses are allowed.", host)
		}
	}
	return nil
}

// metadataNames are host names of cloud instance metadata services.
var metadataNames = map[string]bool{
	"metadata.google.internal": true, "metadata.goog": true, "metadata": true,
	"instance-data": true, "instance-data.ec2.internal": true, "metadata.azure.com": true,
}

// checkHostForm refuses metadata service names and IPv4 addresses written
// in the legacy forms some resolvers accept (2852039166, 0251.0376.0251.0376,
// 0xa9.254.169.254): an address must be written as four decimal numbers, so
// that what is checked is what is dialled.
func checkHostForm(host string) error {
	name := strings.TrimSuffix(strings.ToLower(host), ".")
	if metadataNames[name] {
		return apperr.New(apperr.KindInvalid, fmt.Errorf("%w: %s", ErrForbiddenAddress, name),
			"The URL's host %q is a cloud metadata service, which is never allowed.", host)
	}
	if _, err := netip.ParseAddr(name); err == nil {
		return nil
	}
	if a, ok := legacyIPv4(name); ok {
		return apperr.New(apperr.KindInvalid, fmt.Errorf("%w: %s written as %s", ErrForbiddenAddress, a, host),
			"The URL's host %q is an IP address in a non-standard form; write it as four decimal numbers, such as 203.0.113.7.", host)
	}
	return nil
}

// legacyIPv4 parses the inet_aton forms of an IPv4 address: one to four
// parts, each decimal, octal (leading 0) or hexadecimal (0x).
func legacyIPv4(s string) (netip.Addr, bool) {
	parts := strings.Split(s, ".")
	if len(parts) > 4 || s == "" {
		return netip.Addr{}, false
	}
	nums := make([]uint64, len(parts))
	for i, p := range parts {
		n, err := strconv.ParseUint(p, 0, 32)
		if err != nil {
			// ParseUint's base 0 reads 0o and 0b too; inet_aton reads a
			// leading 0 as octal, which base 0 also does for "0251".
			return netip.Addr{}, false
		}
		nums[i] = n
	}
	var v uint64
	last := len(nums) - 1
	for i, n := range nums[:last] {
		if n > 255 {
			return netip.Addr{}, false
		}
		v |= n << (24 - 8*i)
	}
	if nums[last] >= 1<<(8*(4-last)) {
		return netip.Addr{}, false
	}
	v |= nums[last]
	return netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}), true
}

func portOf(u *url.URL, scheme string) (uint16, error) {
	ps := u.Port()
	if ps == "" {
		if scheme == "https" {
			return 443, nil
		}
		return 80, nil
	}
	n, err := strconv.ParseUint(ps, 10, 16)
	if err != nil || n == 0 {
		return 0, apperr.Invalid("The URL's port %q is not valid.", ps)
	}
	return uint16(n), nil
}

func (p Policy) resolve(ctx context.Context, host string) ([]netip.Addr, error) {
	if a, err := netip.ParseAddr(host); err == nil {
		return []netip.Addr{a}, nil
	}
	lookup := p.lookup
	if lookup == nil {
		lookup = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	addrs, err := lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("no addresses for %s", host)
	}
	return addrs, nil
}

// permitted reports whether the policy lets a connection reach ap.
func (p Policy) permitted(ap netip.AddrPort) bool {
	if IsAlwaysRefused(ap.Addr()) {
		return false
	}
	if p.AllowPrivate {
		return true
	}
	if p.allow != nil && p.allow(ap) {
		return true
	}
	return IsPublic(ap.Addr())
}

// Client returns an HTTP client for user-supplied URLs: it takes no proxy
// from the environment, refuses to connect to an address the policy does not
// permit (checked on every resolved address at connect time), re-validates
// every redirect and stops after three, and gives up after timeout overall.
func (p Policy) Client(timeout time.Duration) *http.Client {
	dialer := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
	// Every address actually dialled is checked, AllowPrivate or not:
	// link-local and metadata addresses are refused always (DNS rebinding).
	dialer.Control = func(network, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return fmt.Errorf("%w: %s", ErrForbiddenAddress, address)
		}
		if !p.permitted(ap) {
			return fmt.Errorf("%w: %s", ErrForbiddenAddress, ap.Addr())
		}
		return nil
	}
	transport := &http.Transport{
		Proxy:                 nil,
		DialContext:           dialer.DialContext,
		ForceAttemptHTTP2:     true,
		MaxIdleConns:          512,
		MaxIdleConnsPerHost:   128,
		IdleConnTimeout:       90 * time.Second,
		TLSHandshakeTimeout:   timeout,
		ResponseHeaderTimeout: timeout,
		ExpectContinueTimeout: time.Second,
	}
	return &http.Client{
		Transport: transport,
		Timeout:   timeout,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > maxRedirects {
				return fmt.Errorf("%w: stopped after %d redirects", ErrRedirect, maxRedirects)
			}
			if err := p.checkTarget(req.Context(), req.URL); err != nil {
				return fmt.Errorf("%w: to %s: %w", ErrRedirect, req.URL.Redacted(), err)
			}
			return nil
		},
	}
}

// ReadLimited reads r to its end but at most n bytes; when r holds more it
// returns the first n bytes and an error wrapping ErrTooLarge.
func ReadLimited(r io.Reader, n int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, n+1))
	if err != nil {
		return b, err
	}
	if int64(len(b)) > n {
		return b[:n], fmt.Errorf("%w: more than %d bytes", ErrTooLarge, n)
	}
	return b, nil
}

// Ranges refused besides those netip classifies (loopback, private,
// link-local, multicast, unspecified).
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network"
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, broadcast
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("2001:db8::/32"), // documentation
	netip.MustParsePrefix("100::/64"),      // discard
}

// Prefixes whose addresses embed an IPv4 address that is checked in turn.
var (
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	sixTo4  = netip.MustParsePrefix("2002::/16")
	compat4 = netip.MustParsePrefix("::/96")
)

// metadataAddrs are cloud metadata services' addresses outside the
// link-local ranges (AWS's IPv6 one, Alibaba's).
var metadataAddrs = []netip.Prefix{
	netip.MustParsePrefix("fd00:ec2::254/128"),
	netip.MustParsePrefix("100.100.100.200/32"),
}

// IsAlwaysRefused reports whether a is link-local (which holds
// 169.254.169.254) or a cloud metadata address, in any IPv6 form that embeds
// such an IPv4 address: user-supplied URLs never reach these, even where
// private addresses are allowed.
func IsAlwaysRefused(a netip.Addr) bool {
	if !a.IsValid() {
		return true
	}
	a = a.Unmap()
	if a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() {
		return true
	}
	for _, p := range metadataAddrs {
		if p.Contains(a) {
			return true
		}
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a), compat4.Contains(a):
			return IsAlwaysRefused(netip.AddrFrom4([4]byte(b[12:16])))
		case sixTo4.Contains(a):
			return IsAlwaysRefused(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return false
}

// IsPublic reports whether a is an address user-supplied URLs may reach:
// not loopback, private (RFC 1918, fc00::/7), link-local (which holds the
// 169.254.169.254 metadata address), multicast, unspecified, carrier-grade
// NAT or otherwise reserved, IPv4-mapped and -embedding IPv6 forms included.
func IsPublic(a netip.Addr) bool {
	if !a.IsValid() {
		return false
	}
	a = a.Unmap()
	if a.IsLoopback() || a.IsPrivate() || a.IsLinkLocalUnicast() || a.IsLinkLocalMulticast() ||
		a.IsInterfaceLocalMulticast() || a.IsMulticast() || a.IsUnspecified() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return false
		}
	}
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a), compat4.Contains(a):
			return IsPublic(netip.AddrFrom4([4]byte(b[12:16])))
		case sixTo4.Contains(a):
			return IsPublic(netip.AddrFrom4([4]byte(b[2:6])))
		}
	}
	return true
}
