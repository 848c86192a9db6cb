import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { listHandlers, providersLoader } from '../../../testing/fixtures';

function renderPage(user: TestUser = ADMIN, path = '/providers') {
  return renderApp(path, { user, loader: providersLoader() });
}

// Recent Actions in its place: the Providers page's toolbar.
describe('Recent Actions on the Providers page (spec 01 §2)', () => {
  it('opens Recent Actions for the merchant of the admin’s tab, or for every collab', async () => {
    const asked: string[] = [];
    server.use(
      http.get(`${GATEWAY}/api/v1/logs/collabs/activity`, () => {
        asked.push('all');
        return HttpResponse.json({ status: 'success', data: { result: [] } });
      }),
      http.get(`${GATEWAY}/api/v1/logs/merchants/:id/collabs/activity`, ({ params }) => {
        asked.push(String(params.id));
        return HttpResponse.json({ status: 'success', data: { result: [] } });
      }),
      ...listHandlers(),
    );
    const { user } = renderPage();
    await screen.findAllByRole('article');
    await user.click(screen.getByRole('button', { name: 'Recent Actions' }));
    const all = await screen.findByRole('dialog', { name: 'Recent Collab Actions' });
    expect(await within(all).findByText('No activity logs available')).toBeInTheDocument();
    await user.click(within(all).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());

    await user.click(screen.getByRole('tab', { name: 'Blue Harbor Shop' }));
    await user.click(screen.getByRole('button', { name: 'Recent Actions' }));
    expect(await screen.findByRole('dialog', { name: 'Recent Actions - Blue Harbor Shop' })).toBeInTheDocument();
    await waitFor(() => expect(asked).toEqual(['all', '2']));
  });
});
