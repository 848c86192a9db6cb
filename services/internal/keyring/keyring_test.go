package keyring

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/aesgcm"
)

func newKey(t *testing.T) string {
	t.Helper()
	b := make([]byte, aesgcm.KeySize)
	if _, err := rand.Read(b); err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b)
}

func mustParse(t *testing.T, spec string) *Keyring {
	t.Helper()
	k, err := Parse(spec)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	return k
}

func TestRotation(t *testing.T) {
	t.Parallel()
	a, b := newKey(t), newKey(t)
	onlyA := mustParse(t, "a:"+a)
	sealedA, err := onlyA.Seal([]byte("secret"), "merchant:1")
	if err != nil {
		t.Fatal(err)
	}
	if got := KeyID(sealedA); got != "a" {
		t.Fatalf("KeyID = %q, want a", got)
	}
	bThenA := mustParse(t, "b:"+b+", a:"+a)
	if got, err := bThenA.Open(sealedA, "merchant:1"); err != nil || string(got) != "secret" {
		t.Fatalf("Open under b,a = %q, %v", got, err)
	}
	if _, err := bThenA.Open(sealedA, "merchant:2"); err == nil {
		t.Fatal("a value opened for another owner")
	}
	resealed, changed, err := bThenA.Reseal(sealedA, "merchant:1")
	if err != nil || !changed || KeyID(resealed) != "b" {
		t.Fatalf("Reseal = %q changed %v, %v", KeyID(resealed), changed, err)
	}
	if again, changed, err := bThenA.Reseal(resealed, "merchant:1"); err != nil || changed || !bytes.Equal(again, resealed) {
		t.Fatalf("Reseal of a current value changed it (%v, %v)", changed, err)
	}
	onlyB := mustParse(t, "b:"+b)
	if got, err := onlyB.Open(resealed, "merchant:1"); err != nil || string(got) != "secret" {
		t.Fatalf("Open under b = %q, %v", got, err)
	}
	_, err = onlyB.Open(sealedA, "merchant:1")
	if !errors.Is(err, ErrUnknownKey) || !strings.Contains(err.Error(), `"a"`) {
		t.Fatalf("Open under an unknown key: %v, want ErrUnknownKey naming a", err)
	}
}

func TestLegacyValues(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	raw, _ := aesgcm.ParseKey(key)
	box, _ := aesgcm.New(raw)
	legacy, err := box.Seal([]byte("old"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	// PAYGATE_ENCRYPTION_KEY alone: the ring is that key under "default",
	// opens old values, and seals as a plain box did.
	single, err := FromConfig("KEYS", "", "KEY", key, false)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := single.Open(legacy, "owner"); err != nil || string(got) != "old" {
		t.Fatalf("Open legacy = %q, %v", got, err)
	}
	fresh, err := single.Seal([]byte("new"), "owner")
	if err != nil {
		t.Fatal(err)
	}
	if got, err := box.Open(fresh, "owner"); err != nil || string(got) != "new" {
		t.Fatalf("a plain box cannot open what the default ring sealed: %q, %v", got, err)
	}
	if _, changed, _ := single.Reseal(legacy, "owner"); changed {
		t.Fatal("Reseal under the default key rewrote a legacy value")
	}
	// Rotating away from it: first the new key second (it opens, the old
	// key still seals as before), then the old key listed as "default".
	k2 := newKey(t)
	ahead := mustParse(t, "default:"+key+",k2:"+k2)
	rotated := mustParse(t, "k2:"+k2+",default:"+key)
	if v, err := ahead.Seal([]byte("x"), "owner"); err != nil || KeyID(v) != DefaultKeyID {
		t.Fatalf("the new key second: sealed under %q, %v", KeyID(v), err)
	}
	underK2, _ := rotated.Seal([]byte("k2"), "owner")
	if got, err := ahead.Open(underK2, "owner"); err != nil || string(got) != "k2" {
		t.Fatalf("a replica with the new key second cannot open what it sealed: %q, %v", got, err)
	}
	out, changed, err := rotated.Reseal(legacy, "owner")
	if err != nil || !changed || KeyID(out) != "k2" {
		t.Fatalf("Reseal legacy = %q %v %v", KeyID(out), changed, err)
	}
	if _, err := mustParse(t, "k2:"+newKey(t)).Open(legacy, "owner"); !errors.Is(err, ErrUnknownKey) {
		t.Fatalf("legacy value without the default key: %v, want ErrUnknownKey", err)
	}
}

func TestLegacyValueThatLooksPrefixed(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	raw, _ := aesgcm.ParseKey(key)
	// A legacy value whose random nonce happens to read "pgk1:zz:" (one
	// chance in 2^40), made by hand as aesgcm.Box makes it.
	block, _ := aes.NewCipher(raw)
	gcm, _ := cipher.NewGCM(block)
	nonce := []byte("pgk1:zz:1234")
	legacy := gcm.Seal(append([]byte(nil), nonce...), nonce, []byte("x"), []byte("o"))
	if KeyID(legacy) != "zz" {
		t.Fatalf("KeyID = %q; the test value does not look prefixed", KeyID(legacy))
	}
	ring := mustParse(t, "k2:"+newKey(t)+",default:"+key)
	if got, err := ring.Open(legacy, "o"); err != nil || string(got) != "x" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if out, changed, err := ring.Reseal(legacy, "o"); err != nil || !changed || KeyID(out) != "k2" {
		t.Fatalf("Reseal = %q %v %v", KeyID(out), changed, err)
	}
	tampered := append([]byte(nil), legacy...)
	tampered[len(tampered)-1] ^= 1
	if _, err := ring.Open(tampered, "o"); err == nil {
		t.Fatal("a tampered value opened")
	}
}

func TestParseErrors(t *testing.T) {
	t.Parallel()
	key := newKey(t)
	for _, spec := range []string{"", "a", "a:", ":" + key, "a:notbase64!", "a:" + key + ",a:" + key, "bad id:" + key, "a:" + base64.StdEncoding.EncodeToString([]byte("short"))} {
		_, err := Parse(spec)
		if err == nil {
			t.Errorf("Parse(%q) accepted", spec)
			continue
		}
		if strings.Contains(err.Error(), key) {
			t.Errorf("Parse(%q) error shows the key: %v", spec, err)
		}
	}
	if _, err := FromConfig("PAYGATE_ENCRYPTION_KEYS", "", "PAYGATE_ENCRYPTION_KEY", "", false); err == nil ||
		!strings.Contains(err.Error(), "PAYGATE_ENCRYPTION_KEYS or PAYGATE_ENCRYPTION_KEY") {
		t.Errorf("FromConfig without keys: %v", err)
	}
	if k, err := FromConfig("K", "", "S", "", true); err != nil || k.Current() != DefaultKeyID {
		t.Errorf("FromConfig demo: %v", err)
	}
	if k, err := FromConfig("K", "x:"+key+",y:"+newKey(t), "S", key, false); err != nil || k.Current() != "x" || len(k.IDs()) != 2 {
		t.Errorf("FromConfig with a list: %v", err)
	}
}
