package httpapi

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/bus"
)

// StreamPattern is the route of the live transaction updates (server-sent
// events).
const StreamPattern = "GET /api/v1/transactions/stream"

// StreamEvent is the data of an `event: transaction` message.
type StreamEvent struct {
	// ID is the transaction id, a string like every 64-bit id in JSON.
	ID                string    `json:"id"`
	TransactionStatus int32     `json:"transactionStatus"`
	UpdatedUtc        time.Time `json:"updatedUtc"`
	CollabID          int32     `json:"collabId"`
	MerchantID        int32     `json:"merchantId"`
}

// subscriberBuffer is how many events a slow client may lag before it
// misses some (it then reloads: the stream is a hint, the list the truth).
const subscriberBuffer = 64

type subscriber struct {
	ch    chan StreamEvent
	scope merchant.Scope
	// userID and live carry the messages meant for this user only (Forward).
	userID int64
	live   chan UserMessage
}

// UserMessage is a stream message for one user (a watchlist's value, an
// alert: docs/contracts-watchlists.md).
type UserMessage struct {
	UserID int64
	// Event is the SSE event type; Data its JSON.
	Event string
	Data  []byte
}

// forward is a NATS subject whose messages Forward turns into user messages.
type forward struct {
	subject string
	decode  func(data []byte) []UserMessage
}

// Hub fans the transaction events of NATS out to the stream's clients: one
// core subscription per process while it has clients, whatever their
// number, and none while it has none (a replica nobody watches does not
// take every transaction event off the bus).
type Hub struct {
	log    *slog.Logger
	mu     sync.Mutex
	subs   map[*subscriber]struct{}
	closed bool
	// nc is the connection Run was given; natsSubs are its subscriptions,
	// held while subs is not empty.
	nc       *nats.Conn
	natsSubs []*nats.Subscription
	forwards []forward
}

// Forward makes the hub take subject's messages too while it has clients,
// each decoded into messages for their users' streams. Call it before Run.
func (h *Hub) Forward(subject string, decode func(data []byte) []UserMessage) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.forwards = append(h.forwards, forward{subject: subject, decode: decode})
}

// NewHub returns a hub with no clients.
func NewHub(log *slog.Logger) *Hub {
	return &Hub{log: log, subs: map[*subscriber]struct{}{}}
}

// eventKinds are the transaction events the stream forwards, by subject.
var eventKinds = map[string]func() proto.Message{
	bus.Subject(&eventsv1.TransactionCreated{}):   func() proto.Message { return &eventsv1.TransactionCreated{} },
	bus.Subject(&eventsv1.TransactionUpdated{}):   func() proto.Message { return &eventsv1.TransactionUpdated{} },
	bus.Subject(&eventsv1.TransactionFinalized{}): func() proto.Message { return &eventsv1.TransactionFinalized{} },
}

// Run takes the transaction events from nc for the stream's clients until
// ctx ends, then ends every client's stream.
func (h *Hub) Run(ctx context.Context, nc *nats.Conn) error {
	h.mu.Lock()
	h.nc = nc
	var err error
	if len(h.subs) > 0 {
		err = h.subscribe()
	}
	h.mu.Unlock()
	defer h.closeAll()
	if err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}

// subscribe subscribes to eventKinds. Called with mu held.
func (h *Hub) subscribe() error {
	for subject, mk := range eventKinds {
		s, err := h.nc.Subscribe(subject, func(m *nats.Msg) { h.receive(m, mk()) })
		if err != nil {
			h.unsubscribe()
			return fmt.Errorf("subscribe %s: %w", subject, err)
		}
		h.natsSubs = append(h.natsSubs, s)
	}
	for _, f := range h.forwards {
		s, err := h.nc.Subscribe(f.subject, func(m *nats.Msg) { h.deliver(f.decode(m.Data)) })
		if err != nil {
			h.unsubscribe()
			return fmt.Errorf("subscribe %s: %w", f.subject, err)
		}
		h.natsSubs = append(h.natsSubs, s)
	}
	return nil
}

// deliver hands each message to its user's streams.
func (h *Hub) deliver(msgs []UserMessage) {
	if len(msgs) == 0 {
		return
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		for _, m := range msgs {
			if m.UserID != s.userID {
				continue
			}
			select {
			case s.live <- m:
			default: // a slow client misses a value; the next one follows within seconds
			}
		}
	}
}

// unsubscribe drops the subscriptions. Called with mu held.
func (h *Hub) unsubscribe() {
	for _, s := range h.natsSubs {
		_ = s.Unsubscribe()
	}
	h.natsSubs = nil
}

func (h *Hub) receive(m *nats.Msg, ev proto.Message) {
	if err := proto.Unmarshal(m.Data, ev); err != nil {
		h.log.Warn("decode transaction event", "subject", m.Subject, "error", err)
		return
	}
	if st := stateOf(ev); st != nil {
		h.publish(StreamEvent{ID: strconv.FormatInt(st.GetTransactionId(), 10), TransactionStatus: st.GetStatus(),
			UpdatedUtc: st.GetUpdatedAt().AsTime().UTC(), CollabID: st.GetCollabId(), MerchantID: st.GetMerchantId()})
	}
}

func stateOf(m proto.Message) *eventsv1.TransactionState {
	switch e := m.(type) {
	case *eventsv1.TransactionCreated:
		return e.GetTransaction()
	case *eventsv1.TransactionUpdated:
		return e.GetTransaction()
	case *eventsv1.TransactionFinalized:
		return e.GetTransaction()
	}
	return nil
}

func (h *Hub) publish(ev StreamEvent) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for s := range h.subs {
		if !s.scope.Includes(ev.MerchantID) {
			continue
		}
		select {
		case s.ch <- ev:
		default: // a slow client misses the event rather than stalling others
		}
	}
}

// errHubClosed is add's answer once the hub stopped.
var errHubClosed = apperr.New(apperr.KindInternal, nil, "The stream is shutting down.")

// add registers a client; the first one subscribes the hub, and add
// returns once NATS has the subscription, so that the client misses no
// event after it was told it is connected.
func (h *Hub) add(scope merchant.Scope, userID int64) (*subscriber, error) {
	h.mu.Lock()
	if h.closed {
		h.mu.Unlock()
		return nil, errHubClosed
	}
	s := &subscriber{ch: make(chan StreamEvent, subscriberBuffer), scope: scope, userID: userID,
		live: make(chan UserMessage, subscriberBuffer)}
	h.subs[s] = struct{}{}
	nc := h.nc
	if nc != nil && h.natsSubs == nil {
		if err := h.subscribe(); err != nil {
			delete(h.subs, s)
			h.mu.Unlock()
			return nil, fmt.Errorf("stream: %w", err)
		}
	}
	h.mu.Unlock()
	if nc != nil {
		if err := nc.Flush(); err != nil {
			h.remove(s)
			return nil, fmt.Errorf("stream: subscribe transaction events: %w", err)
		}
	}
	return s, nil
}

// remove unregisters a client; the last one unsubscribes the hub.
func (h *Hub) remove(s *subscriber) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.subs[s]; ok {
		delete(h.subs, s)
		close(s.ch)
	}
	if len(h.subs) == 0 {
		h.unsubscribe()
	}
}

func (h *Hub) closeAll() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.closed = true
	h.unsubscribe()
	for s := range h.subs {
		delete(h.subs, s)
		close(s.ch)
	}
}

// subscribed reports whether the hub holds its NATS subscriptions (it has
// clients).
func (h *Hub) subscribed() bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.natsSubs != nil
}

// StreamOptions configure the stream handler.
type StreamOptions struct {
	// Verifier checks access tokens; Revocations, when set, refuses revoked
	// sessions.
	Verifier    authz.Verifier
	Revocations authz.Revocations
	// AllowLists, when set, holds IP-restricted users to their allowed
	// ranges, with ClientIP giving a request's address.
	AllowLists authz.AllowLists
	ClientIP   func(r *http.Request) string
	// Heartbeat is the interval of keep-alive comments (15 s when zero).
	Heartbeat time.Duration
	// Now is the clock (time.Now when nil).
	Now func() time.Time
}

// streamToken is the bearer token of the Authorization header, or the
// access_token query parameter (EventSource cannot set headers).
func streamToken(r *http.Request) string {
	if scheme, token, ok := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " "); ok && strings.EqualFold(scheme, "bearer") {
		if token = strings.TrimSpace(token); token != "" {
			return token
		}
	}
	return strings.TrimSpace(r.URL.Query().Get("access_token"))
}

// Handler serves StreamPattern: after checking the token (Get Transactions,
// as the list), it sends `event: transaction` for every transaction change
// within the caller's merchant scope, a comment every Heartbeat, and ends
// when the client goes, the token expires or the hub stops.
func (h *Hub) Handler(o StreamOptions) http.Handler {
	if o.Heartbeat <= 0 {
		o.Heartbeat = 15 * time.Second
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx := r.Context()
		token := streamToken(r)
		if token == "" {
			writeError(w, apperr.Unauthenticated("Please sign in to continue."))
			return
		}
		claims, err := authz.VerifyUnrevoked(ctx, o.Verifier, o.Revocations, token)
		if err != nil {
			writeError(w, err)
			return
		}
		if claims.IPRestricted && o.AllowLists != nil {
			ip := ""
			if o.ClientIP != nil {
				ip = o.ClientIP(r)
			}
			if err := authz.CheckAllowList(ctx, o.AllowLists, claims, ip); err != nil {
				writeError(w, err)
				return
			}
		}
		if claims.IsTemporaryPassword || !claims.HasPermission(access.PermGetTransactions) {
			writeError(w, apperr.Forbidden("You don't have permission to view this page."))
			return
		}
		expiry := o.Now().Add(24 * time.Hour)
		if claims.ExpiresAt != nil {
			expiry = claims.ExpiresAt.Time
		}
		userID, _ := claims.UserID()
		sub, err := h.add(merchant.Scope{All: claims.GlobalScope(), MerchantIDs: claims.MerchantIDs}, userID)
		if err != nil {
			writeError(w, err)
			return
		}
		defer h.remove(sub)

		rc := http.NewResponseController(w)
		_ = rc.SetWriteDeadline(time.Time{})
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.Header().Set("X-Accel-Buffering", "no")
		w.WriteHeader(http.StatusOK)
		if _, err := fmt.Fprint(w, "retry: 5000\n: connected\n\n"); err != nil || rc.Flush() != nil {
			return
		}
		beat := time.NewTicker(o.Heartbeat)
		defer beat.Stop()
		expired := time.NewTimer(time.Until(expiry))
		defer expired.Stop()
		for {
			var err error
			select {
			case <-ctx.Done():
				return
			case <-expired.C:
				_, _ = fmt.Fprint(w, "event: expired\ndata: {}\n\n")
				_ = rc.Flush()
				return
			case <-beat.C:
				_, err = fmt.Fprint(w, ": heartbeat\n\n")
			case ev, open := <-sub.ch:
				if !open {
					return
				}
				data, _ := json.Marshal(ev)
				_, err = fmt.Fprintf(w, "event: transaction\ndata: %s\n\n", data)
			case m := <-sub.live:
				_, err = fmt.Fprintf(w, "event: %s\ndata: %s\n\n", m.Event, m.Data)
			}
			if err != nil || rc.Flush() != nil {
				return
			}
		}
	})
}
