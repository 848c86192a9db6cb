import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session } from '@paygate/sdk';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { MERCHANTS, providersLoader } from '../../../testing/fixtures';
import { BalancesPage } from './balances-page';

const COLLABS = [
  { collabId: 11, merchantId: 1, merchantName: 'Acme Games', providerId: 3, providerName: 'FbPay', providerPathSegment: 'fbpay' },
  { collabId: 12, merchantId: 1, merchantName: 'Acme Games', providerId: 4, providerName: 'HumPas', providerPathSegment: 'humpas' },
  { collabId: 13, merchantId: 1, merchantName: 'Acme Games', providerId: 19, providerName: 'RollingPay', providerPathSegment: 'rollingpay' },
];

const item = (collabId: number, segment: string, amount: string, extra: Record<string, unknown> = {}) => ({
  collabId,
  providerPathSegment: segment,
  amount,
  currency: 'PHP',
  updatedAt: '2026-03-10T10:00:00Z',
  isLive: false,
  accountId: `ACC-${collabId}`,
  accountType: 'Standard',
  additionalBalances: {},
  status: 'success',
  rawData: { success: true, data: { wallet: { availableBalance: amount, note: 'a very long note indeed' }, tags: ['a', 'b', 'c', 'd'] } },
  message: '',
  ...extra,
});

function handlers(calls: { n: number } = { n: 0 }) {
  return [
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS)),
    http.get(`${GATEWAY}/api/v1/balances/collabs`, () => HttpResponse.json(COLLABS)),
    http.get(`${GATEWAY}/api/v1/providers/:segment/balance`, ({ params, request }) => {
      calls.n++;
      const id = Number(new URL(request.url).searchParams.get('collabId'));
      if (params.segment === 'rollingpay') return HttpResponse.json({ code: 'internal', message: 'Something went wrong.' }, { status: 500 });
      if (params.segment === 'humpas') return HttpResponse.json(item(id, 'humpas', '98000.50', { isLive: true }));
      return HttpResponse.json(item(id, String(params.segment), '250000.00'));
    }),
  ];
}

function renderPage(user: TestUser = ADMIN) {
  return renderApp('/balances', { user, loader: providersLoader() });
}

const row = (name: string) => screen.getByRole('row', { name });

describe('Balances page (spec 02 §2 "Balances", §8, §9)', () => {
  it('sums the balances per currency and lists a row per collab, a failed one as "-" in PHP', async () => {
    server.use(...handlers());
    renderPage();
    const total = await screen.findByRole('region', { name: 'Total balance' });
    expect(await within(total).findByText('PHP 348,000.50')).toBeInTheDocument();
    // Cells: expand, provider, merchant, balance, currency, …
    await waitFor(() => expect(within(row('Acme Games - RollingPay')).getAllByRole('cell')[3]).toHaveTextContent(/^-$/));
    expect(within(row('Acme Games - RollingPay')).getByText('PHP')).toBeInTheDocument();
    expect(within(row('Acme Games - RollingPay')).getByText('error')).toBeInTheDocument();
    expect(within(row('Acme Games - FbPay')).getByText('250,000.00')).toBeInTheDocument();
    expect(within(row('Acme Games - FbPay')).getByText('Sandbox')).toBeInTheDocument();
    expect(within(row('Acme Games - HumPas')).getByText('Live')).toBeInTheDocument();
    expect(within(row('Acme Games - HumPas')).getByText('success')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Balances'));
  });

  it('expands the raw response with previews: strings cut at 10 characters, short arrays up to 3 items', async () => {
    server.use(...handlers());
    const { user } = renderPage();
    await waitFor(() => expect(within(row('Acme Games - FbPay')).getByText('250,000.00')).toBeInTheDocument());
    await user.click(screen.getByRole('button', { name: 'Show raw response of Acme Games - FbPay' }));
    const raw = screen.getByRole('group', { name: 'Raw response of Acme Games - FbPay' });
    expect(within(raw).getByText('"a very lon…"')).toBeInTheDocument();
    expect(within(raw).getByText('["a", "b", "c", … 1 more]')).toBeInTheDocument();
  });

  it("refreshes every balance and says 'Balances Updated'", async () => {
    const calls = { n: 0 };
    server.use(...handlers(calls));
    const { user } = renderPage();
    await waitFor(() => expect(calls.n).toBe(3));
    await user.click(screen.getByRole('button', { name: /Refresh/ }));
    expect(await screen.findByText('Balances Updated')).toBeInTheDocument();
    expect(calls.n).toBe(6);
  });

  it("says 'Failed to load balances: {message}' and 'Failed to refresh balances: {message}'", async () => {
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS)),
      http.get(`${GATEWAY}/api/v1/balances/collabs`, () => HttpResponse.json({ code: 'unavailable', message: 'Try later.' }, { status: 503 })),
    );
    const { user } = renderPage();
    expect((await screen.findAllByText('Failed to load balances: Try later.')).length).toBeGreaterThan(0);
    await user.click(screen.getByRole('button', { name: /Refresh/ }));
    expect(await screen.findByText('Failed to refresh balances: Try later.')).toBeInTheDocument();
  });

  it('shows a merchant user its providers without a merchant column', async () => {
    server.use(...handlers());
    renderPage(MERCHANT_USER);
    await waitFor(() => expect(within(row('FbPay')).getByText('250,000.00')).toBeInTheDocument());
    expect(screen.queryByRole('columnheader', { name: 'Merchant' })).not.toBeInTheDocument();
  });

  it("tells a user who is neither admin nor merchant 'You are not authorized to view this page.'", () => {
    session.signIn(tokensFor({ username: 'support', roles: ['Support'], merchantIds: [1] }));
    render(
      <ChakraProvider value={defaultSystem}>
        <BalancesPage />
      </ChakraProvider>,
    );
    expect(screen.getByText('You are not authorized to view this page.')).toBeInTheDocument();
  });

  it('says so to a merchant user without Balance Access too: the server would refuse its calls', () => {
    session.signIn(tokensFor({ username: 'merchant-support', roles: ['Merchant Support'], merchantIds: [2] }));
    render(
      <ChakraProvider value={defaultSystem}>
        <BalancesPage />
      </ChakraProvider>,
    );
    expect(screen.getByText('You are not authorized to view this page.')).toBeInTheDocument();
  });
});
