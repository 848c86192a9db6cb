import { Alert, Button, Field, Input, Stack } from '@chakra-ui/react';
import { errorMessage, notify, PageFrame, SCREENS } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { useChangePassword } from '../api/change-password';

/**
 * ChangePasswordPage replaces a temporary password (spec 02 §2 "Change
 * Password"), at /change-password and at /temporary-password (the same form
 * for users without Edit User). The server asks for the current password as
 * well (docs/contracts-security.md), so the form has a third field.
 */
export function ChangePasswordPage() {
  const navigate = useNavigate();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const mutation = useChangePassword();
  const valid = password !== '' && password === confirm;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!valid) {
      notify.error('Passwords do not match or are empty.');
      return;
    }
    if (mutation.isPending) return;
    mutation.mutate(
      { currentPassword: current, password },
      {
        // The route guard may already have moved on: the user has no temporary password now.
        onSuccess: () => navigate('/transactions', { replace: true }),
        onError: (err) => notify.error(errorMessage(err, 'Failed to change password')),
      },
    );
  }

  return (
    <PageFrame title={SCREENS.changePassword.title} maxW="md">
      <form onSubmit={submit} noValidate>
        <Stack gap={5}>
          <Alert.Root status="warning">
            <Alert.Indicator />
            <Alert.Title>You are required to change your temporary password.</Alert.Title>
          </Alert.Root>
          <Field.Root>
            <Field.Label>Current Password</Field.Label>
            <Input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
          </Field.Root>
          <Field.Root>
            <Field.Label>New Password</Field.Label>
            <Input type="password" autoComplete="new-password" value={password} onChange={(e) => setPassword(e.target.value)} />
          </Field.Root>
          <Field.Root>
            <Field.Label>Confirm New Password</Field.Label>
            <Input type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          </Field.Root>
          <Button type="submit" colorPalette="blue" disabled={!valid || current === '' || mutation.isPending}>
            Update
          </Button>
        </Stack>
      </form>
    </PageFrame>
  );
}
