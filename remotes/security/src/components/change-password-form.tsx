import { Alert, Button, Field, Input, Stack } from '@chakra-ui/react';
import { errorMessage, notify, PasswordPolicyFeedback, usePasswordPolicy, useUser } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { useChangePassword } from '../api/change-password';

/** ChangePasswordFormProps: whether the password being replaced is temporary, and what follows a change. */
export interface ChangePasswordFormProps {
  temporary?: boolean;
  onDone?: () => void;
}

/**
 * ChangePasswordForm changes the signed-in user's own password: the current
 * one, the new one twice, and the password policy checked as the user types
 * (docs/contracts-second-factor.md). The server checks the same rules again.
 * Used by the Change Password page and by Account Security's Password tab.
 */
export function ChangePasswordForm({ temporary = false, onDone }: ChangePasswordFormProps) {
  const user = useUser();
  const [current, setCurrent] = useState('');
  const [password, setPassword] = useState('');
  const [confirm, setConfirm] = useState('');
  const mutation = useChangePassword();
  const policy = usePasswordPolicy(password, { username: user?.username, current });
  const mismatch = confirm !== '' && password !== confirm;
  const valid = password !== '' && password === confirm && policy.problems.length === 0;

  function submit(e: FormEvent) {
    e.preventDefault();
    if (password === '' || password !== confirm) {
      notify.error('Passwords do not match or are empty.');
      return;
    }
    if (!valid) {
      notify.error(policy.problems[0]?.message ?? 'The new password does not meet the password policy.');
      return;
    }
    if (mutation.isPending) return;
    mutation.mutate(
      { currentPassword: current, password },
      {
        onSuccess: () => {
          notify.success('Password changed', 'Your other sessions have ended.');
          setCurrent('');
          setPassword('');
          setConfirm('');
          onDone?.();
        },
        onError: (err) => notify.error(errorMessage(err, 'Failed to change password')),
      },
    );
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap={5}>
        {temporary && (
          <Alert.Root status="warning">
            <Alert.Indicator />
            <Alert.Title>You are required to change your temporary password.</Alert.Title>
          </Alert.Root>
        )}
        <Field.Root>
          <Field.Label>Current Password</Field.Label>
          <Input type="password" autoComplete="current-password" value={current} onChange={(e) => setCurrent(e.target.value)} />
        </Field.Root>
        <Field.Root invalid={password !== '' && policy.problems.length > 0}>
          <Field.Label>New Password</Field.Label>
          <Input
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
            aria-describedby="new-password-rules"
          />
        </Field.Root>
        <PasswordPolicyFeedback id="new-password-rules" state={policy} password={password} withCurrent />
        <Field.Root invalid={mismatch}>
          <Field.Label>Confirm New Password</Field.Label>
          <Input type="password" autoComplete="new-password" value={confirm} onChange={(e) => setConfirm(e.target.value)} />
          {mismatch && <Field.ErrorText>The passwords do not match.</Field.ErrorText>}
        </Field.Root>
        <Button type="submit" colorPalette="blue" disabled={!valid || current === '' || mutation.isPending}>
          Update
        </Button>
      </Stack>
    </form>
  );
}
