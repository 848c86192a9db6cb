import { describe, expect, it } from 'vitest';
import { CALLBACK_ERRORS, draftOf, newCallbackDraft, validateCallbackDraft } from './form';

describe('callback URL form (spec 02 §5)', () => {
  it('starts with 3 attempts, enabled, signature on, every type', () => {
    expect(newCallbackDraft(null)).toEqual({ collabId: null, callbackUrl: '', maxAttempts: '3', isEnabled: true, addSignature: true, transactionTypeId: null });
    expect(newCallbackDraft(4).collabId).toBe(4);
  });

  it('names every missing field at once', () => {
    expect(validateCallbackDraft({ ...newCallbackDraft(null), maxAttempts: ' ' })).toEqual({
      callbackUrl: 'Callback URL is required.',
      collabId: 'Collaboration is required.',
      maxAttempts: 'Max attempts is required.',
    });
  });

  it('takes 1 to 12 whole attempts and http(s) URLs only', () => {
    const ok = { ...newCallbackDraft(1), callbackUrl: 'https://acme.example/cb' };
    expect(validateCallbackDraft(ok)).toEqual({});
    for (const n of ['1', '12']) expect(validateCallbackDraft({ ...ok, maxAttempts: n })).toEqual({});
    for (const n of ['0', '13', '2.5', 'abc']) expect(validateCallbackDraft({ ...ok, maxAttempts: n })).toEqual({ maxAttempts: CALLBACK_ERRORS.maxAttemptsRange });
    for (const url of ['ftp://acme.example', 'acme.example/cb', 'javascript:alert(1)']) {
      expect(validateCallbackDraft({ ...ok, callbackUrl: url })).toEqual({ callbackUrl: CALLBACK_ERRORS.urlInvalid });
    }
  });

  it('edits a stored URL as it is', () => {
    expect(
      draftOf({ id: '5', collabId: 1, merchantId: 1, callbackUrl: 'https://a.example', isEnabled: false, maxAttempts: 7, addSignature: false, transactionTypeId: 2, finalStatuses: [], disabledReason: null, disabledUtc: null, headers: [] }),
    ).toEqual({ collabId: 1, callbackUrl: 'https://a.example', maxAttempts: '7', isEnabled: false, addSignature: false, transactionTypeId: 2 });
  });
});
