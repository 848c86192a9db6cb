// Package credential keeps the credentials the gateway presents to a
// collab's provider (spec 02 "Credentials"; docs/contracts-credentials.md):
// a free-form key/value object, nested one level at most, whose values are
// text, numbers or true/false. The object is sealed at rest as one value
// with AES-256-GCM under a Keyring key, bound to its collab; plain values
// exist only in memory, for the caller with Credentials Access and for the
// provider adapters. Every change writes an activity entry (category
// Credentials) naming the keys added, changed and removed, never a value,
// in the change's own store transaction.
package credential

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/paygate/paygate/services/gateway/internal/activity"
	"github.com/paygate/paygate/services/gateway/internal/merchant"
	"github.com/paygate/paygate/services/internal/apperr"
)

// Credentials are a collab's credentials: key → string, float64 (a JSON
// number), bool, or a map of those (one level).
type Credentials map[string]any

// Limits of a credentials object.
const (
	// MaxKeys bounds the keys, nested ones counted.
	MaxKeys = 100
	// MaxKeyLength bounds a key, in characters.
	MaxKeyLength = 100
	// MaxValueLength bounds a text value, in characters.
	MaxValueLength = 4096
	// MaxBytes bounds the object as JSON.
	MaxBytes = 32 << 10
)

// Validate refuses (invalid, naming the key) what is not a credentials
// object: nil, nesting deeper than one level, lists, nulls, empty or long
// keys, long texts, more than MaxKeys keys or MaxBytes bytes.
func Validate(c Credentials) error {
	if c == nil {
		return apperr.Invalid(`The request body must be a JSON object of credentials, e.g. {"apiKey": "…"}.`)
	}
	n := 0
	var walk func(m map[string]any, prefix string, depth int) error
	walk = func(m map[string]any, prefix string, depth int) error {
		for _, k := range slices.Sorted(maps.Keys(m)) {
			name := prefix + k
			n++
			if n > MaxKeys {
				return apperr.Invalid("The credentials may hold at most %d keys, nested ones counted.", MaxKeys)
			}
			if strings.TrimSpace(k) == "" {
				return apperr.Invalid("Every credentials key must be a name that is not blank.")
			}
			if utf8.RuneCountInString(k) > MaxKeyLength {
				return apperr.Invalid("The credentials key %q is longer than %d characters.", truncate(name, 40), MaxKeyLength)
			}
			switch v := m[k].(type) {
			case string:
				if utf8.RuneCountInString(v) > MaxValueLength {
					return apperr.Invalid("The value of %q is longer than %d characters.", name, MaxValueLength)
				}
			case float64, json.Number, bool:
			case map[string]any:
				if depth > 0 {
					return apperr.Invalid("The value of %q must be text, a number or true/false: credentials nest one level at most.", name)
				}
				if err := walk(v, name+".", depth+1); err != nil {
					return err
				}
			default:
				if depth > 0 {
					return apperr.Invalid("The value of %q must be text, a number or true/false.", name)
				}
				return apperr.Invalid("The value of %q must be text, a number, true/false or an object of those.", name)
			}
		}
		return nil
	}
	if err := walk(c, "", 0); err != nil {
		return err
	}
	raw, err := json.Marshal(c)
	if err != nil {
		return apperr.Invalid("The credentials must be a JSON object of texts, numbers and true/false values.")
	}
	if len(raw) > MaxBytes {
		return apperr.Invalid("The credentials are %d bytes as JSON; at most %d are allowed.", len(raw), MaxBytes)
	}
	return nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// Changes names the keys (nested ones as "group.key") added, changed and
// removed from before to after, each list sorted.
type Changes struct {
	Added, Changed, Removed []string
}

// Count is how many keys changed.
func (c Changes) Count() int { return len(c.Added) + len(c.Changed) + len(c.Removed) }

// Diff compares two credentials objects by flattened key.
func Diff(before, after Credentials) Changes {
	b, a := flatten(before), flatten(after)
	var ch Changes
	for _, k := range slices.Sorted(maps.Keys(a)) {
		old, ok := b[k]
		switch {
		case !ok:
			ch.Added = append(ch.Added, k)
		case old != a[k]:
			ch.Changed = append(ch.Changed, k)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		if _, ok := a[k]; !ok {
			ch.Removed = append(ch.Removed, k)
		}
	}
	return ch
}

// flatten maps "key" and "group.key" to each scalar's JSON text.
func flatten(c Credentials) map[string]string {
	out := map[string]string{}
	for k, v := range c {
		if m, ok := v.(map[string]any); ok {
			for sk, sv := range m {
				out[k+"."+sk] = scalarText(sv)
			}
			if len(m) == 0 {
				out[k] = "{}"
			}
			continue
		}
		out[k] = scalarText(v)
	}
	return out
}

func scalarText(v any) string {
	raw, _ := json.Marshal(v)
	return string(raw)
}

// Collab is what a credentials change records about its collab.
type Collab struct {
	ID           int32
	MerchantID   int32
	MerchantName string
	ProviderID   int32
	ProviderName string
}

// Listed is a collab as the credentials page lists it.
type Listed struct {
	CollabID     int32
	MerchantID   int32
	MerchantName string
	ProviderID   int32
	ProviderName string
	PathSegment  string
}

// MaxListed bounds the collabs a list answers.
const MaxListed = 1000

// Collabs lists the collabs in actor's scope, by merchant then provider
// name (at most MaxListed).
func (s *Service) Collabs(ctx context.Context, actor activity.Actor) ([]Listed, error) {
	return s.store.Collabs(ctx, actor.Scope, MaxListed)
}

// Sealed is a stored credentials object: the id of the key it is sealed
// under and the sealed JSON.
type Sealed struct {
	KeyID string
	Data  []byte
}

// Store keeps sealed credentials.
type Store interface {
	// Collab returns a collab (not found).
	Collab(ctx context.Context, id int32) (Collab, error)
	// Sealed returns a collab's sealed credentials; ok is false when it
	// has none.
	Sealed(ctx context.Context, collabID int32) (s Sealed, ok bool, err error)
	// Replace locks a collab's credentials row (old nil when it has none),
	// stores what fn returns, by by, and commits with what fn wrote to j;
	// nothing is written when fn fails.
	Replace(ctx context.Context, collabID int32, by string,
		fn func(ctx context.Context, j activity.Journal, old *Sealed) (Sealed, error)) error
	// Collabs returns up to limit collabs of the merchants in scope, by
	// merchant then provider name.
	Collabs(ctx context.Context, scope merchant.Scope, limit int) ([]Listed, error)
	// NotUnderKey returns up to limit collab ids above after whose
	// credentials are sealed under another key than keyID, by id.
	NotUnderKey(ctx context.Context, keyID string, after int32, limit int) ([]int32, error)
}

// Service reads and writes credentials.
type Service struct {
	store Store
	keys  *Keyring
	now   func() time.Time
	// changed, when set, is told of each collab whose credentials changed
	// (after the commit), e.g. to drop answers obtained with the old ones.
	changed func(ctx context.Context, collabID int32)
}

// OnChange makes fn hear of each collab whose credentials changed, after
// the change committed.
func (s *Service) OnChange(fn func(ctx context.Context, collabID int32)) { s.changed = fn }

// NewService returns the service on store, sealing with keys, with now the
// clock.
func NewService(store Store, keys *Keyring, now func() time.Time) *Service {
	return &Service{store: store, keys: keys, now: now}
}

// ReadingFrom returns a service like s (its keys, clock and listener) whose
// reads of sealed credentials go to store: the payment path reads them
// from the gateway's configuration cache.
func (s *Service) ReadingFrom(store Store) *Service {
	c := *s
	c.store = store
	return &c
}

// notFound is the answer for a collab that does not exist or is out of the
// caller's scope: the same, so that ids do not leak.
func notFound(id int32) error { return apperr.NotFound("Collab %d was not found.", id) }

func (s *Service) collabInScope(ctx context.Context, actor activity.Actor, id int32) (Collab, error) {
	if id <= 0 {
		return Collab{}, apperr.Invalid("collabId must be the id of a collaboration (a positive number).")
	}
	c, err := s.store.Collab(ctx, id)
	if apperr.KindOf(err) == apperr.KindNotFound || err == nil && !actor.Scope.Includes(c.MerchantID) {
		return Collab{}, notFound(id)
	}
	if err != nil {
		return Collab{}, fmt.Errorf("collab %d of credentials: %w", id, err)
	}
	return c, nil
}

func (s *Service) open(sl Sealed, collabID int32) (Credentials, error) {
	plain, err := s.keys.Open(sl.KeyID, sl.Data, collabID)
	if err != nil {
		return nil, err
	}
	var c Credentials
	if err := json.Unmarshal(plain, &c); err != nil {
		return nil, fmt.Errorf("decode credentials of collab %d: %w", collabID, err)
	}
	return c, nil
}

// Get returns a collab's credentials for actor ({} when none are set). A
// collab outside actor's scope is not found.
func (s *Service) Get(ctx context.Context, actor activity.Actor, collabID int32) (Credentials, error) {
	if _, err := s.collabInScope(ctx, actor, collabID); err != nil {
		return nil, err
	}
	return s.Of(ctx, collabID)
}

// Of returns a collab's credentials ({} when none are set), for the
// provider adapters; no scope applies.
func (s *Service) Of(ctx context.Context, collabID int32) (Credentials, error) {
	sl, ok, err := s.store.Sealed(ctx, collabID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return Credentials{}, nil
	}
	return s.open(sl, collabID)
}

// Set replaces a collab's credentials with c for actor, sealed under the
// current key, with an activity entry naming the keys changed. Bad input is
// invalid and a collab outside actor's scope not found; either way nothing
// is written. Setting what is already stored writes nothing.
func (s *Service) Set(ctx context.Context, actor activity.Actor, collabID int32, c Credentials) (Credentials, error) {
	if err := Validate(c); err != nil {
		return nil, err
	}
	col, err := s.collabInScope(ctx, actor, collabID)
	if err != nil {
		return nil, err
	}
	plain, err := json.Marshal(c)
	if err != nil {
		return nil, fmt.Errorf("encode credentials: %w", err)
	}
	// The stored form is what the caller gets back: numbers as JSON numbers.
	var stored Credentials
	if err := json.Unmarshal(plain, &stored); err != nil {
		return nil, fmt.Errorf("decode credentials: %w", err)
	}
	err = s.store.Replace(ctx, collabID, actor.Username, func(ctx context.Context, j activity.Journal, old *Sealed) (Sealed, error) {
		before := Credentials{}
		if old != nil {
			var err error
			if before, err = s.open(*old, collabID); err != nil {
				return Sealed{}, err
			}
		}
		ch := Diff(before, stored)
		if ch.Count() == 0 && old != nil && old.KeyID == s.keys.Current() {
			return Sealed{}, errUnchanged
		}
		keyID, data, err := s.keys.Seal(plain, collabID)
		if err != nil {
			return Sealed{}, err
		}
		if ch.Count() == 0 {
			return Sealed{KeyID: keyID, Data: data}, nil // re-sealed under the current key only
		}
		return Sealed{KeyID: keyID, Data: data}, activity.Record(ctx, j, actor, entry(col, ch), s.now().UTC().Truncate(time.Microsecond))
	})
	if errors.Is(err, errUnchanged) {
		return stored, nil
	}
	if err != nil {
		return nil, err
	}
	if s.changed != nil {
		s.changed(ctx, collabID)
	}
	return stored, nil
}

// errUnchanged ends a Replace that would write nothing new.
var errUnchanged = errors.New("credentials unchanged")

func entry(c Collab, ch Changes) activity.Entry {
	parts := []string{}
	for _, p := range []struct {
		verb string
		keys []string
	}{{"added", ch.Added}, {"changed", ch.Changed}, {"removed", ch.Removed}} {
		if len(p.keys) > 0 {
			parts = append(parts, p.verb+" "+strings.Join(p.keys, ", "))
		}
	}
	value := map[string][]string{"added": nonNil(ch.Added), "changed": nonNil(ch.Changed), "removed": nonNil(ch.Removed)}
	return activity.Entry{
		MerchantID: c.MerchantID, MerchantName: c.MerchantName, ProviderID: c.ProviderID, ProviderName: c.ProviderName,
		CollabID: c.ID, ActionType: activity.ActionCredentials,
		Message:  fmt.Sprintf("Credentials of %s - %s updated: %s.", c.MerchantName, c.ProviderName, strings.Join(parts, "; ")),
		NewValue: activity.Value(value), Count: int32(ch.Count()),
	}
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Reseal re-seals up to limit collabs' credentials still under an older
// key under the current one (values unchanged, no activity entry), and
// returns how many it re-sealed and whether more may remain.
func (s *Service) Reseal(ctx context.Context, limit int) (int, bool, error) {
	ids, err := s.store.NotUnderKey(ctx, s.keys.Current(), 0, limit)
	if err != nil {
		return 0, false, err
	}
	done := 0
	for _, id := range ids {
		err := s.store.Replace(ctx, id, "system: credentials key rotation", func(_ context.Context, _ activity.Journal, old *Sealed) (Sealed, error) {
			if old == nil || old.KeyID == s.keys.Current() {
				return Sealed{}, errUnchanged
			}
			plain, err := s.keys.Open(old.KeyID, old.Data, id)
			if err != nil {
				return Sealed{}, err
			}
			keyID, data, err := s.keys.Seal(plain, id)
			return Sealed{KeyID: keyID, Data: data}, err
		})
		if errors.Is(err, errUnchanged) {
			continue
		}
		if err != nil {
			return done, true, fmt.Errorf("re-seal credentials of collab %d: %w", id, err)
		}
		done++
	}
	return done, len(ids) == limit, nil
}
