import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { server } from '@paygate/devkit/testing/msw';
import { loadConfig, parseConfig } from './config';

describe('runtime config', () => {
  it('fills the default remote entries on the console origin', () => {
    const c = parseConfig({ authUrl: 'https://auth.example/', gatewayUrl: 'g', callbacksUrl: 'c', aggregatorUrl: 'a', remotes: { files: 'https://cdn.example/files/remoteEntry.js' } });
    expect(c.authUrl).toBe('https://auth.example');
    expect(c.remotes).toEqual({
      transactions: '/remotes/transactions/remoteEntry.js',
      providers: '/remotes/providers/remoteEntry.js',
      files: 'https://cdn.example/files/remoteEntry.js',
      security: '/remotes/security/remoteEntry.js',
    });
  });

  it('rejects a config without service URLs', () => {
    expect(() => parseConfig({ authUrl: 'a' })).toThrow(/gatewayUrl/);
  });

  it('loads /config.json', async () => {
    server.use(http.get('*/config.json', () => HttpResponse.json({ authUrl: 'a', gatewayUrl: 'g', callbacksUrl: 'c', aggregatorUrl: 'x' })));
    await expect(loadConfig('http://console.test/config.json')).resolves.toMatchObject({ aggregatorUrl: 'x' });
  });
});
