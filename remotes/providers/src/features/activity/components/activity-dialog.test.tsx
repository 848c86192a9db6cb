import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { listHandlers, providersLoader } from '../../../testing/fixtures';

type Entry = Record<string, unknown>;
const BASE = Date.parse('2025-11-20T12:00:00Z');

/** answer builds the Loki-like answer, newest first; a string entry is sent as is (unparsable). */
function answer(entries: (Entry | string)[]) {
  return {
    status: 'success',
    data: {
      resultType: 'streams',
      result: entries.map((e, i) => ({
        stream: { collabId: '1' },
        values: [[`${BASE - i * 60_000}000000`, typeof e === 'string' ? e : JSON.stringify({ timestamp: new Date(BASE - i * 60_000).toISOString(), ...e })]],
      })),
      stats: {},
    },
  };
}

const LOGS: Entry[] = [
  { Message: 'ATTENTION: maintenance mode enabled', ActionType: 'Configuration', Username: 'admin' },
  {
    Message: 'Limits changed',
    ActionType: 'Limits',
    Username: 'admin',
    MerchantName: 'Acme Games',
    ProviderName: 'GoVip',
    IP: '10.0.0.7',
    OldValue: JSON.stringify({ maximalDepositAmount: '', note: 'short' }),
    NewValue: JSON.stringify({ maximalDepositAmount: '2500.00', note: 'short', memo: 'x'.repeat(60) }),
  },
  { Message: 'Sensitive action performed: pay type removed', ActionType: 'Settings', Username: 'merchant-admin' },
  { Message: 'Collab enabled', ActionType: 'Status', Username: 'background-job' },
  { Message: 'Something else', ActionType: 'Unknown thing', Username: 'autobot' },
];

async function openActivity(respond: () => Response, ...handlers: Parameters<typeof server.use>) {
  const queries: URLSearchParams[] = [];
  server.use(
    http.get(`${GATEWAY}/api/v1/logs/collabs/activity`, ({ request }) => {
      queries.push(new URL(request.url).searchParams);
      return respond();
    }),
    ...handlers,
    ...listHandlers(),
  );
  const view = renderApp('/providers', { user: ADMIN, loader: providersLoader() });
  await screen.findAllByRole('article');
  await view.user.click(screen.getByRole('button', { name: 'Recent Actions' }));
  const dialog = await screen.findByRole('dialog', { name: 'Recent Collab Actions' });
  return { ...view, dialog, queries };
}

const tile = (dialog: HTMLElement, label: string) =>
  within(within(dialog).getByRole('group', { name: 'Activity statistics' })).getByText(label).closest('[data-stat]')?.textContent;
const titles = (dialog: HTMLElement) =>
  within(within(dialog).getByRole('list', { name: 'Actions' }))
    .getAllByRole('listitem')
    .map((li) => li.querySelector('.chakra-timeline__title')?.textContent);

describe('Activity dialog (spec 01 §2)', () => {
  it('asks for the last seven days with a limit', async () => {
    const { queries, dialog } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    const q = queries[0]!;
    const days = (Date.parse(q.get('to')!) - Date.parse(q.get('from')!)) / 86_400_000;
    expect(days).toBeCloseTo(7);
    expect(Number(q.get('limit'))).toBeGreaterThan(0);
  });

  it('shows the tiles classified per spec 01 §4', async () => {
    const { dialog } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    expect(tile(dialog, 'Total')).toBe('Total5');
    expect(tile(dialog, 'User')).toBe('User3');
    expect(tile(dialog, 'System')).toBe('System2');
    expect(tile(dialog, 'Critical')).toBe('Critical1');
    expect(tile(dialog, 'Sensitive')).toBe('Sensitive1');
    expect(titles(dialog)).toEqual(LOGS.map((l) => l.Message));
  });

  it('filters by category, user and severity, and says when nothing matches', async () => {
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    const category = await within(dialog).findByLabelText('Category');
    expect(within(category).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'All categories',
      'Callback URL',
      'Validation Endpoint',
      'Limits',
      'Settings',
      'Credentials',
      'Status',
      'Configuration',
      'Sensitive',
      'Other',
    ]);
    const severity = within(dialog).getByLabelText('Severity');
    expect(within(severity).getAllByRole('option').map((o) => o.textContent)).toEqual(['All severities', 'critical', 'warning', 'normal']);

    await user.selectOptions(category, 'Other');
    expect(titles(dialog)).toEqual(['Something else']);
    await user.selectOptions(category, '');
    await user.selectOptions(within(dialog).getByLabelText('User'), 'admin');
    expect(titles(dialog)).toEqual(['ATTENTION: maintenance mode enabled', 'Limits changed']);
    await user.selectOptions(severity, 'critical');
    expect(titles(dialog)).toEqual(['ATTENTION: maintenance mode enabled']);
    await user.selectOptions(severity, 'warning');
    expect(within(dialog).getByText('No actions found matching the selected filters.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Clear filters' }));
    expect(titles(dialog)).toHaveLength(5);
  });

  it("says 'No activity logs available' when there are none", async () => {
    const { dialog } = await openActivity(() => HttpResponse.json(answer([])));
    expect(await within(dialog).findByText('No activity logs available')).toBeInTheDocument();
  });

  it('shows details and the JSON diff on Show More, long strings expandable', async () => {
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    const item = (await within(dialog).findAllByRole('listitem'))[1]!;
    await user.click(within(item).getByRole('button', { name: 'Show More' }));
    expect(within(item).getByText('10.0.0.7')).toBeInTheDocument();
    const diff = within(item).getByRole('table', { name: 'Changes' });
    const rows = within(diff).getAllByRole('row').slice(1);
    expect(rows.map((r) => [(r as HTMLTableRowElement).cells[0]?.textContent, r.getAttribute('data-changed')])).toEqual([
      ['maximalDepositAmount', 'true'],
      ['note', null],
      ['memo', 'true'],
    ]);
    const memo = rows[2]!;
    expect(within(memo).getByText(`${'x'.repeat(50)}…`)).toBeInTheDocument();
    await user.click(within(memo).getByRole('button', { name: 'Expand' }));
    expect(within(memo).getByText('x'.repeat(60))).toBeInTheDocument();
    await user.click(within(memo).getByRole('button', { name: 'Collapse' }));
    await user.click(within(item).getByRole('button', { name: 'Show Less' }));
    expect(within(item).queryByRole('table')).not.toBeInTheDocument();
  });

  it('pages 25 at a time and shows the paginator only when there are more results than a page', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ Message: `Action ${i + 1}`, ActionType: 'Limits', Username: 'admin' }));
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(many)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    expect(titles(dialog)).toHaveLength(25);
    const nav = within(dialog).getByRole('navigation', { name: 'Pagination' });
    expect(within(nav).getByText('Page 1 of 2')).toBeInTheDocument();
    const size = within(nav).getByRole('combobox', { name: 'Rows per page' });
    expect(within(size).getAllByRole('option').map((o) => o.textContent)).toEqual(['10', '25', '50', '100']);
    await user.click(within(nav).getByRole('button', { name: 'Next' }));
    expect(titles(dialog)).toEqual(['Action 26', 'Action 27', 'Action 28', 'Action 29', 'Action 30']);
    await user.selectOptions(size, '10');
    expect(titles(dialog)).toHaveLength(10);
    expect(within(nav).getByText('Page 1 of 3')).toBeInTheDocument();
    await user.selectOptions(size, '50');
    expect(titles(dialog)).toHaveLength(30);
    expect(within(dialog).queryByRole('navigation', { name: 'Pagination' })).not.toBeInTheDocument();
  });

  it('has no paginator for exactly one page', async () => {
    const page = Array.from({ length: 25 }, (_, i) => ({ Message: `Action ${i + 1}`, ActionType: 'Limits', Username: 'admin' }));
    const { dialog } = await openActivity(() => HttpResponse.json(answer(page)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    expect(within(dialog).queryByRole('navigation', { name: 'Pagination' })).not.toBeInTheDocument();
  });

  it("shows 'Failed to fetch activity logs: {message}' with Retry", async () => {
    let fail = true;
    const { dialog, user } = await openActivity(() =>
      fail ? HttpResponse.json({ code: 'internal', message: 'log store unavailable' }, { status: 500 }) : HttpResponse.json(answer(LOGS)),
    );
    expect(await within(dialog).findByText('Failed to fetch activity logs: log store unavailable')).toBeInTheDocument();
    fail = false;
    await user.click(within(dialog).getByRole('button', { name: 'Retry' }));
    expect(await within(dialog).findByRole('list', { name: 'Actions' })).toBeInTheDocument();
  });

  it("marks unparsable entries 'Failed to parse collab logs' here and 'Failed to parse logs' for a merchant", async () => {
    const { dialog, user } = await openActivity(
      () => HttpResponse.json(answer(['{broken', LOGS[0]!])),
      http.get(`${GATEWAY}/api/v1/logs/merchants/1/collabs/activity`, () => HttpResponse.json(answer(['nope']))),
    );
    expect(await within(dialog).findByText('Failed to parse collab logs')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('tab', { name: 'Acme Games' }));
    await user.click(screen.getByRole('button', { name: 'Recent Actions' }));
    const merchant = await screen.findByRole('dialog', { name: 'Recent Actions - Acme Games' });
    expect(await within(merchant).findByText('Failed to parse logs')).toBeInTheDocument();
  });
});
