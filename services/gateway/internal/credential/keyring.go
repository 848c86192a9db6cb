package credential

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/paygate/paygate/services/internal/aesgcm"
)

// DefaultKeyID names the key of PAYGATE_ENCRYPTION_KEY (or the demo key)
// when no credentials keyring is configured.
const DefaultKeyID = "default"

var keyIDText = regexp.MustCompile(`^[A-Za-z0-9_.-]{1,64}$`)

// Keyring seals credentials under its current key and opens them under any
// of its keys, found by the key id stored beside each sealed value: keys
// rotate by putting a new key first and keeping the old ones until every
// value was re-sealed (Service.Reseal).
type Keyring struct {
	current string
	boxes   map[string]*aesgcm.Box
}

// NewKeyring returns a keyring with one key, current.
func NewKeyring(id string, key []byte) (*Keyring, error) {
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
	if k.current == "" {
		k.current = id
	}
	return nil
}

// ParseKeyring reads "id:base64key,id:base64key,…": the first key is the
// current one, the others still open what they sealed. The key material is
// never part of an error.
func ParseKeyring(spec string) (*Keyring, error) {
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

// Current is the id of the key new values are sealed under.
func (k *Keyring) Current() string { return k.current }

// Owner is the associated data a collab's credentials are sealed with: a
// sealed value copied to another collab does not open.
func Owner(collabID int32) string { return "collab-credentials:" + strconv.Itoa(int(collabID)) }

// Seal seals plain for collabID under the current key and returns that
// key's id with the sealed bytes.
func (k *Keyring) Seal(plain []byte, collabID int32) (string, []byte, error) {
	sealed, err := k.boxes[k.current].Seal(plain, Owner(collabID))
	if err != nil {
		return "", nil, err
	}
	return k.current, sealed, nil
}

// Open opens what Seal sealed for collabID under key keyID. It fails for an
// unknown key id, another collab, or tampered bytes.
func (k *Keyring) Open(keyID string, sealed []byte, collabID int32) ([]byte, error) {
	box, ok := k.boxes[keyID]
	if !ok {
		return nil, fmt.Errorf("credentials of collab %d are sealed under key %q, which is not configured", collabID, keyID)
	}
	plain, err := box.Open(sealed, Owner(collabID))
	if err != nil {
		return nil, fmt.Errorf("credentials of collab %d: %w", collabID, err)
	}
	return plain, nil
}
