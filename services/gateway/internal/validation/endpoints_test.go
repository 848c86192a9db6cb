package validation_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/proto"

	eventsv1 "github.com/paygate/paygate/gen/go/paygate/events/v1"
	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/gateway/internal/validation"
	"github.com/paygate/paygate/services/internal/apperr"
	"github.com/paygate/paygate/services/internal/netguard"
)

// memStore is an in-memory validation.Store whose transactions apply their
// writes only when fn succeeds, like Postgres.
type memStore struct {
	collabs    map[int32]validation.Collab
	endpoints  map[int64]validation.Endpoint
	nextID     int64
	activities []activity.Entry
	events     []proto.Message
}

func newMemStore() *memStore {
	m := &memStore{collabs: map[int32]validation.Collab{}, endpoints: map[int64]validation.Endpoint{}}
	for _, c := range []validation.Collab{
		{ID: 10, MerchantID: 1, MerchantName: "Acme", ProviderID: 1, ProviderName: "GoVip"},
		{ID: 11, MerchantID: 1, MerchantName: "Acme", ProviderID: 2, ProviderName: "QRPh"},
		{ID: 20, MerchantID: 2, MerchantName: "Beta", ProviderID: 1, ProviderName: "GoVip"},
	} {
		m.collabs[c.ID] = c
	}
	return m
}

func (m *memStore) clone() *memStore {
	c := &memStore{collabs: m.collabs, endpoints: map[int64]validation.Endpoint{}, nextID: m.nextID,
		activities: slices.Clone(m.activities), events: slices.Clone(m.events)}
	for k, v := range m.endpoints {
		c.endpoints[k] = v
	}
	return c
}

func (m *memStore) Endpoints(_ context.Context, collabID int32) ([]validation.Endpoint, error) {
	var out []validation.Endpoint
	for _, e := range m.endpoints {
		if e.CollabID == collabID {
			out = append(out, e)
		}
	}
	slices.SortFunc(out, func(a, b validation.Endpoint) int { return int(a.ID - b.ID) })
	return out, nil
}

func (m *memStore) Collab(_ context.Context, id int32) (validation.Collab, error) {
	c, ok := m.collabs[id]
	if !ok {
		return c, apperr.NotFound("no collab")
	}
	return c, nil
}

func (m *memStore) Endpoint(_ context.Context, id int64) (validation.Endpoint, error) {
	e, ok := m.endpoints[id]
	if !ok {
		return e, apperr.NotFound("no endpoint")
	}
	e.MerchantID = m.collabs[e.CollabID].MerchantID
	return e, nil
}

func (m *memStore) Tx(ctx context.Context, fn func(validation.Tx) error) error {
	work := m.clone()
	if err := fn(work); err != nil {
		return err
	}
	*m = *work
	return nil
}

func (m *memStore) CollabForUpdate(ctx context.Context, id int32) (validation.Collab, error) {
	return m.Collab(ctx, id)
}

func (m *memStore) EndpointForUpdate(ctx context.Context, id int64) (validation.Endpoint, error) {
	return m.Endpoint(ctx, id)
}

func (m *memStore) CountEndpoints(ctx context.Context, collabID int32) (int, error) {
	es, _ := m.Endpoints(ctx, collabID)
	return len(es), nil
}

func (m *memStore) InsertEndpoint(ctx context.Context, e validation.Endpoint) (validation.Endpoint, error) {
	m.nextID++
	e.ID = m.nextID
	m.endpoints[e.ID] = e
	return m.Endpoint(ctx, e.ID)
}

func (m *memStore) UpdateEndpoint(ctx context.Context, e validation.Endpoint) (validation.Endpoint, error) {
	if _, ok := m.endpoints[e.ID]; !ok {
		return e, apperr.NotFound("gone")
	}
	m.endpoints[e.ID] = e
	return m.Endpoint(ctx, e.ID)
}

func (m *memStore) DeleteEndpoint(_ context.Context, id int64) error {
	if _, ok := m.endpoints[id]; !ok {
		return apperr.NotFound("gone")
	}
	delete(m.endpoints, id)
	return nil
}

func (m *memStore) InsertActivity(_ context.Context, a activity.Entry) (int64, error) {
	m.activities = append(m.activities, a)
	return int64(len(m.activities)), nil
}

func (m *memStore) Publish(_ context.Context, ev proto.Message) error {
	m.events = append(m.events, ev)
	return nil
}

// openPolicy allows every URL; refusals come from netguard in their own test.
type openPolicy struct{}

func (openPolicy) CheckURL(_ context.Context, raw string) (*url.URL, error) { return url.Parse(raw) }

var clock = time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)

func newService(store *memStore, policy validation.URLPolicy) *validation.Service {
	return validation.NewService(store, policy, func() time.Time { return clock })
}

var (
	admin  = activity.Actor{UserID: 1, Username: "admin", IP: "10.0.0.1", UserAgent: "ua", Scope: merchant.Scope{All: true}}
	acmeMA = activity.Actor{UserID: 2, Username: "acme-admin", Scope: merchant.Scope{MerchantIDs: []int32{1}}}
)

func ptr[T any](v T) *T { return &v }

func invalidMessage(t *testing.T, err error) string {
	t.Helper()
	var ae *apperr.Error
	if apperr.KindOf(err) != apperr.KindInvalid || !errors.As(err, &ae) {
		t.Fatalf("error %v, want invalid", err)
	}
	return ae.Message
}

func TestCreateRules(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   validation.NewEndpoint
		want string
	}{
		{"nothing", validation.NewEndpoint{Priority: ptr[int32](0)}, "Endpoint URL is required. Collaboration is required. Priority is required."},
		{"blank URL", validation.NewEndpoint{CollabID: 10, URL: "   "}, "Endpoint URL is required."},
		{"priority above 100", validation.NewEndpoint{CollabID: 10, URL: "https://8.8.8.8/v", Priority: ptr[int32](101)}, "Priority must be between 1 and 100."},
		{"negative priority", validation.NewEndpoint{CollabID: 10, URL: "https://8.8.8.8/v", Priority: ptr[int32](-3)}, "Priority must be between 1 and 100."},
		{"URL too long", validation.NewEndpoint{CollabID: 10, URL: "https://m.example/" + strings.Repeat("a", 2048)}, "The endpoint URL must be at most 2048 characters."},
		{"private address", validation.NewEndpoint{CollabID: 10, URL: "http://127.0.0.1:9000/validate"},
			`The URL's host "127.0.0.1" points to a private or reserved address; only public addresses are allowed.`},
		{"metadata address", validation.NewEndpoint{CollabID: 10, URL: "http://169.254.169.254/latest"},
			`The URL's host "169.254.169.254" points to a private or reserved address; only public addresses are allowed.`},
		{"not http", validation.NewEndpoint{CollabID: 10, URL: "ftp://203.0.113.9/x"}, "The URL must start with http:// or https://."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			store := newMemStore()
			_, err := newService(store, netguard.Policy{}).Create(context.Background(), admin, tt.in)
			if got := invalidMessage(t, err); got != tt.want {
				t.Errorf("message %q, want %q", got, tt.want)
			}
			if len(store.endpoints) != 0 || len(store.activities) != 0 || len(store.events) != 0 {
				t.Error("a refused create wrote something")
			}
		})
	}
}

func TestCreate(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	s := newService(store, openPolicy{})
	ctx := context.Background()

	e, err := s.Create(ctx, admin, validation.NewEndpoint{CollabID: 10, URL: " https://m.example/v ", ForCashIn: true})
	if err != nil {
		t.Fatal(err)
	}
	want := validation.Endpoint{ID: 1, CollabID: 10, MerchantID: 1, URL: "https://m.example/v", Priority: 1, ForCashIn: true}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("endpoint %+v, want %+v (default priority 1, awaitable and cash out off)", e, want)
	}
	if len(store.activities) != 1 || len(store.events) != 1 {
		t.Fatalf("%d activities, %d events, want 1 each", len(store.activities), len(store.events))
	}
	a := store.activities[0]
	if a.ActionType != activity.ActionValidationEndpoint || a.MerchantID != 1 || a.CollabID != 10 || a.ProviderID != 1 ||
		a.Channel != activity.ChannelCashIn || a.UserID != 1 || a.Username != "admin" || a.IP != "10.0.0.1" || !a.At.Equal(clock) {
		t.Errorf("activity %+v", a)
	}
	if a.Message != "Validation endpoint 1 added to Acme × GoVip: https://m.example/v (priority 1, not awaitable, cash in)." {
		t.Errorf("message %q", a.Message)
	}
	var nv map[string]any
	if err := json.Unmarshal(a.NewValue, &nv); err != nil || nv["Url"] != "https://m.example/v" || nv["Priority"] != 1.0 || nv["ForCashIn"] != true || a.OldValue != nil {
		t.Errorf("values old %s new %s", a.OldValue, a.NewValue)
	}
	ev, ok := store.events[0].(*eventsv1.ActivityRecorded)
	if !ok || ev.GetActivityId() != 1 || ev.GetActionType() != "Validation Endpoint" || ev.GetMessage() != a.Message ||
		ev.GetCollabId() != 10 || ev.GetMerchantId() != 1 || ev.GetOldValue() != "null" || ev.GetNewValue() != string(a.NewValue) {
		t.Errorf("event %v", store.events[0])
	}

	t.Run("outside scope", func(t *testing.T) {
		before := len(store.activities)
		_, err := s.Create(ctx, acmeMA, validation.NewEndpoint{CollabID: 20, URL: "https://m.example/v"})
		if apperr.KindOf(err) != apperr.KindNotFound {
			t.Errorf("create on another merchant's collab: %v, want not found", err)
		}
		_, err = s.Create(ctx, admin, validation.NewEndpoint{CollabID: 99, URL: "https://m.example/v"})
		if apperr.KindOf(err) != apperr.KindNotFound {
			t.Errorf("create on an unknown collab: %v, want not found", err)
		}
		if len(store.activities) != before {
			t.Error("a refused create wrote activity")
		}
	})

	t.Run("at most 20 per collab", func(t *testing.T) {
		for i := len(store.endpoints); i < validation.MaxEndpointsPerCollab; i++ {
			if _, err := s.Create(ctx, admin, validation.NewEndpoint{CollabID: 10, URL: "https://m.example/v"}); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.Create(ctx, admin, validation.NewEndpoint{CollabID: 10, URL: "https://m.example/v"})
		if apperr.KindOf(err) != apperr.KindFailedPrecondition {
			t.Errorf("21st endpoint: %v, want failed precondition", err)
		}
	})
}

func TestEndpointsScope(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	s := newService(store, openPolicy{})
	ctx := context.Background()
	for _, p := range []int32{30, 10, 20} {
		if _, err := s.Create(ctx, admin, validation.NewEndpoint{CollabID: 10, URL: "https://m.example/v", Priority: ptr(p)}); err != nil {
			t.Fatal(err)
		}
	}
	es, err := s.Endpoints(ctx, acmeMA.Scope, 10)
	if err != nil || len(es) != 3 {
		t.Fatalf("Endpoints = %v, %v", es, err)
	}
	for _, id := range []int32{20, 99} {
		if _, err := s.Endpoints(ctx, acmeMA.Scope, id); apperr.KindOf(err) != apperr.KindNotFound {
			t.Errorf("Endpoints of collab %d: %v, want not found", id, err)
		}
	}
	if _, err := s.Endpoints(ctx, admin.Scope, 0); apperr.KindOf(err) != apperr.KindInvalid {
		t.Errorf("Endpoints without a collab: %v, want invalid", err)
	}
}

func TestUpdate(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	s := newService(store, netguard.Policy{})
	ctx := context.Background()
	// Saved under an open policy (as a demo with private URLs allowed would).
	e, err := newService(store, openPolicy{}).Create(ctx, admin, validation.NewEndpoint{CollabID: 10, URL: "http://10.0.0.5/v", ForCashIn: true})
	if err != nil {
		t.Fatal(err)
	}
	store.activities = nil

	if got, err := s.Update(ctx, admin, validation.Change{ID: e.ID, URL: ptr("http://10.0.0.5/v"), Priority: ptr[int32](1)}); err != nil || got != e {
		t.Fatalf("a change to the same values: %+v, %v", got, err)
	}
	if len(store.activities) != 0 {
		t.Error("a change that changed nothing was recorded")
	}

	got, err := s.Update(ctx, acmeMA, validation.Change{ID: e.ID, Priority: ptr[int32](5), Awaitable: ptr(true)})
	if err != nil {
		t.Fatalf("update keeping a URL saved before: %v", err)
	}
	if got.Priority != 5 || !got.Awaitable || got.URL != e.URL || !got.ForCashIn {
		t.Errorf("after update %+v", got)
	}
	a := store.activities[len(store.activities)-1]
	if a.Message != "Validation endpoint 1 of Acme × GoVip changed: Priority 1 → 5, Awaitable false → true." ||
		string(a.OldValue) != `{"Awaitable":false,"Priority":1}` || string(a.NewValue) != `{"Awaitable":true,"Priority":5}` ||
		a.Count != 2 || a.Channel != activity.ChannelCashIn || a.Username != "acme-admin" {
		t.Errorf("activity %+v old %s new %s", a, a.OldValue, a.NewValue)
	}

	refusals := []struct {
		name  string
		actor activity.Actor
		ch    validation.Change
		kind  apperr.Kind
	}{
		{"a new private URL", admin, validation.Change{ID: e.ID, URL: ptr("http://10.0.0.6/v")}, apperr.KindInvalid},
		{"an empty URL", admin, validation.Change{ID: e.ID, URL: ptr("")}, apperr.KindInvalid},
		{"priority 0", admin, validation.Change{ID: e.ID, Priority: ptr[int32](0)}, apperr.KindInvalid},
		{"collab 0", admin, validation.Change{ID: e.ID, CollabID: ptr[int32](0)}, apperr.KindInvalid},
		{"a move out of scope", acmeMA, validation.Change{ID: e.ID, CollabID: ptr[int32](20)}, apperr.KindNotFound},
		{"a move to an unknown collab", admin, validation.Change{ID: e.ID, CollabID: ptr[int32](99)}, apperr.KindNotFound},
		{"another merchant's endpoint", activity.Actor{Scope: merchant.Scope{MerchantIDs: []int32{2}}}, validation.Change{ID: e.ID, Priority: ptr[int32](9)}, apperr.KindNotFound},
		{"another merchant's endpoint, with a URL", activity.Actor{Scope: merchant.Scope{MerchantIDs: []int32{2}}}, validation.Change{ID: e.ID, URL: ptr("https://x.example")}, apperr.KindNotFound},
		{"an unknown endpoint", admin, validation.Change{ID: 99, Priority: ptr[int32](9)}, apperr.KindNotFound},
	}
	for _, r := range refusals {
		before := len(store.activities)
		if _, err := s.Update(ctx, r.actor, r.ch); apperr.KindOf(err) != r.kind {
			t.Errorf("%s: %v, want %s", r.name, err, r.kind)
		}
		if len(store.activities) != before || store.endpoints[e.ID].Priority != 5 {
			t.Errorf("%s: a refused update wrote something", r.name)
		}
	}

	before := len(store.activities)
	moved, err := s.Update(ctx, acmeMA, validation.Change{ID: e.ID, CollabID: ptr[int32](11)})
	if err != nil || moved.CollabID != 11 {
		t.Fatalf("move: %+v, %v", moved, err)
	}
	if n := len(store.activities) - before; n != 2 {
		t.Fatalf("a move made %d activity entries, want one per collab", n)
	}
	to, from := store.activities[before], store.activities[before+1]
	if to.CollabID != 11 || from.CollabID != 10 || to.Message != from.Message ||
		to.Message != "Validation endpoint 1 moved from Acme × GoVip to Acme × QRPh: CollabId 10 → 11." {
		t.Errorf("move entries %+v / %+v", to, from)
	}
}

func TestDelete(t *testing.T) {
	t.Parallel()
	store := newMemStore()
	s := newService(store, openPolicy{})
	ctx := context.Background()
	e, err := s.Create(ctx, admin, validation.NewEndpoint{CollabID: 20, URL: "https://b.example/v", Awaitable: true, ForCashOut: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, acmeMA, e.ID); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("delete of another merchant's endpoint: %v, want not found", err)
	}
	if err := s.Delete(ctx, admin, 99); apperr.KindOf(err) != apperr.KindNotFound {
		t.Errorf("delete of an unknown endpoint: %v, want not found", err)
	}
	if len(store.endpoints) != 1 || len(store.activities) != 1 {
		t.Fatal("a refused delete changed something")
	}
	if err := s.Delete(ctx, admin, e.ID); err != nil {
		t.Fatal(err)
	}
	a := store.activities[1]
	if len(store.endpoints) != 0 || !a.IsSensitive() || a.SensitiveActionName != "Validation endpoint removed" ||
		a.Channel != activity.ChannelCashOut || a.NewValue != nil || !strings.Contains(string(a.OldValue), `"Url":"https://b.example/v"`) {
		t.Errorf("delete entry %+v old %s", a, a.OldValue)
	}
}
