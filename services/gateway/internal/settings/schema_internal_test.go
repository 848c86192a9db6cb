package settings

import (
	"encoding/json"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/paygate/paygate/services/internal/apperr"
)

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

func TestSchemaCheck(t *testing.T) {
	t.Parallel()
	list := Schema{Type: TypeArray, Min: Bound(1), Max: Bound(2), Items: &Schema{Type: TypeString, MaxLength: 3}}
	nullable := Schema{Type: TypeBoolean, Nullable: true}
	var fraud Schema
	for _, k := range Registry(Defaults{}) {
		if k.Name == KeyFraudDetection {
			fraud = k.Schema
		}
	}
	tests := []struct {
		schema Schema
		value  string
		want   string // "" when valid, else a fragment of the message
	}{
		{Integer(1, 720), `1`, ""},
		{Integer(1, 720), `720`, ""},
		{Integer(1, 720), `1e2`, ""},
		{Integer(1, 720), `0`, "X must be an integer from 1 to 720 (it is 0)."},
		{Integer(1, 720), `2.5`, "(it is 2.5)"},
		{Integer(1, 720), `"5"`, "(it is a text)"},
		{Integer(1, 720), `null`, "X must be an integer from 1 to 720, not null."},
		{Number(0.5, 300), `0.5`, ""},
		{Number(0.5, 300), `0.49`, "a number from 0.5 to 300 (it is 0.49)"},
		{Number(0.5, 300), `true`, "(it is a boolean)"},
		{nullable, `null`, ""},
		{nullable, `false`, ""},
		{nullable, `1`, "true or false, or null (it is the number 1)"},
		{list, `["ab"]`, ""},
		{list, `[]`, "a list of text of at most 3 characters from 1 to 2 items (it is 0 items long)"},
		{list, `["abcd"]`, "X[0] must be a text of at most 3 characters (it is 4 characters long)"},
		{list, `{}`, "(it is an object)"},
		{fraud, `{"velocityMaxPayments":2,"velocityWindowMinutes":1,"amountSpikeFactor":1.5,"amountSpikeMinHistory":1,"failuresBeforeSuccess":1,"failuresWindowMinutes":1,"sharedIdentityMinClients":2,"sharedIdentityWindowMinutes":1}`, ""},
		{fraud, `{"velocityMaxPayments":1000000}`, "X.velocityWindowMinutes is required"},
		{fraud, `[]`, "X must be an object with the fields velocityMaxPayments, velocityWindowMinutes"},
	}
	for _, tt := range tests {
		err := tt.schema.Check("X", decode(t, tt.value))
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("%s %s: %v", tt.schema.Type, tt.value, err)
		case tt.want != "" && err == nil:
			t.Errorf("%s %s: accepted", tt.schema.Type, tt.value)
		case tt.want != "" && (apperr.KindOf(err) != apperr.KindInvalid || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("%s %s: %v (kind %s), want %q", tt.schema.Type, tt.value, err, apperr.KindOf(err), tt.want)
		}
	}
	if err := Number(0, 1).Check("X", math.NaN()); err == nil {
		t.Error("NaN accepted")
	}
}

// The defaults of the registry pass their own schemas (those from the
// configuration at their usual values).
func TestRegistryDefaultsPassTheirSchemas(t *testing.T) {
	t.Parallel()
	for _, k := range Registry(Defaults{PollInterval: 2 * time.Second, ExportRetention: 72 * time.Hour}) {
		raw, err := json.Marshal(k.Default)
		if err != nil {
			t.Fatal(err)
		}
		if err := k.Schema.Check(k.Name, decode(t, string(raw))); err != nil {
			t.Errorf("default of %s: %v", k.Name, err)
		}
	}
}
