// Package aesgcm seals services' secrets at rest (the gateway's merchant API
// secrets and provider webhook secrets, the callbacks service's signing
// secrets) with AES-256-GCM under one key; services hold several through
// services/internal/keyring (PAYGATE_ENCRYPTION_KEYS). A sealed value is the
// 12-byte random nonce followed by the ciphertext and tag.
package aesgcm

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"fmt"
)

// KeySize is the key length in bytes (AES-256).
const KeySize = 32

// Box seals and opens secrets under one key.
type Box struct {
	aead cipher.AEAD
}

// New returns a box for a 32-byte key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("encryption key is %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("encryption key: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("encryption key: %w", err)
	}
	return &Box{aead: aead}, nil
}

// ParseKey decodes a key given as standard or URL-safe base64 of 32 bytes.
func ParseKey(s string) ([]byte, error) {
	for _, enc := range []*base64.Encoding{base64.StdEncoding, base64.URLEncoding, base64.RawStdEncoding, base64.RawURLEncoding} {
		if k, err := enc.DecodeString(s); err == nil {
			if len(k) != KeySize {
				return nil, fmt.Errorf("the key decodes to %d bytes, want %d", len(k), KeySize)
			}
			return k, nil
		}
	}
	return nil, errors.New("the key is not base64")
}

// DemoKey is the fixed key of demo mode (PAYGATE_DEMO=true without
// PAYGATE_ENCRYPTION_KEY). It is public: never use it with real secrets.
func DemoKey() []byte {
	k := sha256.Sum256([]byte("paygate demo encryption key"))
	return k[:]
}

// Seal encrypts plain; aad binds the sealed value to its owner (e.g.
// "merchant:1") so that it cannot be moved to another row.
func (b *Box) Seal(plain []byte, aad string) ([]byte, error) {
	nonce := make([]byte, b.aead.NonceSize(), b.aead.NonceSize()+len(plain)+b.aead.Overhead())
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return b.aead.Seal(nonce, nonce, plain, []byte(aad)), nil
}

// Open decrypts a value made by Seal with the same aad.
func (b *Box) Open(sealed []byte, aad string) ([]byte, error) {
	n := b.aead.NonceSize()
	if len(sealed) < n+b.aead.Overhead() {
		return nil, errors.New("open: sealed value too short")
	}
	plain, err := b.aead.Open(nil, sealed[:n], sealed[n:], []byte(aad))
	if err != nil {
		return nil, fmt.Errorf("open: %w", err)
	}
	return plain, nil
}
