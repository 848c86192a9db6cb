import { describe, expect, it } from 'vitest';
import { INVALID_JSON, newNonce, parseAdditionalData, splitTags } from './form';

describe('Create Transaction form rules (spec 02 §5, §9)', () => {
  it('splits provider tags on comma or semicolon, trimmed, empties dropped', () => {
    expect(splitTags(' a, b;c ;; ,d ')).toEqual(['a', 'b', 'c', 'd']);
    expect(splitTags('sandbox:outcome=failed')).toEqual(['sandbox:outcome=failed']);
    expect(splitTags(' ; , ')).toEqual([]);
  });

  it('accepts a JSON object (blank is {}) and refuses anything else', () => {
    expect(parseAdditionalData('{"a":1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseAdditionalData('  ')).toEqual({ ok: true, value: {} });
    expect(parseAdditionalData('{a:1}')).toEqual({ ok: false, error: INVALID_JSON });
    expect(parseAdditionalData('[1]')).toEqual({ ok: false, error: INVALID_JSON });
    expect(INVALID_JSON).toBe('Invalid JSON format in Additional Data field');
  });

  it('prefills a test_ nonce from the clock', () => {
    expect(newNonce(1700000000000)).toBe('test_1700000000000');
  });
});
