package credential_test

import (
	"bytes"
	"encoding/base64"
	"slices"
	"strings"
	"testing"

	"github.com/paygate/paygate/services/gateway/internal/credential"
	"github.com/paygate/paygate/services/internal/apperr"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := []credential.Credentials{
		{}, {"apiKey": "k", "port": 443.0, "live": true}, {"auth": map[string]any{"user": "u", "pin": 1234.0}},
	}
	for _, c := range ok {
		if err := credential.Validate(c); err != nil {
			t.Errorf("Validate(%v) = %v", c, err)
		}
	}
	bad := []struct {
		c    credential.Credentials
		name string
	}{
		{nil, "request body"},
		{credential.Credentials{"auth": map[string]any{"deep": map[string]any{"x": "y"}}}, `"auth.deep"`},
		{credential.Credentials{"list": []any{"a"}}, `"list"`},
		{credential.Credentials{"nothing": nil}, `"nothing"`},
		{credential.Credentials{" ": "x"}, "blank"},
		{credential.Credentials{"long": strings.Repeat("x", credential.MaxValueLength+1)}, `"long"`},
	}
	for _, tt := range bad {
		err := credential.Validate(tt.c)
		if apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), tt.name) {
			t.Errorf("Validate(%v) = %v, want invalid naming %s", tt.c, err, tt.name)
		}
	}
}

func TestDiff(t *testing.T) {
	t.Parallel()
	ch := credential.Diff(
		credential.Credentials{"a": "1", "b": "2", "g": map[string]any{"x": 1.0}},
		credential.Credentials{"a": "1", "b": "3", "g": map[string]any{"x": 2.0, "y": true}, "c": "new"})
	if !slices.Equal(ch.Added, []string{"c", "g.y"}) || !slices.Equal(ch.Changed, []string{"b", "g.x"}) || len(ch.Removed) != 0 {
		t.Errorf("Diff = %+v", ch)
	}
}

func TestKeyring(t *testing.T) {
	t.Parallel()
	a := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{1}, 32))
	b := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{2}, 32))
	old, err := credential.ParseKeyring("a:" + a)
	if err != nil {
		t.Fatal(err)
	}
	id, sealed, err := old.Seal([]byte(`{"k":"v"}`), 5)
	if err != nil || id != "a" {
		t.Fatal(id, err)
	}
	both, err := credential.ParseKeyring("b:" + b + ", a:" + a)
	if err != nil || both.Current() != "b" {
		t.Fatal(err)
	}
	if got, err := both.Open(id, sealed, 5); err != nil || string(got) != `{"k":"v"}` {
		t.Errorf("Open under the old key = %q, %v", got, err)
	}
	if _, err := both.Open(id, sealed, 6); err == nil {
		t.Error("opened another collab's credentials")
	}
	for _, spec := range []string{"", "a", "a:" + a + ",a:" + b, "bad id!:" + a, "a:short"} {
		if _, err := credential.ParseKeyring(spec); err == nil {
			t.Errorf("ParseKeyring(%q) accepted", spec)
		} else if strings.Contains(err.Error(), a) || strings.Contains(err.Error(), b) {
			t.Errorf("ParseKeyring error shows key material: %v", err)
		}
	}
}
