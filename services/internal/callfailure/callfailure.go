// Package callfailure words the failures of outbound HTTP calls to URLs that
// users supply (merchants' validation endpoints and callback receivers) for
// the operators who read them.
//
// What an HTTP client says when a call fails is library text that can name
// the network Paygate runs in ("dial tcp: lookup x on 10.0.0.53:53: no such
// host" reveals the resolver's address). Such text goes to the log only; what
// is stored and shown is the sentence of the failure's class, from Of and
// Failure.Sentence.
package callfailure

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	"github.com/paygate/paygate/services/internal/netguard"
)

// Class is a kind of call failure. Its value is a short stable label for
// logs and metrics.
type Class string

// The classes of call failure.
const (
	// ClassInvalidURL: the URL cannot be called at all.
	ClassInvalidURL Class = "invalid_url"
	// ClassForbidden: netguard refused the address the URL's host points
	// to (private, reserved, link-local or metadata).
	ClassForbidden Class = "forbidden_address"
	// ClassRedirect: a redirect was refused (one too many, or to a URL the
	// policy does not allow).
	ClassRedirect Class = "redirect"
	// ClassDNS: the URL's host name could not be resolved.
	ClassDNS Class = "dns"
	// ClassRefused: the peer refused the connection.
	ClassRefused Class = "connection_refused"
	// ClassUnreachable: there is no route to the peer.
	ClassUnreachable Class = "unreachable"
	// ClassTimeout: no answer within the time allowed.
	ClassTimeout Class = "timeout"
	// ClassTLS: the TLS handshake failed.
	ClassTLS Class = "tls"
	// ClassClosed: the peer closed the connection before answering.
	ClassClosed Class = "connection_closed"
	// ClassTooLarge: the answer's body is larger than the caller reads.
	ClassTooLarge Class = "too_large"
	// ClassCanceled: the call was cancelled (Paygate was stopping).
	ClassCanceled Class = "canceled"
	// ClassOther: any other failure.
	ClassOther Class = "other"
)

// dnsProblem tells DNS failures apart.
type dnsProblem int

const (
	dnsFailed dnsProblem = iota
	dnsNotFound
	dnsTimeout
)

// tlsProblem tells TLS failures apart.
type tlsProblem int

const (
	tlsFailed tlsProblem = iota
	tlsCertificate
	tlsNotTLS
)

// Failure is a failed call as operators are told of it.
type Failure struct {
	// Class is the kind of failure; "" for no failure.
	Class Class
	// Host is the host name a ClassDNS failure looked up (the URL's own,
	// never the resolver's).
	Host string
	// Limit is how many bytes of an answer the caller reads, for
	// ClassTooLarge; 0 when not known.
	Limit int64
	// Timeout is the time a ClassTimeout call had; 0 when not known.
	Timeout time.Duration

	dns dnsProblem
	tls tlsProblem
}

// Of classifies err, an error of an http.Client's Do, of building its
// request, or of reading an answer's body (netguard.ReadLimited). A nil err
// is no failure (Class "").
func Of(err error) Failure {
	var (
		dnsErr   *net.DNSError
		urlErr   *url.Error
		certErr  *tls.CertificateVerificationError
		authErr  x509.UnknownAuthorityError
		hostErr  x509.HostnameError
		invalid  x509.CertificateInvalidError
		record   tls.RecordHeaderError
		alert    tls.AlertError
		netAlert *net.OpError
	)
	switch {
	case err == nil:
		return Failure{}
	case errors.Is(err, netguard.ErrRedirect):
		return Failure{Class: ClassRedirect}
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return Failure{Class: ClassForbidden}
	case errors.Is(err, netguard.ErrTooLarge):
		return Failure{Class: ClassTooLarge}
	case errors.Is(err, context.Canceled):
		return Failure{Class: ClassCanceled}
	case errors.As(err, &dnsErr):
		f := Failure{Class: ClassDNS, Host: dnsErr.Name}
		switch {
		case dnsErr.IsNotFound:
			f.dns = dnsNotFound
		case dnsErr.IsTimeout:
			f.dns = dnsTimeout
		}
		return f
	case errors.Is(err, context.DeadlineExceeded), isTimeout(err):
		return Failure{Class: ClassTimeout}
	case errors.Is(err, syscall.ECONNREFUSED):
		return Failure{Class: ClassRefused}
	case errors.Is(err, syscall.ENETUNREACH), errors.Is(err, syscall.EHOSTUNREACH):
		return Failure{Class: ClassUnreachable}
	case errors.As(err, &certErr), errors.As(err, &authErr), errors.As(err, &hostErr), errors.As(err, &invalid):
		return Failure{Class: ClassTLS, tls: tlsCertificate}
	case errors.As(err, &record), strings.Contains(err.Error(), "server gave HTTP response to HTTPS client"):
		return Failure{Class: ClassTLS, tls: tlsNotTLS}
	case errors.As(err, &alert), errors.As(err, &netAlert) && netAlert.Op == "remote error":
		return Failure{Class: ClassTLS}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE):
		return Failure{Class: ClassClosed}
	case errors.As(err, &urlErr) && urlErr.Op == "parse", invalidRequest(err):
		return Failure{Class: ClassInvalidURL}
	}
	return Failure{Class: ClassOther}
}

// invalidRequest reports the errors net/http gives for a request it cannot
// send (it has no exported values for them).
func invalidRequest(err error) bool {
	s := err.Error()
	return strings.Contains(s, "unsupported protocol scheme") || strings.Contains(s, "no Host in request URL")
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

// Sentence words f for operators; peer names the other side of the call
// ("endpoint", "receiver"). It never holds library text nor any address but
// the URL's own host name. No failure is "".
func (f Failure) Sentence(peer string) string {
	the := "The " + peer
	switch f.Class {
	case "":
		return ""
	case ClassInvalidURL:
		return "The URL cannot be called: it is not a valid http or https URL."
	case ClassForbidden:
		return "Not called: the URL's host points to a private or reserved address, which is not allowed."
	case ClassRedirect:
		return the + " redirected to a URL that is not allowed or more than 3 times (at most 3 redirects are followed, each to a public http or https URL)."
	case ClassDNS:
		host := "The URL's host name"
		if f.Host != "" {
			host = fmt.Sprintf("The URL's host name %q", f.Host)
		}
		switch f.dns {
		case dnsNotFound:
			return host + " was not found in DNS."
		case dnsTimeout:
			return host + " could not be resolved: DNS did not answer in time."
		}
		return host + " could not be resolved: the DNS query failed."
	case ClassRefused:
		return the + " refused the connection: nothing accepts connections on the URL's port."
	case ClassUnreachable:
		return the + " cannot be reached: there is no network route to it."
	case ClassTimeout:
		if f.Timeout > 0 {
			return fmt.Sprintf("%s did not answer within %s.", the, f.Timeout)
		}
		return the + " did not answer in time."
	case ClassTLS:
		switch f.tls {
		case tlsCertificate:
			return "The TLS handshake with the " + peer + " failed: its certificate is not trusted or not valid for the URL's host."
		case tlsNotTLS:
			return "The TLS handshake with the " + peer + " failed: it does not speak TLS on that port (check http:// or https:// in the URL)."
		}
		return "The TLS handshake with the " + peer + " failed."
	case ClassClosed:
		return the + " closed the connection before answering."
	case ClassTooLarge:
		return the + "'s answer is larger than " + size(f.Limit) + "."
	case ClassCanceled:
		return "The call to the " + peer + " was cancelled before it answered."
	}
	return "The call to the " + peer + " failed before an answer came."
}

// size words a byte limit: "64 KiB", "100 bytes", or "the limit".
func size(n int64) string {
	switch {
	case n <= 0:
		return "the limit"
	case n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
