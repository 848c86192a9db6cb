import { TEST_CONFIG } from '@paygate/devkit/testing/msw';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadFederatedManifest, loadFederatedModule } from './federation-loader';

type Globals = Record<string, unknown>;
const g = globalThis as unknown as Globals;

/** fakeContainer stands in for a remote entry's container: its exposed modules by path. */
function fakeContainer(modules: Record<string, unknown>) {
  return {
    init: vi.fn(),
    get: vi.fn(async (path: string) => {
      if (!(path in modules)) throw new Error(`Module "${path}" does not exist in container.`);
      return () => modules[path];
    }),
  };
}

afterEach(() => {
  delete g.paygate_files;
  delete g.__webpack_init_sharing__;
  delete g.__webpack_share_scopes__;
  document.head.querySelectorAll('script').forEach((s) => s.remove());
});

function shareScope() {
  const scope = { react: {} };
  g.__webpack_init_sharing__ = vi.fn(async () => {});
  g.__webpack_share_scopes__ = { default: scope };
  return scope;
}

describe('federation loader', () => {
  it("adds a remote's entry once for modules asked at the same time, joins the shared scope and returns each exposed module", async () => {
    const scope = shareScope();
    const wizard = { default: () => null };
    const routes = { default: { name: 'files', routes: [] } };
    const container = fakeContainer({ './export-wizard': wizard, './routes': routes });
    const both = Promise.all([loadFederatedModule('files', './export-wizard', TEST_CONFIG), loadFederatedManifest('files', TEST_CONFIG)]);
    await vi.waitFor(() => expect(document.head.querySelectorAll('script')).toHaveLength(1));
    const script = document.head.querySelector('script')!;
    expect(script.getAttribute('src')).toBe('/remotes/files/remoteEntry.js');
    g.paygate_files = container;
    script.dispatchEvent(new Event('load'));
    const [mod, manifest] = await both;
    expect(mod).toBe(wizard);
    expect(manifest).toBe(routes.default);
    expect(container.init).toHaveBeenCalledWith(scope);
    expect(container.get.mock.calls.map(([p]) => p).sort()).toEqual(['./export-wizard', './routes']);
  });

  it('fails when the entry does not load, and adds it again on the next try', async () => {
    shareScope();
    const first = loadFederatedModule('files', './export-wizard', TEST_CONFIG);
    await vi.waitFor(() => expect(document.head.querySelector('script')).not.toBeNull());
    document.head.querySelector('script')!.dispatchEvent(new Event('error'));
    await expect(first).rejects.toThrow('Could not load /remotes/files/remoteEntry.js');
    expect(document.head.querySelector('script')).toBeNull();

    const second = loadFederatedModule('files', './export-wizard', TEST_CONFIG);
    await vi.waitFor(() => expect(document.head.querySelector('script')).not.toBeNull());
    g.paygate_files = fakeContainer({ './export-wizard': { default: () => null } });
    document.head.querySelector('script')!.dispatchEvent(new Event('load'));
    await expect(second).resolves.toHaveProperty('default');
  });
});
