import { urlError, wholeNumberError, type DraftErrors } from '../../../utils/draft';
import type { ValidationEndpoint } from '../api/types';

/** The limits and defaults of spec 02 §5 and §9 for validation endpoints. */
export const PRIORITY_MIN = 1;
export const PRIORITY_MAX = 100;
export const DEFAULT_PRIORITY = 1;

/** The validation texts of spec 02 §5 ("Validation endpoint add"), plus the range and scheme checks. */
export const ENDPOINT_ERRORS = {
  urlRequired: 'Endpoint URL is required.',
  urlInvalid: 'Endpoint URL must be an http or https URL.',
  collabRequired: 'Collaboration is required.',
  priorityRequired: 'Priority is required.',
  priorityRange: `Priority must be between ${PRIORITY_MIN} and ${PRIORITY_MAX}.`,
} as const;

/** EndpointDraft is the state of the add form or of a row being edited; the priority stays text while typed. */
export interface EndpointDraft {
  collabId: number | null;
  url: string;
  priority: string;
  awaitable: boolean;
  forCashIn: boolean;
  forCashOut: boolean;
}

/** EndpointDraftErrors holds one message per invalid field. */
export type EndpointDraftErrors = DraftErrors<'collabId' | 'url' | 'priority'>;

/** newEndpointDraft is the add form's start: priority 1, awaitable, cash in and cash out off (spec 02 §5). */
export function newEndpointDraft(collabId: number | null): EndpointDraft {
  return { collabId, url: '', priority: String(DEFAULT_PRIORITY), awaitable: false, forCashIn: false, forCashOut: false };
}

/** endpointDraftOf is the edit form of a stored endpoint. */
export function endpointDraftOf(e: ValidationEndpoint): EndpointDraft {
  return { collabId: e.collabId, url: e.url, priority: String(e.priority), awaitable: e.awaitable, forCashIn: e.forCashIn, forCashOut: e.forCashOut };
}

/** endpointFields are a valid draft's settings (all but the collab) as the create and update calls take them. */
export function endpointFields(d: EndpointDraft) {
  return { url: d.url.trim(), priority: Number(d.priority), awaitable: d.awaitable, forCashIn: d.forCashIn, forCashOut: d.forCashOut };
}

/** validateEndpointDraft returns the messages of the invalid fields; an empty object means valid. */
export function validateEndpointDraft(d: EndpointDraft): EndpointDraftErrors {
  const errors: EndpointDraftErrors = {};
  const url = urlError(d.url, { required: ENDPOINT_ERRORS.urlRequired, invalid: ENDPOINT_ERRORS.urlInvalid });
  if (url) errors.url = url;
  if (d.collabId === null) errors.collabId = ENDPOINT_ERRORS.collabRequired;
  const priority = wholeNumberError(d.priority, PRIORITY_MIN, PRIORITY_MAX, { required: ENDPOINT_ERRORS.priorityRequired, range: ENDPOINT_ERRORS.priorityRange });
  if (priority) errors.priority = priority;
  return errors;
}
