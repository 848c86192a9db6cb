import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { act, render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { SCREENS, selectedTimezone, session } from '@paygate/sdk';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import { beforeEach, describe, expect, it } from 'vitest';
import providersRoutes from '../../../routes';
import { MERCHANTS } from '../../../testing/fixtures';
import { AGGREGATOR, bulkRunsHandler, callbackRetriesHandler, job, JOB_STATS, jobsLoader, jobStatsHandler } from '../../../testing/jobs';
import { JobsPage } from './jobs-page';

const SUPPORT: TestUser = { username: 'support', roles: ['Support'], merchantIds: [1, 2, 3] };

function renderPage(user: TestUser = ADMIN) {
  return renderApp('/jobs', { user, loader: jobsLoader() });
}

/** The shell's merchant filter reads the merchants for non-admins. */
const merchantsHandler = () => http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS));

const card = (name: string) => screen.getByRole('article', { name });
const cardNames = async () => (await screen.findAllByRole('article')).map((c) => within(c).getByRole('heading', { level: 4 }).textContent);
/** detail reads a card's labelled value ('Last run started' → its text). */
function detail(name: string, label: string): string {
  const item = within(card(name)).getByText(label).parentElement!;
  return item.textContent!.slice(label.length);
}

describe('Jobs page (spec 02 §2 "Jobs", §4, §8)', () => {
  // The page also lists the gateway's bulk runs (none here; bulk-runs.test.tsx covers them).
  beforeEach(() => server.use(bulkRunsHandler(), callbackRetriesHandler()));

  it('groups a card per job by service, sorted by service then name, titled Paygate - Jobs', async () => {
    server.use(jobStatsHandler());
    renderPage();
    expect(await cardNames()).toEqual([
      'aggregator.statistics-consumer',
      'auth.session-cleanup',
      'callbacks.delivery-claim',
      'gateway.provider-polling',
      'gateway.totals-fold',
    ]);
    expect(screen.getAllByRole('heading', { level: 3 }).map((h) => h.textContent)).toEqual(['Summary', 'aggregator', 'auth', 'callbacks', 'gateway', 'Bulk actions', 'Callback retries']);
    const gateway = screen.getByRole('region', { name: 'gateway' });
    expect(within(gateway).getAllByRole('article')).toHaveLength(2);
    expect(within(card('gateway.provider-polling')).getByText('Asks providers for the status of pending transactions.')).toBeInTheDocument();
    expect(within(card('gateway.provider-polling')).getByText('Service: gateway · every 2 s')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Jobs'));
  });

  it('sums up total, enabled and running jobs under headings', async () => {
    server.use(jobStatsHandler());
    renderPage();
    await screen.findAllByRole('article');
    const figure = (label: string) => within(screen.getByRole('region', { name: label })).getByRole('heading', { level: 4, name: label }).nextSibling?.textContent;
    expect(figure('Total jobs')).toBe('5');
    expect(figure('Enabled')).toBe('4');
    expect(figure('Running')).toBe('1');
  });

  it('badges each job Running, Idle or Disabled, shows a failed run’s error and warns about a stale job', async () => {
    server.use(jobStatsHandler());
    renderPage();
    await screen.findAllByRole('article');
    const badge = (name: string) => within(card(name)).getByText(/^(Running|Idle|Disabled)$/);
    expect(badge('callbacks.delivery-claim')).toHaveTextContent('Running');
    expect(badge('callbacks.delivery-claim')).toHaveAttribute('data-status', 'running');
    expect(badge('gateway.totals-fold')).toHaveTextContent('Idle');
    expect(badge('auth.session-cleanup')).toHaveTextContent('Disabled');
    expect(badge('auth.session-cleanup')).toHaveAttribute('data-status', 'disabled');

    const failed = card('gateway.provider-polling');
    expect(within(failed).getByText('Last run failed')).toBeInTheDocument();
    expect(within(failed).getByText('poll GoVip transaction 1234: context deadline exceeded')).toBeInTheDocument();
    expect(within(card('gateway.totals-fold')).queryByText('Last run failed')).not.toBeInTheDocument();

    const stale = card('aggregator.statistics-consumer');
    expect(within(stale).getByText('Missed its expected run by more than two intervals')).toBeInTheDocument();
    expect(within(stale).getByText('It is expected every 5 s.')).toBeInTheDocument();
    expect(within(card('gateway.totals-fold')).queryByText(/Missed its expected run/)).not.toBeInTheDocument();
  });

  it('shows the run times in UTC by default and the total runs', async () => {
    server.use(jobStatsHandler());
    renderPage();
    await screen.findAllByRole('article');
    expect(detail('gateway.provider-polling', 'Last run started')).toBe('Mar 10, 2026, 09:59:50 (UTC+0)');
    expect(detail('callbacks.delivery-claim', 'Total runs since startup')).toBe('12,345');
  });

  it('shows the run times in the selected timezone', async () => {
    selectedTimezone.set('Etc/GMT-8');
    server.use(jobStatsHandler());
    renderPage();
    await screen.findAllByRole('article');
    expect(detail('gateway.provider-polling', 'Last run started')).toBe('Mar 10, 2026, 17:59:50 (UTC+8)');
    expect(detail('gateway.provider-polling', 'Last run completed')).toBe('Mar 10, 2026, 17:59:51 (UTC+8)');
    expect(detail('gateway.provider-polling', 'Next run expected')).toBe('Mar 10, 2026, 17:59:52 (UTC+8)');
    // A disabled job is not scheduled; a job that never ran says so.
    expect(detail('auth.session-cleanup', 'Next run expected')).toBe('Not scheduled (disabled)');
    // The sidebar's Timezone dropdown sets the preference; every time follows.
    act(() => selectedTimezone.set('Etc/GMT+5'));
    await waitFor(() => expect(detail('gateway.provider-polling', 'Last run started')).toBe('Mar 10, 2026, 04:59:50 (UTC-5)'));
  });

  it('says Never for a job that has not run yet', async () => {
    server.use(
      jobStatsHandler({
        'gateway.outbox-relay': { enabled: true, service: 'gateway', lastRunStartedUtc: null, lastRunCompletedUtc: null, nextRunExpectedAtUtc: null },
      }),
    );
    renderPage();
    await screen.findAllByRole('article');
    expect(detail('gateway.outbox-relay', 'Last run started')).toBe('Never');
    expect(detail('gateway.outbox-relay', 'Last run completed')).toBe('Never');
    expect(detail('gateway.outbox-relay', 'Next run expected')).toBe('Unknown');
    expect(detail('gateway.outbox-relay', 'Total runs since startup')).toBe('0');
    expect(within(card('gateway.outbox-relay')).getByText('No notifications')).toBeInTheDocument();
  });

  it('expands the notifications, newest first, with level names and colours', async () => {
    selectedTimezone.set('Etc/GMT-8');
    server.use(jobStatsHandler());
    const { user } = renderPage();
    await screen.findAllByRole('article');
    const polling = card('gateway.provider-polling');
    const toggle = within(polling).getByRole('button', { name: 'Show 6 notifications of gateway.provider-polling' });
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(toggle).toHaveTextContent('Notifications (6)');
    expect(within(polling).queryByRole('list')).not.toBeInTheDocument();

    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(toggle).toHaveAccessibleName('Hide 6 notifications of gateway.provider-polling');
    const list = within(polling).getByRole('list', { name: 'Notifications of gateway.provider-polling, newest first' });
    expect(toggle).toHaveAttribute('aria-controls', list.id);
    const items = within(list).getAllByRole('listitem');
    expect(items.map((i) => within(i).getByText(/^(trace|debug|information|warning|error|critical)$/).textContent)).toEqual([
      'critical',
      'error',
      'warning',
      'information',
      'debug',
      'trace',
    ]);
    expect(items.map((i) => i.querySelector('[data-level]')?.getAttribute('data-palette'))).toEqual(['red', 'red', 'orange', 'blue', 'purple', 'gray']);
    expect(items[0]).toHaveTextContent('Run failed');
    expect(items[0]).toHaveTextContent('Mar 10, 2026, 17:59:51 (UTC+8)');
    expect(items[5]).toHaveTextContent('Polling 3 transactions');

    await user.click(toggle);
    expect(toggle).toHaveAttribute('aria-expanded', 'false');
    expect(within(polling).queryByRole('list')).not.toBeInTheDocument();
  });

  it('keeps the last 50 notifications only', async () => {
    const many = Array.from({ length: 60 }, (_, i) => ({
      level: 2,
      dateTimeUtc: new Date(Date.parse('2026-03-10T09:00:00Z') + i * 1000).toISOString(),
      message: `message ${i}`,
    }));
    server.use(jobStatsHandler({ 'gateway.totals-fold': job('gateway.totals-fold', { lastRunNotifications: many }) }));
    const { user } = renderPage();
    await user.click(await screen.findByRole('button', { name: /Show 50 notifications/ }));
    const items = within(screen.getByRole('list', { name: /^Notifications of gateway.totals-fold/ })).getAllByRole('listitem');
    expect(items).toHaveLength(50);
    expect(items[0]).toHaveTextContent('message 59');
    expect(items[49]).toHaveTextContent('message 10');
  });

  it("refreshes on demand and says 'Job statistics refreshed successfully'", async () => {
    let calls = 0;
    server.use(
      http.get(`${AGGREGATOR}/api/v1/jobs/stats`, () => {
        calls += 1;
        return HttpResponse.json(
          calls === 1 ? JOB_STATS : { ...JOB_STATS, 'gateway.totals-fold': job('gateway.totals-fold', { running: true, totalRunsSinceStartup: '3601' }) },
        );
      }),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    expect(calls).toBe(1);
    expect(screen.queryByText('Job statistics refreshed successfully')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Job statistics refreshed successfully')).toBeInTheDocument();
    expect(calls).toBe(2);
    expect(detail('gateway.totals-fold', 'Total runs since startup')).toBe('3,601');
    expect(within(card('gateway.totals-fold')).getByText('Running')).toBeInTheDocument();
  });

  it('shows a load error with the server message, dismissible, and again on a new failure', async () => {
    let fail = true;
    server.use(
      http.get(`${AGGREGATOR}/api/v1/jobs/stats`, () =>
        fail ? HttpResponse.json({ code: 'internal', message: 'The job registry is unavailable.' }, { status: 500 }) : HttpResponse.json(JOB_STATS),
      ),
    );
    const { user } = renderPage();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Failed to load job statistics');
    expect(alert).toHaveTextContent('The job registry is unavailable.');
    expect(screen.queryByText('Job statistics refreshed successfully')).not.toBeInTheDocument();

    await user.click(within(alert).getByRole('button', { name: 'Dismiss error' }));
    await waitFor(() => expect(screen.queryByRole('alert')).not.toBeInTheDocument());
    expect(screen.getByText('The job statistics could not be loaded. Use Refresh to try again.')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('The job registry is unavailable.');

    fail = false;
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Job statistics refreshed successfully')).toBeInTheDocument();
    expect(await screen.findAllByRole('article')).toHaveLength(5);
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('keeps the cards when a refresh fails', async () => {
    let calls = 0;
    server.use(
      http.get(`${AGGREGATOR}/api/v1/jobs/stats`, () => {
        calls += 1;
        return calls === 1 ? HttpResponse.json(JOB_STATS) : HttpResponse.json({ code: 'unavailable', message: 'try later' }, { status: 503 });
      }),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('try later');
    expect(screen.getAllByRole('article')).toHaveLength(5);
  });

  it('says when no job has reported yet', async () => {
    server.use(jobStatsHandler({}));
    renderPage();
    expect(await screen.findByText('No jobs have reported yet')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Total jobs' })).toHaveTextContent('0');
    expect(screen.queryByRole('article')).not.toBeInTheDocument();
  });

  it('lets an admin disable a job after confirming, and updates its card', async () => {
    const calls: { name: string; body: unknown }[] = [];
    server.use(
      jobStatsHandler(),
      http.post(`${AGGREGATOR}/api/v1/jobs/:name/enabled`, async ({ request, params }) => {
        const body = (await request.json()) as { enabled: boolean };
        calls.push({ name: String(params.name), body });
        return HttpResponse.json(job(String(params.name), { enabled: body.enabled, running: false }));
      }),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(within(card('gateway.provider-polling')).getByRole('button', { name: 'Disable gateway.provider-polling' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Disable Job' });
    expect(confirm).toHaveTextContent('Disable gateway.provider-polling? It will not run on any replica until enabled again.');
    expect(calls).toEqual([]);
    await user.click(within(confirm).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('gateway.provider-polling is now disabled')).toBeInTheDocument();
    expect(calls).toEqual([{ name: 'gateway.provider-polling', body: { enabled: false } }]);
    await waitFor(() => expect(within(card('gateway.provider-polling')).getByText('Disabled')).toBeInTheDocument());
    expect(within(card('gateway.provider-polling')).getByRole('button', { name: 'Enable gateway.provider-polling' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Enabled' })).toHaveTextContent('3');

    // Enabling asks too; cancelling sends nothing.
    await user.click(within(card('auth.session-cleanup')).getByRole('button', { name: 'Enable auth.session-cleanup' }));
    let dialog = await screen.findByRole('alertdialog', { name: 'Enable Job' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(calls).toHaveLength(1);
    await user.click(within(card('auth.session-cleanup')).getByRole('button', { name: 'Enable auth.session-cleanup' }));
    dialog = await screen.findByRole('alertdialog', { name: 'Enable Job' });
    await user.click(within(dialog).getByRole('button', { name: 'Enable' }));
    expect(await screen.findByText('auth.session-cleanup is now enabled')).toBeInTheDocument();
    expect(calls[1]).toEqual({ name: 'auth.session-cleanup', body: { enabled: true } });
    await waitFor(() => expect(within(card('auth.session-cleanup')).getByText('Idle')).toBeInTheDocument());
  });

  it('toasts the server message when a switch fails, and leaves the card as it was', async () => {
    server.use(
      jobStatsHandler(),
      http.post(`${AGGREGATOR}/api/v1/jobs/:name/enabled`, () =>
        HttpResponse.json({ code: 'forbidden', message: 'Only an admin may switch jobs.' }, { status: 403 }),
      ),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(within(card('gateway.totals-fold')).getByRole('button', { name: 'Disable gateway.totals-fold' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Disable' }));
    expect(await screen.findByText('Failed to disable gateway.totals-fold')).toBeInTheDocument();
    expect(screen.getByText('Only an admin may switch jobs.')).toBeInTheDocument();
    expect(within(card('gateway.totals-fold')).getByText('Idle')).toBeInTheDocument();
  });

  it('gives users with Jobs Access but not the role Admin no switches', async () => {
    server.use(jobStatsHandler(), merchantsHandler());
    renderPage(SUPPORT);
    await screen.findAllByRole('article');
    expect(screen.queryByRole('button', { name: /^(Enable|Disable)/ })).not.toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Refresh' })).toBeInTheDocument();
  });

  it("tells a user without Jobs Access 'You don't have permission to view this page.'", () => {
    session.signIn(tokensFor(MERCHANT_USER));
    render(
      <ChakraProvider value={defaultSystem}>
        <JobsPage />
      </ChakraProvider>,
    );
    expect(screen.getByText("You don't have permission to view this page.")).toBeInTheDocument();
  });

  it('is a screen of the providers remote', () => {
    expect(providersRoutes.routes.find((r) => r.path === SCREENS.jobs.path)?.Component).toBe(JobsPage);
  });

  it('is not reachable without Jobs Access through the route guard', async () => {
    server.use(merchantsHandler());
    const { router } = renderApp('/jobs', { user: MERCHANT_USER, loader: jobsLoader() });
    await waitFor(() => expect(locationOf(router)).not.toBe('/jobs'));
  });
});
