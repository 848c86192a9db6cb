import { Box, Flex } from '@chakra-ui/react';
import { useSession } from '@paygate/sdk';
import { Outlet } from 'react-router';
import { Sidebar } from './sidebar';

/** ConsoleLayout puts the sidebar beside the current screen. */
export function ConsoleLayout() {
  const { user } = useSession();
  if (!user) return null;
  return (
    <Flex direction={{ base: 'column', md: 'row' }} minH="100vh">
      <Sidebar user={user} />
      <Box as="main" flex="1" minW={0}>
        <Outlet />
      </Box>
    </Flex>
  );
}
