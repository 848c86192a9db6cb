package grpcapi_test

import (
	"slices"
	"testing"

	"google.golang.org/grpc"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/callbacks/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

func TestRulesCoverEveryMethod(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	callbacksv1.RegisterCallbacksServiceServer(srv, grpcapi.NewServer(nil))
	callbacksv1.RegisterCallbackRetryServiceServer(srv, grpcapi.NewRetryServer(nil))
	callbacksv1.RegisterCallbackEndpointServiceServer(srv, grpcapi.NewEndpointServer(nil))
	authz.CheckRulesCover(t, srv, grpcapi.Rules)
}

// TestRules pins who may call what (docs/contracts-callbacks.md): the
// Callbacks page is for admins and merchant admins (access.
// ReqCallbacksAndValidation), changing it also needs Edit Transactions; the
// attempts dialog needs Get Transactions, its retry and the callback queue
// Edit Transactions. Pinned as the built-in roles each rule admits.
func TestRules(t *testing.T) {
	t.Parallel()
	admins := []string{access.RoleAdmin, access.RoleMerchantAdmin}
	readers := []string{access.RoleAdmin, access.RoleSupport, access.RoleMerchant, access.RoleMerchantAdmin,
		access.RoleMerchantFinanceManager, access.RoleMerchantSupport}
	tests := []struct {
		method   string
		requires access.Requirement
		admitted []string
	}{
		{callbacksv1.CallbacksService_ListCollabCallbacks_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbacksService_ListMerchantCallbacks_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbacksService_CreateCallback_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbacksService_UpdateCallback_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbacksService_DeleteCallback_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbacksService_ListCallbackAttempts_FullMethodName, access.Requirement{}, readers},
		{callbacksv1.CallbacksService_RetryCallbackAttempt_FullMethodName, access.Requirement{}, admins},
		{callbacksv1.CallbacksService_EnqueueTransactionCallbacks_FullMethodName, access.Requirement{}, admins},
		{callbacksv1.CallbacksService_GetSigningSecret_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbacksService_RotateSigningSecret_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbackEndpointService_EnableCallback_FullMethodName, access.ReqCallbacksAndValidation, admins},
		{callbacksv1.CallbackEndpointService_ListEndpointHealth_FullMethodName, access.ReqCallbacksAndValidation, admins},
	}
	for _, tt := range tests {
		r := grpcapi.Rules[tt.method]
		if r.Public || r.Authenticated || r.Requires.Name != tt.requires.Name {
			t.Errorf("%s: rule %+v, want requirement %q", tt.method, r, tt.requires.Name)
		}
		if got := authz.Admitted(r); !slices.Equal(got, tt.admitted) {
			t.Errorf("%s admits %v, want %v", tt.method, got, tt.admitted)
		}
	}
	// Creating a callback needs Edit Transactions on top: a custom role with
	// Edit Collab alone reads the page and cannot change it.
	editCollabOnly := &access.Claims{Permissions: []string{access.PermEditCollab}}
	if !grpcapi.Rules[callbacksv1.CallbacksService_ListCollabCallbacks_FullMethodName].Admits(editCollabOnly) ||
		grpcapi.Rules[callbacksv1.CallbacksService_CreateCallback_FullMethodName].Admits(editCollabOnly) {
		t.Error("a role with Edit Collab alone should read callbacks and not create them")
	}
}

// TestRulesTreatCustomRolesAsBuiltIn: a custom role with a built-in role's
// flag and permissions gets exactly its access (docs/access.md).
func TestRulesTreatCustomRolesAsBuiltIn(t *testing.T) {
	t.Parallel()
	authz.CheckCustomTwins(t, grpcapi.Rules)
}
