import { describe, expect, it } from 'vitest';
import { defaultPasskeyName, deviceOfNavigator, deviceOfUserAgent, PASSKEY_NAME_MAX } from './device-name';

const CHROME_LINUX = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15';
const EDGE_WINDOWS = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36 Edg/131.0.0.0';
const FIREFOX_ANDROID = 'Mozilla/5.0 (Android 14; Mobile; rv:133.0) Gecko/133.0 Firefox/133.0';
// Midday, so that the day is the same in every time zone the tests may run in.
const DAY = new Date('2026-11-28T12:00:00Z');

describe('device names', () => {
  it.each([
    [CHROME_LINUX, 'Chrome', 'Linux'],
    [SAFARI_MAC, 'Safari', 'macOS'],
    [EDGE_WINDOWS, 'Edge', 'Windows'],
    [FIREFOX_ANDROID, 'Firefox', 'Android'],
  ])('reads %s from the user agent string', (ua, browser, system) => {
    expect(deviceOfUserAgent(ua)).toEqual({ browser, system });
  });

  it('prefers navigator.userAgentData, leaving out the GREASE brand and Chromium', () => {
    expect(
      deviceOfNavigator({
        userAgent: SAFARI_MAC,
        userAgentData: {
          brands: [
            { brand: 'Not)A;Brand', version: '99' },
            { brand: 'Chromium', version: '131' },
            { brand: 'Microsoft Edge', version: '131' },
          ],
          platform: 'Windows',
        },
      }),
    ).toEqual({ browser: 'Edge', system: 'Windows' });
    expect(deviceOfNavigator({ userAgentData: { brands: [{ brand: 'Chromium' }], platform: 'Linux' } })).toEqual({ browser: 'Chromium', system: 'Linux' });
    // What the hints leave out comes from the string.
    expect(deviceOfNavigator({ userAgent: CHROME_LINUX, userAgentData: { brands: [], platform: '' } })).toEqual({ browser: 'Chrome', system: 'Linux' });
  });

  it('names a passkey after the browser, the system and the day', () => {
    expect(defaultPasskeyName(DAY, { userAgent: CHROME_LINUX })).toBe('Chrome on Linux · 28 Nov 2026');
    expect(defaultPasskeyName(DAY, { userAgentData: { brands: [{ brand: 'Google Chrome' }, { brand: 'Chromium' }], platform: 'macOS' } })).toBe(
      'Chrome on macOS · 28 Nov 2026',
    );
    expect(defaultPasskeyName(new Date('2026-09-03T12:00:00Z'), { userAgent: SAFARI_MAC })).toBe('Safari on macOS · 3 Sep 2026');
    expect(defaultPasskeyName(DAY, { userAgent: 'curl/8.0' })).toBe('Passkey · 28 Nov 2026');
    const long = defaultPasskeyName(DAY, { userAgentData: { brands: [{ brand: 'B'.repeat(80) }], platform: 'Linux' } });
    expect([...long]).toHaveLength(PASSKEY_NAME_MAX);
    expect(long.endsWith(' · 28 Nov 2026')).toBe(true);
  });
});
