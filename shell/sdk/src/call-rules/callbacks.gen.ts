// Code generated from the callbacks service's authorization rules by services/internal/callrules (make call-rules). DO NOT EDIT.

import type { CallRule } from '../call-rule';

/** CALLBACKS_CALLS: who may call each method of the callbacks service (its Go Rules table), and its REST routes. */
export const CALLBACKS_CALLS = {
  '/paygate.callbacks.v1.CallbackEndpointService/EnableCallback': {
    http: ['POST /api/v1/callbacks/{id}/enable'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbackEndpointService/ListEndpointHealth': {
    http: ['GET /api/v1/merchants/{merchantId}/callbacks/health'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbackEndpointService/SetCallbackHeaders': {
    http: ['PUT /api/v1/callbacks/{id}/headers'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbackRetryService/ChangeCallbackRetry': {
    http: ['POST /api/v1/callback-retries/{id}/{verb}'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.callbacks.v1.CallbackRetryService/DryRunCallbackRetry': {
    http: ['POST /api/v1/callback-retries/dry-run'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.callbacks.v1.CallbackRetryService/GetCallbackRetry': {
    http: ['GET /api/v1/callback-retries/{id}'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.callbacks.v1.CallbackRetryService/ListCallbackRetries': {
    http: ['GET /api/v1/callback-retries'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.callbacks.v1.CallbackRetryService/StartCallbackRetry': {
    http: ['POST /api/v1/callback-retries'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.callbacks.v1.CallbacksService/CreateCallback': {
    http: ['POST /api/v1/callbacks'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbacksService/DeleteCallback': {
    http: ['DELETE /api/v1/callbacks/{id}'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbacksService/EnqueueTransactionCallbacks': {
    http: ['POST /api/v1/transactions/{id}/callbacks/enqueue'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.callbacks.v1.CallbacksService/GetSigningSecret': {
    http: ['GET /api/v1/merchants/{merchantId}/callbacks/secret'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbacksService/ListAttemptsOfTransactions': {
    http: [],
    rule: { internal: true },
  },
  '/paygate.callbacks.v1.CallbacksService/ListCallbackAttempts': {
    http: ['GET /api/v1/transactions/{id}/callbacks/attempts'],
    rule: { permissions: ['Get Transactions'] },
  },
  '/paygate.callbacks.v1.CallbacksService/ListCollabCallbacks': {
    http: ['GET /api/v1/collabs/{collabId}/callbacks'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbacksService/ListMerchantCallbacks': {
    http: ['GET /api/v1/merchants/{merchantId}/callbacks'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbacksService/RetryCallbackAttempt': {
    http: ['POST /api/v1/callbacks/attempts/{id}/retry'],
    rule: { permissions: ['Edit Transactions'] },
  },
  '/paygate.callbacks.v1.CallbacksService/RotateSigningSecret': {
    http: ['POST /api/v1/merchants/{merchantId}/callbacks/secret/rotate'],
    rule: { requires: 'callbacksAndValidation' },
  },
  '/paygate.callbacks.v1.CallbacksService/UpdateCallback': {
    http: ['POST /api/v1/callbacks/{id}'],
    rule: { permissions: ['Edit Transactions'], requires: 'callbacksAndValidation' },
  },
} as const satisfies Record<string, CallRule>;
