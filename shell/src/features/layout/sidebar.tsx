import { Badge, Box, Button, Field, Heading, Link as ChakraLink, NativeSelect, Stack, Text, VisuallyHidden } from '@chakra-ui/react';
import { auth, meets, TIMEZONES, useDarkMode, useTimezone, type User } from '@paygate/sdk';
import { NavLink, useNavigate } from 'react-router';
import { usePendingApprovals } from './api/count-pending-approvals';
import { useUnacknowledgedAlerts } from './api/count-unacknowledged-alerts';
import { MerchantSelect } from './merchant-select';
import { visibleEntries } from './nav-entries';

/**
 * PendingBadge is the count of pending approvals the user may decide, beside
 * the Approvals entry; nothing when there are none. The digits are for the
 * eye; assistive technology reads the entry as "Approvals 3 pending approvals".
 */
function PendingBadge({ count, noun = 'pending approval' }: { count: number; noun?: string }) {
  if (count <= 0) return null;
  const words = `${count} ${noun}${count === 1 ? '' : 's'}`;
  return (
    <>
      {' '}
      <Badge ms={1} colorPalette="red" variant="solid" borderRadius="full" data-part="pending-approvals">
        <span aria-hidden="true">{count > 99 ? '99+' : count}</span>
        <VisuallyHidden>{words}</VisuallyHidden>
      </Badge>
    </>
  );
}

/** Sidebar is the console's navigation and session panel (spec 01 §2 "Sidebar"). */
export function Sidebar({ user }: { user: User }) {
  const navigate = useNavigate();
  const [timezone, setTimezone] = useTimezone();
  const [dark, setDark] = useDarkMode();
  const pendingApprovals = usePendingApprovals(user);
  const unacknowledgedAlerts = useUnacknowledgedAlerts(user);

  async function logout() {
    await auth.logout();
    navigate('/login', { replace: true });
  }

  return (
    // From md up the sidebar stays in view, the viewport's height: its upper part (title, user,
    // pickers, entries) scrolls on its own when it does not fit, and the theme switch and Logout stay
    // at its foot; the page beside it scrolls without taking it along (issue 25). Below md it heads
    // the page and scrolls with it.
    <Stack
      as="aside"
      aria-label="Sidebar"
      gap={0}
      w={{ base: 'full', md: '64' }}
      flexShrink={0}
      borderEndWidth={{ md: '1px' }}
      bg="bg.panel"
      position={{ md: 'sticky' }}
      top={{ md: 0 }}
      alignSelf={{ md: 'flex-start' }}
      h={{ md: '100vh' }}
    >
      <Stack gap={4} p={4} flex={{ md: '1' }} minH={{ md: 0 }} overflowY={{ md: 'auto' }} overscrollBehavior="contain" data-part="sidebar-body">
        <Heading as="h1" size="lg">
          Paygate
        </Heading>
        <Text fontSize="sm" color="fg.muted">
          Logged in as{' '}
          <Text as="span" fontWeight="semibold" color="fg">
            {user.username}
          </Text>
        </Text>
        {user.merchantIds.length > 0 && <MerchantSelect user={user} />}
        <Field.Root>
          <Field.Label>Timezone</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field value={timezone} onChange={(e) => setTimezone(e.target.value)}>
              {TIMEZONES.map((tz) => (
                <option key={tz.value} value={tz.value}>
                  {tz.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Box as="nav" aria-label="Main">
          <Stack as="ul" gap={1} listStyleType="none">
            {visibleEntries(user).map((entry) => (
              <li key={entry.to}>
                <ChakraLink
                  asChild
                  display="block"
                  px={3}
                  py={2}
                  borderRadius="md"
                  _hover={{ bg: 'bg.muted', textDecoration: 'none' }}
                  _currentPage={{ bg: 'colorPalette.subtle', color: 'colorPalette.fg', fontWeight: 'semibold' }}
                  colorPalette="blue"
                >
                  <NavLink to={entry.to} end={entry.to === '/'}>
                    {entry.label}
                    {entry.screen === 'approvals' && <PendingBadge count={pendingApprovals} />}
                    {entry.screen === 'alerts' && <PendingBadge count={unacknowledgedAlerts} noun="new alert" />}
                  </NavLink>
                </ChakraLink>
              </li>
            ))}
          </Stack>
        </Box>
        {meets(user, 'adminOrMerchant') && (
          <ChakraLink href="/docs/" target="_blank" rel="noopener" px={3}>
            Documentation
          </ChakraLink>
        )}
      </Stack>
      <Stack gap={2} p={4} pt={{ base: 0, md: 3 }} flexShrink={0} borderTopWidth={{ md: '1px' }} data-part="sidebar-foot">
        <Button variant="outline" size="sm" onClick={() => setDark(!dark)} aria-pressed={dark}>
          {dark ? 'Light mode' : 'Dark mode'}
        </Button>
        <Button variant="subtle" size="sm" onClick={() => void logout()}>
          Logout
        </Button>
      </Stack>
    </Stack>
  );
}
