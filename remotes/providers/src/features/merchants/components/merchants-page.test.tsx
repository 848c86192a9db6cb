import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { session } from '@paygate/sdk';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { MERCHANTS, providersLoader } from '../../../testing/fixtures';
import { MerchantsPage } from './merchants-page';

describe('Merchants page (spec 01 §2)', () => {
  it('lists ID, Name and Hash for an admin, titled Paygate - Merchants', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS)));
    renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    const table = await screen.findByRole('table', { name: 'Merchants' });
    // Three skeleton rows stand in while loading: wait for the data itself.
    await within(table).findByText('Blue Harbor Shop');
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['ID', 'Name', 'Hash', 'Contact', 'Status', 'Actions']);
    expect(within(table).getAllByRole('row')[2]!.textContent).toMatch(/^2Blue Harbor Shophash-blue—Active/);
    await waitFor(() => expect(document.title).toBe('Paygate - Merchants'));
  });

  it("says 'Failed to fetch merchants. Please try again.' and retries", async () => {
    let fail = true;
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants`, () => (fail ? new HttpResponse(null, { status: 500 }) : HttpResponse.json(MERCHANTS))),
    );
    const { user } = renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    expect(await screen.findByText('Failed to fetch merchants. Please try again.')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Cobalt Travel')).toBeInTheDocument();
  });

  it("tells a non-admin 'You don't have permission to view this page.'", () => {
    session.signIn(tokensFor(MERCHANT_USER));
    render(
      <ChakraProvider value={defaultSystem}>
        <MerchantsPage />
      </ChakraProvider>,
    );
    expect(screen.getByText("You don't have permission to view this page.")).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('is not reachable for a non-admin through the route guard', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([MERCHANTS[0]])));
    const { router } = renderApp('/merchants', { user: MERCHANT_USER, loader: providersLoader() });
    await waitFor(() => expect(locationOf(router)).not.toBe('/merchants'));
  });
});
