package sensitive_test

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	_ "github.com/paygate/paygate/gen/go/paygate/aggregator/v1"
	_ "github.com/paygate/paygate/gen/go/paygate/auth/v1"
	_ "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/sensitive"
)

// TestCatalogueMethodsExist: every action names a method some service serves, and its target,
// secret and count fields are fields of that method's request (by JSON name).
func TestCatalogueMethodsExist(t *testing.T) {
	for _, a := range sensitive.Catalogue {
		full := strings.TrimPrefix(a.Method, "/")
		svc, method, ok := strings.Cut(full, "/")
		if !ok {
			t.Errorf("%s: method %q is not /service/method", a.Name, a.Method)
			continue
		}
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(svc))
		if err != nil {
			t.Errorf("%s: service %s: %v", a.Name, svc, err)
			continue
		}
		m := d.(protoreflect.ServiceDescriptor).Methods().ByName(protoreflect.Name(method))
		if m == nil {
			t.Errorf("%s: %s has no method %s", a.Name, svc, method)
			continue
		}
		fields := m.Input().Fields()
		for _, f := range append(append(append([]string{}, a.Targets...), a.Secrets...), a.Count) {
			if f != "" && fields.ByJSONName(f) == nil {
				t.Errorf("%s: %s has no field %q", a.Name, m.Input().FullName(), f)
			}
		}
	}
}
