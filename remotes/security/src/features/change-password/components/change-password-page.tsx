import { PageFrame, SCREENS } from '@paygate/sdk';
import { useNavigate } from 'react-router';
import { ChangePasswordForm } from '../../../components/change-password-form';

/**
 * ChangePasswordPage replaces a temporary password (spec 02 §2 "Change
 * Password"), at /change-password and at /temporary-password (the same form
 * for users without Edit User). The server asks for the current password as
 * well (docs/contracts-security.md), so the form has a third field.
 */
export function ChangePasswordPage() {
  const navigate = useNavigate();
  return (
    <PageFrame title={SCREENS.changePassword.title} maxW="md">
      <ChangePasswordForm
        temporary
        // The route guard may already have moved on: the user has no temporary password now.
        onDone={() => navigate('/transactions', { replace: true })}
      />
    </PageFrame>
  );
}
