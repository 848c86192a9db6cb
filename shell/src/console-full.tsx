import { Alert, Center } from '@chakra-ui/react';
import { loadConfig, session, setRemoteModuleLoader, type RemoteName } from '@paygate/sdk';
import { StrictMode } from 'react';
import type { Root } from 'react-dom/client';
import { createBrowserRouter, RouterProvider } from 'react-router';
import { ConsoleProviders } from './app/providers';
import { consoleRoutes } from './app/routes';
import { loadFederatedManifest, loadFederatedModule } from './remotes/federation-loader';
import { cachedLoader } from './remotes/remote-loader';
import { RemoteLoaderProvider } from './remotes/remote-screen';

import type { MountOptions } from './console';

/**
 * mountFullConsole loads /config.json and renders the whole console into
 * `root` (console.tsx decides when). Remote entries come from config.json at
 * run time, so one build runs anywhere.
 */
export async function mountFullConsole(root: Root, options: MountOptions = {}): Promise<void> {
  let config;
  try {
    config = await loadConfig();
  } catch (err) {
    root.render(
      <ConsoleProviders>
        <Center minH="100vh" p={6}>
          <Alert.Root status="error" maxW="lg">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>The console could not read its configuration (/config.json).</Alert.Title>
              <Alert.Description>{err instanceof Error ? err.message : String(err)}</Alert.Description>
            </Alert.Content>
          </Alert.Root>
        </Center>
      </ConsoleProviders>,
    );
    return;
  }

  const federated = (name: RemoteName) => loadFederatedManifest(name, config);
  const loader = cachedLoader((name) => (options.loadRemote ? options.loadRemote(name, federated) : federated(name)));
  // Remotes load each other's exposed modules through the SDK (loadRemoteModule).
  const federatedModule = (name: RemoteName, path: string) => loadFederatedModule(name, path, config);
  setRemoteModuleLoader((name, path) => (options.loadModule ? options.loadModule(name, path, federatedModule) : federatedModule(name, path)));
  const router = createBrowserRouter(consoleRoutes());
  session.bindNavigation({
    current: () => {
      const { pathname, search, hash } = router.state.location;
      return `${pathname}${search}${hash}`;
    },
    go: (to) => void router.navigate(to, { replace: true }),
  });

  root.render(
    <StrictMode>
      <ConsoleProviders>
        <RemoteLoaderProvider value={loader}>
          <RouterProvider router={router} />
        </RemoteLoaderProvider>
      </ConsoleProviders>
    </StrictMode>,
  );
}
