package grpcapi_test

import (
	"testing"

	"github.com/paygate/paygate/services/aggregator/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/callrules"
)

// TestCallRulesFile fails when the console's copy of this service's rules
// (shell/sdk/src/call-rules/aggregator.gen.ts) differs from Rules: run make
// call-rules.
func TestCallRulesFile(t *testing.T) {
	t.Parallel()
	callrules.Check(t, "aggregator", grpcapi.Rules)
}
