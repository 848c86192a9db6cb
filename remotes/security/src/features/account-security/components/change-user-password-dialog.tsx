import { Button, Field, Input, Stack, Text } from '@chakra-ui/react';
import { ConfirmDialog, DialogFrame, errorMessage, FlagSwitch, notify, PasswordPolicyFeedback, usePasswordPolicy } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { useChangeUserPassword } from '../api/change-user-password';
import type { ManagedUser } from '../api/get-users';

/** ChangeUserPasswordDialog sets another user's password, after a confirmation (spec 02 §5 "Change user password"). */
export function ChangeUserPasswordDialog({ user, onClose }: { user: ManagedUser; onClose: () => void }) {
  const [password, setPassword] = useState('');
  const [temporary, setTemporary] = useState(true);
  const [touched, setTouched] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const change = useChangeUserPassword();
  const error = password ? undefined : 'Password is required.';
  const policy = usePasswordPolicy(password, { username: user.username, field: 'newPassword' });

  function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (!error && policy.problems.length === 0) setConfirming(true);
  }

  function save() {
    change.mutate(
      { userId: user.id, newPassword: password, isTemporaryPassword: temporary },
      {
        onSuccess: () => {
          notify.success('Password changed');
          setConfirming(false);
          onClose();
        },
        onError: (err) => {
          setConfirming(false);
          notify.error(errorMessage(err, 'Failed to change password'));
        },
      },
    );
  }

  return (
    <>
      <DialogFrame
        title="Change Password"
        size="md"
        onClose={onClose}
        footer={
          <>
            <Button variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" form="change-user-password-form" colorPalette="blue" disabled={!password || policy.problems.length > 0} loading={change.isPending}>
              Change Password
            </Button>
          </>
        }
      >
        <form id="change-user-password-form" onSubmit={submit} noValidate>
          <Stack gap={4}>
            <Text>
              User: <strong>{user.username}</strong>
            </Text>
            <Field.Root required invalid={touched && !!error}>
              <Field.Label>New Password</Field.Label>
              <Input
                type="password"
                autoComplete="new-password"
                value={password}
                onChange={(e) => setPassword(e.target.value)}
                onBlur={() => setTouched(true)}
                aria-describedby="change-user-password-rules"
              />
              <Field.ErrorText>{error}</Field.ErrorText>
            </Field.Root>
            <PasswordPolicyFeedback id="change-user-password-rules" state={policy} password={password} />
            <FlagSwitch label="Temporary password" checked={temporary} onChange={setTemporary} />
          </Stack>
        </form>
      </DialogFrame>
      {confirming && (
        <ConfirmDialog
          title="Change Password"
          message={`Change the password of ${user.username}?${temporary ? ' They will have to choose a new one at their next sign-in.' : ''}`}
          confirmLabel="Change"
          pending={change.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={save}
        />
      )}
    </>
  );
}
