import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { AlertJson } from '@paygate/gen/gateway/v1/watchlists_pb';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { transactionsLoader } from '../../../testing/fixtures';

const alert = (id: number, over: Partial<AlertJson> = {}): AlertJson => ({
  id: String(id),
  watchlistId: '7',
  watchlistName: 'Pending withdrawals',
  metric: 'count',
  comparison: 'above',
  threshold: '50',
  value: String(50 + id),
  windowMinutes: 15,
  query: 'transactionStatusesFilter=3',
  raisedUtc: '2026-11-20T10:00:00Z',
  ...over,
});

describe('Alerts page (issue 29)', () => {
  it('lists the alerts newest first, pages on, links to the transactions and acknowledges', async () => {
    const seen: URL[] = [];
    const acked: string[] = [];
    server.use(
      http.get(`${GATEWAY}/api/v1/alerts`, ({ request }) => {
        const url = new URL(request.url);
        seen.push(url);
        if (url.searchParams.get('pageToken') === 'next')
          return HttpResponse.json({ alerts: [alert(1, { acknowledgedUtc: '2026-11-20T11:00:00Z' })], nextPageToken: '', unacknowledgedCount: '1' });
        return HttpResponse.json({ alerts: [alert(3), alert(2, { acknowledgedUtc: '2026-11-20T11:00:00Z' })], nextPageToken: 'next', unacknowledgedCount: '1' });
      }),
      http.post(`${GATEWAY}/api/v1/alerts/:id/acknowledge`, ({ params }) => {
        acked.push(String(params.id));
        return HttpResponse.json({ alert: alert(3, { acknowledgedUtc: '2026-11-20T12:00:00Z' }) });
      }),
    );
    const { user } = renderApp('/alerts', { user: ADMIN, loader: transactionsLoader() });
    const row3 = await screen.findByTestId('alert-3', {}, { timeout: 15_000 });
    expect(within(row3).getByText('Pending withdrawals: 53 is above 50 (last 15 min)')).toBeInTheDocument();
    expect(within(row3).getByText('New')).toBeInTheDocument();
    expect(within(row3).getByRole('link', { name: 'Open transactions' })).toHaveAttribute('href', '/transactions?transactionStatusesFilter=3');
    expect(within(screen.getByTestId('alert-2')).getByText('Acknowledged')).toBeInTheDocument();
    expect(screen.getByText('1 not acknowledged')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Show more' }));
    expect(await screen.findByTestId('alert-1')).toBeInTheDocument();
    expect(seen.at(-1)!.searchParams.get('pageToken')).toBe('next');
    await user.click(within(row3).getByRole('button', { name: 'Acknowledge Pending withdrawals alert' }));
    await waitFor(() => expect(acked).toEqual(['3']));
  });

  it('says when there is nothing to show', async () => {
    renderApp('/alerts', { user: ADMIN, loader: transactionsLoader() });
    expect(await screen.findByText(/No alerts yet/, {}, { timeout: 15_000 })).toBeInTheDocument();
  });

  it('says when the alerts could not be loaded', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/alerts`, () => HttpResponse.json({ code: 'internal', message: 'Something went wrong.' }, { status: 500 })));
    renderApp('/alerts', { user: ADMIN, loader: transactionsLoader() });
    expect(await screen.findByRole('alert', {}, { timeout: 15_000 })).toHaveTextContent('The alerts could not be loaded');
  });
});
