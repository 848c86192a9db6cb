import { urlError, wholeNumberError, type DraftErrors } from '../../../utils/draft';
import type { CallbackTransactionType, CallbackUrl } from '../api/types';

/** The limits and defaults of spec 02 §5 and §9 for callback URLs. */
export const MAX_ATTEMPTS_MIN = 1;
export const MAX_ATTEMPTS_MAX = 12;
export const DEFAULT_MAX_ATTEMPTS = 3;

/** The validation texts of spec 02 §5 ("Callback URL add"), plus the range and scheme checks. */
export const CALLBACK_ERRORS = {
  urlRequired: 'Callback URL is required.',
  urlInvalid: 'Callback URL must be an http or https URL.',
  collabRequired: 'Collaboration is required.',
  maxAttemptsRequired: 'Max attempts is required.',
  maxAttemptsRange: `Max attempts must be between ${MAX_ATTEMPTS_MIN} and ${MAX_ATTEMPTS_MAX}.`,
} as const;

/** CallbackDraft is the state of the add form or of a row being edited; numbers stay text while typed. */
export interface CallbackDraft {
  collabId: number | null;
  callbackUrl: string;
  maxAttempts: string;
  isEnabled: boolean;
  addSignature: boolean;
  transactionTypeId: CallbackTransactionType;
}

/** CallbackDraftErrors holds one message per invalid field. */
export type CallbackDraftErrors = DraftErrors<'collabId' | 'callbackUrl' | 'maxAttempts'>;

/** newCallbackDraft is the add form's start: 3 attempts, enabled, signature on, every type (spec 02 §5). */
export function newCallbackDraft(collabId: number | null): CallbackDraft {
  return { collabId, callbackUrl: '', maxAttempts: String(DEFAULT_MAX_ATTEMPTS), isEnabled: true, addSignature: true, transactionTypeId: null };
}

/** draftOf is the edit form of a stored callback URL. */
export function draftOf(c: CallbackUrl): CallbackDraft {
  return {
    collabId: c.collabId,
    callbackUrl: c.callbackUrl,
    maxAttempts: String(c.maxAttempts),
    isEnabled: c.isEnabled,
    addSignature: c.addSignature,
    transactionTypeId: c.transactionTypeId,
  };
}

/** callbackFields are a valid draft's settings as the create and update calls take them. */
export function callbackFields(d: CallbackDraft) {
  return {
    callbackUrl: d.callbackUrl.trim(),
    maxAttempts: Number(d.maxAttempts),
    isEnabled: d.isEnabled,
    addSignature: d.addSignature,
    transactionTypeId: d.transactionTypeId,
  };
}

/** validateCallbackDraft returns the messages of the invalid fields; an empty object means valid. */
export function validateCallbackDraft(d: CallbackDraft): CallbackDraftErrors {
  const errors: CallbackDraftErrors = {};
  const url = urlError(d.callbackUrl, { required: CALLBACK_ERRORS.urlRequired, invalid: CALLBACK_ERRORS.urlInvalid });
  if (url) errors.callbackUrl = url;
  if (d.collabId === null) errors.collabId = CALLBACK_ERRORS.collabRequired;
  const attempts = wholeNumberError(d.maxAttempts, MAX_ATTEMPTS_MIN, MAX_ATTEMPTS_MAX, {
    required: CALLBACK_ERRORS.maxAttemptsRequired,
    range: CALLBACK_ERRORS.maxAttemptsRange,
  });
  if (attempts) errors.maxAttempts = attempts;
  return errors;
}
