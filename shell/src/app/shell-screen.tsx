import { Alert, Box, Button, Center, Spinner } from '@chakra-ui/react';
import { usePageTitle, type ScreenKey } from '@paygate/sdk';
import { lazy, Suspense, useState, type ComponentType, type LazyExoticComponent } from 'react';
import { ErrorBoundary } from '../components/error-boundary';

/**
 * The shell's own screens of the route table (remote 'shell'), each loaded
 * with its screen only: the dashboard's charts (nivo) stay out of the login
 * and entry bundles.
 */
const SCREENS: Partial<Record<ScreenKey, LazyExoticComponent<ComponentType>>> = {
  dashboard: lazy(() => import(/* webpackChunkName: "dashboard" */ '../features/dashboard/components/dashboard-page')),
};

/**
 * ShellScreen renders one of the shell's own screens under its page title,
 * an error boundary and suspense, as RemoteScreen does for a remote's.
 */
export function ShellScreen({ screen, title }: { screen: ScreenKey; title: string }) {
  usePageTitle(title);
  const [attempt, setAttempt] = useState(0);
  const Screen = SCREENS[screen];
  if (!Screen) throw new Error(`the shell has no screen "${screen}"`);
  return (
    <ErrorBoundary
      key={attempt}
      fallback={(error) => (
        <Box p={6}>
          <Alert.Root status="error">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>This section is unavailable right now.</Alert.Title>
              <Alert.Description>{error.message}</Alert.Description>
            </Alert.Content>
          </Alert.Root>
          <Button mt={4} onClick={() => setAttempt((a) => a + 1)}>
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
