package httpapi

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/timestamppb"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/bus"
)

// TestHubSubscribesWhileWatched runs the hub on the test NATS server: it
// holds no subscription without clients, subscribes for the first client
// (which then gets the events of its scope), keeps it for the second and
// drops it when the last one leaves.
func TestHubSubscribesWhileWatched(t *testing.T) {
	url := os.Getenv("PAYGATE_TEST_NATS_URL")
	if url == "" {
		url = "nats://127.0.0.1:4222"
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatalf("connect %s: %v", url, err)
	}
	defer nc.Close()

	h := NewHub(slog.New(slog.DiscardHandler))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- h.Run(ctx, nc) }()
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	}()
	waitUntil(t, func() bool {
		h.mu.Lock()
		defer h.mu.Unlock()
		return h.nc != nil
	})
	if h.subscribed() {
		t.Fatal("subscribed without clients")
	}

	// A merchant id of its own, so that other tests' events on the shared
	// server do not count.
	merchantID := int32(time.Now().UnixNano()%1_000_000_000) + 1
	first, err := h.add(merchant.Scope{MerchantIDs: []int32{merchantID}}, 0)
	if err != nil {
		t.Fatalf("add: %v", err)
	}
	if !h.subscribed() {
		t.Fatal("not subscribed with a client")
	}
	second, err := h.add(merchant.Scope{All: true}, 0)
	if err != nil {
		t.Fatalf("add: %v", err)
	}

	data, err := proto.Marshal(&eventsv1.TransactionFinalized{Transaction: &eventsv1.TransactionState{
		TransactionId: 42, Status: 4, MerchantId: merchantID, CollabId: 7, UpdatedAt: timestamppb.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish(bus.Subject(&eventsv1.TransactionFinalized{}), data); err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-first.ch:
		if ev.ID != "42" || ev.TransactionStatus != 4 || ev.MerchantID != merchantID || ev.CollabID != 7 {
			t.Errorf("event %+v", ev)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the client got no event")
	}

	h.remove(first)
	if !h.subscribed() {
		t.Fatal("unsubscribed while a client is left")
	}
	h.remove(second)
	if h.subscribed() {
		t.Fatal("still subscribed without clients")
	}
	third, err := h.add(merchant.Scope{All: true}, 0)
	if err != nil {
		t.Fatalf("add after the last client left: %v", err)
	}
	if !h.subscribed() {
		t.Fatal("not subscribed again for a new client")
	}
	h.remove(third)
}

func waitUntil(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}
