package grpcapi

import (
	gatewayv1 "github.com/paygate/paygate/gen/go/paygate/gateway/v1"
	"github.com/paygate/paygate/services/internal/access"
	"github.com/paygate/paygate/services/internal/authz"
)

// Rules says who may call each method of the gateway's services, one section
// per service (the "who" columns of docs/contracts-*.md). Merchant scope is
// enforced by the handlers on top of these.
var Rules = authz.Rules{
	// MerchantService (docs/contracts-merchants.md).
	//
	// The sidebar lists the caller's merchants even while a temporary
	// password is being replaced; the list is the caller's own, so every
	// signed-in user may read it (it was "every role").
	gatewayv1.MerchantService_ListMerchants_FullMethodName: {Authenticated: true, AllowTemporaryPassword: true},
	// Adding a merchant and changing its name, contact or status are
	// admin-wide (the Merchants page is admin only, access.ReqAllMerchants).
	gatewayv1.MerchantService_CreateMerchant_FullMethodName: {Requires: access.ReqAllMerchants},
	gatewayv1.MerchantService_UpdateMerchant_FullMethodName: {Requires: access.ReqAllMerchants},
	// A merchant's API secrets: Admin or a Merchant Admin
	// (access.ReqCallbacksAndValidation: Edit Collab in any scope); the
	// handlers keep merchant users to their merchants (404 otherwise).
	gatewayv1.MerchantService_ListMerchantSecrets_FullMethodName:  {Requires: access.ReqCallbacksAndValidation},
	gatewayv1.MerchantService_CreateMerchantSecret_FullMethodName: {Requires: access.ReqCallbacksAndValidation},
	gatewayv1.MerchantService_RevokeMerchantSecret_FullMethodName: {Requires: access.ReqCallbacksAndValidation},

	// CollabService (docs/contracts-providers.md).
	//
	// Any signed-in user may resolve a collab in their scope (the callbacks
	// service does so with the caller's token); others get not found.
	gatewayv1.CollabService_GetCollab_FullMethodName: {Authenticated: true},

	gatewayv1.CollabService_ListMerchantCollabs_FullMethodName: getProviders,
	// The collab list (GET /api/v1/merchant-collabs) fills the collab picker
	// of every screen that has one, so each of their permissions reads it:
	// Providers (Get Providers), Transactions, with its Export, Callbacks and
	// Validation Endpoints (Get Transactions), Fees (View Fees).
	gatewayv1.CollabService_ListCollabs_FullMethodName: {Permissions: []string{
		access.PermGetProviders, access.PermGetTransactions, access.PermViewFees,
	}},
	gatewayv1.CollabService_ListProviders_FullMethodName:       getProviders,
	gatewayv1.CollabService_ListProviderCollabs_FullMethodName: getProviders,
	gatewayv1.CollabService_GetCollabSettings_FullMethodName:   getProviders,
	gatewayv1.CollabService_GetCollabLimits_FullMethodName:     getProviders,

	// Switching a provider affects every merchant: admins only
	// (access.ReqAllMerchants: admin-wide and Edit Collab).
	gatewayv1.CollabService_SetProviderActiveness_FullMethodName: {Requires: access.ReqAllMerchants},

	gatewayv1.CollabService_UpdateCollabSettings_FullMethodName:      editCollab,
	gatewayv1.CollabService_SetCollabActiveness_FullMethodName:       editCollab,
	gatewayv1.CollabService_UpdateCollabLimits_FullMethodName:        editCollab,
	gatewayv1.CollabService_UpdateCollabPayTypeLimits_FullMethodName: editCollab,
	gatewayv1.CollabService_AddCollabPayTypes_FullMethodName:         editCollab,
	gatewayv1.CollabService_RemoveCollabPayTypes_FullMethodName:      editCollab,

	// The Providers page's Add button is for admins and merchants (spec 01
	// §6, access.ReqAddCollabs); merchant users create collabs of their own
	// merchants only.
	gatewayv1.CollabService_InitializeCollab_FullMethodName: {Requires: access.ReqAddCollabs},

	// The deprecated copies of MaintenanceService's and ActivityService's
	// RPCs (gRPC only, for callers of the previous release) keep those
	// services' rules.
	gatewayv1.CollabService_EnableMaintenanceMode_FullMethodName:      editMaintenance,
	gatewayv1.CollabService_DisableMaintenanceMode_FullMethodName:     editMaintenance,
	gatewayv1.CollabService_GetMaintenanceStatus_FullMethodName:       maintenanceStatus,
	gatewayv1.CollabService_ListMerchantCollabActivity_FullMethodName: viewRecentActions,
	gatewayv1.CollabService_ListCollabActivity_FullMethodName:         viewRecentActions,

	// MaintenanceService (docs/contracts-providers.md).
	gatewayv1.MaintenanceService_EnableMaintenanceMode_FullMethodName:  editMaintenance,
	gatewayv1.MaintenanceService_DisableMaintenanceMode_FullMethodName: editMaintenance,
	gatewayv1.MaintenanceService_GetMaintenanceStatus_FullMethodName:   maintenanceStatus,

	// ActivityService (docs/contracts-providers.md): the Providers page's
	// Recent Actions; the handlers keep merchant users to their merchants'
	// entries.
	gatewayv1.ActivityService_ListMerchantCollabActivity_FullMethodName: viewRecentActions,
	gatewayv1.ActivityService_ListCollabActivity_FullMethodName:         viewRecentActions,

	// TransactionService (docs/contracts-transactions.md).
	//
	// Public at this layer: the handler admits a signed-in caller meeting
	// access.ReqCreateTransaction (bearer token) or a merchant whose HMAC signature the
	// HTTP middleware verified (docs/contracts-transactions.md), and refuses
	// everyone else.
	gatewayv1.TransactionService_InitializeTransaction_FullMethodName: {Public: true},
	gatewayv1.TransactionService_GetTransaction_FullMethodName:        {Permissions: []string{access.PermGetTransactions}},
	gatewayv1.TransactionService_SetTransactionStatus_FullMethodName:  {Permissions: []string{access.PermEditTransactions}},
	gatewayv1.TransactionService_ListTransactionLogs_FullMethodName:   {Permissions: []string{access.PermViewLogs}},
	gatewayv1.TransactionService_ListTransactions_FullMethodName:      {Permissions: []string{access.PermGetTransactions}},
	gatewayv1.TransactionService_SearchTransactionLogs_FullMethodName: {Permissions: []string{access.PermViewLogs}},
	// The operator's corrections of spec 02 §4 (manual cancel, callbacks
	// cancel, the transaction and polling queues), scoped by the handlers.
	gatewayv1.TransactionService_CancelTransaction_FullMethodName:          editTransactions,
	gatewayv1.TransactionService_CancelTransactionCallbacks_FullMethodName: editTransactions,
	gatewayv1.TransactionService_EnqueueTransaction_FullMethodName:         editTransactions,
	gatewayv1.TransactionService_EnqueueTransactionPolling_FullMethodName:  editTransactions,

	// ValidationService (docs/contracts-validation.md).
	//
	// Validation endpoints (spec 02 §6): admins and merchant admins see
	// them (access.ReqCallbacksAndValidation); changing them also needs Edit
	// Transactions. Scoped by the handlers to the caller's merchants.
	gatewayv1.ValidationService_ListValidationEndpoints_FullMethodName:  validationEndpoints,
	gatewayv1.ValidationService_CreateValidationEndpoint_FullMethodName: editValidationEndpoints,
	gatewayv1.ValidationService_UpdateValidationEndpoint_FullMethodName: editValidationEndpoints,
	gatewayv1.ValidationService_DeleteValidationEndpoint_FullMethodName: editValidationEndpoints,
	// A transaction's validation results live in the Edit transaction
	// dialog.
	gatewayv1.ValidationService_ListValidationResults_FullMethodName: {Permissions: []string{access.PermGetTransactions}},
	gatewayv1.ValidationService_SetValidationStatus_FullMethodName:   editTransactions,
	gatewayv1.ValidationService_RetryValidation_FullMethodName:       editTransactions,

	// CurrencyService (docs/contracts-currencies.md).
	//
	// Every signed-in user may read the currencies and their rates (the
	// dashboard converts amounts with them); only admins set a rate, which
	// changes the figures of every merchant (access.ReqPlatformSettings).
	gatewayv1.CurrencyService_ListCurrencies_FullMethodName:    {Authenticated: true},
	gatewayv1.CurrencyService_ListCurrencyRates_FullMethodName: {Authenticated: true},
	gatewayv1.CurrencyService_SetCurrencyRate_FullMethodName:   {Requires: access.ReqPlatformSettings},

	// FileService (docs/contracts-files.md): the Files page and the
	// transactions page's Export button need Files Access (spec 02 §6); the
	// handlers keep merchant users to their merchants' files.
	gatewayv1.FileService_ListExportTypes_FullMethodName:  filesAccess,
	gatewayv1.FileService_GetExportColumns_FullMethodName: filesAccess,
	gatewayv1.FileService_ExportFile_FullMethodName:       filesAccess,
	gatewayv1.FileService_ListFiles_FullMethodName:        filesAccess,
	gatewayv1.FileService_GetFileInfo_FullMethodName:      filesAccess,
	gatewayv1.FileService_DownloadFile_FullMethodName:     filesAccess,
	gatewayv1.FileService_DeleteFile_FullMethodName:       filesAccess,

	// SettingService (docs/contracts-settings.md): the Settings page needs
	// Settings Access (spec 02 §6); settings are platform-wide, so changing
	// one is for admins (access.ReqPlatformSettings: admin-wide and Settings
	// Access).
	gatewayv1.SettingService_ListSettingKeys_FullMethodName: settingsAccess,
	gatewayv1.SettingService_GetSetting_FullMethodName:      settingsAccess,
	gatewayv1.SettingService_SetSetting_FullMethodName:      {Requires: access.ReqPlatformSettings},
	// FraudService (docs/contracts-frauds.md): the Fraud Management page
	// needs View Frauds, a review Edit Frauds (spec 02 §6); the handlers keep
	// merchant users to their merchants' frauds.
	gatewayv1.FraudService_ListFrauds_FullMethodName:        {Permissions: []string{access.PermViewFrauds}},
	gatewayv1.FraudService_UpdateFraudStatus_FullMethodName: {Permissions: []string{access.PermEditFrauds}},
	// CredentialService (docs/contracts-credentials.md): Credentials Access
	// (spec 02 §6); the handlers keep merchant users to their merchants'
	// collabs.
	gatewayv1.CredentialService_GetCredentials_FullMethodName:        credentialsAccess,
	gatewayv1.CredentialService_SetCredentials_FullMethodName:        credentialsAccess,
	gatewayv1.CredentialService_ListCredentialCollabs_FullMethodName: credentialsAccess,

	// BalanceService (docs/contracts-balances.md): admins and merchant users
	// with Balance Access (spec 02 §6, access.ReqBalances); Support is
	// refused. The handler keeps merchant users to their merchants' collabs.
	gatewayv1.BalanceService_GetBalance_FullMethodName:         balanceAccess,
	gatewayv1.BalanceService_ListBalanceCollabs_FullMethodName: balanceAccess,

	// ReplayService (docs/contracts-replay.md): the deployment's own
	// services (the aggregator's rebuild) with the internal token; no user,
	// and no REST route.
	gatewayv1.ReplayService_GetTransactionIdRange_FullMethodName: {Internal: true},
	gatewayv1.ReplayService_StreamTransactions_FullMethodName:    {Internal: true},
	gatewayv1.ReplayService_StreamCurrencyRates_FullMethodName:   {Internal: true},

	// FeeService (docs/contracts-fees.md): reading needs View Fees,
	// changing Edit Fees (spec 02 §6); the conflict check and the preview
	// belong to saving. The handlers keep merchant users to their collabs'
	// fees and the global ones, which only admins change.
	gatewayv1.FeeService_ListFees_FullMethodName:          viewFees,
	gatewayv1.FeeService_GetFee_FullMethodName:            viewFees,
	gatewayv1.FeeService_ListFeeWinners_FullMethodName:    viewFees,
	gatewayv1.FeeService_CreateFee_FullMethodName:         editFees,
	gatewayv1.FeeService_UpdateFee_FullMethodName:         editFees,
	gatewayv1.FeeService_DeleteFee_FullMethodName:         editFees,
	gatewayv1.FeeService_CheckFeeConflicts_FullMethodName: editFees,
	gatewayv1.FeeService_PreviewFee_FullMethodName:        editFees,
	// BulkService (docs/contracts-bulk.md): Get Transactions to see runs and
	// dry runs; each action also needs its single call's permission, checked
	// by the handlers (bulkPermission). Starting a run is sensitive
	// (bulk.start).
	gatewayv1.BulkService_DryRunBulkAction_FullMethodName: getTransactions,
	gatewayv1.BulkService_StartBulkRun_FullMethodName:     getTransactions,
	gatewayv1.BulkService_ListBulkRuns_FullMethodName:     getTransactions,
	gatewayv1.BulkService_GetBulkRun_FullMethodName:       getTransactions,
	gatewayv1.BulkService_PauseBulkRun_FullMethodName:     getTransactions,
	gatewayv1.BulkService_ResumeBulkRun_FullMethodName:    getTransactions,
	gatewayv1.BulkService_CancelBulkRun_FullMethodName:    getTransactions,
	// PayTypeService: names for filters and dialogs, any signed-in user.
	gatewayv1.PayTypeService_ListPayTypes_FullMethodName: {Authenticated: true},

	// RadarService (docs/contracts-radar.md): reading the radar and its SLAs
	// needs what reading transactions needs (the handler keeps merchant
	// users to their merchants' transactions); an SLA decides what is
	// overdue for every merchant of a provider, so changing one is a
	// platform setting (access.ReqPlatformSettings).
	gatewayv1.RadarService_ListRadarTransactions_FullMethodName: {Permissions: []string{access.PermGetTransactions}},
	gatewayv1.RadarService_ListRadarSlas_FullMethodName:         {Permissions: []string{access.PermGetTransactions}},
	gatewayv1.RadarService_SetRadarSla_FullMethodName:           {Requires: access.ReqPlatformSettings},
	gatewayv1.RadarService_DeleteRadarSla_FullMethodName:        {Requires: access.ReqPlatformSettings},
	// WatchlistService (docs/contracts-watchlists.md): the list's
	// permission; the handlers keep each user to their own watchlists and
	// alerts, counted within their merchant scope.
	gatewayv1.WatchlistService_CreateWatchlist_FullMethodName:    getTransactions,
	gatewayv1.WatchlistService_ListWatchlists_FullMethodName:     getTransactions,
	gatewayv1.WatchlistService_UpdateWatchlist_FullMethodName:    getTransactions,
	gatewayv1.WatchlistService_DeleteWatchlist_FullMethodName:    getTransactions,
	gatewayv1.WatchlistService_GetWatchlistValues_FullMethodName: getTransactions,
	gatewayv1.WatchlistService_ListAlerts_FullMethodName:         getTransactions,
	gatewayv1.WatchlistService_AcknowledgeAlert_FullMethodName:   getTransactions,
	// ViewService (docs/contracts-views.md, "Permissions"): a view belongs
	// to one list, whose permission it needs (Get Transactions, View Frauds,
	// Files Access); the rules admit a caller holding any of them and the
	// handlers check the one of each call's list (403 for a list call naming
	// another list, 404 for a view of another list).
	gatewayv1.ViewService_ListViews_FullMethodName:      savedViews,
	gatewayv1.ViewService_GetView_FullMethodName:        savedViews,
	gatewayv1.ViewService_CreateView_FullMethodName:     savedViews,
	gatewayv1.ViewService_UpdateView_FullMethodName:     savedViews,
	gatewayv1.ViewService_DeleteView_FullMethodName:     savedViews,
	gatewayv1.ViewService_SetDefaultView_FullMethodName: savedViews,
}

var (
	getProviders    = authz.Rule{Permissions: []string{access.PermGetProviders}}
	editCollab      = authz.Rule{Permissions: []string{access.PermEditCollab}}
	editMaintenance = authz.Rule{Permissions: []string{access.PermEditMaintenanceMode}}
	// Every console page shows the maintenance banner.
	maintenanceStatus = authz.Rule{Authenticated: true}
	viewRecentActions = authz.Rule{Permissions: []string{access.PermViewRecentActions}}
	editTransactions  = authz.Rule{Permissions: []string{access.PermEditTransactions}}
	getTransactions   = authz.Rule{Permissions: []string{access.PermGetTransactions}}
	filesAccess       = authz.Rule{Permissions: []string{access.PermFilesAccess}}
	settingsAccess    = authz.Rule{Permissions: []string{access.PermSettingsAccess}}
	viewFees          = authz.Rule{Permissions: []string{access.PermViewFees}}
	editFees          = authz.Rule{Permissions: []string{access.PermEditFees}}

	credentialsAccess = authz.Rule{Permissions: []string{access.PermCredentialsAccess}}
	balanceAccess     = authz.Rule{Requires: access.ReqBalances}

	// The permissions of the three lists that have saved views.
	savedViews = authz.Rule{Permissions: []string{access.PermGetTransactions, access.PermViewFrauds, access.PermFilesAccess}}

	validationEndpoints     = authz.Rule{Requires: access.ReqCallbacksAndValidation}
	editValidationEndpoints = authz.Rule{Requires: access.ReqCallbacksAndValidation,
		Permissions: []string{access.PermEditTransactions}}
)
