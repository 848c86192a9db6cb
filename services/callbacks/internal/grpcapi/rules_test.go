package grpcapi_test

import (
	"slices"
	"testing"

	"google.golang.org/grpc"

	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/callbacks/internal/grpcapi"
	"github.com/paygate/paygate/services/internal/authz"
)

func TestRulesCoverEveryMethod(t *testing.T) {
	t.Parallel()
	srv := grpc.NewServer()
	callbacksv1.RegisterCallbacksServiceServer(srv, grpcapi.NewServer(nil))
	authz.CheckRulesCover(t, srv, grpcapi.Rules)
}

// TestRules pins who may call what (docs/contracts-callbacks.md): the
// Callbacks page is for admins and merchant admins, changing it also needs
// Edit Transactions; the attempts dialog needs Get Transactions, its retry
// and the callback queue Edit Transactions.
func TestRules(t *testing.T) {
	t.Parallel()
	admins := []string{authz.RoleAdmin, authz.RoleMerchantAdmin}
	edit := []string{authz.PermEditTransactions}
	tests := []struct {
		method string
		roles  []string
		perms  []string
	}{
		{callbacksv1.CallbacksService_ListCollabCallbacks_FullMethodName, admins, nil},
		{callbacksv1.CallbacksService_ListMerchantCallbacks_FullMethodName, admins, nil},
		{callbacksv1.CallbacksService_CreateCallback_FullMethodName, admins, edit},
		{callbacksv1.CallbacksService_UpdateCallback_FullMethodName, admins, edit},
		{callbacksv1.CallbacksService_DeleteCallback_FullMethodName, admins, edit},
		{callbacksv1.CallbacksService_ListCallbackAttempts_FullMethodName, nil, []string{authz.PermGetTransactions}},
		{callbacksv1.CallbacksService_RetryCallbackAttempt_FullMethodName, nil, edit},
		{callbacksv1.CallbacksService_EnqueueTransactionCallbacks_FullMethodName, nil, edit},
		{callbacksv1.CallbacksService_GetSigningSecret_FullMethodName, admins, nil},
		{callbacksv1.CallbacksService_RotateSigningSecret_FullMethodName, admins, nil},
	}
	for _, tt := range tests {
		r := grpcapi.Rules[tt.method]
		if r.Public || r.Authenticated || !slices.Equal(r.Roles, tt.roles) || !slices.Equal(r.Permissions, tt.perms) {
			t.Errorf("%s: rule %+v, want roles %v permissions %v", tt.method, r, tt.roles, tt.perms)
		}
	}
}
