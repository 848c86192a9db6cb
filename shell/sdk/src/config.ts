/** The four remotes the console federates. */
export const REMOTE_NAMES = ['transactions', 'providers', 'files', 'security'] as const;

/** RemoteName names a remote (its folder under remotes/). */
export type RemoteName = (typeof REMOTE_NAMES)[number];

/** The services the console calls; each has its own origin. */
export type Service = 'auth' | 'gateway' | 'callbacks' | 'aggregator';

/** RuntimeConfig is `/config.json`, read once at start-up so one build runs anywhere. */
export interface RuntimeConfig {
  authUrl: string;
  gatewayUrl: string;
  callbacksUrl: string;
  aggregatorUrl: string;
  /** Remote entry URL per remote; defaults to `/remotes/<name>/remoteEntry.js` on the console origin. */
  remotes: Record<RemoteName, string>;
}

let current: RuntimeConfig | undefined;

/** defaultRemoteUrl is where a remote's entry lives when config.json does not say. */
export function defaultRemoteUrl(name: RemoteName): string {
  return `/remotes/${name}/remoteEntry.js`;
}

function trimSlash(url: unknown, key: string): string {
  if (typeof url !== 'string' || url === '') throw new Error(`config.json: "${key}" must be a non-empty string`);
  return url.replace(/\/+$/, '');
}

/** parseConfig validates a config.json body and fills the defaults. */
export function parseConfig(raw: unknown): RuntimeConfig {
  if (!raw || typeof raw !== 'object') throw new Error('config.json must be a JSON object');
  const r = raw as Record<string, unknown>;
  const given = (r.remotes && typeof r.remotes === 'object' ? r.remotes : {}) as Record<string, unknown>;
  const remotes = Object.fromEntries(
    REMOTE_NAMES.map((name) => {
      const url = given[name];
      return [name, typeof url === 'string' && url !== '' ? url : defaultRemoteUrl(name)];
    }),
  ) as Record<RemoteName, string>;
  return {
    authUrl: trimSlash(r.authUrl, 'authUrl'),
    gatewayUrl: trimSlash(r.gatewayUrl, 'gatewayUrl'),
    callbacksUrl: trimSlash(r.callbacksUrl, 'callbacksUrl'),
    aggregatorUrl: trimSlash(r.aggregatorUrl, 'aggregatorUrl'),
    remotes,
  };
}

/** loadConfig fetches `/config.json` (never from cache) and makes it the current config. */
export async function loadConfig(url = '/config.json'): Promise<RuntimeConfig> {
  const res = await fetch(url, { cache: 'no-store' });
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
  current = parseConfig(await res.json());
  return current;
}

/** setConfig replaces the current config (tests, or a host that got it elsewhere). */
export function setConfig(config: RuntimeConfig): void {
  current = config;
}

/** getConfig returns the loaded config; it throws when loadConfig has not finished. */
export function getConfig(): RuntimeConfig {
  if (!current) throw new Error('The runtime config is not loaded yet (call loadConfig first)');
  return current;
}

/** serviceUrl returns the base URL of a service. */
export function serviceUrl(service: Service, config: RuntimeConfig = getConfig()): string {
  switch (service) {
    case 'auth':
      return config.authUrl;
    case 'gateway':
      return config.gatewayUrl;
    case 'callbacks':
      return config.callbacksUrl;
    case 'aggregator':
      return config.aggregatorUrl;
  }
}
