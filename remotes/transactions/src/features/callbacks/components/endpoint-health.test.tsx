import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { describe, expect, it } from 'vitest';
import { baseHandlers, MERCHANT_ADMIN, READ_ONLY_MERCHANT_ADMIN, transactionsLoader } from '../../../testing/fixtures';
import type { CallbackWire } from '../api/types';
import { successRateText } from './endpoint-health';

const REASON = 'Every attempt since 2026-01-01T00:00:00Z failed; the last: The receiver answered HTTP 503.';
const CB5: CallbackWire = { id: '5', collabId: 1, merchantId: 1, callbackUrl: 'https://acme.example/cb', isEnabled: true, maxAttempts: 3, addSignature: true, finalStatuses: [-2, 4] };
const CB6: CallbackWire = {
  id: '6',
  collabId: 1,
  merchantId: 1,
  callbackUrl: 'https://acme.example/dead',
  maxAttempts: 12,
  addSignature: true,
  disabledReason: REASON,
  disabledUtc: '2026-01-04T00:00:00Z',
};
const HEALTH = {
  endpoints: [
    { callbackId: '5', callbackUrl: 'https://acme.example/cb', isEnabled: true, attempts: '200', successes: '199', successRate: 0.995, p95LatencyMs: 180, breakerState: 'closed' },
    {
      callbackId: '6',
      callbackUrl: 'https://acme.example/dead',
      attempts: '12',
      successes: '0',
      successRate: 0,
      p95LatencyMs: 5000,
      breakerState: 'disabled',
      consecutiveFailures: 12,
      disabledReason: REASON,
      disabledUtc: '2026-01-04T00:00:00Z',
    },
  ],
};

function setup() {
  const enables: { id: string; body: unknown }[] = [];
  const healthReads: string[] = [];
  let list: CallbackWire[] = [CB5, CB6];
  // The first matching handler answers: these come before baseHandlers' empty health.
  server.use(
    http.get(`${GATEWAY}/api/v1/merchants/:id/callbacks`, () => HttpResponse.json(list)),
    http.get(`${GATEWAY}/api/v1/merchants/:id/callbacks/health`, ({ params }) => {
      healthReads.push(String(params.id));
      return HttpResponse.json(HEALTH);
    }),
    http.post(`${GATEWAY}/api/v1/callbacks/:id/enable`, async ({ params, request }) => {
      enables.push({ id: String(params.id), body: await request.json() });
      list = [CB5, { ...CB6, isEnabled: true, disabledReason: undefined, disabledUtc: undefined }];
      return HttpResponse.json({ callback: list[1], retryRunId: '9' });
    }),
    ...baseHandlers(),
  );
  return { enables, healthReads };
}

describe('Callbacks page: endpoint health (issue 30)', () => {
  it('shows each URL’s health and a notice for a URL disabled automatically, and re-enables it with recovery', async () => {
    const { enables, healthReads } = setup();
    const { user } = renderApp('/callbacks', { user: MERCHANT_ADMIN, loader: transactionsLoader() });
    const notice = await screen.findByTestId('disabled-6');
    expect(within(notice).getByText('https://acme.example/dead was disabled automatically')).toBeInTheDocument();
    expect(within(notice).getByText(REASON)).toBeInTheDocument();
    // The filter of final statuses shows with the type.
    expect(within(await screen.findByTestId('callback-5')).getByText('Final statuses -2, 4')).toBeInTheDocument();
    const healthy = await screen.findByTestId('health-5');
    expect(healthReads).toContain('1');
    expect(within(healthy).getByText('99.5%')).toBeInTheDocument();
    expect(within(healthy).getByText('180 ms')).toBeInTheDocument();
    expect(within(healthy).getByText('Closed')).toBeInTheDocument();
    const dead = screen.getByTestId('health-6');
    expect(within(dead).getByText('0%')).toBeInTheDocument();
    expect(within(dead).getByText('Disabled automatically')).toBeInTheDocument();
    expect(within(dead).getByText(/12 failures in a row/)).toBeInTheDocument();

    // Recovery is offered and on by default.
    expect(within(notice).getByRole('checkbox', { name: 'Also retry the callbacks that failed since it was disabled' })).toBeChecked();
    await user.click(within(notice).getByRole('button', { name: 'Re-enable' }));
    await waitFor(() => expect(enables).toEqual([{ id: '6', body: { recoverSinceDisabled: true } }]));
    await waitFor(() => expect(screen.queryByTestId('disabled-6')).not.toBeInTheDocument());
  });

  it('re-enables without recovery when it is unticked', async () => {
    const { enables } = setup();
    const { user } = renderApp('/callbacks', { user: MERCHANT_ADMIN, loader: transactionsLoader() });
    const notice = await screen.findByTestId('disabled-6');
    await user.click(within(notice).getByRole('checkbox', { name: 'Also retry the callbacks that failed since it was disabled' }));
    await user.click(within(notice).getByRole('button', { name: 'Re-enable' }));
    await waitFor(() => expect(enables).toEqual([{ id: '6', body: { recoverSinceDisabled: false } }]));
  });

  it('shows the notice without Re-enable to a user who may not edit callbacks', async () => {
    setup();
    renderApp('/callbacks', { user: READ_ONLY_MERCHANT_ADMIN, loader: transactionsLoader() });
    const notice = await screen.findByTestId('disabled-6');
    expect(within(notice).queryByRole('button', { name: 'Re-enable' })).not.toBeInTheDocument();
  });

  it('words success rates', () => {
    expect(successRateText({ successRate: null, attempts: 0 })).toBe('—');
    expect(successRateText({ successRate: 1, attempts: 3 })).toBe('100%');
    expect(successRateText({ successRate: 0.9951, attempts: 1000 })).toBe('99.5%');
  });
});
