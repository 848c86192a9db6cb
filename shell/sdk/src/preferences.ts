import { useSyncExternalStore } from 'react';
import { readStored, writeStored, type StorageKey } from './storage';
import { DEFAULT_TIMEZONE, timezoneByValue } from './timezone';

/** Preference is one stored setting that components watch. */
export interface Preference<T> {
  get(): T;
  set(value: T): void;
  subscribe(listener: () => void): () => void;
}

/**
 * preference binds a stored value. It is read from storage on every get, so
 * storage stays the single source of truth; T is a primitive, so repeated
 * reads compare equal as useSyncExternalStore requires.
 */
function preference<T extends string | number | boolean | null>(
  key: StorageKey,
  parse: (raw: string | null) => T,
  serialize: (v: T) => string | null,
): Preference<T> {
  const listeners = new Set<() => void>();
  return {
    get: () => parse(readStored(key)),
    set(next) {
      writeStored(key, serialize(next));
      listeners.forEach((l) => l());
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** usePreference reads a preference and re-renders when it changes. */
export function usePreference<T>(p: Preference<T>): [T, (v: T) => void] {
  return [useSyncExternalStore(p.subscribe, p.get, p.get), p.set];
}

/** The theme, stored as a flag (`darkMode` = 'true'); light by default. */
export const darkMode = preference<boolean>(
  'darkMode',
  (raw) => raw === 'true',
  (v) => String(v),
);

/** The selected timezone's zone id; UTC by default. */
export const selectedTimezone = preference<string>(
  'selectedTimezone',
  (raw) => timezoneByValue(raw ?? DEFAULT_TIMEZONE).value,
  (v) => v,
);

/** The selected merchant filter (a merchant id), or null for none. */
export const selectedMerchant = preference<number | null>(
  'selectedMerchant',
  (raw) => {
    const n = raw === null ? NaN : Number(raw);
    return Number.isInteger(n) ? n : null;
  },
  (v) => (v === null ? null : String(v)),
);

/** The Financial Dashboard's auto-refresh switch, stored as a flag; off by default. */
export const dashboardAutoRefresh = preference<boolean>(
  'dashboardAutoRefresh',
  (raw) => raw === 'true',
  (v) => (v ? 'true' : null),
);

/** useTimezone returns the selected zone id and its setter. */
export const useTimezone = () => usePreference(selectedTimezone);

/** useDarkMode returns the theme flag and its setter. */
export const useDarkMode = () => usePreference(darkMode);

/** useSelectedMerchant returns the merchant filter and its setter. */
export const useSelectedMerchant = () => usePreference(selectedMerchant);

/** useDashboardAutoRefresh returns the dashboard's auto-refresh flag and its setter. */
export const useDashboardAutoRefresh = () => usePreference(dashboardAutoRefresh);
