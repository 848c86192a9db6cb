import { screen } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import type { RemoteManifest } from '@paygate/sdk';
import { describe, expect, it, vi } from 'vitest';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { renderApp } from '@paygate/devkit/testing';
import { cachedLoader } from './remote-loader';

describe('remote mounting', () => {
  it('keeps the console usable when a remote fails to load, and retries on demand', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    let fail = true;
    const load = vi.fn(async (name: RemoteManifest['name']): Promise<RemoteManifest> => {
      if (fail) throw new Error('Could not load /remotes/files/remoteEntry.js');
      return { name, routes: [{ path: '/files', Component: () => <p>Files screen</p> }] };
    });
    const { user } = renderApp('/files', { user: { roles: ['Admin'] }, loader: cachedLoader(load) });
    expect(await screen.findByText('This section is unavailable right now.')).toBeInTheDocument();
    expect(screen.getByText(/Something went wrong in the files module: Could not load/)).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Transactions' })).toBeInTheDocument();

    fail = false;
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('Files screen')).toBeInTheDocument();
    expect(load).toHaveBeenCalledTimes(2);
  });

  it('contains a screen that throws while rendering', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([])));
    vi.spyOn(console, 'error').mockImplementation(() => {});
    const Broken = () => {
      throw new Error('render failed');
    };
    const loader = cachedLoader(async (name) => ({ name, routes: [{ path: '/jobs', Component: Broken }] }));
    renderApp('/jobs', { user: { roles: ['Admin'] }, loader });
    expect(await screen.findByText(/Something went wrong in the providers module: render failed/)).toBeInTheDocument();
    expect(screen.getByText('Logged in as')).toBeInTheDocument();
  });
});
