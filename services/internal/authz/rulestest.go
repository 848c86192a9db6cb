package authz

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"

	"github.com/paygate/paygate/services/internal/access"
)

// ServiceInfoProvider is what CheckRulesCover inspects: a *grpc.Server, or
// anything else that lists its registered services.
type ServiceInfoProvider interface {
	GetServiceInfo() map[string]grpc.ServiceInfo
}

// CheckRulesCover fails t when a method registered on srv has no rule (or an
// empty one), or when a rule names a method srv does not serve. Health and
// reflection services are skipped. Every service calls it from a test of its
// rules table.
func CheckRulesCover(t testing.TB, srv ServiceInfoProvider, rules Rules) {
	t.Helper()
	served := map[string]bool{}
	for service, info := range srv.GetServiceInfo() {
		if service == "grpc.health.v1.Health" || strings.HasPrefix(service, "grpc.reflection.") {
			continue
		}
		for _, m := range info.Methods {
			served["/"+service+"/"+m.Name] = true
		}
	}
	var missing, empty, stale []string
	for method := range served {
		rule, ok := rules[method]
		switch {
		case !ok:
			missing = append(missing, method)
		case rule.empty():
			empty = append(empty, method)
		}
	}
	for method := range rules {
		if !served[method] {
			stale = append(stale, method)
		}
	}
	for _, list := range [][]string{missing, empty, stale} {
		slices.Sort(list)
	}
	for _, m := range missing {
		t.Errorf("method %s has no authorization rule", m)
	}
	for _, m := range empty {
		t.Errorf("method %s has an empty authorization rule (set Public, Authenticated, Permissions or Requires)", m)
	}
	for _, m := range stale {
		t.Errorf("authorization rule for %s names a method the server does not serve", m)
	}
}

// CheckCustomTwins fails t when some rule of rules treats a built-in role
// and its custom twin differently: a role of another name and id with the
// same scope flag and permissions (docs/access.md "Requirements"). Both
// callers are checked with merchants and without, with a temporary password
// and without. Every service calls it from a test of its rules table.
func CheckCustomTwins(t testing.TB, rules Rules) {
	t.Helper()
	for _, b := range access.BuiltInRoles {
		for _, merchants := range [][]int32{nil, {1, 2}} {
			for _, temporary := range []bool{false, true} {
				caller := func(role string) *access.Claims {
					return &access.Claims{Username: "u", Roles: []string{role}, Permissions: slices.Clone(b.Permissions),
						Global: b.Global, MerchantIDs: merchants, IsTemporaryPassword: temporary}
				}
				builtIn, twin := caller(b.Name), caller("Custom twin of "+b.Name)
				for method, rule := range rules {
					if got, want := rule.Admits(twin), rule.Admits(builtIn); got != want {
						t.Errorf("%s: the built-in role %s is admitted %v, its custom twin %v (merchants %v, temporary %v)",
							method, b.Name, want, got, merchants, temporary)
					}
				}
			}
		}
	}
}

// Admitted lists the built-in roles whose holders (not with a temporary
// password) rule admits, in the order of access.BuiltInRoles.
func Admitted(rule Rule) []string {
	var out []string
	for _, b := range access.BuiltInRoles {
		if rule.Admits(&access.Claims{Roles: []string{b.Name}, Permissions: b.Permissions, Global: b.Global}) {
			out = append(out, b.Name)
		}
	}
	return out
}
