import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { session, useDarkMode } from '@paygate/sdk';
import { useEffect, useState, type ReactNode } from 'react';
import { ConfirmationHost } from '../components/confirmation-host';
import { ConsoleToaster } from '../components/console-toaster';
import { applyTheme } from './theme';

/** newQueryClient makes the console's query client. */
export function newQueryClient(): QueryClient {
  return new QueryClient({
    defaultOptions: { queries: { retry: 1, refetchOnWindowFocus: false } },
  });
}

function ThemeSync() {
  const [dark] = useDarkMode();
  useEffect(() => applyTheme(dark), [dark]);
  return null;
}

/**
 * ConsoleProviders holds what the shell owns for every screen: the Chakra
 * system and theme, the query client (cleared when the session ends) and the
 * toaster, and the confirmation dialog of sensitive calls.
 */
export function ConsoleProviders({ children, queryClient }: { children: ReactNode; queryClient?: QueryClient }) {
  const [client] = useState(() => queryClient ?? newQueryClient());
  useEffect(
    () =>
      session.subscribe(() => {
        if (!session.getState().accessToken) client.clear();
      }),
    [client],
  );
  return (
    <ChakraProvider value={defaultSystem}>
      <QueryClientProvider client={client}>
        <ThemeSync />
        {children}
        <ConfirmationHost />
        <ConsoleToaster />
      </QueryClientProvider>
    </ChakraProvider>
  );
}

