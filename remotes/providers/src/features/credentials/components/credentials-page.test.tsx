import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session } from '@paygate/sdk';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { MERCHANTS, providersLoader } from '../../../testing/fixtures';
import { CredentialsPage } from './credentials-page';

const MERCHANT_ADMIN: TestUser = { username: 'merchant-admin', roles: ['Merchant Admin'], merchantIds: [1] };

const COLLABS = [
  { collabId: 11, merchantId: 1, merchantName: 'Acme Games', providerId: 3, providerName: 'FbPay', providerPathSegment: 'fbpay' },
  { collabId: 12, merchantId: 2, merchantName: 'Blue Harbor Shop', providerId: 4, providerName: 'HumPas', providerPathSegment: 'humpas' },
];

function handlers(stored: Record<string, unknown>, saved: { body?: unknown; collabId?: string | null } = {}) {
  return [
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS)),
    http.get(`${GATEWAY}/api/v1/credentials/collabs`, () => HttpResponse.json(COLLABS)),
    http.get(`${GATEWAY}/api/v1/credentials`, ({ request }) => {
      const id = new URL(request.url).searchParams.get('collabId');
      if (id === '12') return HttpResponse.json({ code: 'not_found', message: 'Collab 12 was not found.' }, { status: 404 });
      return HttpResponse.json(stored);
    }),
    http.post(`${GATEWAY}/api/v1/credentials`, async ({ request }) => {
      saved.body = await request.json();
      saved.collabId = new URL(request.url).searchParams.get('collabId');
      return HttpResponse.json(saved.body as Record<string, unknown>);
    }),
  ];
}

function renderPage(user: TestUser = ADMIN) {
  return renderApp('/credentials', { user, loader: providersLoader() });
}

describe('Credentials page (spec 02 §2 "Credentials", §5, §8)', () => {
  it("offers 'merchant - provider' under 'Select Collaboration' to admins and asks for a collaboration first", async () => {
    server.use(...handlers({}));
    const { user } = renderPage();
    const select = await screen.findByRole('combobox', { name: 'Select Collaboration' });
    await waitFor(() => expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select Collaboration', 'Acme Games - FbPay', 'Blue Harbor Shop - HumPas']));
    await user.click(screen.getByRole('button', { name: 'Load Credentials' }));
    expect(await screen.findByText('Please select a collaboration')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Credentials'));
  });

  it("offers the Current Merchant's providers under 'Select Provider' to merchant users (spec 01 §4)", async () => {
    server.use(...handlers({}));
    server.use(http.get(`${GATEWAY}/api/v1/credentials/collabs`, () => HttpResponse.json([...COLLABS, { ...COLLABS[1]!, collabId: 13, providerName: 'FbPay' }])));
    const { user } = renderPage({ ...MERCHANT_ADMIN, merchantIds: [1, 2] });
    const select = await screen.findByRole('combobox', { name: 'Select Provider' });
    const options = () => within(select).getAllByRole('option').map((o) => [o.textContent, o.getAttribute('value')]);
    await waitFor(() => expect(options()).toEqual([['Select Provider', ''], ['FbPay', '11']]));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Current Merchant' }), 'Blue Harbor Shop (2)');
    await waitFor(() => expect(options()).toEqual([['Select Provider', ''], ['HumPas', '12'], ['FbPay', '13']]));
  });

  it('labels collabs that would read the same apart, with their merchant', async () => {
    server.use(...handlers({}));
    server.use(http.get(`${GATEWAY}/api/v1/credentials/collabs`, () => HttpResponse.json([...COLLABS, { ...COLLABS[1]!, collabId: 13, providerName: 'FbPay' }])));
    renderPage({ username: 'no-shop', permissions: ['Credentials Access'], merchantIds: [] });
    const select = await screen.findByRole('combobox', { name: 'Select Provider' });
    await waitFor(() =>
      expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select Provider', 'FbPay · Acme Games (1)', 'HumPas', 'FbPay · Blue Harbor Shop (2)']),
    );
  });

  it('loads masked fields with eye toggles and a group, and saves numbers as numbers unless empty', async () => {
    const saved: { body?: unknown; collabId?: string | null } = {};
    server.use(...handlers({ apiKey: 'sk_live_1', port: 8443, timeout: 30, auth: { username: 'fb-user', pin: 1234 } }, saved));
    const { user } = renderPage();
    const select = await screen.findByRole('combobox', { name: 'Select Collaboration' });
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(3));
    await user.selectOptions(select, '11');
    await user.click(screen.getByRole('button', { name: 'Load Credentials' }));

    const apiKey = await screen.findByLabelText('apiKey');
    expect(apiKey).toHaveAttribute('type', 'password');
    expect(apiKey).toHaveValue('sk_live_1');
    await user.click(screen.getByRole('button', { name: 'Show apiKey' }));
    expect(apiKey).toHaveAttribute('type', 'text');
    await user.click(screen.getByRole('button', { name: 'Hide apiKey' }));
    expect(apiKey).toHaveAttribute('type', 'password');
    expect(screen.getByRole('group', { name: 'auth' })).toBeInTheDocument();

    await user.clear(screen.getByLabelText('port'));
    await user.type(screen.getByLabelText('port'), '9443');
    await user.clear(screen.getByLabelText('timeout'));
    await user.clear(screen.getByLabelText('auth.username'));
    await user.type(screen.getByLabelText('auth.username'), 'new-user');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Credentials saved')).toBeInTheDocument();
    expect(saved.collabId).toBe('11');
    expect(saved.body).toEqual({ apiKey: 'sk_live_1', port: 9443, timeout: '', auth: { username: 'new-user', pin: 1234 } });
  });

  it("adds a field and says 'Collab not found.' on 404", async () => {
    const saved: { body?: unknown } = {};
    server.use(...handlers({}, saved));
    const { user } = renderPage();
    const select = await screen.findByRole('combobox', { name: 'Select Collaboration' });
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(3));
    await user.selectOptions(select, '11');
    await user.click(screen.getByRole('button', { name: 'Load Credentials' }));
    await user.type(await screen.findByLabelText('New field'), 'merchantId');
    await user.click(screen.getByRole('button', { name: 'Add Field' }));
    await user.type(screen.getByLabelText('merchantId'), 'FB-42');
    await user.click(screen.getByRole('button', { name: 'Save Changes' }));
    expect(await screen.findByText('Credentials saved')).toBeInTheDocument();
    expect(saved.body).toEqual({ merchantId: 'FB-42' });

    await user.selectOptions(select, '12');
    await user.click(screen.getByRole('button', { name: 'Load Credentials' }));
    expect(await screen.findByText('Collab not found.')).toBeInTheDocument();
  });

  it("says 'You don't have permission to access this collab.' on 403", async () => {
    server.use(...handlers({}));
    // Added last, so it answers first.
    server.use(http.get(`${GATEWAY}/api/v1/credentials`, () => HttpResponse.json({ code: 'forbidden', message: 'No.' }, { status: 403 })));
    const { user } = renderPage();
    const select = await screen.findByRole('combobox', { name: 'Select Collaboration' });
    await waitFor(() => expect(within(select).getAllByRole('option')).toHaveLength(3));
    await user.selectOptions(select, '11');
    await user.click(screen.getByRole('button', { name: 'Load Credentials' }));
    expect(await screen.findByText("You don't have permission to access this collab.")).toBeInTheDocument();
  });

  it("tells a user without Credentials Access 'You don't have permission to view this page.'", () => {
    session.signIn(tokensFor(MERCHANT_USER));
    render(
      <ChakraProvider value={defaultSystem}>
        <CredentialsPage />
      </ChakraProvider>,
    );
    expect(screen.getByText("You don't have permission to view this page.")).toBeInTheDocument();
  });
});
