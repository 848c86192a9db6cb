import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER } from '@paygate/devkit/testing/tokens';
import type { ListRadarSlasResponseJson, ListRadarTransactionsResponseJson, RadarSlaJson, RadarTransactionJson } from '@paygate/gen/gateway/v1/radar_pb';
import { describe, expect, it } from 'vitest';
import { baseHandlers, transactionsLoader } from '../../../testing/fixtures';
import { formatSeconds } from '../utils/radar';

function row(id: number, over: Partial<RadarTransactionJson> = {}): RadarTransactionJson {
  return {
    id: String(id),
    referenceId: `REF-${id}`,
    merchantId: 1,
    merchantName: 'Acme Games',
    collabId: 1,
    providerId: 1,
    providerName: 'GoVip',
    payTypeId: 1,
    payTypeName: 'GCash',
    transactionType: 1,
    status: 3,
    statusName: 'Pending',
    amount: '100.00',
    currency: 'PHP',
    providerTransactionId: `P-${id}`,
    createdUtc: '2026-11-20T09:00:00Z',
    ageSeconds: '3900',
    slaId: '1',
    slaSeconds: '1800',
    lateSeconds: '2100',
    providerStatus: { state: 'pending', message: 'Still pending.', checkedUtc: '2026-11-20T10:05:00Z', cached: false },
    mismatch: false,
    ...over,
  };
}

const DEFAULT_SLA: RadarSlaJson = { id: '1', transactionType: 0, overdueAfterSeconds: '1800', isDefault: true, updatedUtc: '2026-11-01T00:00:00Z' };
const GOVIP_SLA: RadarSlaJson = { id: '2', providerId: 1, providerName: 'GoVip', transactionType: 1, overdueAfterSeconds: '600', updatedUtc: '2026-11-01T00:00:00Z', updatedBy: 'admin' };

interface Seen {
  lists: URL[];
  puts: unknown[];
  deletes: string[];
}

function handlers(seen: Seen, pages: RadarTransactionJson[][], slas: RadarSlaJson[] = [DEFAULT_SLA, GOVIP_SLA]) {
  return [
    ...baseHandlers(),
    http.get(`${GATEWAY}/api/v1/radar/transactions`, ({ request }) => {
      const url = new URL(request.url);
      seen.lists.push(url);
      const i = Number(url.searchParams.get('pageToken') ?? '0');
      const body: ListRadarTransactionsResponseJson = { transactions: pages[i] ?? [], nextPageToken: i + 1 < pages.length ? String(i + 1) : '', asOf: '2026-11-20T10:05:00Z' };
      return HttpResponse.json(body);
    }),
    http.get(`${GATEWAY}/api/v1/radar/slas`, () => HttpResponse.json({ slas } satisfies ListRadarSlasResponseJson)),
    http.put(`${GATEWAY}/api/v1/radar/slas`, async ({ request }) => {
      const body = await request.json();
      seen.puts.push(body);
      return HttpResponse.json({ sla: { ...(body as object), id: '9' } });
    }),
    http.delete(`${GATEWAY}/api/v1/radar/slas/:id`, ({ params }) => {
      seen.deletes.push(String(params.id));
      return HttpResponse.json({});
    }),
  ];
}

const newSeen = (): Seen => ({ lists: [], puts: [], deletes: [] });

describe('Radar page', () => {
  it('lists overdue transactions oldest first with both statuses, a mismatch highlighted, and loads more', async () => {
    const seen = newSeen();
    server.use(
      ...handlers(seen, [
        [row(11, { providerStatus: { state: 'success', message: 'Paid.' }, mismatch: true }), row(12)],
        [row(13, { providerStatus: { state: 'error', message: 'The provider did not answer within 5s.' } })],
      ]),
    );
    const { user } = renderApp('/radar', { user: ADMIN, loader: transactionsLoader() });
    expect(await screen.findByRole('heading', { name: 'Radar' })).toBeInTheDocument();
    const rows = await screen.findAllByTestId('radar-row');
    expect(rows).toHaveLength(2);
    expect(rows[0]).toHaveAttribute('data-mismatch', 'true');
    expect(within(rows[0]!).getByTestId('radar-our-status')).toHaveTextContent('Pending');
    expect(within(rows[0]!).getByTestId('radar-provider-status')).toHaveTextContent('Success');
    expect(within(rows[0]!).getByTestId('radar-mismatch')).toHaveTextContent('Differs from ours');
    expect(within(rows[1]!).queryByTestId('radar-mismatch')).toBeNull();
    expect(within(rows[0]!).getByText('35m')).toBeInTheDocument(); // late by 2100 s
    expect(within(rows[0]!).getByRole('link', { name: 'Open transaction 11' })).toHaveAttribute('href', '/transactions/11');
    expect(screen.getByRole('status')).toHaveTextContent("2+ overdue transactions, 1 where the provider's status differs from ours");
    expect(seen.lists[0]!.searchParams.get('refreshProviderStatus')).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(screen.getAllByTestId('radar-row')).toHaveLength(3));
    expect(seen.lists[1]!.searchParams.get('pageToken')).toBe('1');
    expect(screen.getByText('The provider did not answer within 5s.')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();
  });

  it('asks the providers again on Refresh provider status, and filters', async () => {
    const seen = newSeen();
    server.use(...handlers(seen, [[row(11)]]));
    const { user } = renderApp('/radar', { user: ADMIN, loader: transactionsLoader() });
    await screen.findAllByTestId('radar-row');
    await user.click(screen.getByRole('button', { name: 'Refresh provider status' }));
    await waitFor(() => expect(seen.lists.some((u) => u.searchParams.get('refreshProviderStatus') === 'true')).toBe(true));
    await user.selectOptions(screen.getByLabelText('Direction filter'), '2');
    await user.selectOptions(await screen.findByLabelText('Provider filter'), '3');
    await waitFor(() => {
      const last = seen.lists.at(-1)!.searchParams;
      expect(last.get('transactionType')).toBe('2');
      expect(last.get('providerId')).toBe('3');
      expect(last.get('refreshProviderStatus')).toBeNull();
    });
  });

  it('says when nothing is overdue', async () => {
    server.use(...handlers(newSeen(), [[]]));
    renderApp('/radar', { user: ADMIN, loader: transactionsLoader() });
    expect(await screen.findByText('Nothing is overdue.')).toBeInTheDocument();
  });

  it('adds an SLA and deletes one after asking', async () => {
    const seen = newSeen();
    server.use(...handlers(seen, [[]]));
    const { user } = renderApp('/radar', { user: ADMIN, loader: transactionsLoader() });
    const slaRows = await screen.findAllByTestId('sla-row');
    expect(slaRows).toHaveLength(2);
    expect(within(slaRows[0]!).getByText('Default')).toBeInTheDocument();
    expect(within(slaRows[0]!).queryByRole('button', { name: /Delete/ })).toBeNull();

    await user.click(screen.getByRole('button', { name: 'Add SLA' }));
    const dialog = await screen.findByRole('dialog');
    await user.selectOptions(within(dialog).getByLabelText('SLA provider'), '3');
    await user.selectOptions(within(dialog).getByLabelText('SLA pay type'), '4');
    await user.selectOptions(within(dialog).getByLabelText('SLA direction'), '2');
    const minutes = within(dialog).getByRole('textbox');
    await user.clear(minutes);
    expect(within(dialog).getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.type(minutes, '15');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() => expect(seen.puts).toEqual([{ providerId: 3, payTypeId: 4, transactionType: 2, overdueAfterSeconds: '900' }]));

    await user.click(screen.getByRole('button', { name: 'Delete SLA for GoVip, any pay type, deposit' }));
    const ask = await screen.findByRole('alertdialog');
    expect(seen.deletes).toEqual([]);
    await user.click(within(ask).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(seen.deletes).toEqual(['2']));
  });

  it('shows the SLAs read-only to merchant users', async () => {
    server.use(...handlers(newSeen(), [[row(11)]]));
    renderApp('/radar', { user: MERCHANT_USER, loader: transactionsLoader() });
    expect(await screen.findAllByTestId('sla-row')).toHaveLength(2);
    expect(screen.queryByRole('button', { name: 'Add SLA' })).toBeNull();
    expect(screen.queryByRole('button', { name: /^Edit SLA/ })).toBeNull();
    expect(screen.queryByLabelText('Merchant filter')).toBeNull();
  });

  it('formats durations by their two largest units', () => {
    expect([45, 2100, 3900, 90061, 0].map(formatSeconds)).toEqual(['45s', '35m', '1h 5m', '1d 1h', '0s']);
  });
});
