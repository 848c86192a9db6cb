import { Box, Tabs, Text } from '@chakra-ui/react';
import { mayCall, PageFrame, SCREENS, useUser } from '@paygate/sdk';
import { useSearchParams } from 'react-router';
import { ChangePasswordForm } from '../../../components/change-password-form';
import { SecurityPolicyTab } from './security-policy-tab';
import { SensitiveActionsTab } from './sensitive-actions-tab';
import { TwoFactorTab } from './two-factor-tab';
import { AllowedIpsTab } from './allowed-ips-tab';
import { PasskeysTab } from './passkeys-tab';
import { RolesTab } from './roles-tab';
import { SessionsTab } from './sessions-tab';
import { UsersTab } from './users-tab';

/** The tabs of the page, as the ?tab= query names them. */
const TABS = ['sessions', 'passkeys', 'two-factor', 'password', 'ip-restrictions', 'users', 'roles', 'policy', 'sensitive-actions'] as const;
type Tab = (typeof TABS)[number];

/** The text of the IP Restrictions tab for a user without Allow IP (spec 02 §6). */
export const NO_IP_PERMISSION = "You don't have permission to manage IP restrictions.";

/**
 * AccountSecurityPage is the Account Security screen (spec 02 "Account
 * Security", any signed-in user): sessions, passkeys, the second factor and
 * the own password for everyone, IP restrictions with Allow IP, user
 * management with Add Users, the roles (the permission matrix) for users who
 * may create roles (docs/access.md), the security policy with Settings
 * Access (issue 27), and the sensitive actions (step-up and four-eyes
 * approval policies) for users the server lets change them (requirement
 * securityPolicy, issue 28). The feature pages it shows live in their own
 * features.
 */
export function AccountSecurityPage() {
  const user = useUser();
  const [params, setParams] = useSearchParams();
  // A tab is offered when the server lets the user make the call that fills it.
  const canAllowIp = mayCall(user, 'GET /api/v1/user/users/{id}/ips');
  const canAddUsers = mayCall(user, 'GET /api/v1/user/users');
  // The Roles tab is for administrators: those the server lets create roles.
  const canManageRoles = mayCall(user, 'POST /api/v1/roles') && mayCall(user, 'GET /api/v1/user/roles');
  const canSetPolicy = mayCall(user, 'GET /api/v1/auth-settings');
  // The tab edits the step-up setting: offered when the server lets the user change it.
  const canSetSensitive = mayCall(user, 'PUT /api/v1/sensitive-actions/step-up') && mayCall(user, 'GET /api/v1/sensitive-actions');
  const asked = params.get('tab');
  // The IP Restrictions tab may be reached by its address and then says why it is empty;
  // Users Management, Roles, Security Policy and Sensitive Actions are not offered at all without their permissions.
  const offered = (t: Tab) =>
    (t !== 'users' || canAddUsers) && (t !== 'roles' || canManageRoles) && (t !== 'policy' || canSetPolicy) && (t !== 'sensitive-actions' || canSetSensitive);
  const tab: Tab = TABS.includes(asked as Tab) && offered(asked as Tab) ? (asked as Tab) : 'sessions';

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
          <Tabs.Trigger value="two-factor">Two-Factor</Tabs.Trigger>
          <Tabs.Trigger value="password">Password</Tabs.Trigger>
          {canAllowIp && <Tabs.Trigger value="ip-restrictions">IP Restrictions</Tabs.Trigger>}
          {canAddUsers && <Tabs.Trigger value="users">Users Management</Tabs.Trigger>}
          {canManageRoles && <Tabs.Trigger value="roles">Roles</Tabs.Trigger>}
          {canSetPolicy && <Tabs.Trigger value="policy">Security Policy</Tabs.Trigger>}
          {canSetSensitive && <Tabs.Trigger value="sensitive-actions">Sensitive Actions</Tabs.Trigger>}
        </Tabs.List>
        <Tabs.Content value="sessions">
          <SessionsTab />
        </Tabs.Content>
        <Tabs.Content value="passkeys">
          <PasskeysTab />
        </Tabs.Content>
        <Tabs.Content value="two-factor">
          <TwoFactorTab />
        </Tabs.Content>
        <Tabs.Content value="password">
          <Box maxW="md" pt={2}>
            <ChangePasswordForm />
          </Box>
        </Tabs.Content>
        <Tabs.Content value="ip-restrictions">{canAllowIp ? <AllowedIpsTab /> : <Text>{NO_IP_PERMISSION}</Text>}</Tabs.Content>
        {canAddUsers && (
          <Tabs.Content value="users">
            <UsersTab />
          </Tabs.Content>
        )}
        {canManageRoles && (
          <Tabs.Content value="roles">
            <RolesTab />
          </Tabs.Content>
        )}
        {canSetPolicy && (
          <Tabs.Content value="policy">
            <SecurityPolicyTab />
          </Tabs.Content>
        )}
        {canSetSensitive && (
          <Tabs.Content value="sensitive-actions">
            <SensitiveActionsTab />
          </Tabs.Content>
        )}
      </Tabs.Root>
    </PageFrame>
  );
}
