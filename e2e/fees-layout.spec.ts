/**
 * Fees at 1,024 × 768 (issue 25): every filter shows its whole text, and the table's Edit and
 * Delete buttons and its Status badges are in view without scrolling sideways.
 *
 * Run with the rest of the suite: `npm run e2e` against a fresh stack (deploy/local/e2e.sh).
 *
 * ASSUMPTION: a demo stack (see console.spec.ts) with the demo's global fees, which an admin may
 * edit and delete. The test only reads.
 */
import { expect, test, type Page } from '@playwright/test';

const DEMO_PASSWORD = 'paygate-demo';
const WIDTH = 1024;

test.use({ viewport: { width: WIDTH, height: 768 } });

async function signIn(page: Page) {
  await page.goto('/login');
  await page.getByLabel('Username').fill('admin');
  await page.getByLabel('Password', { exact: true }).fill(DEMO_PASSWORD);
  await page.getByRole('button', { name: 'Login' }).click();
  await expect(page).not.toHaveURL(/\/login/);
}

/** Clipped names a control that is not wholly in view, or whose text does not fit it. */
interface Clipped {
  name: string;
  why: string;
}

test('at 1,024 px the fee filters fit and every row keeps its Edit and Delete buttons in view', async ({ page }) => {
  await signIn(page);
  await page.goto('/fees');
  await expect(page.getByRole('heading', { name: 'Fees' })).toBeVisible();
  const table = page.getByRole('table', { name: 'Fees' });
  await expect(table.getByRole('button', { name: /^Delete fee \d+$/ }).first()).toBeVisible();
  await expect(page.getByRole('search', { name: 'Fee filters' }).getByRole('combobox')).toHaveCount(5);

  const clipped = await page.evaluate((width) => {
    const out: Clipped[] = [];
    const canvas = document.createElement('canvas').getContext('2d')!;
    /** inView: the element lies inside the window's width and inside every box that clips it. */
    const inView = (el: Element, name: string) => {
      const r = el.getBoundingClientRect();
      if (r.width === 0) return out.push({ name, why: 'not laid out' });
      if (r.left < 0 || r.right > width) return out.push({ name, why: `spans ${Math.round(r.left)}–${Math.round(r.right)} px of a ${width} px window` });
      for (let p = el.parentElement; p; p = p.parentElement) {
        const s = getComputedStyle(p);
        if (s.overflowX === 'visible') continue;
        const b = p.getBoundingClientRect();
        if (r.left < b.left - 0.5 || r.right > b.right + 0.5) return out.push({ name, why: `cut off by its scroll box (${Math.round(b.left)}–${Math.round(b.right)} px)` });
      }
      return 0;
    };
    const filters = document.querySelector('[role="search"][aria-label="Fee filters"]')!;
    for (const sel of filters.querySelectorAll('select')) {
      const name = sel.getAttribute('aria-label') ?? 'select';
      inView(sel, `filter ${name}`);
      // The text of the chosen option (and of every other) must fit between the select's paddings.
      const s = getComputedStyle(sel);
      canvas.font = s.font;
      const widest = Math.max(...[...sel.options].map((o) => canvas.measureText(o.text).width));
      const room = sel.clientWidth - parseFloat(s.paddingLeft) - parseFloat(s.paddingRight);
      if (widest > room + 0.5) out.push({ name: `filter ${name}`, why: `${Math.round(room)} px for text ${Math.round(widest)} px wide` });
    }
    for (const b of filters.querySelectorAll('button')) inView(b, `filter button ${b.textContent}`);
    for (const b of document.querySelectorAll('table[aria-label="Fees"] button')) inView(b, b.getAttribute('aria-label') ?? 'button');
    // With the demo's fees the whole table fits: nothing, the Status column included, hides under the Actions.
    const rows = [...document.querySelectorAll('table[aria-label="Fees"] tbody tr')];
    rows.forEach((row, i) => {
      const badge = row.children[9]?.firstElementChild;
      const actions = row.lastElementChild;
      if (!badge || !actions) return out.push({ name: `row ${i + 1}`, why: 'has no Status or Actions cell' });
      inView(badge, `Status of row ${i + 1}`);
      const under = badge.getBoundingClientRect().right - actions.getBoundingClientRect().left;
      if (under > 0.5) out.push({ name: `Status of row ${i + 1}`, why: `${Math.round(under)} px under the Actions column` });
      return 0;
    });
    if (document.documentElement.scrollWidth > width) out.push({ name: 'page', why: `${document.documentElement.scrollWidth} px wide` });
    return out;
  }, WIDTH);
  await page.screenshot({ path: test.info().outputPath('fees-1024.png'), fullPage: true });
  expect(clipped, clipped.map((c) => `${c.name}: ${c.why}`).join('\n')).toEqual([]);
});
