import { Box, Flex } from '@chakra-ui/react';
import { mayCall, useAlertToasts, useSession } from '@paygate/sdk';
import { Outlet, useNavigate } from 'react-router';
import { PasskeySetupPrompt } from '../passkey-setup/passkey-setup-prompt';
import { Sidebar } from './sidebar';

/** ConsoleLayout puts the sidebar beside the current screen, and offers a passkey after a password sign-in. */
export function ConsoleLayout() {
  const { user } = useSession();
  const navigate = useNavigate();
  // A watchlist's alert toasts on every screen (issue 29), once per crossing.
  useAlertToasts(!!user && mayCall(user, 'GET /api/v1/alerts'), (to) => void navigate(to));
  if (!user) return null;
  return (
    <Flex direction={{ base: 'column', md: 'row' }} minH="100vh">
      <Sidebar user={user} />
      <Box as="main" flex="1" minW={0}>
        <Outlet />
      </Box>
      <PasskeySetupPrompt user={user} />
    </Flex>
  );
}
