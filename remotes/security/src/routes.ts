import './zod-config';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { AccountSecurityPage } from './features/account-security/components/account-security-page';
import { ApprovalsPage } from './features/approvals/components/approvals-page';
import { ChangePasswordPage } from './features/change-password/components/change-password-page';

/**
 * Approvals is newer than some hosts this remote may run on (docs/console-releases.md rule 4): the
 * route table is the host's SDK, so the screen is offered only where the host's table has it.
 */
const approvals = (SCREENS as Partial<typeof SCREENS>).approvals;

/** The screens of the security remote, exposed as `./routes`. */
const manifest: RemoteManifest<'security'> = {
  name: 'security',
  routes: [
    { path: SCREENS.accountSecurity.path, Component: AccountSecurityPage },
    { path: SCREENS.changePassword.path, Component: ChangePasswordPage },
    ...(approvals ? [{ path: approvals.path, Component: ApprovalsPage }] : []),
    // The same form for a user whose role lacks Edit User (see the SDK's route-table.ts).
    { path: SCREENS.temporaryPassword.path, Component: ChangePasswordPage },
  ],
};

export default manifest;
