// Package receivers is the callbacks service's client of merchants'
// callback receivers: the Sender that posts deliveries to their URLs through
// the SSRF-guarded client and reads what they answer.
package receivers

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/paygate/paygate/services/callbacks/internal/callback"
	"github.com/paygate/paygate/services/internal/netguard"
)

// UserAgent is the User-Agent of every delivery.
const UserAgent = "Paygate-Webhooks/1"

// snippetLimit bounds the part of a failed answer's body kept in the
// attempt's error message.
const snippetLimit = 200

// Sender posts deliveries with an HTTP client (netguard.Policy.Client).
type Sender struct {
	client *http.Client
	limit  int64
}

var _ callback.Sender = (*Sender)(nil)

// NewSender returns a sender using client that reads at most limit bytes of
// an answer (netguard.DefaultResponseLimit when limit ≤ 0).
func NewSender(client *http.Client, limit int64) *Sender {
	if limit <= 0 {
		limit = netguard.DefaultResponseLimit
	}
	return &Sender{client: client, limit: limit}
}

// Send implements callback.Sender.
func (s *Sender) Send(ctx context.Context, r callback.Request) callback.Response {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, r.URL, bytes.NewReader(r.Body))
	if err != nil {
		return callback.Response{Err: fmt.Errorf("request: %w", err)}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	for k, v := range r.Headers {
		req.Header.Set(k, v)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return callback.Response{Err: describe(err)}
	}
	defer resp.Body.Close()
	body, err := netguard.ReadLimited(resp.Body, s.limit)
	out := callback.Response{StatusCode: resp.StatusCode}
	if err != nil {
		if errors.Is(err, netguard.ErrTooLarge) {
			out.Err = fmt.Errorf("answer body larger than %d bytes", s.limit)
		} else {
			out.Err = fmt.Errorf("read answer: %w", describe(err))
		}
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		out.Snippet = snippet(body)
	}
	return out
}

// describe shortens client errors to what an operator needs: the guard's
// refusal, a timeout, or the network error.
func describe(err error) error {
	switch {
	case errors.Is(err, netguard.ErrForbiddenAddress):
		return errors.New("refused: the URL resolves to a private or reserved address")
	case errors.Is(err, context.DeadlineExceeded) || isTimeout(err):
		return errors.New("no answer within the timeout")
	}
	return err
}

func isTimeout(err error) bool {
	var t interface{ Timeout() bool }
	return errors.As(err, &t) && t.Timeout()
}

func snippet(b []byte) string {
	if len(b) > snippetLimit {
		b = b[:snippetLimit]
	}
	return strings.Join(strings.Fields(strings.ToValidUTF8(string(b), "")), " ")
}
