package main

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	gwnats "github.com/paygate/paygate/services/gateway/internal/nats"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/bus"
)

// publishEvent publishes an event to JetStream as its owner's outbox relay
// would: the event id as Nats-Msg-Id.
func publishEvent(t *testing.T, g *testGateway, id string, msg proto.Message) {
	t.Helper()
	js, err := jetstream.New(g.nc)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := proto.Marshal(msg)
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(bus.Subject(msg))
	m.Data = raw
	m.Header.Set(jetstream.MsgIDHeader, id)
	if _, err := js.PublishMsg(t.Context(), m); err != nil {
		t.Fatal(err)
	}
}

// TestCallbackEvents checks the gateway keeps the callbacks service's tally
// on the transaction (newest version wins, redeliveries change nothing) and
// writes each callback-URL change to the activity log once.
// seedWithID seeds s with the id id.
func (g *testGateway) seedWithID(t *testing.T, id int64, s seedTx) string {
	t.Helper()
	g.exec(t, `SELECT setval(pg_get_serial_sequence('transactions', 'id'), $1)`, id-1)
	return g.seed(t, s)
}

func TestCallbackEvents(t *testing.T) {
	// From the events published from now on: the shared stream holds every
	// other test's callback events, a backlog too long on a busy machine.
	g := newTestGateway(t, map[string]string{"PAYGATE_CONSUME_CALLBACK_EVENTS": "true", "PAYGATE_GATEWAY_CALLBACK_EVENTS_FROM": "new"})
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		if js, err := jetstream.New(g.nc); err == nil {
			_ = js.DeleteConsumer(ctx, bus.StreamName, gwnats.TallyConsumer(g.schema))
			_ = js.DeleteConsumer(ctx, bus.StreamName, gwnats.ActivityConsumer(g.schema))
		}
	})
	admin := g.user(t, access.RoleAdmin)
	// Ids of their own, so that callback events other tests publish on the
	// shared NATS cannot touch these transactions.
	base := time.Now().UnixNano() / 1000
	id := g.seedWithID(t, base, seedTx{merchant: fenceMerchantID, collab: g.fenceCollab, provider: 1, typ: 1, status: 4,
		amount: "10.00", currency: "PHP", at: time.Now().UTC().Format(time.RFC3339Nano)})
	txID, err := strconv.ParseInt(id, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	tally := func() string {
		var tx struct {
			CallbackDeliveryStatus string `json:"callbackDeliveryStatus"`
		}
		admin.must(t, 200, "GET", "/api/v1/transactions/"+id, nil, &tx)
		return tx.CallbackDeliveryStatus
	}
	if got := tally(); got != "0/0" {
		t.Fatalf("new transaction's callbackDeliveryStatus = %q, want 0/0", got)
	}
	waitTally := func(want string) {
		t.Helper()
		// Generous: on a loaded machine the consumer may be recreated first.
		deadline := time.Now().Add(30 * time.Second)
		for {
			got := tally()
			if got == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("callbackDeliveryStatus = %q, want %q", got, want)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	ev := func(delivered, total int32, version int64) *eventsv1.CallbackDeliveryChanged {
		return &eventsv1.CallbackDeliveryChanged{TransactionId: txID, MerchantId: fenceMerchantID,
			Delivered: delivered, Total: total, Version: version, ChangedAt: timestamppb.Now()}
	}
	run := randomHex(t, 4)
	publishEvent(t, g, "tally-"+run+"-1", ev(0, 2, 1))
	waitTally("0/2")
	publishEvent(t, g, "tally-"+run+"-3", ev(2, 2, 3))
	waitTally("2/2")
	// A repeat of the newest tally, and an older one arriving late, change
	// nothing; a marker event published after them proves they were read.
	publishEvent(t, g, "tally-"+run+"-3b", ev(2, 2, 3))
	publishEvent(t, g, "tally-"+run+"-2", ev(1, 2, 2))
	marker := g.seedWithID(t, base+1, seedTx{merchant: fenceMerchantID, collab: g.fenceCollab, provider: 1, typ: 1, status: 4,
		amount: "11.00", currency: "PHP", at: time.Now().UTC().Add(time.Millisecond).Format(time.RFC3339Nano)})
	markerID, err := strconv.ParseInt(marker, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	publishEvent(t, g, "tally-"+run+"-m", &eventsv1.CallbackDeliveryChanged{TransactionId: markerID, Delivered: 1, Total: 1, Version: 1})
	deadline := time.Now().Add(10 * time.Second)
	for g.queryInt(t, `SELECT callbacks_version FROM transactions WHERE id = $1`, markerID) != 1 {
		if time.Now().After(deadline) {
			t.Fatal("marker tally not applied")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := tally(); got != "2/2" {
		t.Fatalf("after a stale tally callbackDeliveryStatus = %q, want 2/2", got)
	}

	// A callback-URL change, delivered twice (a new event id each time, as a
	// republish after a crash would be), is written to the activity log once.
	callbackID := base % 1_000_000_000
	change := &eventsv1.CallbackUrlChanged{Action: "Created", CallbackId: callbackID, CollabId: g.fenceCollab,
		MerchantId: fenceMerchantID, UserId: 5, Username: "merchant-admin-5", Ip: "203.0.113.9", UserAgent: "ua",
		OldValue: "null", NewValue: `{"callbackUrl":"https://merchant.example/cb","maxAttempts":3}`,
		ChangedAt: timestamppb.Now(), ChangeId: "chg-" + run}
	publishEvent(t, g, "url-"+run+"-1", change)
	publishEvent(t, g, "url-"+run+"-2", change)
	deadline = time.Now().Add(10 * time.Second)
	mine := `SELECT count(*) FROM activity_log WHERE action_type = 'Callback URL' AND message LIKE 'Callback URL ' || $1 || ' %'`
	for g.queryInt(t, mine, strconv.FormatInt(callbackID, 10)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("callback URL change not in the activity log")
		}
		time.Sleep(50 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // let the duplicate be consumed
	if n := g.queryInt(t, mine, strconv.FormatInt(callbackID, 10)); n != 1 {
		t.Fatalf("activity entries for one change = %d, want 1", n)
	}
	var msg, user string
	var collabID int32
	if err := g.pool.QueryRow(t.Context(), `SELECT message, username, collab_id FROM activity_log WHERE action_type = 'Callback URL' AND message LIKE 'Callback URL ' || $1 || ' %'`, strconv.FormatInt(callbackID, 10)).
		Scan(&msg, &user, &collabID); err != nil {
		t.Fatal(err)
	}
	if user != "merchant-admin-5" || collabID != g.fenceCollab || msg == "" {
		t.Fatalf("activity entry = %q by %q on collab %d", msg, user, collabID)
	}
	t.Log(msg)
}
