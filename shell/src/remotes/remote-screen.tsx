import { Alert, Box, Button, Center, Spinner } from '@chakra-ui/react';
import { usePageTitle, type RemoteName, type ScreenPath } from '@paygate/sdk';
import { createContext, lazy, Suspense, useContext, useMemo, useState, type ComponentType } from 'react';
import { ErrorBoundary } from '../components/error-boundary';
import { NotFoundPage } from '../features/not-found/not-found-page';
import type { RemoteLoader } from './remote-loader';

const LoaderContext = createContext<RemoteLoader | null>(null);

/** RemoteLoaderProvider gives the route tree the loader of the remotes. */
export const RemoteLoaderProvider = LoaderContext.Provider;

function useRemoteLoader(): RemoteLoader {
  const loader = useContext(LoaderContext);
  if (!loader) throw new Error('RemoteScreen needs a RemoteLoaderProvider');
  return loader;
}

function titled(Screen: ComponentType, title: string): ComponentType {
  return function TitledScreen() {
    usePageTitle(title);
    return <Screen />;
  };
}

interface Props {
  remote: RemoteName;
  path: ScreenPath;
  title: string;
}

/**
 * RemoteScreen renders the screen a remote provides for a route-table path,
 * under the remote's own error boundary and suspense. A remote that has no
 * screen for the path yet renders the Not Found page.
 */
export function RemoteScreen(props: Props) {
  const { remote, path, title } = props;
  const loader = useRemoteLoader();
  const [attempt, setAttempt] = useState(0);
  // Made here, in a component that stays mounted while the screen suspends, so
  // the remote loads once. React caches a rejected lazy component, so a retry
  // (a new attempt) makes a new one.
  const Screen = useMemo(
    () =>
      lazy(async () => {
        const manifest = await loader(remote);
        const route = manifest.routes.find((r) => r.path === path);
        return { default: route ? titled(route.Component, title) : NotFoundPage };
      }),
    // eslint-disable-next-line react-hooks/exhaustive-deps -- attempt is the retry trigger
    [loader, remote, path, title, attempt],
  );

  return (
    <ErrorBoundary
      key={attempt}
      fallback={(error) => (
        <Box p={6}>
          <Alert.Root status="error">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>This section is unavailable right now.</Alert.Title>
              <Alert.Description>
                Something went wrong in the {remote} module: {error.message}
              </Alert.Description>
            </Alert.Content>
          </Alert.Root>
          <Button
            mt={4}
            onClick={() => {
              loader.forget?.(remote);
              setAttempt((a) => a + 1);
            }}
          >
            Retry
          </Button>
        </Box>
      )}
    >
      <Suspense
        fallback={
          <Center p={10}>
            <Spinner role="status" aria-label="Loading" />
          </Center>
        }
      >
        <Screen />
      </Suspense>
    </ErrorBoundary>
  );
}
