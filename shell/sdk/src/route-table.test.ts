import { describe, expect, it } from 'vitest';
import { isRemoteManifest } from './remote';
import { ROUTES, SCREEN_PATHS, SCREENS } from './route-table';

describe('route table', () => {
  it('lists the screens in the order of spec 01 §2, each path once', () => {
    expect(SCREEN_PATHS).toEqual([
      '/',
      '/providers',
      '/merchants',
      '/fees',
      '/transactions/:id?',
      '/files',
      '/callbacks',
      '/validation-endpoints',
      '/fraud-management',
      '/balances',
      '/credentials',
      '/account-security',
      '/jobs',
      '/settings',
      '/simulate-payment',
      '/change-password',
      '/approvals',
      '/radar',
      '/alerts',
      '/temporary-password',
    ]);
    expect(new Set(SCREEN_PATHS).size).toBe(SCREEN_PATHS.length);
    expect(ROUTES.find((r) => r.key === 'validationEndpoints')).toMatchObject({ path: '/validation-endpoints', title: 'Validation Endpoints', remote: 'transactions' });
  });

  it('gives / to the shell itself and /jobs to the providers remote (ARCHITECTURE)', () => {
    expect(SCREENS.dashboard.remote).toBe('shell');
    expect(SCREENS.jobs.remote).toBe('providers');
    const Component = () => null;
    // No remote may provide the shell's own screen.
    for (const name of ['transactions', 'providers', 'files', 'security'] as const) {
      expect(isRemoteManifest({ name, routes: [{ path: SCREENS.dashboard.path, Component }] }, name)).toBe(false);
    }
    expect(isRemoteManifest({ name: 'providers', routes: [{ path: SCREENS.jobs.path, Component }] }, 'providers')).toBe(true);
    expect(isRemoteManifest({ name: 'files', routes: [{ path: SCREENS.jobs.path, Component }] }, 'files')).toBe(false);
  });

  it('accepts a remote manifest only with screens the table gives that remote', () => {
    const Component = () => null;
    expect(isRemoteManifest({ name: 'transactions', routes: [{ path: SCREENS.callbacks.path, Component }] }, 'transactions')).toBe(true);
    expect(isRemoteManifest({ name: 'transactions', routes: [{ path: SCREENS.providers.path, Component }] }, 'transactions')).toBe(false);
    expect(isRemoteManifest({ name: 'transactions', routes: [{ path: '/nowhere', Component }] }, 'transactions')).toBe(false);
    expect(isRemoteManifest({ name: 'providers', routes: [] }, 'transactions')).toBe(false);
  });
});
