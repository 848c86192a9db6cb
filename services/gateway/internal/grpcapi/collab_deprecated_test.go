package grpcapi_test

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
)

// TestDeprecatedCollabMessagesMatch holds CollabService's deprecated
// maintenance and activity messages to those of MaintenanceService and
// ActivityService field for field (number, name, JSON name, kind,
// cardinality, presence), so that the deprecated RPCs, which copy one into
// the other, lose nothing and callers of the previous release read the same
// bytes.
func TestDeprecatedCollabMessagesMatch(t *testing.T) {
	t.Parallel()
	pairs := []struct{ deprecated, current proto.Message }{
		{&gatewayv1.EnableMaintenanceModeRequest{}, &gatewayv1.MaintenanceServiceEnableMaintenanceModeRequest{}},
		{&gatewayv1.EnableMaintenanceModeResponse{}, &gatewayv1.MaintenanceServiceEnableMaintenanceModeResponse{}},
		{&gatewayv1.DisableMaintenanceModeRequest{}, &gatewayv1.MaintenanceServiceDisableMaintenanceModeRequest{}},
		{&gatewayv1.DisableMaintenanceModeResponse{}, &gatewayv1.MaintenanceServiceDisableMaintenanceModeResponse{}},
		{&gatewayv1.GetMaintenanceStatusRequest{}, &gatewayv1.MaintenanceServiceGetMaintenanceStatusRequest{}},
		{&gatewayv1.GetMaintenanceStatusResponse{}, &gatewayv1.MaintenanceServiceGetMaintenanceStatusResponse{}},
		{&gatewayv1.ListMerchantCollabActivityRequest{}, &gatewayv1.ActivityServiceListMerchantCollabActivityRequest{}},
		{&gatewayv1.ListMerchantCollabActivityResponse{}, &gatewayv1.ActivityServiceListMerchantCollabActivityResponse{}},
		{&gatewayv1.ListCollabActivityRequest{}, &gatewayv1.ActivityServiceListCollabActivityRequest{}},
		{&gatewayv1.ListCollabActivityResponse{}, &gatewayv1.ActivityServiceListCollabActivityResponse{}},
	}
	for _, p := range pairs {
		d, c := p.deprecated.ProtoReflect().Descriptor(), p.current.ProtoReflect().Descriptor()
		t.Run(string(d.Name()), func(t *testing.T) {
			t.Parallel()
			if got, want := fieldsOf(d), fieldsOf(c); got != want {
				t.Errorf("%s has\n%s\n%s has\n%s", d.FullName(), got, c.FullName(), want)
			}
		})
	}
}

// fieldsOf describes a message's fields, one line each, in declaration
// order.
func fieldsOf(md protoreflect.MessageDescriptor) string {
	var b strings.Builder
	fs := md.Fields()
	for i := range fs.Len() {
		f := fs.Get(i)
		typ := f.Kind().String()
		if m := f.Message(); m != nil {
			typ = string(m.FullName())
		}
		fmt.Fprintf(&b, "%s = %d, json %s, %s, %s, presence %t\n", f.Name(), f.Number(), f.JSONName(), typ, f.Cardinality(), f.HasPresence())
	}
	return b.String()
}
