package nats_test

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	cbnats "github.com/paygate/paygate/services/callbacks/internal/nats"
	"github.com/paygate/paygate/services/internal/bus"
)

// msg is a received message; only what Decode reads is implemented.
type msg struct {
	jetstream.Msg
	subject string
	data    []byte
	header  nats.Header
	seq     uint64
}

func (m msg) Subject() string      { return m.subject }
func (m msg) Data() []byte         { return m.data }
func (m msg) Headers() nats.Header { return m.header }
func (m msg) Metadata() (*jetstream.MsgMetadata, error) {
	return &jetstream.MsgMetadata{Sequence: jetstream.SequencePair{Stream: m.seq}}, nil
}

func encode(t *testing.T, p proto.Message) []byte {
	t.Helper()
	b, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestDecode(t *testing.T) {
	t.Parallel()
	at := time.Date(2026, 2, 3, 4, 5, 6, 0, time.UTC)
	state := &eventsv1.TransactionState{
		TransactionId: 42, ReferenceId: "ref", MerchantId: 3, CollabId: 7, Nonce: "n", TransactionType: 2,
		Amount: "1.50", Currency: "USD", Status: -3, StatusMessage: "PSP Generic", ProviderTransactionId: "p",
		UpdatedAt: timestamppb.New(at), CallbackSendingCanceled: true, MerchantClientId: "c",
		DestinationAmount: "80.00", DestinationCurrency: "PHP", ErrorMessage: "e", CreatedAt: timestamppb.New(at.Add(-time.Hour)),
	}
	h := nats.Header{}
	h.Set(jetstream.MsgIDHeader, "evt-1")
	ev, err := cbnats.Decode(msg{subject: bus.Subject(&eventsv1.TransactionFinalized{}), header: h,
		data: encode(t, &eventsv1.TransactionFinalized{Transaction: state, PreviousStatus: 3, MerchantCallbacksOff: true})})
	if err != nil {
		t.Fatal(err)
	}
	s := ev.State
	if ev.EventID != "evt-1" || !ev.Finalized || ev.PreviousStatus != 3 || !ev.MerchantCallbacksOff || s.ID != 42 || s.MerchantID != 3 || s.CollabID != 7 ||
		s.Type != 2 || s.Status != -3 || !s.CallbacksCanceled || s.Amount != "1.50" || s.DestinationCurrency != "PHP" ||
		!s.UpdatedAt.Equal(at) || !s.CreatedAt.Equal(at.Add(-time.Hour)) || s.MerchantClientID != "c" || s.ErrorMessage != "e" {
		t.Fatalf("decoded %+v", ev)
	}

	// An update without a message id is known by its stream sequence.
	ev, err = cbnats.Decode(msg{subject: bus.Subject(&eventsv1.TransactionUpdated{}), header: nats.Header{}, seq: 77,
		data: encode(t, &eventsv1.TransactionUpdated{Transaction: state, PreviousStatus: 1})})
	if err != nil || ev.Finalized || ev.EventID != "seq:77" || ev.PreviousStatus != 1 || ev.MerchantCallbacksOff {
		t.Fatalf("update: %+v, %v", ev, err)
	}

	if _, err := cbnats.Decode(msg{subject: bus.Subject(&eventsv1.TransactionFinalized{}), header: h, data: []byte{0xff, 0xff}}); err == nil {
		t.Fatal("garbage decoded")
	}
	if _, err := cbnats.Decode(msg{subject: bus.Subject(&eventsv1.TransactionFinalized{}), header: h,
		data: encode(t, &eventsv1.TransactionFinalized{})}); err == nil {
		t.Fatal("an event without a transaction decoded")
	}
	if _, err := cbnats.Decode(msg{subject: bus.Subject(&eventsv1.TransactionCreated{}), header: h,
		data: encode(t, &eventsv1.TransactionCreated{Transaction: state})}); err == nil {
		t.Fatal("a created event decoded")
	}
}

// TestDecodeCarriesTheTrace reads the writer's trace context from the
// event's traceparent header.
func TestDecodeCarriesTheTrace(t *testing.T) {
	t.Parallel()
	state := &eventsv1.TransactionState{TransactionId: 42, MerchantId: 3, Status: 1}
	h := nats.Header{}
	h.Set(jetstream.MsgIDHeader, "evt-1")
	h.Set(bus.HeaderTraceparent, "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
	ev, err := cbnats.Decode(msg{subject: bus.Subject(&eventsv1.TransactionFinalized{}), header: h,
		data: encode(t, &eventsv1.TransactionFinalized{Transaction: state})})
	if err != nil {
		t.Fatal(err)
	}
	if got := ev.Trace.TraceID().String(); got != "4bf92f3577b34da6a3ce929d0e0e4736" || ev.Trace.SpanID().String() != "00f067aa0ba902b7" || !ev.Trace.IsRemote() {
		t.Errorf("event trace %v, want the header's", ev.Trace)
	}

	h.Del(bus.HeaderTraceparent)
	ev, err = cbnats.Decode(msg{subject: bus.Subject(&eventsv1.TransactionFinalized{}), header: h,
		data: encode(t, &eventsv1.TransactionFinalized{Transaction: state})})
	if err != nil || ev.Trace.IsValid() {
		t.Errorf("an event without traceparent decoded with trace %v, %v", ev.Trace, err)
	}
}
