package aesgcm

import (
	"bytes"
	"encoding/base64"
	"testing"
)

func TestSealOpen(t *testing.T) {
	t.Parallel()
	b, err := New(DemoKey())
	if err != nil {
		t.Fatal(err)
	}
	sealed, err := b.Seal([]byte("s3cret"), "merchant:1")
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(sealed, []byte("s3cret")) {
		t.Fatal("sealed value contains the plain text")
	}
	got, err := b.Open(sealed, "merchant:1")
	if err != nil || string(got) != "s3cret" {
		t.Fatalf("Open = %q, %v", got, err)
	}
	if _, err := b.Open(sealed, "merchant:2"); err == nil {
		t.Error("opened with another owner")
	}
	sealed[len(sealed)-1] ^= 1
	if _, err := b.Open(sealed, "merchant:1"); err == nil {
		t.Error("opened a tampered value")
	}
}

func TestParseKey(t *testing.T) {
	t.Parallel()
	k := bytes.Repeat([]byte{7}, KeySize)
	got, err := ParseKey(base64.StdEncoding.EncodeToString(k))
	if err != nil || !bytes.Equal(got, k) {
		t.Fatalf("ParseKey = %v, %v", got, err)
	}
	if _, err := ParseKey(base64.StdEncoding.EncodeToString(k[:16])); err == nil {
		t.Error("accepted a 16-byte key")
	}
	if _, err := ParseKey("not base64!"); err == nil {
		t.Error("accepted garbage")
	}
}
