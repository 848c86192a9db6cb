package callback

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Custom headers of a callback URL (issue 30, docs/contracts-callbacks.md
// "Custom headers"): a merchant's receiver may want a static token or a
// routing header on every delivery. Values of headers marked secret are
// sealed at rest and never answered.
const (
	// MaxHeaders is the most custom headers one callback URL carries.
	MaxHeaders = 10
	// MaxHeaderName and MaxHeaderValue bound a header's name and value, in
	// characters.
	MaxHeaderName  = 64
	MaxHeaderValue = 1024
)

// Header is a custom header a callback URL's deliveries carry.
type Header struct {
	// Name as the user wrote it (HTTP compares names without case).
	Name string
	// Value is the plain value of a header that is not secret; empty for a
	// secret one, whose value only Sealed holds.
	Value string
	// Secret says the value is sealed and never answered.
	Secret bool
	// Sealed is a secret value sealed with HeaderOwner of its URL and name.
	Sealed []byte
}

// HeaderInput is a custom header as a caller sends it. A secret header sent
// with an empty value keeps the value stored under its name.
type HeaderInput struct {
	Name   string
	Value  string
	Secret bool
}

// HeaderView is a custom header as the API and the activity log show it:
// a secret one's value is empty.
type HeaderView struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Secret bool   `json:"secret"`
}

// HeaderOwner is the additional data that binds a sealed header value to
// its callback URL and name, so that a sealed value moved to another row
// does not open.
func HeaderOwner(urlID int64, name string) string {
	return "callback-url:" + strconv.FormatInt(urlID, 10) + ":header:" + strings.ToLower(name)
}

// reserved are the headers every delivery sets itself, or that HTTP
// transports own; a custom header may not replace them.
var reserved = map[string]bool{
	"host": true, "content-type": true, "content-length": true, "content-encoding": true,
	"transfer-encoding": true, "connection": true, "keep-alive": true, "upgrade": true, "te": true,
	"trailer": true, "expect": true, "proxy-authorization": true, "proxy-connection": true,
	"user-agent": true, "traceparent": true, "tracestate": true, "baggage": true,
}

// reservedHeader reports whether name is set by Paygate (the Standard
// Webhooks webhook-* headers included) or by the HTTP transport.
func reservedHeader(name string) bool {
	n := strings.ToLower(name)
	return reserved[n] || strings.HasPrefix(n, "webhook-")
}

// tokenChar reports whether c may appear in a header name (RFC 9110 token).
func tokenChar(c byte) bool {
	switch {
	case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9':
		return true
	}
	return strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// validValue reports whether v may be sent as a header value: visible
// characters, spaces and tabs, no line break or other control character.
func validValue(v string) bool {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if (c < 0x20 && c != '\t') || c == 0x7f {
			return false
		}
	}
	return true
}

// checkHeaders validates in, the whole set of a URL's custom headers, and
// returns what is wrong with it (sentences naming each field by its JSON
// name), or the headers to store with secret values still plain in Value.
// stored are the URL's headers now: a secret header sent without a value
// keeps the stored secret value of the same name.
func checkHeaders(in []HeaderInput, stored []Header) ([]Header, []string) {
	var problems []string
	if len(in) > MaxHeaders {
		return nil, []string{fmt.Sprintf("headers must list at most %d headers.", MaxHeaders)}
	}
	seen := map[string]bool{}
	out := make([]Header, 0, len(in))
	for i, h := range in {
		field := fmt.Sprintf("headers[%d]", i)
		name := strings.TrimSpace(h.Name)
		switch {
		case name == "":
			problems = append(problems, field+".name is required.")
			continue
		case len(name) > MaxHeaderName || strings.IndexFunc(name, func(r rune) bool { return r > 0x7f || !tokenChar(byte(r)) }) >= 0:
			problems = append(problems, fmt.Sprintf("%s.name must be a header name of at most %d letters, digits or - _ . characters.", field, MaxHeaderName))
			continue
		case reservedHeader(name):
			problems = append(problems, fmt.Sprintf("%s.name %q is set by Paygate and cannot be replaced.", field, name))
			continue
		case seen[strings.ToLower(name)]:
			problems = append(problems, fmt.Sprintf("%s.name %q is listed twice.", field, name))
			continue
		}
		seen[strings.ToLower(name)] = true
		value := strings.TrimSpace(h.Value)
		if !validValue(value) || len(value) > MaxHeaderValue {
			problems = append(problems, fmt.Sprintf("%s.value must be at most %d characters, without line breaks or control characters.", field, MaxHeaderValue))
			continue
		}
		if value == "" && h.Secret {
			if old, ok := storedSecret(stored, name); ok {
				out = append(out, Header{Name: name, Secret: true, Sealed: old.Sealed})
				continue
			}
		}
		if value == "" {
			problems = append(problems, field+".value is required.")
			continue
		}
		out = append(out, Header{Name: name, Value: value, Secret: h.Secret})
	}
	return out, problems
}

// storedSecret returns the stored secret header named name.
func storedSecret(stored []Header, name string) (Header, bool) {
	for _, h := range stored {
		if h.Secret && strings.EqualFold(h.Name, name) {
			return h, true
		}
	}
	return Header{}, false
}

// headersEqual reports whether two stored header sets are the same.
func headersEqual(a, b []Header) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Value != b[i].Value || a[i].Secret != b[i].Secret || !bytes.Equal(a[i].Sealed, b[i].Sealed) {
			return false
		}
	}
	return true
}

// OpenHeaders returns the name and value of each of a callback URL's
// headers as sent, secret values opened. A secret value that no longer
// opens (its encryption key left the keyring) is left out, and its name
// returned in lost.
func (s *Secrets) OpenHeaders(urlID int64, hs []Header) (sent [][2]string, lost []string) {
	for _, h := range hs {
		if !h.Secret {
			sent = append(sent, [2]string{h.Name, h.Value})
			continue
		}
		v, err := s.sealer.Open(h.Sealed, HeaderOwner(urlID, h.Name))
		if err != nil {
			lost = append(lost, h.Name)
			continue
		}
		sent = append(sent, [2]string{h.Name, string(v)})
	}
	return sent, lost
}

// SealHeaders seals the plain values of secret headers (those without a
// Sealed value yet) for callback URL urlID.
func (s *Secrets) SealHeaders(urlID int64, hs []Header) ([]Header, error) {
	out := make([]Header, len(hs))
	for i, h := range hs {
		if h.Secret && h.Sealed == nil {
			sealed, err := s.sealer.Seal([]byte(h.Value), HeaderOwner(urlID, h.Name))
			if err != nil {
				return nil, fmt.Errorf("seal header %d of callback url %d: %w", i, urlID, err)
			}
			h.Value, h.Sealed = "", sealed
		}
		out[i] = h
	}
	return out, nil
}

// headerViews returns hs as the API shows them.
func headerViews(hs []Header) []HeaderView {
	if len(hs) == 0 {
		return nil
	}
	out := make([]HeaderView, len(hs))
	for i, h := range hs {
		out[i] = HeaderView{Name: h.Name, Value: h.Value, Secret: h.Secret}
	}
	return out
}
