import { Tabs, Text } from '@chakra-ui/react';
import { mayCall, PageFrame, SCREENS, useUser } from '@paygate/sdk';
import { useSearchParams } from 'react-router';
import { AllowedIpsTab } from './allowed-ips-tab';
import { PasskeysTab } from './passkeys-tab';
import { SessionsTab } from './sessions-tab';
import { UsersTab } from './users-tab';

/** The tabs of the page, as the ?tab= query names them. */
const TABS = ['sessions', 'passkeys', 'ip-restrictions', 'users'] as const;
type Tab = (typeof TABS)[number];

/** The text of the IP Restrictions tab for a user without Allow IP (spec 02 §6). */
export const NO_IP_PERMISSION = "You don't have permission to manage IP restrictions.";

/**
 * AccountSecurityPage is the Account Security screen (spec 02 "Account
 * Security", any signed-in user): sessions and passkeys for everyone, IP
 * restrictions with Allow IP, user management with Add Users.
 */
export function AccountSecurityPage() {
  const user = useUser();
  const [params, setParams] = useSearchParams();
  // A tab is offered when the server lets the user make the call that fills it.
  const canAllowIp = mayCall(user, 'GET /api/v1/user/users/{id}/ips');
  const canAddUsers = mayCall(user, 'GET /api/v1/user/users');
  const asked = params.get('tab');
  // The IP Restrictions tab may be reached by its address and then says why it is empty;
  // Users Management is not offered at all without Add Users.
  const tab: Tab = TABS.includes(asked as Tab) && (asked !== 'users' || canAddUsers) ? (asked as Tab) : 'sessions';

  function select(next: string) {
    setParams(
      (p) => {
        const q = new URLSearchParams(p);
        if (next === 'sessions') q.delete('tab');
        else q.set('tab', next);
        return q;
      },
      { replace: true },
    );
  }

  return (
    <PageFrame title={SCREENS.accountSecurity.title}>
      <Tabs.Root value={tab} onValueChange={(e) => select(e.value)} variant="line" lazyMount unmountOnExit>
        <Tabs.List overflowX="auto">
          <Tabs.Trigger value="sessions">Active Sessions</Tabs.Trigger>
          <Tabs.Trigger value="passkeys">Passkeys</Tabs.Trigger>
          {canAllowIp && <Tabs.Trigger value="ip-restrictions">IP Restrictions</Tabs.Trigger>}
          {canAddUsers && <Tabs.Trigger value="users">Users Management</Tabs.Trigger>}
        </Tabs.List>
        <Tabs.Content value="sessions">
          <SessionsTab />
        </Tabs.Content>
        <Tabs.Content value="passkeys">
          <PasskeysTab />
        </Tabs.Content>
        <Tabs.Content value="ip-restrictions">{canAllowIp ? <AllowedIpsTab /> : <Text>{NO_IP_PERMISSION}</Text>}</Tabs.Content>
        {canAddUsers && (
          <Tabs.Content value="users">
            <UsersTab />
          </Tabs.Content>
        )}
      </Tabs.Root>
    </PageFrame>
  );
}
