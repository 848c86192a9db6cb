import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { bulkRunsHandler, callbackRetriesHandler, jobsLoader, jobStatsHandler } from '../../../testing/jobs';

const run = (over: Record<string, unknown>) => ({
  id: '7',
  action: 'markFailed',
  state: 'running',
  reason: 'stuck at the provider',
  createdBy: { userId: '1', username: 'admin' },
  total: '200',
  processed: '100',
  applied: '95',
  skipped: '5',
  failed: '0',
  lastError: '',
  throughputPerSecond: 1234.4,
  ...over,
});

describe('Bulk runs on the Jobs page', () => {
  it('shows progress, throughput and errors, and pauses and cancels after confirming', async () => {
    const calls: string[] = [];
    server.use(
      jobStatsHandler(),
      callbackRetriesHandler(),
      bulkRunsHandler([run({}), run({ id: '6', state: 'paused', failed: '2', lastError: 'transaction 9: not final' })]),
      http.post(`${GATEWAY}/api/v1/bulk-actions/:id/:verb`, ({ params }) => {
        calls.push(`${params.id}/${params.verb}`);
        return HttpResponse.json({ run: run({ id: params.id, state: params.verb === 'pause' ? 'paused' : 'cancelled' }) });
      }),
    );
    const view = renderApp('/jobs', { user: ADMIN, loader: jobsLoader() });
    const row = await screen.findByTestId('bulk-run-7', {}, { timeout: 15_000 });
    expect(row).toHaveTextContent('Mark failed');
    expect(row).toHaveTextContent('100 / 200 · 95 applied · 5 skipped');
    expect(row).toHaveTextContent('1,234/s');
    expect(screen.getByTestId('bulk-run-6')).toHaveTextContent('transaction 9: not final');
    await view.user.click(within(row).getByRole('button', { name: 'Pause' }));
    await waitFor(() => expect(calls).toEqual(['7/pause']));
    await view.user.click(within(screen.getByTestId('bulk-run-6')).getByRole('button', { name: 'Cancel' }));
    const dialog = await screen.findByRole('alertdialog', {}, { timeout: 5_000 }).catch(() => screen.findByRole('dialog'));
    await view.user.click(within(dialog).getByRole('button', { name: 'Cancel run' }));
    await waitFor(() => expect(calls).toEqual(['7/pause', '6/cancel']));
  });

  it('says when there are no runs', async () => {
    server.use(jobStatsHandler(), bulkRunsHandler([]), callbackRetriesHandler([]));
    renderApp('/jobs', { user: ADMIN, loader: jobsLoader() });
    expect(await screen.findByText(/No bulk runs yet/, {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(await screen.findByText(/No callback retries yet/)).toBeInTheDocument();
  });

  it("lists the callbacks service's retries beside them, and resumes one", async () => {
    const calls: string[] = [];
    server.use(
      jobStatsHandler(),
      bulkRunsHandler([]),
      callbackRetriesHandler([
        {
          id: '12',
          state: 'paused',
          reason: 'receiver was down',
          createdBy: 'ops',
          total: '40',
          processed: '10',
          retried: '9',
          skipped: '1',
          throughputPerSecond: 20,
        },
      ]),
      http.post(`${GATEWAY}/api/v1/callback-retries/:id/:verb`, ({ params }) => {
        calls.push(`${params.id}/${params.verb}`);
        return HttpResponse.json({ run: { id: params.id, state: 'queued' } });
      }),
    );
    const view = renderApp('/jobs', { user: ADMIN, loader: jobsLoader() });
    const row = await screen.findByTestId('callback-retry-12', {}, { timeout: 15_000 });
    expect(row).toHaveTextContent('Retry failed callbacks');
    expect(row).toHaveTextContent('receiver was down — ops');
    expect(row).toHaveTextContent('10 / 40 · 9 applied · 1 skipped');
    expect(within(row).getByRole('progressbar', { name: 'Progress of callback retry 12' })).toHaveAttribute('aria-valuenow', '25');
    await view.user.click(within(row).getByRole('button', { name: 'Resume' }));
    await waitFor(() => expect(calls).toEqual(['12/resume']));
  });
});
