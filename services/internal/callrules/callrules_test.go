package callrules_test

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoregistry"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
	"github.com/paygate/paygate/services/internal/callrules"
)

func TestCallsReadTheRESTRoutes(t *testing.T) {
	t.Parallel()
	rules := authz.Rules{
		gatewayv1.CollabService_GetCollabSettings_FullMethodName:    {Permissions: []string{access.PermGetProviders}},
		gatewayv1.CollabService_RemoveCollabPayTypes_FullMethodName: {Permissions: []string{access.PermEditCollab}},
		gatewayv1.FraudService_UpdateFraudStatus_FullMethodName:     {Permissions: []string{access.PermEditFrauds}},
		gatewayv1.ReplayService_StreamTransactions_FullMethodName:   {Internal: true},
		callbacksv1.CallbacksService_CreateCallback_FullMethodName: {
			Requires: access.ReqCallbacksAndValidation, Permissions: []string{access.PermEditTransactions},
		},
	}
	calls, err := callrules.Calls(rules, protoregistry.GlobalFiles)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string][]string{}
	var order []string
	for _, c := range calls {
		got[c.Method] = c.HTTP
		order = append(order, c.Method)
	}
	if !slices.IsSorted(order) {
		t.Errorf("calls not sorted by method: %v", order)
	}
	want := map[string][]string{
		// Path variables by their JSON names.
		gatewayv1.CollabService_GetCollabSettings_FullMethodName:    {"GET /api/v1/collabs/{collabId}/settings"},
		gatewayv1.CollabService_RemoveCollabPayTypes_FullMethodName: {"DELETE /api/v1/{collabId}/pay-types"},
		gatewayv1.FraudService_UpdateFraudStatus_FullMethodName:     {"POST /api/v1/frauds/{id}/status/{status}"},
		// No REST route.
		gatewayv1.ReplayService_StreamTransactions_FullMethodName:  nil,
		callbacksv1.CallbacksService_CreateCallback_FullMethodName: {"POST /api/v1/callbacks"},
	}
	for m, w := range want {
		if !slices.Equal(got[m], w) {
			t.Errorf("%s: routes %q, want %q", m, got[m], w)
		}
	}
}

func TestCallsRefuseAnUnknownMethod(t *testing.T) {
	t.Parallel()
	for _, method := range []string{
		"/paygate.gateway.v1.CollabService/NoSuchMethod",
		"/paygate.gateway.v1.NoSuchService/Get",
		"paygate.gateway.v1.CollabService/GetCollab",
	} {
		if _, err := callrules.Calls(authz.Rules{method: {Authenticated: true}}, protoregistry.GlobalFiles); err == nil {
			t.Errorf("%s: no error", method)
		}
	}
}

// TestCallsRefuseAnAdHocRequirement: a rule may require only one of
// access.Requirements, which the console knows by name.
func TestCallsRefuseAnAdHocRequirement(t *testing.T) {
	t.Parallel()
	adHoc := access.Requirement{Name: "balances", AnyOf: []access.Grant{{Scope: access.ScopeGlobal}}}
	rules := authz.Rules{gatewayv1.CollabService_GetCollab_FullMethodName: {Requires: adHoc}}
	if _, err := callrules.Calls(rules, protoregistry.GlobalFiles); err == nil {
		t.Error("a requirement that is not one of access.Requirements was accepted")
	}
}

// TestCallRulesFile fails when the console's copy of the requirements and
// the built-in roles (shell/sdk/src/call-rules/requirements.gen.ts) differs
// from services/internal/access: run make call-rules.
func TestCallRulesFile(t *testing.T) {
	t.Parallel()
	callrules.CheckRequirements(t)
}

func TestRenderRequirements(t *testing.T) {
	t.Parallel()
	out := string(callrules.RenderRequirements())
	for _, want := range []string{
		"  balances: { anyOf: [{ scope: 'merchant', permissions: ['Balance Access'] }, { scope: 'global', permissions: ['Balance Access', 'Credentials Access'] }] },",
		"  callbacksAndValidation: { anyOf: [{ permissions: ['Edit Collab'] }] },",
		"  { id: 6, name: 'Merchant Support', globalScope: false, permissions: ['Get Transactions', 'View Logs', 'Get Providers'] },",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestRender(t *testing.T) {
	t.Parallel()
	out := string(callrules.Render("gateway", []callrules.Call{
		{Method: "/p.S/A", HTTP: []string{"GET /a/{id}"}, Rule: authz.Rule{Permissions: []string{"Get Providers"}, Requires: access.ReqBalances}},
		{Method: "/p.S/B", Rule: authz.Rule{Authenticated: true, AllowTemporaryPassword: true}},
		{Method: "/p.S/C", HTTP: []string{"POST /c", "POST /c2"}, Rule: authz.Rule{Public: true}},
		{Method: "/p.S/D", Rule: authz.Rule{Internal: true}},
	}))
	for _, want := range []string{
		"DO NOT EDIT",
		"import type { CallRule } from '../call-rule';",
		"export const GATEWAY_CALLS = {",
		"  '/p.S/A': {\n    http: ['GET /a/{id}'],\n    rule: { permissions: ['Get Providers'], requires: 'balances' },\n  },",
		"  '/p.S/B': {\n    http: [],\n    rule: { authenticated: true, allowTemporaryPassword: true },\n  },",
		"http: ['POST /c', 'POST /c2'],\n    rule: { public: true },",
		"rule: { internal: true },",
		"} as const satisfies Record<string, CallRule>;\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
