package authz

import (
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc"
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
		t.Errorf("method %s has an empty authorization rule (set Public, Authenticated, Permissions or Roles)", m)
	}
	for _, m := range stale {
		t.Errorf("authorization rule for %s names a method the server does not serve", m)
	}
}
