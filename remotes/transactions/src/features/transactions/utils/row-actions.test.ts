import { normalizeUser, PERMISSIONS, type Permission } from '@paygate/sdk';
import { describe, expect, it } from 'vitest';
import { rowActions } from './row-actions';

const user = (permissions: readonly Permission[], isTemporaryPassword = false) =>
  normalizeUser({ id: '1', username: 'u', roles: [], permissions: [...permissions], isTemporaryPassword });
const deposit = { transactionType: 1, isCallbackSendingCanceled: false };
const withdrawal = { transactionType: 2, isCallbackSendingCanceled: false };

describe('row buttons by permission and direction (spec 02 §2)', () => {
  it('offers edit, logs, Mark Failed and Manual Load on a deposit to a user with every permission', () => {
    expect(rowActions(deposit, user(PERMISSIONS))).toEqual({ edit: true, logs: true, callbacks: true, additionalData: true, export: true, searchInLogs: true, markFailed: true, markSuccess: 'Manual Load' });
  });

  it('offers Mark Success on a withdrawal', () => {
    expect(rowActions(withdrawal, user(PERMISSIONS)).markSuccess).toBe('Mark Success');
  });

  it('hides the manual buttons when callbacks are cancelled', () => {
    const r = rowActions({ ...deposit, isCallbackSendingCanceled: true }, user(PERMISSIONS));
    expect(r.markFailed).toBe(false);
    expect(r.markSuccess).toBeNull();
    expect(r.edit).toBe(true);
  });

  it('needs Edit Transactions for edit and the manual buttons, View Logs for logs', () => {
    expect(rowActions(deposit, user(['Get Transactions', 'View Logs']))).toEqual({ edit: false, logs: true, callbacks: true, additionalData: true, export: false, searchInLogs: true, markFailed: false, markSuccess: null });
    expect(rowActions(deposit, user(['Get Transactions', 'Edit Transactions']))).toMatchObject({ edit: true, logs: false, searchInLogs: false, markFailed: true });
    expect(rowActions(deposit, null)).toMatchObject({ edit: false, logs: false, searchInLogs: false, markFailed: false });
  });

  it('offers Export of the transaction with Files Access, as the export call requires', () => {
    expect(rowActions(deposit, user(['Get Transactions', 'Files Access'])).export).toBe(true);
    expect(rowActions(deposit, user(['Get Transactions', 'View Logs', 'Edit Transactions'])).export).toBe(false);
  });

  it('offers an action only when the server lets the user make its call', () => {
    // The attempts list needs Get Transactions.
    expect(rowActions(deposit, user(['View Logs'])).callbacks).toBe(false);
    // The server holds a user with a temporary password to changing it.
    expect(rowActions(deposit, user(PERMISSIONS, true))).toEqual({
      edit: false,
      logs: false,
      callbacks: false,
      additionalData: true,
      export: false,
      searchInLogs: false,
      markFailed: false,
      markSuccess: null,
    });
  });
});
