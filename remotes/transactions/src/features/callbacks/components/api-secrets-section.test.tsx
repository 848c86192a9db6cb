import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor } from '@paygate/devkit/testing/tokens';
import { SECRET_SHOWN_ONCE, session } from '@paygate/sdk';
import { describe, expect, it } from 'vitest';
import { baseHandlers, MERCHANT_ADMIN, transactionsLoader } from '../../../testing/fixtures';
import { ApiSecretsSection } from './api-secrets-section';

const SECRETS = [
  { id: '8', createdAt: '2026-12-06T10:00:00Z', createdBy: 'madmin', state: 'active' },
  { id: '7', createdAt: '2026-12-01T10:00:00Z', createdBy: 'madmin', lastUsedAt: '2026-12-06T09:00:00Z', expiresAt: '2026-12-07T10:00:00Z', state: 'expiring' },
  { id: '6', createdAt: '2026-11-01T10:00:00Z', createdBy: 'madmin', expiresAt: '2026-11-02T10:00:00Z', state: 'revoked' },
];

/** The Callbacks page's calls; the merchant's secrets answer `secrets` (a POST adds one). */
function serve(secrets: Record<string, unknown>[] = []) {
  const calls = { posts: [] as unknown[], revoked: [] as string[] };
  const stored = secrets.map((x) => ({ ...x }));
  server.use(...baseHandlers());
  server.use(
    http.get(`${GATEWAY}/api/v1/merchants/:id/callbacks`, () => HttpResponse.json([])),
    http.get(`${GATEWAY}/api/v1/merchants/1/secrets`, () => HttpResponse.json(stored)),
    http.post(`${GATEWAY}/api/v1/merchants/1/secrets`, async ({ request }) => {
      calls.posts.push(await request.json());
      const secret = { id: '9', createdAt: '2026-12-06T11:00:00Z', createdBy: 'madmin', state: 'active' };
      stored.unshift(secret);
      return HttpResponse.json({ secret, value: 'pgs_shown-once', merchantHash: 'hash-acme' });
    }),
    http.post(`${GATEWAY}/api/v1/merchants/1/secrets/:id/revoke`, ({ params }) => {
      calls.revoked.push(String(params.id));
      const s = stored.find((x) => x.id === params.id)!;
      s.state = 'revoked';
      return HttpResponse.json(s);
    }),
  );
  return calls;
}

async function section() {
  return screen.findByRole('region', { name: 'API secrets' });
}

describe('Callbacks page: API secrets (issue 30)', () => {
  it("lets a merchant admin create its merchant's first secret, shown once", async () => {
    const calls = serve();
    const { user } = renderApp('/callbacks', { user: MERCHANT_ADMIN, loader: transactionsLoader() });
    const region = await section();
    expect(await within(region).findByText('No secrets yet: create one to sign payment requests.')).toBeInTheDocument();
    expect(await within(region).findByText('hash-acme')).toBeInTheDocument();
    expect(within(region).getByText(/Acme Games signs its payment requests/)).toBeInTheDocument();

    await user.click(within(region).getByRole('button', { name: 'Create secret' }));
    const confirm = await screen.findByRole('dialog', { name: 'Create secret' });
    expect(confirm).toHaveTextContent('Create an API secret for Acme Games?');
    await user.click(within(confirm).getByRole('button', { name: 'Create' }));
    const shown = await screen.findByRole('dialog', { name: 'New secret' });
    expect(calls.posts).toEqual([{}]);
    expect(shown).toHaveTextContent(SECRET_SHOWN_ONCE);
    expect(within(shown).getByTestId('secret-value')).toHaveTextContent('pgs_shown-once');
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
    const table = within(region).getByRole('table', { name: 'Secrets' });
    expect(await within(table).findByText('active')).toBeInTheDocument();
    expect(within(table).getByText('9')).toBeInTheDocument();
    expect(screen.queryByText('pgs_shown-once')).toBeNull();
    // One accepted secret: the next one is a rotation.
    expect(within(region).getByRole('button', { name: 'Rotate' })).toBeInTheDocument();
  });

  it('lists id, creation, last use, expiry and state; rotates with an overlap; revokes after a confirmation', async () => {
    const calls = serve(SECRETS);
    const { user } = renderApp('/callbacks', { user: MERCHANT_ADMIN, loader: transactionsLoader() });
    const region = await section();
    const table = await within(region).findByRole('table', { name: 'Secrets' });
    await within(table).findByText('expiring');
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['ID', 'Created', 'Last use', 'Expiry', 'State', 'Actions']);
    const row7 = within(table).getByRole('button', { name: 'Revoke secret 7' }).closest('tr')!;
    expect(row7).toHaveTextContent('expiring');
    expect(within(table).getAllByText('Never')).toHaveLength(2);
    expect(within(table).queryByRole('button', { name: 'Revoke secret 6' })).toBeNull();

    await user.click(within(region).getByRole('button', { name: 'Rotate' }));
    const rotate = await screen.findByRole('dialog', { name: 'Rotate secret' });
    const hours = within(rotate).getByRole('textbox', { name: 'Overlap window (hours)' });
    expect(hours).toHaveValue('24');
    await user.clear(hours);
    await user.type(hours, '2.5');
    await user.click(within(rotate).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(calls.posts).toEqual([{ overlapSeconds: 9000 }]));
    await user.click(within(await screen.findByRole('dialog', { name: 'New secret' })).getByRole('button', { name: 'Done' }));

    await user.click(await within(table).findByRole('button', { name: 'Revoke secret 7' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Revoke secret' });
    expect(confirm).toHaveTextContent('Revoke secret 7 of Acme Games? Requests signed with it are refused at once.');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).toBeNull());
    expect(calls.revoked).toEqual([]);
    await user.click(within(table).getByRole('button', { name: 'Revoke secret 7' }));
    await user.click(within(await screen.findByRole('alertdialog', { name: 'Revoke secret' })).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(calls.revoked).toEqual(['7']));
    await waitFor(() => expect(within(table).queryByRole('button', { name: 'Revoke secret 7' })).toBeNull());
  });

  it('says when the secrets could not be loaded, and offers no Create', async () => {
    serve();
    server.use(http.get(`${GATEWAY}/api/v1/merchants/1/secrets`, () => HttpResponse.json({ code: 'unavailable', message: 'The gateway is unavailable.' }, { status: 503 })));
    renderApp('/callbacks', { user: MERCHANT_ADMIN, loader: transactionsLoader() });
    const region = await section();
    expect(await within(region).findByText('The secrets could not be loaded: The gateway is unavailable.')).toBeInTheDocument();
    expect(within(region).getByRole('button', { name: 'Create secret' })).toBeDisabled();
  });

  it("shows an admin the chosen collab's merchant's secrets, and nothing before a collab is chosen", async () => {
    serve(SECRETS);
    server.use(http.get(`${GATEWAY}/api/v1/collabs/:id/callbacks`, () => HttpResponse.json([])));
    const { user } = renderApp('/callbacks', { user: ADMIN, loader: transactionsLoader() });
    const select = await screen.findByRole('combobox', { name: 'Select Collab' });
    expect(screen.queryByRole('region', { name: 'API secrets' })).toBeNull();
    await waitFor(() => expect(within(select).getByRole('option', { name: 'Acme Games - GoVip' })).toBeInTheDocument());
    await user.selectOptions(select, 'Acme Games - GoVip');
    const region = await section();
    expect(await within(region).findByText('expiring')).toBeInTheDocument();
  });

  it('is not shown to a user whose grants do not let them list the secrets (no call made)', async () => {
    session.signIn(tokensFor(MERCHANT_USER));
    const user = session.getState().user!;
    const client = new QueryClient({ defaultOptions: { queries: { retry: false } } });
    const { container } = render(
      <ChakraProvider value={defaultSystem}>
        <QueryClientProvider client={client}>
          <ApiSecretsSection user={user} merchantId={1} />
        </QueryClientProvider>
      </ChakraProvider>,
    );
    // An unhandled call would fail the test (onUnhandledRequest: 'error').
    await new Promise((r) => setTimeout(r, 50));
    expect(container).toBeEmptyDOMElement();
  });
});
