// The sign-in page's style sheet (issue 31: /login renders without Chakra UI).
// Its values are the Chakra theme's tokens the page used before, so the page
// looks the same: bg.subtle, bg.panel, border, fg and fg.muted, blue.solid,
// gray.focusRing on inputs and blue.focusRing on buttons, red.subtle/red.fg for an error; Card radius l3, padding 6, gap 5; inputs
// and buttons md (2.5rem high, radius l2). The `dark` class on <html>
// (app/theme.ts) switches the palette, as it does Chakra's.
export const SIGN_IN_CSS = `
.pg-signin {
  --pg-bg: #fafafa; --pg-panel: #ffffff; --pg-border: #e4e4e7; --pg-fg: #000000; --pg-muted-bg: #f4f4f5;
  --pg-solid: #2563eb; --pg-solid-hover: #1d4ed8; --pg-focus: #3b82f6; --pg-input-focus: #a1a1aa;
  --pg-error-bg: #fee2e2; --pg-error-fg: #991919;
  box-sizing: border-box; min-height: 100vh; display: flex; align-items: center; justify-content: center;
  padding: 1rem; background: var(--pg-bg); color: var(--pg-fg);
  font-family: Inter, -apple-system, BlinkMacSystemFont, "Segoe UI", Helvetica, Arial, sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol";
  line-height: 1.5; -webkit-font-smoothing: antialiased;
}
html.dark .pg-signin {
  --pg-bg: #111111; --pg-panel: #111111; --pg-border: #27272a; --pg-fg: #fafafa; --pg-muted-bg: #27272a;
  --pg-error-bg: #300c0c; --pg-error-fg: #fca5a5;
}
body:has(.pg-signin) { margin: 0; }
.pg-signin *, .pg-signin *::before, .pg-signin *::after { box-sizing: border-box; }
.pg-signin-card {
  width: 100%; max-width: 24rem; padding: 1.5rem; background: var(--pg-panel);
  border: 1px solid var(--pg-border); border-radius: 0.375rem;
}
.pg-signin-card form { display: flex; flex-direction: column; gap: 1.25rem; margin: 0; }
.pg-signin-title { margin: 0; text-align: center; font-size: 1.25rem; line-height: 1.875rem; font-weight: 600; }
.pg-signin-field { display: flex; flex-direction: column; gap: 0.375rem; }
.pg-signin-field label { font-size: 0.875rem; line-height: 1.25rem; font-weight: 500; }
.pg-signin-field input {
  height: 2.5rem; padding: 0 0.75rem; font: inherit; font-size: 0.875rem; color: inherit; background: transparent;
  border: 1px solid var(--pg-border); border-radius: 0.25rem; outline: 0;
}
.pg-signin-field input:focus-visible { border-color: var(--pg-input-focus); outline: 1px solid var(--pg-input-focus); }
.pg-signin-button {
  height: 2.5rem; width: 100%; padding: 0 1rem; font: inherit; font-size: 0.875rem; font-weight: 500;
  border-radius: 0.25rem; cursor: pointer;
}
.pg-signin-button:focus-visible { outline: 2px solid var(--pg-focus); outline-offset: 2px; }
.pg-signin-button:disabled { opacity: 0.5; cursor: not-allowed; }
.pg-signin-solid { background: var(--pg-solid); color: #ffffff; border: 1px solid transparent; }
.pg-signin-solid:hover:not(:disabled) { background: var(--pg-solid-hover); }
.pg-signin-outline { background: transparent; color: inherit; border: 1px solid var(--pg-border); }
.pg-signin-outline:hover:not(:disabled) { background: var(--pg-muted-bg); }
.pg-signin-error {
  padding: 0.75rem 1rem; border-radius: 0.375rem; font-size: 0.875rem; line-height: 1.25rem;
  background: var(--pg-error-bg); color: var(--pg-error-fg);
}
.pg-signin-loading { margin: 0; min-height: 2.5rem; }
`;
