// Code generated from the gateway service's authorization rules by services/internal/callrules (make call-rules). DO NOT EDIT.

import type { CallRule } from '../call-rule';

/** GATEWAY_CALLS: who may call each method of the gateway service (its Go Rules table), and its REST routes. */
export const GATEWAY_CALLS = {
  '/paygate.gateway.v1.ActivityService/ListCollabActivity': {
    http: ['GET /api/v1/logs/collabs/activity'],
    rule: { permissions: ['View Recent Actions'] },
  },
  '/paygate.gateway.v1.ActivityService/ListMerchantCollabActivity': {
    http: ['GET /api/v1/logs/merchants/{merchantId}/collabs/activity'],
    rule: { permissions: ['View Recent Actions'] },
  },
  '/paygate.gateway.v1.BalanceService/GetBalance': {
    http: ['GET /api/v1/providers/{providerPathSegment}/balance'],
    rule: { requires: 'balances' },
  },
  '/paygate.gateway.v1.BalanceService/ListBalanceCollabs': {
    http: ['GET /api/v1/balances/collabs'],
    rule: { requires: 'balances' },
  },
  '/paygate.gateway.v1.BulkService/CancelBulkRun': {
    http: ['POST /api/v1/bulk-actions/{id}/cancel'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.BulkService/DryRunBulkAction': {
    http: ['POST /api/v1/bulk-actions/dry-run'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.BulkService/GetBulkRun': {
    http: ['GET /api/v1/bulk-actions/{id}'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.BulkService/ListBulkRuns': {
    http: ['GET /api/v1/bulk-actions'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.BulkService/PauseBulkRun': {
    http: ['POST /api/v1/bulk-actions/{id}/pause'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.BulkService/ResumeBulkRun': {
    http: ['POST /api/v1/bulk-actions/{id}/resume'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.BulkService/StartBulkRun': {
    http: ['POST /api/v1/bulk-actions'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.CollabService/AddCollabPayTypes': {
    http: ['PUT /api/v1/{collabId}/pay-types'],
    rule: { permissions: ['Edit Collab'] },
  },
  '/paygate.gateway.v1.CollabService/DisableMaintenanceMode': {
    http: [],
    rule: { permissions: ['Edit Maintenance Mode'] },
  },
  '/paygate.gateway.v1.CollabService/EnableMaintenanceMode': {
    http: [],
    rule: { permissions: ['Edit Maintenance Mode'] },
  },
  '/paygate.gateway.v1.CollabService/GetCollab': {
    http: ['GET /api/v1/collabs/{collabId}'],
    rule: { authenticated: true },
  },
  '/paygate.gateway.v1.CollabService/GetCollabLimits': {
    http: ['GET /api/v1/merchants/collab/{collabId}/limits'],
    rule: { permissions: ['Get Providers'] },
  },
  '/paygate.gateway.v1.CollabService/GetCollabSettings': {
    http: ['GET /api/v1/collabs/{collabId}/settings'],
    rule: { permissions: ['Get Providers'] },
  },
  '/paygate.gateway.v1.CollabService/GetMaintenanceStatus': {
    http: [],
    rule: { authenticated: true },
  },
  '/paygate.gateway.v1.CollabService/InitializeCollab': {
    http: ['POST /api/v1/collabs/initialize'],
    rule: { requires: 'addCollabs' },
  },
  '/paygate.gateway.v1.CollabService/ListCollabActivity': {
    http: [],
    rule: { permissions: ['View Recent Actions'] },
  },
  '/paygate.gateway.v1.CollabService/ListCollabs': {
    http: ['GET /api/v1/merchant-collabs'],
    rule: { permissions: ['Get Providers', 'Get Transactions', 'View Fees'] },
  },
  '/paygate.gateway.v1.CollabService/ListMerchantCollabActivity': {
    http: [],
    rule: { permissions: ['View Recent Actions'] },
  },
  '/paygate.gateway.v1.CollabService/ListMerchantCollabs': {
    http: ['GET /api/v1/merchants/{merchantId}/collabs'],
    rule: { permissions: ['Get Providers'] },
  },
  '/paygate.gateway.v1.CollabService/ListProviderCollabs': {
    http: ['GET /api/v1/providers/{providerId}/collabs'],
    rule: { permissions: ['Get Providers'] },
  },
  '/paygate.gateway.v1.CollabService/ListProviders': {
    http: ['GET /api/v1/providers'],
    rule: { permissions: ['Get Providers'] },
  },
  '/paygate.gateway.v1.CollabService/RemoveCollabPayTypes': {
    http: ['DELETE /api/v1/{collabId}/pay-types'],
    rule: { permissions: ['Edit Collab'] },
  },
  '/paygate.gateway.v1.CollabService/SetCollabActiveness': {
    http: ['POST /api/v1/collabs/{collabId}/activeness'],
    rule: { permissions: ['Edit Collab'] },
  },
  '/paygate.gateway.v1.CollabService/SetProviderActiveness': {
    http: ['POST /api/v1/providers/{providerId}/activeness'],
    rule: { requires: 'allMerchants' },
  },
  '/paygate.gateway.v1.CollabService/UpdateCollabLimits': {
    http: ['POST /api/v1/merchant/collabs/limits'],
    rule: { permissions: ['Edit Collab'] },
  },
  '/paygate.gateway.v1.CollabService/UpdateCollabPayTypeLimits': {
    http: ['POST /api/v1/merchants/collabs/pay-type/limits'],
    rule: { permissions: ['Edit Collab'] },
  },
  '/paygate.gateway.v1.CollabService/UpdateCollabSettings': {
    http: ['POST /api/v1/collabs/settings'],
    rule: { permissions: ['Edit Collab'] },
  },
  '/paygate.gateway.v1.CredentialService/GetCredentials': {
    http: ['GET /api/v1/credentials'],
    rule: { permissions: ['Credentials Access'] },
  },
  '/paygate.gateway.v1.CredentialService/ListCredentialCollabs': {
    http: ['GET /api/v1/credentials/collabs'],
    rule: { permissions: ['Credentials Access'] },
  },
  '/paygate.gateway.v1.CredentialService/SetCredentials': {
    http: ['POST /api/v1/credentials'],
    rule: { permissions: ['Credentials Access'] },
  },
  '/paygate.gateway.v1.CurrencyService/ListCurrencies': {
    http: ['GET /api/v1/currencies'],
    rule: { authenticated: true },
  },
  '/paygate.gateway.v1.CurrencyService/ListCurrencyRates': {
    http: ['GET /api/v1/currencies/{currency}/rates'],
    rule: { authenticated: true },
  },
  '/paygate.gateway.v1.CurrencyService/SetCurrencyRate': {
    http: ['POST /api/v1/currencies/{currency}/rates'],
    rule: { requires: 'platformSettings' },
  },
  '/paygate.gateway.v1.FeeService/CheckFeeConflicts': {
    http: ['POST /api/v1/fees/conflicts'],
    rule: { permissions: ['Edit Fees'] },
  },
  '/paygate.gateway.v1.FeeService/CreateFee': {
    http: ['POST /api/v1/fees'],
    rule: { permissions: ['Edit Fees'] },
  },
  '/paygate.gateway.v1.FeeService/DeleteFee': {
    http: ['DELETE /api/v1/fees/{id}'],
    rule: { permissions: ['Edit Fees'] },
  },
  '/paygate.gateway.v1.FeeService/GetFee': {
    http: ['GET /api/v1/fees/{id}'],
    rule: { permissions: ['View Fees'] },
  },
  '/paygate.gateway.v1.FeeService/ListFeeWinners': {
    http: ['GET /api/v1/fees/winners'],
    rule: { permissions: ['View Fees'] },
  },
  '/paygate.gateway.v1.FeeService/ListFees': {
    http: ['GET /api/v1/fees'],
    rule: { permissions: ['View Fees'] },
  },
  '/paygate.gateway.v1.FeeService/PreviewFee': {
    http: ['POST /api/v1/fees/preview'],
    rule: { permissions: ['Edit Fees'] },
  },
  '/paygate.gateway.v1.FeeService/UpdateFee': {
    http: ['PUT /api/v1/fees/{id}'],
    rule: { permissions: ['Edit Fees'] },
  },
  '/paygate.gateway.v1.FileService/DeleteFile': {
    http: ['DELETE /api/v1/files/{id}'],
    rule: { permissions: ['Files Access'] },
  },
  '/paygate.gateway.v1.FileService/DownloadFile': {
    http: ['GET /api/v1/files/{id}'],
    rule: { permissions: ['Files Access'] },
  },
  '/paygate.gateway.v1.FileService/ExportFile': {
    http: ['POST /api/v1/files/export'],
    rule: { permissions: ['Files Access'] },
  },
  '/paygate.gateway.v1.FileService/GetExportColumns': {
    http: ['GET /api/v1/files/export/columns/{type}'],
    rule: { permissions: ['Files Access'] },
  },
  '/paygate.gateway.v1.FileService/GetFileInfo': {
    http: ['GET /api/v1/files/{id}/info'],
    rule: { permissions: ['Files Access'] },
  },
  '/paygate.gateway.v1.FileService/ListExportTypes': {
    http: ['GET /api/v1/files/export/types'],
    rule: { permissions: ['Files Access'] },
  },
  '/paygate.gateway.v1.FileService/ListFiles': {
    http: ['GET /api/v1/files'],
    rule: { permissions: ['Files Access'] },
  },
  '/paygate.gateway.v1.FraudService/ListFrauds': {
    http: ['GET /api/v1/frauds'],
    rule: { permissions: ['View Frauds'] },
  },
  '/paygate.gateway.v1.FraudService/UpdateFraudStatus': {
    http: ['POST /api/v1/frauds/{id}/status/{status}'],
    rule: { permissions: ['Edit Frauds'] },
  },
  '/paygate.gateway.v1.MaintenanceService/DisableMaintenanceMode': {
    http: ['POST /api/v1/maintenance/disable'],
    rule: { permissions: ['Edit Maintenance Mode'] },
  },
  '/paygate.gateway.v1.MaintenanceService/EnableMaintenanceMode': {
    http: ['POST /api/v1/maintenance/enable'],
    rule: { permissions: ['Edit Maintenance Mode'] },
  },
  '/paygate.gateway.v1.MaintenanceService/GetMaintenanceStatus': {
    http: ['GET /api/v1/maintenance/status'],
    rule: { authenticated: true },
  },
  '/paygate.gateway.v1.MerchantService/CreateMerchant': {
    http: ['POST /api/v1/merchants'],
    rule: { requires: 'allMerchants' },
  },
  '/paygate.gateway.v1.MerchantService/CreateMerchantSecret': {
    http: ['POST /api/v1/merchants/{merchantId}/secrets'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.gateway.v1.MerchantService/ListMerchantSecrets': {
    http: ['GET /api/v1/merchants/{merchantId}/secrets'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.gateway.v1.MerchantService/ListMerchants': {
    http: ['GET /api/v1/merchants'],
    rule: { authenticated: true, allowTemporaryPassword: true },
  },
  '/paygate.gateway.v1.MerchantService/RevokeMerchantSecret': {
    http: ['POST /api/v1/merchants/{merchantId}/secrets/{id}/revoke'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.gateway.v1.MerchantService/UpdateMerchant': {
    http: ['PUT /api/v1/merchants/{id}'],
    rule: { requires: 'allMerchants' },
  },
  '/paygate.gateway.v1.PayTypeService/ListPayTypes': {
    http: ['GET /api/v1/pay-types'],
    rule: { authenticated: true },
  },
  '/paygate.gateway.v1.RadarService/DeleteRadarSla': {
    http: ['DELETE /api/v1/radar/slas/{id}'],
    rule: { requires: 'platformSettings' },
  },
  '/paygate.gateway.v1.RadarService/ListRadarSlas': {
    http: ['GET /api/v1/radar/slas'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.RadarService/ListRadarTransactions': {
    http: ['GET /api/v1/radar/transactions'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.RadarService/SetRadarSla': {
    http: ['PUT /api/v1/radar/slas'],
    rule: { requires: 'platformSettings' },
  },
  '/paygate.gateway.v1.ReplayService/GetTransactionIdRange': {
    http: [],
    rule: { internal: true },
  },
  '/paygate.gateway.v1.ReplayService/StreamCurrencyRates': {
    http: [],
    rule: { internal: true },
  },
  '/paygate.gateway.v1.ReplayService/StreamTransactions': {
    http: [],
    rule: { internal: true },
  },
  '/paygate.gateway.v1.SettingService/GetSetting': {
    http: ['GET /api/v1/settings/{key}'],
    rule: { permissions: ['Settings Access'] },
  },
  '/paygate.gateway.v1.SettingService/ListSettingKeys': {
    http: ['GET /api/v1/settings/keys'],
    rule: { permissions: ['Settings Access'] },
  },
  '/paygate.gateway.v1.SettingService/SetSetting': {
    http: ['POST /api/v1/settings/{key}'],
    rule: { requires: 'platformSettings' },
  },
  '/paygate.gateway.v1.TransactionService/CancelTransaction': {
    http: ['POST /api/v1/transactions/{id}/cancel'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.gateway.v1.TransactionService/CancelTransactionCallbacks': {
    http: ['POST /api/v1/transactions/{id}/callbacks/cancel'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.gateway.v1.TransactionService/EnqueueTransaction': {
    http: ['POST /api/v1/transactions/{id}/enqueue'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.gateway.v1.TransactionService/EnqueueTransactionPolling': {
    http: ['POST /api/v1/transactions/{id}/polling/enqueue'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.gateway.v1.TransactionService/GetTransaction': {
    http: ['GET /api/v1/transactions/{id}'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.TransactionService/InitializeTransaction': {
    http: ['POST /api/v1/transactions/initialize'],
    rule: { public: true },
  },
  '/paygate.gateway.v1.TransactionService/ListTransactionLogs': {
    http: ['GET /api/v1/logs/transactions/{id}'],
    rule: { permissions: ['View Logs'] },
  },
  '/paygate.gateway.v1.TransactionService/ListTransactions': {
    http: ['GET /api/v1/collabs/{collabId}/transactions/advanced'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.TransactionService/SearchTransactionLogs': {
    http: ['POST /api/v1/transactions/search-in-logs'],
    rule: { permissions: ['View Logs'] },
  },
  '/paygate.gateway.v1.TransactionService/SetTransactionStatus': {
    http: ['POST /api/v1/transactions/{id}/status/{status}'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.gateway.v1.ValidationService/CreateValidationEndpoint': {
    http: ['POST /api/v1/collabs/validation-endpoints'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
  '/paygate.gateway.v1.ValidationService/DeleteValidationEndpoint': {
    http: ['DELETE /api/v1/collabs/validation-endpoints/{id}'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
  '/paygate.gateway.v1.ValidationService/ListValidationEndpoints': {
    http: ['GET /api/v1/collabs/{collabId}/validation-endpoints'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.gateway.v1.ValidationService/ListValidationResults': {
    http: ['GET /api/v1/transactions/{id}/validation'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.ValidationService/RetryValidation': {
    http: ['POST /api/v1/validation/{id}/retry'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.gateway.v1.ValidationService/SetValidationStatus': {
    http: ['POST /api/v1/validation/{id}/status/{status}'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.gateway.v1.ValidationService/UpdateValidationEndpoint': {
    http: ['POST /api/v1/collabs/validation-endpoints/{id}'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
  '/paygate.gateway.v1.ViewService/CreateView': {
    http: ['POST /api/v1/views'],
    rule: { permissions: ['Get Transactions', 'View Frauds', 'Files Access'] },
  },
  '/paygate.gateway.v1.ViewService/DeleteView': {
    http: ['DELETE /api/v1/views/{id}'],
    rule: { permissions: ['Get Transactions', 'View Frauds', 'Files Access'] },
  },
  '/paygate.gateway.v1.ViewService/GetView': {
    http: ['GET /api/v1/views/{id}'],
    rule: { permissions: ['Get Transactions', 'View Frauds', 'Files Access'] },
  },
  '/paygate.gateway.v1.ViewService/ListViews': {
    http: ['GET /api/v1/views'],
    rule: { permissions: ['Get Transactions', 'View Frauds', 'Files Access'] },
  },
  '/paygate.gateway.v1.ViewService/SetDefaultView': {
    http: ['PUT /api/v1/views/defaults/{list}'],
    rule: { permissions: ['Get Transactions', 'View Frauds', 'Files Access'] },
  },
  '/paygate.gateway.v1.ViewService/UpdateView': {
    http: ['PUT /api/v1/views/{id}'],
    rule: { permissions: ['Get Transactions', 'View Frauds', 'Files Access'] },
  },
  '/paygate.gateway.v1.WatchlistService/AcknowledgeAlert': {
    http: ['POST /api/v1/alerts/{id}/acknowledge'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.WatchlistService/CreateWatchlist': {
    http: ['POST /api/v1/watchlists'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.WatchlistService/DeleteWatchlist': {
    http: ['DELETE /api/v1/watchlists/{id}'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.WatchlistService/GetWatchlistValues': {
    http: ['GET /api/v1/watchlists/values'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.WatchlistService/ListAlerts': {
    http: ['GET /api/v1/alerts'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.WatchlistService/ListWatchlists': {
    http: ['GET /api/v1/watchlists'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.gateway.v1.WatchlistService/UpdateWatchlist': {
    http: ['PUT /api/v1/watchlists/{id}'],
    rule: { permissions: ['Get Transactions'] },
  },
} as const satisfies Record<string, CallRule>;
