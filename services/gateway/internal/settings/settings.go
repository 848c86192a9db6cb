// Package settings holds the gateway's live tunables
// (docs/contracts-settings.md): a fixed registry of keys, each with a
// schema, a default and a description, whose JSON values operators change
// through the API and every replica uses within about a second, without a
// restart.
//
// Values are stored in Postgres (migration 0020). Reads by other packages
// (Decode and the typed helpers) come from an in-memory snapshot of every
// stored value that is read again when older than MaxAge (one second), by
// one caller at a time while the others use the snapshot they have; a
// change made through this Service drops its snapshot at once. The console's
// reads (Get, List) read the store. A change writes, in one store
// transaction, the value and its activity log entry (category Settings,
// with the old and the new value).
package settings

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"reflect"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Value is a stored value of a key.
type Value struct {
	// Key is the key.
	Key string
	// JSON is the value.
	JSON json.RawMessage
	// Version counts the key's changes, from 1.
	Version int64
	// UpdatedAt is when it was last changed.
	UpdatedAt time.Time
	// UpdatedBy is the username of who changed it.
	UpdatedBy string
}

// Journal is the store transaction a change is made in: where its activity
// entry is written.
type Journal = activity.Journal

// Store keeps the stored values.
type Store interface {
	// Values returns every stored value, by key.
	Values(ctx context.Context) ([]Value, error)
	// SetValue stores value under key as changed by `by` (its version one
	// more than before) and calls then, in the same store transaction, with
	// the value before (nil when none was stored) and the one stored;
	// nothing is written when either fails. Changes are made one at a time.
	SetValue(ctx context.Context, key string, value json.RawMessage, by string,
		then func(ctx context.Context, j Journal, old *Value, stored Value) error) (Value, error)
}

// Setting is a key with the value in force.
type Setting struct {
	Key
	// Value is the value in force: the stored one, else the default.
	Value json.RawMessage
	// DefaultJSON is the default as JSON.
	DefaultJSON json.RawMessage
	// Stored is the stored value, nil while the default is in force.
	Stored *Value
}

// Service serves the settings.
type Service struct {
	store    Store
	keys     map[string]Key
	defaults map[string]json.RawMessage
	names    []string
	conf     Defaults
	now      func() time.Time
	log      *slog.Logger

	// MaxAge is how old the snapshot may be before a read refreshes it (1 s
	// by default).
	MaxAge time.Duration

	snap atomic.Pointer[snapshot]
	// gen moves on with every change made here: a refresh that began before
	// it does not replace the snapshot the change dropped.
	gen       atomic.Int64
	refreshMu sync.Mutex
}

// snapshot is every stored value, as read at one time.
type snapshot struct {
	values map[string]Value
	read   time.Time
}

// NewService returns the service on store with the registry of d (Registry),
// now the clock and log where failed refreshes are reported.
func NewService(store Store, d Defaults, now func() time.Time, log *slog.Logger) *Service {
	s := &Service{store: store, keys: map[string]Key{}, defaults: map[string]json.RawMessage{}, conf: d, now: now,
		log: log, MaxAge: time.Second}
	for _, k := range Registry(d) {
		raw, err := json.Marshal(k.Default)
		if err != nil {
			panic(fmt.Sprintf("settings: default of %s: %v", k.Name, err))
		}
		s.keys[k.Name], s.defaults[k.Name] = k, raw
		s.names = append(s.names, k.Name)
	}
	sort.Strings(s.names)
	return s
}

// key returns the key named name; not found otherwise.
func (s *Service) key(name string) (Key, error) {
	k, ok := s.keys[name]
	if !ok {
		return Key{}, apperr.NotFound("There is no setting named %q.", clip(name))
	}
	return k, nil
}

func (s *Service) setting(k Key, stored *Value) Setting {
	st := Setting{Key: k, DefaultJSON: s.defaults[k.Name], Value: s.defaults[k.Name]}
	if stored != nil {
		st.Stored, st.Value = stored, stored.JSON
	}
	return st
}

// List returns every key with its value in force, by name, read from the
// store.
func (s *Service) List(ctx context.Context) ([]Setting, error) {
	snap, err := s.refresh(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Setting, 0, len(s.names))
	for _, name := range s.names {
		out = append(out, s.setting(s.keys[name], snap.stored(name)))
	}
	return out, nil
}

// Get returns a key with its value in force, read from the store; not found
// for an unknown key.
func (s *Service) Get(ctx context.Context, name string) (Setting, error) {
	k, err := s.key(name)
	if err != nil {
		return Setting{}, err
	}
	snap, err := s.refresh(ctx)
	if err != nil {
		return Setting{}, err
	}
	return s.setting(k, snap.stored(name)), nil
}

// Set replaces a key's value by actor, with its activity entry. value is a
// decoded JSON value (nil, bool, float64, string, []any, map[string]any).
// Refused: an unknown key (not found); a value that fails the key's schema
// (invalid, naming the key or field and the rule). Nothing is written then.
func (s *Service) Set(ctx context.Context, actor activity.Actor, name string, value any) (Setting, error) {
	k, err := s.key(name)
	if err != nil {
		return Setting{}, err
	}
	if err := k.Schema.Check(name, value); err != nil {
		return Setting{}, err
	}
	raw, err := json.Marshal(value)
	if err != nil {
		return Setting{}, apperr.Invalid("%s must be %s.", name, k.Schema.Describe())
	}
	stored, err := s.store.SetValue(ctx, name, raw, actor.Username, func(ctx context.Context, j Journal, old *Value, stored Value) error {
		before := s.defaults[name]
		if old != nil {
			before = old.JSON
		}
		return activity.Record(ctx, j, actor, activity.Entry{
			ActionType: activity.ActionSettings,
			Message:    fmt.Sprintf("Setting %s changed.", name),
			OldValue:   before, NewValue: stored.JSON, Count: changedCount(before, stored.JSON),
		}, stored.UpdatedAt)
	})
	if err != nil {
		return Setting{}, err
	}
	// Every later read here sees the change: the snapshot is dropped, and a
	// refresh that began before it is not kept.
	s.gen.Add(1)
	s.snap.Store(nil)
	return s.setting(k, &stored), nil
}

// changedCount counts the fields of an object that differ between two JSON
// values, 1 for any other change.
func changedCount(before, after json.RawMessage) int32 {
	var a, b map[string]any
	if json.Unmarshal(before, &a) != nil || json.Unmarshal(after, &b) != nil || a == nil || b == nil {
		return 1
	}
	n := int32(0)
	for k, v := range b {
		if w, ok := a[k]; !ok || !reflect.DeepEqual(v, w) {
			n++
		}
	}
	for k := range a {
		if _, ok := b[k]; !ok {
			n++
		}
	}
	return n
}

func (sn *snapshot) stored(name string) *Value {
	if v, ok := sn.values[name]; ok {
		return &v
	}
	return nil
}

// refresh reads every stored value and keeps them as the snapshot unless a
// change was made here meanwhile.
func (s *Service) refresh(ctx context.Context) (*snapshot, error) {
	gen := s.gen.Load()
	began := s.now()
	values, err := s.store.Values(ctx)
	if err != nil {
		return nil, err
	}
	snap := &snapshot{values: make(map[string]Value, len(values)), read: began}
	for _, v := range values {
		snap.values[v.Key] = v
	}
	if s.gen.Load() == gen {
		s.snap.Store(snap)
	}
	return snap, nil
}

// cached returns the snapshot, refreshed first when missing or older than
// MaxAge. One caller refreshes; the others use the snapshot they have. A
// failed refresh keeps the old snapshot in use (and is logged) when there
// is one.
func (s *Service) cached(ctx context.Context) (*snapshot, error) {
	snap := s.snap.Load()
	if snap != nil && s.now().Sub(snap.read) < s.MaxAge {
		return snap, nil
	}
	if snap == nil {
		s.refreshMu.Lock()
	} else if !s.refreshMu.TryLock() {
		return snap, nil
	}
	defer s.refreshMu.Unlock()
	if cur := s.snap.Load(); cur != nil && s.now().Sub(cur.read) < s.MaxAge {
		return cur, nil
	}
	fresh, err := s.refresh(ctx)
	if err != nil {
		if snap != nil {
			s.log.WarnContext(ctx, "settings could not be read again; the values read before stay in force", "error", err)
			return snap, nil
		}
		return nil, err
	}
	return fresh, nil
}

// raw returns a key's value in force from the snapshot and whether it is a
// stored one.
func (s *Service) raw(ctx context.Context, name string) (json.RawMessage, bool, error) {
	if _, err := s.key(name); err != nil {
		return nil, false, err
	}
	snap, err := s.cached(ctx)
	if err != nil {
		return nil, false, err
	}
	if v := snap.stored(name); v != nil {
		return v.JSON, true, nil
	}
	return s.defaults[name], false, nil
}

// Decode decodes a key's value in force (the stored one, else the default)
// into dst, from the snapshot. Not found for an unknown key; an error when
// the settings were never read and cannot be.
func (s *Service) Decode(ctx context.Context, name string, dst any) error {
	raw, _, err := s.raw(ctx, name)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(raw, dst); err != nil {
		return fmt.Errorf("decode setting %s: %w", name, err)
	}
	return nil
}

// FraudDetection returns the fraud rules' thresholds in force.
func (s *Service) FraudDetection(ctx context.Context) (FraudDetection, error) {
	var f FraudDetection
	if err := s.Decode(ctx, KeyFraudDetection, &f); err != nil {
		if s.conf.FraudDetection != nil {
			return *s.conf.FraudDetection, err
		}
		return DefaultFraudDetection, err
	}
	return f, nil
}

// PollingInterval returns the tick of the polling and recovery loops: the
// stored PollingIntervalSeconds, else PAYGATE_POLL_INTERVAL (also when the
// settings cannot be read).
func (s *Service) PollingInterval(ctx context.Context) time.Duration {
	return s.duration(ctx, KeyPollingIntervalSeconds, time.Second, s.conf.PollInterval)
}

// ExportRetention returns how long export files are kept: the stored
// ExportRetentionHours, else PAYGATE_FILES_RETENTION (also when the
// settings cannot be read).
func (s *Service) ExportRetention(ctx context.Context) time.Duration {
	return s.duration(ctx, KeyExportRetentionHours, time.Hour, s.conf.ExportRetention)
}

// BalanceCacheTTL returns how long a provider balance is reused: the stored
// BalanceCacheSeconds, else PAYGATE_BALANCE_CACHE_TTL or 15 s (also when the
// settings cannot be read).
func (s *Service) BalanceCacheTTL(ctx context.Context) time.Duration {
	fallback := s.conf.BalanceCache
	if fallback <= 0 {
		fallback = 15 * time.Second
	}
	return s.duration(ctx, KeyBalanceCacheSeconds, time.Second, fallback)
}

// BulkActionCap returns the most transactions one bulk run may select: the
// stored BulkActionCap, else 100,000.
func (s *Service) BulkActionCap(ctx context.Context) int {
	return int(s.duration(ctx, KeyBulkActionCap, 1, DefaultBulkActionCap))
}

// BulkActionRate returns how many transactions per second a bulk run
// treats: the stored BulkActionRate, else 2,000.
func (s *Service) BulkActionRate(ctx context.Context) int {
	return int(s.duration(ctx, KeyBulkActionRate, 1, DefaultBulkActionRate))
}

// duration returns a numeric key's stored value times unit, else fallback.
func (s *Service) duration(ctx context.Context, name string, unit, fallback time.Duration) time.Duration {
	raw, stored, err := s.raw(ctx, name)
	if err != nil {
		s.log.WarnContext(ctx, "setting could not be read; its default is used", "key", name, "error", err)
		return fallback
	}
	if !stored {
		return fallback
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		s.log.WarnContext(ctx, "stored setting is not a number; its default is used", "key", name, "error", err)
		return fallback
	}
	return time.Duration(f * float64(unit))
}
