/** The simulate defaults of spec 02 §9. */
export const DEFAULT_AMOUNT = '201.99';
export const DEFAULT_CURRENCY = 'PHP';

/** newNonce is "test_" plus a timestamp (milliseconds), unique per form. */
export function newNonce(now: number = Date.now()): string {
  return `test_${now}`;
}

/** splitTags splits provider tags on comma or semicolon, trimmed, empties dropped (spec 02 §5). */
export function splitTags(input: string): string[] {
  return input
    .split(/[,;]/)
    .map((t) => t.trim())
    .filter((t) => t !== '');
}

export const INVALID_JSON = 'Invalid JSON format in Additional Data field';

/**
 * parseAdditionalData reads the Additional Data field: a JSON object (blank
 * means {}); anything else — invalid JSON, an array, a number — is refused.
 */
export function parseAdditionalData(input: string): { ok: true; value: Record<string, unknown> } | { ok: false; error: string } {
  if (input.trim() === '') return { ok: true, value: {} };
  try {
    const v: unknown = JSON.parse(input);
    if (v && typeof v === 'object' && !Array.isArray(v)) return { ok: true, value: v as Record<string, unknown> };
  } catch {
    // fall through
  }
  return { ok: false, error: INVALID_JSON };
}

/**
 * The three additional-data presets of spec 02 §9. The spec names them only;
 * their contents are this console's examples of what each platform sends.
 */
export const ADDITIONAL_DATA_PRESETS: readonly { name: string; data: Record<string, unknown> }[] = [
  { name: 'Old Platform', data: { platform: 'legacy', playerId: '100234', ip: '203.0.113.10' } },
  { name: 'New Platform', data: { platform: 'web', playerId: '100234', email: 'player@example.com', phone: '09171234567' } },
  { name: 'Mini App', data: { platform: 'mini-app', deviceId: 'device-42', phone: '09171234567' } },
];
