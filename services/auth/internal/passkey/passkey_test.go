package passkey

import (
	"strings"
	"testing"

	"github.com/paygate/paygate/services/internal/apperr"
)

func TestNormalizeName(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"":                                  DefaultName,
		"   ":                               DefaultName,
		"  MacBook Pro \t":                  "MacBook Pro",
		strings.Repeat("é", 64):             strings.Repeat("é", 64),
		" " + strings.Repeat("x", 64) + " ": strings.Repeat("x", 64),
	} {
		got, err := NormalizeName(in)
		if err != nil || got != want {
			t.Errorf("NormalizeName(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := NormalizeName(strings.Repeat("é", 65)); apperr.KindOf(err) != apperr.KindInvalid {
		t.Errorf("a 65-character name: %v", err)
	}
}

func TestNewRefusesABadRelyingParty(t *testing.T) {
	t.Parallel()
	for name, cfg := range map[string]Config{
		"no origins":   {RPID: "localhost", RPDisplayName: "Paygate"},
		"no rp id":     {RPDisplayName: "Paygate", Origins: []string{"http://localhost:8080"}},
		"rp id is url": {RPID: "http://localhost", RPDisplayName: "Paygate", Origins: []string{"http://localhost:8080"}},
	} {
		if _, err := New(cfg, nil, nil, nil, nil); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	if _, err := New(Config{RPID: "localhost", RPDisplayName: "Paygate", Origins: []string{"http://localhost:8080"}}, nil, nil, nil, nil); err != nil {
		t.Errorf("the default relying party: %v", err)
	}
}
