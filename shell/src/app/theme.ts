// The theme switch the console applies before anything else loads: light by
// default, dark when the stored preference says so (the SDK's darkMode
// preference, key 'darkMode' of shell/sdk/src/storage.ts). Chakra-free, so
// the signed-out screens can use it.

/** applyTheme sets the color mode class (Chakra's, and the sign-in page's) on the document. */
export function applyTheme(dark: boolean): void {
  const root = document.documentElement;
  root.classList.toggle('dark', dark);
  root.classList.toggle('light', !dark);
  root.style.colorScheme = dark ? 'dark' : 'light';
}

/** storedDarkMode reads the theme preference the way the SDK's darkMode.get() does. */
export function storedDarkMode(): boolean {
  try {
    return globalThis.localStorage?.getItem('darkMode') === 'true';
  } catch {
    return false;
  }
}
