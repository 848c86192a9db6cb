package grpcapi_test

import (
	"maps"
	"testing"

	"github.com/paygate/paygate/services/auth/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/callrules"
)

// TestCallRulesFile fails when the console's copy of this service's rules
// (shell/sdk/src/call-rules/auth.gen.ts) differs from Rules and
// WebAuthnRules, merged as main merges them: run make call-rules.
func TestCallRulesFile(t *testing.T) {
	t.Parallel()
	rules := maps.Clone(grpcapi.Rules)
	maps.Copy(rules, grpcapi.WebAuthnRules)
	maps.Copy(rules, grpcapi.SecondFactorRules)
	maps.Copy(rules, grpcapi.SettingsRules)
	callrules.Check(t, "auth", rules)
}
