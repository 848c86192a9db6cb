import { describe, expect, it } from 'vitest';
import { ENDPOINT_ERRORS, newEndpointDraft, validateEndpointDraft } from './form';

describe('validation endpoint form (spec 02 §5)', () => {
  it('starts with priority 1 and awaitable, cash in and cash out off', () => {
    expect(newEndpointDraft(null)).toEqual({ collabId: null, url: '', priority: '1', awaitable: false, forCashIn: false, forCashOut: false });
  });

  it('names every missing field at once', () => {
    expect(validateEndpointDraft({ ...newEndpointDraft(null), priority: '' })).toEqual({
      url: 'Endpoint URL is required.',
      collabId: 'Collaboration is required.',
      priority: 'Priority is required.',
    });
  });

  it('takes priorities 1 to 100 and http(s) URLs only', () => {
    const ok = { ...newEndpointDraft(2), url: 'http://merchant.example/validate' };
    for (const p of ['1', '100']) expect(validateEndpointDraft({ ...ok, priority: p })).toEqual({});
    for (const p of ['0', '101', '1.5']) expect(validateEndpointDraft({ ...ok, priority: p })).toEqual({ priority: ENDPOINT_ERRORS.priorityRange });
    expect(validateEndpointDraft({ ...ok, url: 'merchant.example' })).toEqual({ url: ENDPOINT_ERRORS.urlInvalid });
  });
});
