package credential

import (
	"fmt"
	"strconv"

	"github.com/paygate/paygate/services/internal/keyring"
)

// DefaultKeyID names the key of PAYGATE_ENCRYPTION_KEY (or the demo key)
// when no credentials keyring is configured.
const DefaultKeyID = keyring.DefaultKeyID

// Keyring seals credentials under its current key and opens them under any
// of its keys, found by the key id stored beside each sealed value: keys
// rotate by putting a new key first and keeping the old ones until every
// value was re-sealed (Service.Reseal). It is the shared keyring.Keyring
// bound to collabs.
type Keyring struct {
	ring *keyring.Keyring
}

// NewKeyring returns a keyring with one key, current.
func NewKeyring(id string, key []byte) (*Keyring, error) {
	r, err := keyring.New(id, key)
	if err != nil {
		return nil, err
	}
	return &Keyring{ring: r}, nil
}

// ParseKeyring reads "id:base64key,id:base64key,…": the first key is the
// current one, the others still open what they sealed. The key material is
// never part of an error.
func ParseKeyring(spec string) (*Keyring, error) {
	r, err := keyring.Parse(spec)
	if err != nil {
		return nil, err
	}
	return &Keyring{ring: r}, nil
}

// FromRing seals credentials with ring (the gateway's encryption keyring
// when no credentials keyring of their own is configured).
func FromRing(ring *keyring.Keyring) *Keyring { return &Keyring{ring: ring} }

// Current is the id of the key new values are sealed under.
func (k *Keyring) Current() string { return k.ring.Current() }

// Owner is the associated data a collab's credentials are sealed with: a
// sealed value copied to another collab does not open.
func Owner(collabID int32) string { return "collab-credentials:" + strconv.Itoa(int(collabID)) }

// Seal seals plain for collabID under the current key and returns that
// key's id with the sealed bytes.
func (k *Keyring) Seal(plain []byte, collabID int32) (string, []byte, error) {
	return k.ring.SealID(plain, Owner(collabID))
}

// Open opens what Seal sealed for collabID under key keyID. It fails for an
// unknown key id (keyring.ErrUnknownKey), another collab, or tampered bytes.
func (k *Keyring) Open(keyID string, sealed []byte, collabID int32) ([]byte, error) {
	plain, err := k.ring.OpenID(keyID, sealed, Owner(collabID))
	if err != nil {
		return nil, fmt.Errorf("credentials of collab %d: %w", collabID, err)
	}
	return plain, nil
}
