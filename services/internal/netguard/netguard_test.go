package netguard_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/netguard"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

func TestIsPublic(t *testing.T) {
	t.Parallel()
	tests := []struct {
		addr   string
		public bool
	}{
		{"93.184.216.34", true},
		{"8.8.8.8", true},
		{"2606:4700:4700::1111", true},
		{"127.0.0.1", false},
		{"127.8.9.10", false},
		{"::1", false},
		{"10.1.2.3", false},
		{"172.16.0.1", false},
		{"172.31.255.255", false},
		{"192.168.1.1", false},
		{"fc00::1", false},
		{"fd12:3456::1", false},
		{"169.254.169.254", false},
		{"169.254.1.1", false},
		{"fe80::1", false},
		{"fd00:ec2::254", false},
		{"0.0.0.0", false},
		{"::", false},
		{"224.0.0.1", false},
		{"ff02::1", false},
		{"100.64.0.1", false},
		{"100.127.255.255", false},
		{"255.255.255.255", false},
		{"::ffff:127.0.0.1", false},
		{"::ffff:169.254.169.254", false},
		{"::ffff:10.0.0.1", false},
		{"::ffff:8.8.8.8", true},
		{"64:ff9b::a00:1", false},          // NAT64 of 10.0.0.1
		{"64:ff9b::808:808", true},         // NAT64 of 8.8.8.8
		{"2002:7f00:1::1", false},          // 6to4 of 127.0.0.1
		{"172.15.255.255", true},           // just below 172.16/12
		{"100.63.255.255", true},           // just below 100.64/10
		{"100.128.0.0", true},              // just above 100.64/10
		{"169.253.255.255", true},          // just below link-local
		{"198.18.0.1", false},              // benchmarking
		{"192.0.2.10", false},              // documentation
		{"2001:db8::1", false},             // documentation
		{"2a00:1450:4001:81b::200e", true}, // a public IPv6 address
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			t.Parallel()
			if got := netguard.IsPublic(netip.MustParseAddr(tt.addr)); got != tt.public {
				t.Fatalf("IsPublic(%s) = %v, want %v", tt.addr, got, tt.public)
			}
		})
	}
}

func fixedLookup(m map[string][]string) func(context.Context, string) ([]netip.Addr, error) {
	return func(_ context.Context, host string) ([]netip.Addr, error) {
		ss, ok := m[host]
		if !ok {
			return nil, errors.New("no such host")
		}
		var out []netip.Addr
		for _, s := range ss {
			out = append(out, netip.MustParseAddr(s))
		}
		return out, nil
	}
}

func TestCheckURL(t *testing.T) {
	t.Parallel()
	lookup := fixedLookup(map[string][]string{
		"merchant.example":  {"93.184.216.34"},
		"internal.example":  {"10.0.0.7"},
		"mixed.example":     {"93.184.216.34", "127.0.0.1"},
		"metadata.example":  {"169.254.169.254"},
		"mapped.example":    {"::ffff:127.0.0.1"},
		"localhost.example": {"127.0.0.1", "::1"},
	})
	strict := netguard.WithLookup(netguard.Policy{}, lookup)
	lenient := netguard.WithLookup(netguard.Policy{AllowPrivate: true}, lookup)
	tests := []struct {
		name    string
		policy  netguard.Policy
		raw     string
		wantErr string // substring of the message; "" means accepted
	}{
		{"public https", strict, "https://merchant.example/hook?x=1", ""},
		{"public http with port", strict, "http://merchant.example:8443/hook", ""},
		{"public IP literal", strict, "https://93.184.216.34/cb", ""},
		{"empty", strict, "  ", "The URL is required."},
		{"ftp", strict, "ftp://merchant.example/x", "must start with http:// or https://"},
		{"no scheme", strict, "merchant.example/x", "must start with http:// or https://"},
		{"javascript", strict, "javascript:alert(1)", "must start with http:// or https://"},
		{"no host", strict, "http:///path", "must name a host"},
		{"userinfo", strict, "https://user:pw@merchant.example/", "user name or password"},
		{"bad port", strict, "https://merchant.example:99999/", "port"},
		{"unresolvable", strict, "https://nowhere.example/", "could not be resolved"},
		{"loopback literal", strict, "http://127.0.0.1:8080/", "private or reserved"},
		{"loopback v6 literal", strict, "http://[::1]/", "private or reserved"},
		{"mapped literal", strict, "http://[::ffff:127.0.0.1]/", "private or reserved"},
		{"metadata literal", strict, "http://169.254.169.254/latest/meta-data/", "private or reserved"},
		{"metadata v6 literal", strict, "http://[fd00:ec2::254]/", "private or reserved"},
		{"rfc1918 literal", strict, "https://192.168.0.10/", "private or reserved"},
		{"cgnat literal", strict, "https://100.64.1.1/", "private or reserved"},
		{"unspecified literal", strict, "https://0.0.0.0/", "private or reserved"},
		{"private by name", strict, "https://internal.example/", "private or reserved"},
		{"one private address among public", strict, "https://mixed.example/", "private or reserved"},
		{"metadata by name", strict, "https://metadata.example/", "private or reserved"},
		{"mapped by name", strict, "https://mapped.example/", "private or reserved"},
		{"loopback by name", strict, "https://localhost.example/", "private or reserved"},
		{"loopback allowed when private allowed", lenient, "http://127.0.0.1:8080/", ""},
		{"private name allowed when private allowed", lenient, "http://internal.example/", ""},
		{"scheme still checked when private allowed", lenient, "file:///etc/passwd", "must start with http:// or https://"},
		{"userinfo still checked when private allowed", lenient, "http://a:b@127.0.0.1/", "user name or password"},
		// Link-local and metadata addresses stay refused when private ones are allowed.
		{"metadata literal when private allowed", lenient, "http://169.254.169.254/latest/meta-data/", "never allowed"},
		{"metadata v6 when private allowed", lenient, "http://[fd00:ec2::254]/", "never allowed"},
		{"mapped metadata when private allowed", lenient, "http://[::ffff:169.254.169.254]/", "never allowed"},
		{"nat64 metadata when private allowed", lenient, "http://[64:ff9b::a9fe:a9fe]/", "never allowed"},
		{"link-local v6 when private allowed", lenient, "http://[fe80::1]/", "never allowed"},
		{"decimal metadata when private allowed", lenient, "http://2852039166/", "non-standard form"},
		{"octal metadata when private allowed", lenient, "http://0251.0376.0251.0376/", "non-standard form"},
		{"hex metadata when private allowed", lenient, "http://0xa9.0xfe.0xa9.0xfe/", "non-standard form"},
		{"short form when private allowed", lenient, "http://169.254.43518/", "non-standard form"},
		{"google metadata name when private allowed", lenient, "http://metadata.google.internal/computeMetadata/v1/", "cloud metadata service"},
		{"google metadata name with dot", lenient, "http://METADATA.google.internal./", "cloud metadata service"},
		{"decimal form when strict", strict, "http://2130706433/", "non-standard form"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			u, err := tt.policy.CheckURL(context.Background(), tt.raw)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("CheckURL(%q): %v", tt.raw, err)
				}
				if u == nil || u.Host == "" {
					t.Fatalf("CheckURL(%q) returned %v", tt.raw, u)
				}
				return
			}
			if err == nil {
				t.Fatalf("CheckURL(%q) accepted, want error containing %q", tt.raw, tt.wantErr)
			}
			if k := apperr.KindOf(err); k != apperr.KindInvalid {
				t.Fatalf("kind = %s, want invalid (%v)", k, err)
			}
			if msg := apperr.As(err).PublicMessage(); !strings.Contains(msg, tt.wantErr) {
				t.Fatalf("message %q does not contain %q", msg, tt.wantErr)
			}
		})
	}
}

// TestClientRefusesMetadataWhenPrivateAllowed dials link-local and metadata
// addresses through a client whose policy allows private addresses: the
// connect-time check refuses each before any packet leaves (the same check
// that catches a name re-pointed after it was saved).
func TestClientRefusesMetadataWhenPrivateAllowed(t *testing.T) {
	t.Parallel()
	client := netguard.Policy{AllowPrivate: true}.Client(2 * time.Second)
	for _, raw := range []string{"http://169.254.169.254/latest/meta-data/", "http://[fd00:ec2::254]/", "http://[fe80::1%25lo]/"} {
		resp, err := client.Get(raw)
		if err == nil {
			resp.Body.Close()
			t.Errorf("GET %s: connected, want refusal", raw)
			continue
		}
		if !errors.Is(err, netguard.ErrForbiddenAddress) {
			t.Errorf("GET %s: %v, want ErrForbiddenAddress", raw, err)
		}
	}
}

// addrPortOf returns the address of an httptest server.
func addrPortOf(t *testing.T, srv *httptest.Server) netip.AddrPort {
	t.Helper()
	u, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return netip.MustParseAddrPort(u.Host)
}

func newCounting(t *testing.T, h http.HandlerFunc) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func ok(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

func get(t *testing.T, c *http.Client, target string) (*http.Response, error) {
	t.Helper()
	t.Cleanup(c.CloseIdleConnections)
	req, err := http.NewRequestWithContext(context.Background(), http.MethodGet, target, nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(req)
	if err == nil {
		t.Cleanup(func() { _ = resp.Body.Close() })
	}
	return resp, err
}

func TestClientRefusesLoopbackUnlessAllowed(t *testing.T) {
	t.Parallel()
	srv, hits := newCounting(t, ok)

	_, err := get(t, netguard.Policy{}.Client(2*time.Second), srv.URL)
	if !errors.Is(err, netguard.ErrForbiddenAddress) {
		t.Fatalf("strict client: err = %v, want ErrForbiddenAddress", err)
	}
	// A host name is checked on the address it resolves to at connect time.
	named := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	if _, err := get(t, netguard.Policy{}.Client(2*time.Second), named); !errors.Is(err, netguard.ErrForbiddenAddress) {
		t.Fatalf("strict client by name: err = %v, want ErrForbiddenAddress", err)
	}
	if n := hits.Load(); n != 0 {
		t.Fatalf("server got %d requests through a strict client", n)
	}

	resp, err := get(t, netguard.Policy{AllowPrivate: true}.Client(2*time.Second), srv.URL)
	if err != nil {
		t.Fatalf("lenient client: %v", err)
	}
	if resp.StatusCode != http.StatusNoContent || hits.Load() != 1 {
		t.Fatalf("lenient client: status %d, hits %d", resp.StatusCode, hits.Load())
	}
}

func TestClientRefusesRedirectToPrivateAddress(t *testing.T) {
	t.Parallel()
	inner, innerHits := newCounting(t, ok)
	outer, outerHits := newCounting(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, inner.URL+"/secret", http.StatusFound)
	})
	// The policy lets the outer server through as if it were public; the
	// inner one stays a loopback address.
	p := netguard.WithAllowed(netguard.Policy{}, addrPortOf(t, outer))

	_, err := get(t, p.Client(2*time.Second), outer.URL)
	if err == nil {
		t.Fatal("redirect to a loopback address was followed")
	}
	if !errors.Is(err, netguard.ErrForbiddenAddress) {
		t.Fatalf("err = %v, want ErrForbiddenAddress", err)
	}
	if outerHits.Load() != 1 || innerHits.Load() != 0 {
		t.Fatalf("hits outer %d inner %d, want 1 and 0", outerHits.Load(), innerHits.Load())
	}

	// The same redirect to an allowed address is followed.
	both := netguard.WithAllowed(netguard.Policy{}, addrPortOf(t, outer), addrPortOf(t, inner))
	resp, err := get(t, both.Client(2*time.Second), outer.URL)
	if err != nil || resp.StatusCode != http.StatusNoContent || innerHits.Load() != 1 {
		t.Fatalf("allowed redirect: err %v, inner hits %d", err, innerHits.Load())
	}
}

func TestClientRefusesRedirectToOtherScheme(t *testing.T) {
	t.Parallel()
	srv, _ := newCounting(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "gopher://127.0.0.1:70/", http.StatusFound)
	})
	_, err := get(t, netguard.Policy{AllowPrivate: true}.Client(2*time.Second), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "http:// or https://") {
		t.Fatalf("err = %v, want a refused redirect", err)
	}
}

func TestClientStopsAfterThreeRedirects(t *testing.T) {
	t.Parallel()
	srv, hits := newCounting(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/again", http.StatusFound)
	})
	_, err := get(t, netguard.Policy{AllowPrivate: true}.Client(2*time.Second), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "stopped after 3 redirects") {
		t.Fatalf("err = %v, want stop after 3 redirects", err)
	}
	if n := hits.Load(); n != 4 {
		t.Fatalf("server hit %d times, want 4 (request + 3 redirects)", n)
	}
}

func TestClientTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv, _ := newCounting(t, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	defer close(release)
	start := time.Now()
	_, err := get(t, netguard.Policy{AllowPrivate: true}.Client(150*time.Millisecond), srv.URL)
	if err == nil {
		t.Fatal("slow server answered within the timeout")
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Fatalf("gave up after %v, want about 150ms", d)
	}
}

func TestClientTakesNoProxyFromEnvironment(t *testing.T) {
	t.Parallel()
	// The standard library never proxies loopback addresses, so a proxy set in
	// the environment cannot be observed with a local server; check the
	// transport instead.
	for _, p := range []netguard.Policy{{}, {AllowPrivate: true}} {
		tr, ok := p.Client(time.Second).Transport.(*http.Transport)
		if !ok {
			t.Fatalf("transport is %T", p.Client(time.Second).Transport)
		}
		if tr.Proxy != nil {
			t.Fatalf("policy %+v: transport has a proxy function", p)
		}
	}
}

func TestReadLimited(t *testing.T) {
	t.Parallel()
	b, err := netguard.ReadLimited(strings.NewReader("hello"), 5)
	if err != nil || string(b) != "hello" {
		t.Fatalf("exact: %q, %v", b, err)
	}
	b, err = netguard.ReadLimited(strings.NewReader("hello!"), 5)
	if !errors.Is(err, netguard.ErrTooLarge) || string(b) != "hello" {
		t.Fatalf("over: %q, %v", b, err)
	}
	b, err = netguard.ReadLimited(strings.NewReader(""), netguard.DefaultResponseLimit)
	if err != nil || len(b) != 0 {
		t.Fatalf("empty: %q, %v", b, err)
	}
}
