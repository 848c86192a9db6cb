import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { cachedLoader } from '../../remotes/remote-loader';
import { describe, expect, it } from 'vitest';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { renderApp } from '@paygate/devkit/testing';

describe('Not Found page', () => {
  it('shows for any path outside the route table, with a way home', async () => {
    const { user, router } = renderApp('/no/such/page');
    expect(screen.getByRole('heading', { name: '404 - Page Not Found' })).toBeInTheDocument();
    expect(screen.getByText('Sorry, the page you are looking for does not exist.')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Not Found'));
    await user.click(screen.getByRole('link', { name: 'Go Back Home' }));
    // Home is guarded: signed out, it leads to the login page.
    await waitFor(() => expect(router.state.location.pathname).toBe('/login'));
  });

  it('shows, after the guard, for a route whose remote has no screen yet', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])));
    const empty = cachedLoader(async (name) => ({ name, routes: [] }));
    renderApp('/files', { user: { roles: ['Merchant'] }, loader: empty });
    expect(await screen.findByRole('heading', { name: '404 - Page Not Found' })).toBeInTheDocument();
    // Inside the console: the sidebar stays.
    expect(screen.getByText('Logged in as')).toBeInTheDocument();
    await waitFor(() => expect(document.title).toBe('Paygate - Not Found'));
  });

  it('titles a provided screen after its route', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])));
    renderApp('/files', { user: { roles: ['Merchant'] } });
    await screen.findByText('Screen /files');
    await waitFor(() => expect(document.title).toBe('Paygate - Files'));
  });
});
