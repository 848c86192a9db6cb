package main

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"testing"

	"github.com/fxamacker/cbor/v2"
)

// softKey is a software passkey authenticator for the tests: one ECDSA
// P-256 credential, discoverable, that answers creation and request options
// the way a browser's navigator.credentials does, in the JSON forms
// (RegistrationResponseJSON, AuthenticationResponseJSON) the console's
// browser library posts. Its relying party id and origin can be set wrong
// on purpose, and its signature counter set to any value.
type softKey struct {
	key        *ecdsa.PrivateKey
	credID     []byte
	userHandle []byte
	rpID       string // hashed into authenticator data
	origin     string // written into client data
	counter    uint32 // the next answer's signature counter
	flags      byte   // authenticator data flags besides AT
}

// Authenticator data flag bits.
const (
	flagUP = 0x01
	flagUV = 0x04
	flagBE = 0x08
	flagBS = 0x10
	flagAT = 0x40
)

func newSoftKey(t *testing.T) *softKey {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	id := make([]byte, 32)
	_, _ = rand.Read(id)
	return &softKey{key: key, credID: id, rpID: "localhost", origin: "http://localhost:8080", flags: flagUP | flagUV | flagBE | flagBS}
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

func unb64(t *testing.T, s string) []byte {
	t.Helper()
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		t.Fatalf("not unpadded base64url: %q: %v", s, err)
	}
	return b
}

// clientData is the collected client data of a ceremony.
func (k *softKey) clientData(t *testing.T, typ, challenge string) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"type": typ, "challenge": challenge, "origin": k.origin, "crossOrigin": false})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// authData is rpIdHash || flags || signCount, followed by attested
// credential data when attested is set.
func (k *softKey) authData(t *testing.T, attested bool) []byte {
	t.Helper()
	rpHash := sha256.Sum256([]byte(k.rpID))
	out := append([]byte{}, rpHash[:]...)
	flags := k.flags
	if attested {
		flags |= flagAT
	}
	out = append(out, flags)
	out = binary.BigEndian.AppendUint32(out, k.counter)
	if !attested {
		return out
	}
	out = append(out, make([]byte, 16)...) // AAGUID: none
	out = binary.BigEndian.AppendUint16(out, uint16(len(k.credID)))
	out = append(out, k.credID...)
	point, err := k.key.PublicKey.Bytes() // 0x04 || X || Y
	if err != nil {
		t.Fatal(err)
	}
	// COSE_Key: kty EC2, alg ES256, crv P-256, x, y.
	cose, err := cbor.Marshal(map[int]any{1: 2, 3: -7, -1: 1, -2: point[1:33], -3: point[33:65]})
	if err != nil {
		t.Fatal(err)
	}
	return append(out, cose...)
}

// register answers creation options (the "publicKey" object the options
// endpoint returned) with a RegistrationResponseJSON, attestation "none".
func (k *softKey) register(t *testing.T, options map[string]any) map[string]any {
	t.Helper()
	challenge, _ := options["challenge"].(string)
	user, _ := options["user"].(map[string]any)
	handle, _ := user["id"].(string)
	k.userHandle = unb64(t, handle)
	attObj, err := cbor.Marshal(map[string]any{"fmt": "none", "attStmt": map[string]any{}, "authData": k.authData(t, true)})
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"id": b64(k.credID), "rawId": b64(k.credID), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON":    b64(k.clientData(t, "webauthn.create", challenge)),
			"attestationObject": b64(attObj),
			"transports":        []string{"internal", "hybrid"},
		},
		"clientExtensionResults":  map[string]any{},
		"authenticatorAttachment": "platform",
	}
}

// assert answers request options with an AuthenticationResponseJSON signed
// over authenticatorData || SHA-256(clientDataJSON).
func (k *softKey) assert(t *testing.T, options map[string]any) map[string]any {
	t.Helper()
	challenge, _ := options["challenge"].(string)
	cd := k.clientData(t, "webauthn.get", challenge)
	ad := k.authData(t, false)
	cdHash := sha256.Sum256(cd)
	digest := sha256.Sum256(append(append([]byte{}, ad...), cdHash[:]...))
	sig, err := ecdsa.SignASN1(rand.Reader, k.key, digest[:])
	if err != nil {
		t.Fatal(err)
	}
	return map[string]any{
		"id": b64(k.credID), "rawId": b64(k.credID), "type": "public-key",
		"response": map[string]any{
			"clientDataJSON":    b64(cd),
			"authenticatorData": b64(ad),
			"signature":         b64(sig),
			"userHandle":        b64(k.userHandle),
		},
		"clientExtensionResults":  map[string]any{},
		"authenticatorAttachment": "platform",
	}
}
