package grpcapi

import (
	callbacksv1 "github.com/paygate/paygate/gen/go/paygate/callbacks/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

// Who may call what (docs/contracts-callbacks.md). Merchant scope is
// enforced by the domain on top of these.
var (
	// The Callbacks page is for admins and merchant admins (spec 02 §6),
	// restated as access.ReqCallbacksAndValidation.
	callbacksPage = authz.Rule{Requires: access.ReqCallbacksAndValidation}
	// Adding, editing and deleting also need Edit Transactions.
	editCallbacks = authz.Rule{
		Requires:    access.ReqCallbacksAndValidation,
		Permissions: []string{access.PermEditTransactions},
	}
	getTransactions  = authz.Rule{Permissions: []string{access.PermGetTransactions}}
	editTransactions = authz.Rule{Permissions: []string{access.PermEditTransactions}}
)

// Rules says who may call each CallbacksService method.
var Rules = authz.Rules{
	callbacksv1.CallbacksService_ListCollabCallbacks_FullMethodName:   callbacksPage,
	callbacksv1.CallbacksService_ListMerchantCallbacks_FullMethodName: callbacksPage,
	callbacksv1.CallbacksService_CreateCallback_FullMethodName:        editCallbacks,
	callbacksv1.CallbacksService_UpdateCallback_FullMethodName:        editCallbacks,
	callbacksv1.CallbacksService_DeleteCallback_FullMethodName:        editCallbacks,
	// The Callback Attempts dialog of the transactions page, and its Retry
	// button and the callback queue of the Edit transaction dialog.
	callbacksv1.CallbacksService_ListCallbackAttempts_FullMethodName:        getTransactions,
	callbacksv1.CallbacksService_RetryCallbackAttempt_FullMethodName:        editTransactions,
	callbacksv1.CallbacksService_EnqueueTransactionCallbacks_FullMethodName: editTransactions,
	// A merchant's signing secret belongs with its callback URLs.
	callbacksv1.CallbacksService_GetSigningSecret_FullMethodName:    callbacksPage,
	callbacksv1.CallbacksService_RotateSigningSecret_FullMethodName: callbacksPage,
	// CallbackRetryService (docs/contracts-bulk.md): retrying failed
	// deliveries in bulk needs what retrying one attempt needs.
	callbacksv1.CallbackRetryService_DryRunCallbackRetry_FullMethodName: editTransactions,
	callbacksv1.CallbackRetryService_StartCallbackRetry_FullMethodName:  editTransactions,
	callbacksv1.CallbackRetryService_ListCallbackRetries_FullMethodName: getTransactions,
	callbacksv1.CallbackRetryService_GetCallbackRetry_FullMethodName:    getTransactions,
	callbacksv1.CallbackRetryService_ChangeCallbackRetry_FullMethodName: editTransactions,
	// CallbackEndpointService (endpoint health): enabling a URL is an edit
	// of it; its health belongs with the Callbacks page.
	// Its custom headers are an edit too.
	callbacksv1.CallbackEndpointService_EnableCallback_FullMethodName:     editCallbacks,
	callbacksv1.CallbackEndpointService_SetCallbackHeaders_FullMethodName: editCallbacks,
	callbacksv1.CallbackEndpointService_ListEndpointHealth_FullMethodName: callbacksPage,
	// The gateway's export worker reads attempts in batches.
	callbacksv1.CallbacksService_ListAttemptsOfTransactions_FullMethodName: {Internal: true},
}
