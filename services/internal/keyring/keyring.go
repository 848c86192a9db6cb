// Package keyring seals services' secrets at rest with AES-256-GCM under
// several keys, each with an id: the first key of the ring seals, every key
// opens what it sealed, so a key rotates by putting a new one first, moving
// the stored values to it (a reseal job), then dropping the old one.
//
// A value sealed with Seal names its key itself: "pgk1:" + key id + ":"
// followed by what aesgcm.Box.Seal makes (nonce, ciphertext and tag). A
// value without that prefix is sealed under the key with id DefaultKeyID:
// values sealed by a plain aesgcm.Box before keyrings existed are such, and
// so is what Seal makes while DefaultKeyID is current, so that a deployment
// that configures no keyring writes exactly what it wrote before (and an
// older release still reads it).
// Callers that store the key id in a column of its own use SealID and
// OpenID instead, which make and take the bare aesgcm value.
package keyring

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/paygate/paygate/services/internal/aesgcm"
)

// DefaultKeyID is the id of a service's single key (PAYGATE_ENCRYPTION_KEY,
// or the demo key) when no keyring is configured; legacy values without a
// key id open under it.
const DefaultKeyID = "default"

// prefix starts every self-describing sealed value (version 1 of the format).
var prefix = []byte("pgk1:")

// ErrUnknownKey is returned (wrapped) when a value is sealed under a key id
// that the ring does not hold.
var ErrUnknownKey = errors.New("unknown key")

var keyIDText = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Keyring seals under its current key and opens under any of its keys.
type Keyring struct {
	current string
	ids     []string
	boxes   map[string]*aesgcm.Box
}

// New returns a keyring with one key, current.
func New(id string, key []byte) (*Keyring, error) {
	k := &Keyring{boxes: map[string]*aesgcm.Box{}}
	if err := k.add(id, key); err != nil {
		return nil, err
	}
	return k, nil
}

func (k *Keyring) add(id string, key []byte) error {
	if !keyIDText.MatchString(id) {
		return fmt.Errorf("key id %q must be 1 to 64 letters, digits, '_', '.' or '-'", id)
	}
	if _, dup := k.boxes[id]; dup {
		return fmt.Errorf("key id %q is listed twice", id)
	}
	box, err := aesgcm.New(key)
	if err != nil {
		return fmt.Errorf("key %q: %w", id, err)
	}
	k.boxes[id] = box
	k.ids = append(k.ids, id)
	if k.current == "" {
		k.current = id
	}
	return nil
}

// Parse reads "id:base64key,id:base64key,…": the first key is the current
// one, the others still open what they sealed. The key material is never
// part of an error.
func Parse(spec string) (*Keyring, error) {
	k := &Keyring{boxes: map[string]*aesgcm.Box{}}
	for i, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		id, key, ok := strings.Cut(item, ":")
		if !ok || id == "" || key == "" {
			return nil, fmt.Errorf("item %d must be id:base64-key", i+1)
		}
		raw, err := aesgcm.ParseKey(key)
		if err != nil {
			return nil, fmt.Errorf("key %q: %w", id, err)
		}
		if err := k.add(id, raw); err != nil {
			return nil, err
		}
	}
	if len(k.boxes) == 0 {
		return nil, errors.New("no keys")
	}
	return k, nil
}

// FromConfig builds a service's keyring from its configuration: keys (the
// "id:key,…" list of the variable keysVar) when set, otherwise the single
// base64 key of singleVar under DefaultKeyID, otherwise, in demo mode only,
// the public demo key under DefaultKeyID. Errors name the variables.
func FromConfig(keysVar, keys, singleVar, single string, demo bool) (*Keyring, error) {
	if strings.TrimSpace(keys) != "" {
		k, err := Parse(keys)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keysVar, err)
		}
		return k, nil
	}
	if single == "" {
		if !demo {
			return nil, fmt.Errorf("%s or %s is required (base64 of 32 random bytes) outside demo mode", keysVar, singleVar)
		}
		return New(DefaultKeyID, aesgcm.DemoKey())
	}
	raw, err := aesgcm.ParseKey(single)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", singleVar, err)
	}
	return New(DefaultKeyID, raw)
}

// Current is the id of the key new values are sealed under.
func (k *Keyring) Current() string { return k.current }

// IDs are the ids of the ring's keys, the current one first.
func (k *Keyring) IDs() []string { return append([]string(nil), k.ids...) }

// SealID seals plain under the current key, bound to aad (the value's owner,
// so that it does not open in another row), and returns the key's id beside
// the bare sealed bytes: for callers that store the id in a column.
func (k *Keyring) SealID(plain []byte, aad string) (string, []byte, error) {
	sealed, err := k.boxes[k.current].Seal(plain, aad)
	if err != nil {
		return "", nil, err
	}
	return k.current, sealed, nil
}

// OpenID opens what SealID sealed under key keyID with the same aad. It
// fails with ErrUnknownKey for a key id the ring does not hold.
func (k *Keyring) OpenID(keyID string, sealed []byte, aad string) ([]byte, error) {
	box, ok := k.boxes[keyID]
	if !ok {
		return nil, unknown(keyID)
	}
	return box.Open(sealed, aad)
}

func unknown(keyID string) error {
	return fmt.Errorf("sealed under key %q, which is not configured: %w", keyID, ErrUnknownKey)
}

// Seal seals plain under the current key, bound to aad, into a value that
// names its key (the package comment has the format).
func (k *Keyring) Seal(plain []byte, aad string) ([]byte, error) {
	id, sealed, err := k.SealID(plain, aad)
	if err != nil || id == DefaultKeyID {
		return sealed, err
	}
	out := make([]byte, 0, len(prefix)+len(id)+1+len(sealed))
	out = append(out, prefix...)
	out = append(out, id...)
	out = append(out, ':')
	return append(out, sealed...), nil
}

// split returns the key id and the bare sealed bytes of a value made by
// Seal; ok is false for a legacy value (no prefix).
func split(sealed []byte) (keyID string, bare []byte, ok bool) {
	rest, found := bytes.CutPrefix(sealed, prefix)
	if !found {
		return "", nil, false
	}
	id, bare, found := bytes.Cut(rest, []byte{':'})
	if !found || !keyIDText.Match(id) {
		return "", nil, false
	}
	return string(id), bare, true
}

// KeyID is the id of the key a value made by Seal is sealed under
// (DefaultKeyID for a value without the prefix).
func KeyID(sealed []byte) string {
	if id, _, ok := split(sealed); ok {
		return id
	}
	return DefaultKeyID
}

// Open opens a value made by Seal, or a legacy one, with the same aad. It
// fails with ErrUnknownKey when the value's key is not in the ring, and
// with another error when the value was tampered with or belongs to another
// aad.
func (k *Keyring) Open(sealed []byte, aad string) ([]byte, error) {
	id, bare, ok := split(sealed)
	if !ok {
		return k.OpenID(DefaultKeyID, sealed, aad)
	}
	plain, err := k.OpenID(id, bare, aad)
	if err == nil {
		return plain, nil
	}
	// A legacy value starts with a random nonce, which may (one chance in
	// 2^40) look like the prefix: GCM's tag tells the two apart.
	if legacy, lerr := k.OpenID(DefaultKeyID, sealed, aad); lerr == nil {
		return legacy, nil
	}
	return nil, err
}

// Reseal returns value sealed again under the current key, and whether that
// changed anything: a value already under the current key is returned as is.
func (k *Keyring) Reseal(sealed []byte, aad string) ([]byte, bool, error) {
	if KeyID(sealed) == k.current {
		return sealed, false, nil
	}
	plain, err := k.Open(sealed, aad)
	if err != nil {
		return nil, false, err
	}
	out, err := k.Seal(plain, aad)
	if err != nil {
		return nil, false, err
	}
	return out, true, nil
}

// Stored is one sealed value a reseal pass visits.
type Stored struct {
	// Name says what the value is in errors ("API secret of merchant 3").
	Name string
	// AAD is what the value is bound to (its owner).
	AAD string
	// Sealed is the value as stored.
	Sealed []byte
}

// ResealAll seals every value of values that is not under the current key
// again under it, and stores it with replace: a compare-and-set against the
// old bytes that reports false when the value changed meanwhile (it is then
// left alone: whoever changed it sealed it under the current key). It goes
// on past values that fail, and returns how many it re-sealed with every
// failure joined; a value under a key the ring lacks fails with
// ErrUnknownKey. It stops early when ctx ends.
func (k *Keyring) ResealAll(ctx context.Context, values []Stored, replace func(ctx context.Context, i int, sealed []byte) (bool, error)) (int, error) {
	done := 0
	var errs []error
	for i, v := range values {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		out, changed, err := k.Reseal(v.Sealed, v.AAD)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", v.Name, err))
			continue
		}
		if !changed {
			continue
		}
		ok, err := replace(ctx, i, out)
		if err != nil {
			errs = append(errs, fmt.Errorf("store %s: %w", v.Name, err))
			continue
		}
		if ok {
			done++
		}
	}
	return done, errors.Join(errs...)
}
