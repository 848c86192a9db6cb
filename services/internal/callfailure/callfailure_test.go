package callfailure_test

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/paygate/paygate/services/internal/callfailure"
	"github.com/paygate/paygate/services/internal/netguard"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// libraryText is what no sentence may hold: the words of Go's network
// errors and the addresses they name.
var libraryText = []string{"dial", "tcp", "lookup", "127.0.0.1", "::1", "i/o", "x509", "tls:", "http: ", "EOF", "context", ":53"}

func checkSentence(t *testing.T, name, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s: %q, want %q", name, got, want)
	}
	for _, bad := range libraryText {
		if strings.Contains(got, bad) {
			t.Errorf("%s: %q holds library text %q", name, got, bad)
		}
	}
}

// call makes a request with client the way the callers do and returns the
// error of Do or of reading the answer.
func call(t *testing.T, client *http.Client, ctx context.Context, url string, limit int64) error {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, strings.NewReader("{}"))
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = netguard.ReadLimited(resp.Body, limit)
	return err
}

// TestOfRealFailures makes calls that fail for real, on loopback, and checks
// each is classified and worded without the client's text.
func TestOfRealFailures(t *testing.T) {
	t.Parallel()
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedPort := lis.Addr().String()
	lis.Close() // nothing listens there now: connection refused
	release := make(chan struct{})
	mux := http.NewServeMux()
	mux.HandleFunc("/hangup", func(w http.ResponseWriter, _ *http.Request) {
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	})
	mux.HandleFunc("/slow", func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-release:
		}
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) { http.Redirect(w, r, "/loop", http.StatusFound) })
	mux.HandleFunc("/huge", func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, strings.Repeat("x", 2048)) })
	plain := httptest.NewServer(mux)
	t.Cleanup(plain.Close)
	secure := httptest.NewTLSServer(mux)
	t.Cleanup(secure.Close)
	t.Cleanup(func() { close(release) }) // before the servers close

	open := netguard.Policy{AllowPrivate: true}.Client(5 * time.Second)
	short := netguard.Policy{AllowPrivate: true}.Client(300 * time.Millisecond)
	strict := netguard.Policy{}.Client(5 * time.Second)
	t.Cleanup(open.CloseIdleConnections)
	t.Cleanup(short.CloseIdleConnections)
	t.Cleanup(strict.CloseIdleConnections)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	bg := context.Background()

	tests := []struct {
		name   string
		err    error
		class  callfailure.Class
		limit  int64
		phrase string
	}{
		{"connection refused", call(t, open, bg, "http://"+closedPort+"/", 1024), callfailure.ClassRefused, 0,
			"The endpoint refused the connection: nothing accepts connections on the URL's port."},
		{"hang-up", call(t, open, bg, plain.URL+"/hangup", 1024), callfailure.ClassClosed, 0,
			"The endpoint closed the connection before answering."},
		{"unknown host", call(t, open, bg, "http://validator.invalid/", 1024), callfailure.ClassDNS, 0,
			`The URL's host name "validator.invalid" was not found in DNS.`},
		{"slow", call(t, short, bg, plain.URL+"/slow", 1024), callfailure.ClassTimeout, 0,
			"The endpoint did not answer in time."},
		{"private address", call(t, strict, bg, plain.URL+"/", 1024), callfailure.ClassForbidden, 0,
			"Not called: the URL's host points to a private or reserved address, which is not allowed."},
		{"redirect loop", call(t, open, bg, plain.URL+"/loop", 1024), callfailure.ClassRedirect, 0,
			"The endpoint redirected to a URL that is not allowed or more than 3 times (at most 3 redirects are followed, each to a public http or https URL)."},
		{"untrusted certificate", call(t, open, bg, secure.URL+"/", 1024), callfailure.ClassTLS, 0,
			"The TLS handshake with the endpoint failed: its certificate is not trusted or not valid for the URL's host."},
		{"https to a plain server", call(t, open, bg, strings.Replace(plain.URL, "http:", "https:", 1)+"/", 1024), callfailure.ClassTLS, 0,
			"The TLS handshake with the endpoint failed: it does not speak TLS on that port (check http:// or https:// in the URL)."},
		{"answer too large", call(t, open, bg, plain.URL+"/huge", 1024), callfailure.ClassTooLarge, 1024,
			"The endpoint's answer is larger than 1 KiB."},
		{"not a URL", call(t, open, bg, "http://a b/", 1024), callfailure.ClassInvalidURL, 0,
			"The URL cannot be called: it is not a valid http or https URL."},
		{"another scheme", call(t, open, bg, "ftp://files.example/", 1024), callfailure.ClassInvalidURL, 0,
			"The URL cannot be called: it is not a valid http or https URL."},
		{"cancelled", call(t, open, cancelled, plain.URL+"/", 1024), callfailure.ClassCanceled, 0,
			"The call to the endpoint was cancelled before it answered."},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: the call did not fail", tt.name)
			continue
		}
		f := callfailure.Of(tt.err)
		if f.Class != tt.class {
			t.Errorf("%s: class %q, want %q (%v)", tt.name, f.Class, tt.class, tt.err)
		}
		f.Limit = tt.limit
		checkSentence(t, tt.name, f.Sentence("endpoint"), tt.phrase)
	}
}

// TestOfWrappedErrors covers the failures a loopback test cannot make
// (DNS time-outs, unreachable networks, the resolver's own address in the
// text) and the words that depend on what the caller knows.
func TestOfWrappedErrors(t *testing.T) {
	t.Parallel()
	dns := func(notFound, timeout bool) error {
		return &url.Error{Op: "Post", URL: "http://validator.invalid/", Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{
			Err: "no such host", Name: "validator.invalid", Server: "10.255.255.53:53", IsNotFound: notFound, IsTimeout: timeout}}}
	}
	tests := []struct {
		name string
		f    callfailure.Failure
		want string
	}{
		{"DNS time-out", callfailure.Of(dns(false, true)), `The URL's host name "validator.invalid" could not be resolved: DNS did not answer in time.`},
		{"DNS failure", callfailure.Of(dns(false, false)), `The URL's host name "validator.invalid" could not be resolved: the DNS query failed.`},
		{"unreachable", callfailure.Of(&net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ENETUNREACH)}),
			"The receiver cannot be reached: there is no network route to it."},
		{"time-out with its limit", callfailure.Failure{Class: callfailure.ClassTimeout, Timeout: 5 * time.Second}, "The receiver did not answer within 5s."},
		{"too large in MiB", callfailure.Failure{Class: callfailure.ClassTooLarge, Limit: 4 << 20}, "The receiver's answer is larger than 4 MiB."},
		{"too large, limit unknown", callfailure.Failure{Class: callfailure.ClassTooLarge}, "The receiver's answer is larger than the limit."},
		{"anything else", callfailure.Of(errors.New("http2: server sent GOAWAY and closed the connection; LastStreamID=1")), "The call to the receiver failed before an answer came."},
		{"no failure", callfailure.Of(nil), ""},
	}
	for _, tt := range tests {
		checkSentence(t, tt.name, tt.f.Sentence("receiver"), tt.want)
	}
}
