// Names of browsers and systems, for the Device column of the sessions table
// and the default name of a new passkey.

/** DeviceParts is the browser and the system a user agent names, when it names them. */
export interface DeviceParts {
  browser?: string;
  system?: string;
}

// Order matters: Edge and Opera also say Chrome, Chrome also says Safari.
const BROWSERS: [RegExp, string][] = [
  [/Edg(e|A|iOS)?\//, 'Edge'],
  [/OPR\/|Opera/, 'Opera'],
  [/Firefox\/|FxiOS\//, 'Firefox'],
  [/Chrome\/|CriOS\//, 'Chrome'],
  [/Version\/[\d.]+.*Safari\//, 'Safari'],
];

const SYSTEMS: [RegExp, string][] = [
  [/Windows NT/, 'Windows'],
  [/iPhone|iPad|iPod/, 'iOS'],
  [/Android/, 'Android'],
  [/Mac OS X|Macintosh/, 'macOS'],
  [/CrOS/, 'ChromeOS'],
  [/Linux/, 'Linux'],
];

const find = (text: string, table: [RegExp, string][]) => table.find(([re]) => re.test(text))?.[1];

/** deviceOfUserAgent reads the browser and the system of a user agent string. */
export function deviceOfUserAgent(userAgent: string | undefined): DeviceParts {
  const ua = (userAgent ?? '').trim();
  return { browser: find(ua, BROWSERS), system: find(ua, SYSTEMS) };
}

/** The part of User-Agent Client Hints (navigator.userAgentData) read here; not in every browser. */
interface UserAgentData {
  brands?: readonly { brand: string; version?: string }[];
  platform?: string;
}

/** NavigatorLike is what deviceOfNavigator reads of a navigator. */
export interface NavigatorLike {
  userAgent?: string;
  userAgentData?: UserAgentData;
}

// Client Hints brand names, as the console names them elsewhere.
const BRANDS: Record<string, string> = { 'Google Chrome': 'Chrome', 'Microsoft Edge': 'Edge', 'Opera GX': 'Opera' };
const PLATFORMS: Record<string, string> = { 'Chrome OS': 'ChromeOS', 'Mac OS X': 'macOS' };

/**
 * deviceOfNavigator reads the browser and the system of this browser: from
 * navigator.userAgentData when present (its brands, leaving out the GREASE
 * "Not A Brand" entries and Chromium when a browser built on it is named),
 * otherwise, and for what the hints leave out, from the user agent string.
 */
export function deviceOfNavigator(nav: NavigatorLike | undefined = typeof navigator === 'undefined' ? undefined : navigator): DeviceParts {
  const fromString = deviceOfUserAgent(nav?.userAgent);
  const data = nav?.userAgentData;
  const brands = (data?.brands ?? []).map((b) => b.brand.trim()).filter((b) => b && !/not.?a.?brand/i.test(b));
  const brand = brands.find((b) => b !== 'Chromium') ?? brands[0];
  const platform = data?.platform?.trim();
  return {
    browser: brand ? (BRANDS[brand] ?? brand) : fromString.browser,
    system: platform ? (PLATFORMS[platform] ?? platform) : fromString.system,
  };
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** The longest passkey name the auth service takes (docs/contracts-passkeys.md). */
export const PASSKEY_NAME_MAX = 64;

/**
 * defaultPasskeyName names a new passkey after this browser, its system and
 * the day, in the device's own calendar: "Chrome on Linux · 28 Nov 2026"
 * ("Passkey · 28 Nov 2026" when the browser names neither). It fits the
 * service's 64 characters.
 */
export function defaultPasskeyName(now: Date = new Date(), nav?: NavigatorLike): string {
  const { browser, system } = nav === undefined ? deviceOfNavigator() : deviceOfNavigator(nav);
  const device = browser && system ? `${browser} on ${system}` : (browser ?? system ?? 'Passkey');
  const day = `${now.getDate()} ${MONTHS[now.getMonth()]} ${now.getFullYear()}`;
  const tail = ` · ${day}`;
  return `${[...device].slice(0, PASSKEY_NAME_MAX - tail.length).join('')}${tail}`;
}
