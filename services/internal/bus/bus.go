// Package bus carries Paygate's events over NATS JetStream.
//
// Events leave with the data: a service writes a state change and its event
// in one Postgres transaction (Enqueue into the outbox table), and a Relay
// publishes the committed rows to the PAYGATE_EVENTS stream with the event id
// as Nats-Msg-Id, so a row published twice (a relay dying between publish and
// mark) is dropped by the stream's duplicate window. Consumers are durable,
// ack explicitly and must be idempotent (Consume).
//
// Subjects are named after the event message: paygate.events.<snake_case of
// the message name>, e.g. paygate.events.session_started (Subject).
package bus

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Stream settings.
const (
	// StreamName is the JetStream stream every event goes to.
	StreamName = "PAYGATE_EVENTS"
	// SubjectPrefix starts every event subject.
	SubjectPrefix = "paygate.events."
	// DuplicateWindow is how long the stream remembers message ids.
	DuplicateWindow = 2 * time.Minute
	// MaxAge is how long the stream keeps events.
	MaxAge = 7 * 24 * time.Hour
)

// Connect connects to the NATS server at url, reconnecting forever after a
// disconnect, and returns the connection and its JetStream context. Close the
// connection when done.
func Connect(ctx context.Context, url string) (*nats.Conn, jetstream.JetStream, error) {
	nc, err := nats.Connect(url,
		nats.Name("paygate"),
		nats.MaxReconnects(-1),
		nats.ReconnectWait(time.Second),
		nats.Timeout(5*time.Second),
	)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to nats %s: %w", url, err)
	}
	fctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := nc.FlushWithContext(fctx); err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("flush nats %s: %w", url, err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return nil, nil, fmt.Errorf("jetstream on %s: %w", url, err)
	}
	return nc, js, nil
}

// Connected returns a readiness check of nc: an error while the connection
// is not connected (reconnecting, closed), naming its state.
func Connected(nc *nats.Conn) func(context.Context) error {
	return func(context.Context) error {
		if s := nc.Status(); s != nats.CONNECTED {
			return errors.New("nats connection is " + s.String())
		}
		return nil
	}
}

// EnsureStream creates the PAYGATE_EVENTS stream, or updates it to the
// current settings: subjects paygate.events.>, file storage, a two-minute
// duplicate window, events kept for MaxAge.
func EnsureStream(ctx context.Context, js jetstream.JetStream) error {
	return EnsureStreamReplicas(ctx, js, 1)
}

// EnsureStreamReplicas is EnsureStream with the stream kept by replicas
// servers of a JetStream cluster (PAYGATE_NATS_STREAM_REPLICAS); a stream
// with another count is updated to it.
func EnsureStreamReplicas(ctx context.Context, js jetstream.JetStream, replicas int) error {
	if replicas < 1 {
		replicas = 1
	}
	want := jetstream.StreamConfig{
		Replicas:    replicas,
		Name:        StreamName,
		Description: "Paygate domain events, published from each service's outbox.",
		Subjects:    []string{SubjectPrefix + ">"},
		Storage:     jetstream.FileStorage,
		Retention:   jetstream.LimitsPolicy,
		Duplicates:  DuplicateWindow,
		MaxAge:      MaxAge,
	}
	// A stream already as wanted is left alone: every service ensures it at
	// start, and an update that changes nothing still rewrites the stream's
	// store while other services create their consumers on it (nats-server
	// 2.15 races there, as `go test -race` showed).
	if s, err := js.Stream(ctx, StreamName); err == nil && sameStream(s.CachedInfo().Config, want) {
		return nil
	}
	_, err := js.CreateOrUpdateStream(ctx, want)
	if err != nil {
		return fmt.Errorf("ensure stream %s: %w", StreamName, err)
	}
	return nil
}

// sameStream reports whether have already is the configuration EnsureStream
// wants (the fields it sets).
func sameStream(have, want jetstream.StreamConfig) bool {
	return have.Description == want.Description && slices.Equal(have.Subjects, want.Subjects) &&
		have.Storage == want.Storage && have.Retention == want.Retention &&
		have.Duplicates == want.Duplicates && have.MaxAge == want.MaxAge && max(have.Replicas, 1) == want.Replicas
}

// Subject returns the subject of an event message:
// paygate.events.<snake_case of its name>.
func Subject(msg proto.Message) string {
	return SubjectFor(msg.ProtoReflect().Descriptor())
}

// SubjectFor returns the subject of events of message type md.
func SubjectFor(md protoreflect.MessageDescriptor) string {
	return SubjectPrefix + snakeCase(string(md.Name()))
}

// snakeCase turns "SessionStarted" into "session_started" and
// "HTTPCallFailed" into "http_call_failed".
func snakeCase(s string) string {
	runes := []rune(s)
	var b strings.Builder
	for i, r := range runes {
		if unicode.IsUpper(r) {
			prevLower := i > 0 && (unicode.IsLower(runes[i-1]) || unicode.IsDigit(runes[i-1]))
			nextLower := i+1 < len(runes) && unicode.IsLower(runes[i+1])
			prevUpper := i > 0 && unicode.IsUpper(runes[i-1])
			if i > 0 && (prevLower || (prevUpper && nextLower)) {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// Decode unmarshals the payload of msg into dst. Each subject carries one
// message type (Subject), so a consumer knows dst from the subject it reads.
func Decode(msg jetstream.Msg, dst proto.Message) error {
	if err := proto.Unmarshal(msg.Data(), dst); err != nil {
		return fmt.Errorf("decode event on %s: %w", msg.Subject(), err)
	}
	return nil
}
