import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { renderApp } from '@paygate/devkit/testing';
import type { TestUser } from '@paygate/devkit/testing/tokens';

const MERCHANTS = [
  { id: 1, name: 'Acme Games', hash: 'h1' },
  { id: 2, name: 'Blue Harbor Shop', hash: 'h2' },
  { id: 3, name: 'Cobalt Travel', hash: 'h3' },
];

function merchantsAnswer(list = MERCHANTS) {
  server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(list)));
}

function navLabels() {
  const nav = screen.getByRole('navigation', { name: 'Main' });
  return within(nav)
    .getAllByRole('link')
    .map((a) => a.textContent);
}

async function renderAs(user: TestUser, path = '/account-security') {
  const view = renderApp(path, { user });
  await screen.findByText(`Screen ${path}`);
  return view;
}

describe('Sidebar (spec 01 §2)', () => {
  it('shows the title, the signed-in user and every entry an admin may see', async () => {
    merchantsAnswer();
    await renderAs({ username: 'admin', roles: ['Admin'] });
    expect(screen.getByRole('heading', { name: 'Paygate' })).toBeInTheDocument();
    expect(screen.getByText('Logged in as')).toHaveTextContent('Logged in as admin');
    expect(navLabels()).toEqual([
      'Dashboard',
      'Providers',
      'Balances',
      'Transactions',
      'Radar',
      'Files',
      'Callbacks',
      'Validation Endpoints',
      'Fraud Management',
      'Fee Management',
      'Credentials',
      'Jobs',
      'Settings',
      'Create Transaction',
      'Approvals',
      'Alerts',
      'Account Security',
    ]);
    expect(screen.getByRole('link', { name: 'Documentation' })).toHaveAttribute('href', '/docs/');
    // Admin has no merchant ids: no merchant dropdown.
    expect(screen.queryByLabelText('Current Merchant')).not.toBeInTheDocument();
  });

  it('shows a merchant user the entries of their permissions whose routes let them in', async () => {
    merchantsAnswer([MERCHANTS[0]!]);
    await renderAs({ username: 'merchant', roles: ['Merchant'], merchantIds: [1] });
    // Callbacks and Validation Endpoints are for Admin and Merchant Admin (their routes, spec 01 §2).
    expect(navLabels()).toEqual(['Dashboard', 'Providers', 'Balances', 'Transactions', 'Radar', 'Files', 'Fee Management', 'Approvals', 'Alerts', 'Account Security']);
    expect(screen.getByRole('link', { name: 'Documentation' })).toBeInTheDocument();
  });

  it('shows Change Password only with Edit User and a temporary password, and nothing the server refuses until it is changed', async () => {
    merchantsAnswer([MERCHANTS[0]!]);
    await renderAs({ username: 'newcomer', roles: ['Merchant Admin'], merchantIds: [1], isTemporaryPassword: true }, '/change-password');
    expect(navLabels()).toEqual(['Change Password']);
  });

  it('hides Documentation from users who are neither admin nor merchant', async () => {
    merchantsAnswer();
    await renderAs({ username: 'support', roles: ['Support'] });
    expect(screen.queryByRole('link', { name: 'Documentation' })).not.toBeInTheDocument();
    expect(navLabels()).not.toContain('Callbacks');
    expect(navLabels()).toContain('Jobs');
  });

  it('shows the Current Merchant dropdown with the merchants as "name (id)" and keeps a stored choice among them', async () => {
    localStorage.setItem('selectedMerchant', '2');
    merchantsAnswer();
    await renderAs({ username: 'support', roles: ['Support'], merchantIds: [1, 2, 3] });
    const select = screen.getByLabelText('Current Merchant');
    await waitFor(() => expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Acme Games (1)', 'Blue Harbor Shop (2)', 'Cobalt Travel (3)']));
    expect(select).toHaveValue('2');
  });

  it('replaces a stored choice that is not among the merchants with the first, and stores the pick', async () => {
    localStorage.setItem('selectedMerchant', '9');
    merchantsAnswer(MERCHANTS.slice(1));
    const { user } = await renderAs({ username: 'merchant-admin', roles: ['Merchant Admin'], merchantIds: [2, 3] });
    const select = screen.getByLabelText('Current Merchant');
    await waitFor(() => expect(select).toHaveValue('2'));
    expect(localStorage.getItem('selectedMerchant')).toBe('2');
    await user.selectOptions(select, '3');
    expect(localStorage.getItem('selectedMerchant')).toBe('3');
  });

  it('offers 25 timezones, UTC by default, and stores the choice', async () => {
    merchantsAnswer();
    const { user } = await renderAs({ roles: ['Admin'] });
    const select = screen.getByLabelText('Timezone');
    const options = within(select).getAllByRole('option');
    expect(options).toHaveLength(25);
    expect(options[0]).toHaveTextContent('UTC-12');
    expect(options[24]).toHaveTextContent('UTC+12');
    expect(select).toHaveValue('UTC');
    await user.selectOptions(select, 'Etc/GMT-8');
    expect(localStorage.getItem('selectedTimezone')).toBe('Etc/GMT-8');
  });

  it('toggles light/dark (light by default) and stores the flag', async () => {
    merchantsAnswer();
    const { user } = await renderAs({ roles: ['Admin'] });
    expect(document.documentElement).not.toHaveClass('dark');
    await user.click(screen.getByRole('button', { name: 'Dark mode' }));
    expect(localStorage.getItem('darkMode')).toBe('true');
    expect(document.documentElement).toHaveClass('dark');
    await user.click(screen.getByRole('button', { name: 'Light mode' }));
    expect(localStorage.getItem('darkMode')).toBe('false');
    expect(document.documentElement).not.toHaveClass('dark');
  });

  it('logs out through the server and returns to /login, even when that call fails', async () => {
    merchantsAnswer();
    let called = false;
    server.use(
      http.post(`${AUTH}/api/v1/logout`, () => {
        called = true;
        return HttpResponse.json({ code: 'internal', message: 'down' }, { status: 500 });
      }),
    );
    const { user, router } = await renderAs({ username: 'admin', roles: ['Admin'] });
    await user.click(screen.getByRole('button', { name: 'Logout' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
    expect(called).toBe(true);
    expect(localStorage.getItem('accessToken')).toBeNull();
    expect(localStorage.getItem('refreshToken')).toBeNull();
  });

  it('counts the pending approvals the user may decide beside Approvals, and asks again every 15 s', async () => {
    merchantsAnswer();
    let answer = 3;
    let asked = 0;
    server.use(
      http.get(`${AUTH}/api/v1/approvals/pending-count`, () => {
        asked += 1;
        return HttpResponse.json({ count: answer });
      }),
    );
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      await renderAs({ username: 'admin', roles: ['Admin'] });
      const link = await screen.findByRole('link', { name: 'Approvals 3 pending approvals' });
      expect(link).toHaveAttribute('href', '/approvals');
      // The digits are for the eye; the words are for assistive technology.
      expect(within(link).getByText('3')).toHaveAttribute('aria-hidden', 'true');
      expect(within(link).getByText('3 pending approvals')).toBeInTheDocument();
      answer = 1;
      await act(() => vi.advanceTimersByTimeAsync(15_000));
      expect(await screen.findByRole('link', { name: 'Approvals 1 pending approval' })).toBeInTheDocument();
      answer = 0;
      await act(() => vi.advanceTimersByTimeAsync(15_000));
      await waitFor(() => expect(screen.getByRole('link', { name: 'Approvals' })).toBeInTheDocument());
      expect(screen.getByRole('link', { name: 'Approvals' }).querySelector('[data-part="pending-approvals"]')).toBeNull();
      expect(asked).toBeGreaterThanOrEqual(3);
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows no badge when the count fails', async () => {
    merchantsAnswer([MERCHANTS[0]!]);
    let asked = 0;
    server.use(
      http.get(`${AUTH}/api/v1/approvals/pending-count`, () => {
        asked += 1;
        return HttpResponse.json({ code: 'internal', message: 'down' }, { status: 500 });
      }),
    );
    await renderAs({ username: 'merchant', roles: ['Merchant'], merchantIds: [1] });
    await waitFor(() => expect(asked).toBe(1));
    expect(screen.getByRole('link', { name: 'Approvals' })).toBeInTheDocument();
  });

  it('does not ask for the count with a temporary password (the server would refuse it)', async () => {
    merchantsAnswer([MERCHANTS[0]!]);
    let asked = 0;
    server.use(
      http.get(`${AUTH}/api/v1/approvals/pending-count`, () => {
        asked += 1;
        return HttpResponse.json({ count: 2 });
      }),
    );
    await renderAs({ username: 'newcomer', roles: ['Merchant Admin'], merchantIds: [1], isTemporaryPassword: true }, '/change-password');
    expect(navLabels()).toEqual(['Change Password']);
    expect(asked).toBe(0);
  });

  it('marks the current entry and works from the keyboard', async () => {
    merchantsAnswer();
    const { user, router } = await renderAs({ roles: ['Admin'] }, '/files');
    expect(screen.getByRole('link', { name: 'Files' })).toHaveAttribute('aria-current', 'page');
    screen.getByRole('link', { name: 'Jobs' }).focus();
    await user.keyboard('{Enter}');
    await waitFor(() => expect(router.state.location.pathname).toBe('/jobs'));
  });
});

/**
 * declarationsAt returns the CSS declarations of the page's stylesheets that
 * apply to el in a viewport px wide (jsdom's getComputedStyle ignores media
 * queries; Chakra writes its responsive styles as min-width queries).
 */
function declarationsAt(el: Element, px: number): Record<string, string> {
  const out: Record<string, string> = {};
  const applies = (media: string) =>
    [...media.matchAll(/min-width:\s*([\d.]+)(rem|em|px)/g)].every(([, n, unit]) => px >= Number(n) * (unit === 'px' ? 1 : 16)) &&
    ![...media.matchAll(/max-width/g)].length;
  const walk = (rules: CSSRuleList) => {
    for (const rule of Array.from(rules)) {
      if (rule instanceof CSSMediaRule) {
        if (applies(rule.conditionText ?? rule.media.mediaText)) walk(rule.cssRules);
      } else if (rule instanceof CSSStyleRule) {
        let matches = false;
        try {
          matches = el.matches(rule.selectorText);
        } catch {
          // A selector jsdom does not know applies to nothing here.
        }
        if (!matches) continue;
        for (const name of Array.from(rule.style)) out[name] = rule.style.getPropertyValue(name);
      }
    }
  };
  for (const sheet of Array.from(document.styleSheets)) walk(sheet.cssRules);
  return out;
}

describe('Sidebar layout (issue 25)', () => {
  it('stays in view on a desktop, the viewport high, its entries scrolling on their own above a foot with Logout', async () => {
    merchantsAnswer();
    await renderAs({ username: 'admin', roles: ['Admin'] });
    const aside = screen.getByRole('complementary');
    expect(declarationsAt(aside, 1440)).toMatchObject({ position: 'sticky', top: '0', height: '100vh', 'align-self': 'flex-start' });
    // The entries scroll inside the sidebar; the theme switch and Logout stay below them, always in view.
    const nav = screen.getByRole('navigation', { name: 'Main' });
    const body = aside.querySelector('[data-part="sidebar-body"]');
    const foot = aside.querySelector('[data-part="sidebar-foot"]');
    expect(body?.contains(nav)).toBe(true);
    expect(declarationsAt(body!, 1440)).toMatchObject({ 'overflow-y': 'auto', 'min-height': '0', flex: '1' });
    expect(foot?.contains(screen.getByRole('button', { name: 'Logout' }))).toBe(true);
    expect(foot?.contains(screen.getByRole('button', { name: 'Dark mode' }))).toBe(true);
    expect(declarationsAt(foot!, 1440)['flex-shrink']).toBe('0');
    // The screen beside it is not a box of its own: the page scrolls it.
    expect(declarationsAt(screen.getByRole('main'), 1440)['overflow-y']).toBeUndefined();
  });

  it('heads the page on a phone and scrolls with it', async () => {
    merchantsAnswer();
    await renderAs({ username: 'admin', roles: ['Admin'] });
    const aside = screen.getByRole('complementary');
    const phone = declarationsAt(aside, 375);
    expect(phone.position).toBeUndefined();
    expect(phone.height).toBeUndefined();
    expect(declarationsAt(aside.querySelector('[data-part="sidebar-body"]')!, 375)['overflow-y']).toBeUndefined();
  });
});
