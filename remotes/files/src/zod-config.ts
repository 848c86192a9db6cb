import { config } from 'zod';

// Zod compiles fast object parsers with `new Function` after probing whether eval is allowed. The
// console's Content-Security-Policy has no 'unsafe-eval', and the browser reports even the caught
// probe as a violation, so the interpreted parsers are used (zod keeps this setting on globalThis,
// shared by every copy of zod on the page).
config({ jitless: true });
