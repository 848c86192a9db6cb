import { Button, Field, Input, NativeSelect, Stack } from '@chakra-ui/react';
import { DialogFrame, errorMessage, FlagSwitch, type Merchant, notify, PasswordPolicyFeedback, usePasswordPolicy } from '@paygate/sdk';
import { useId, useState, type FormEvent } from 'react';
import { addUserInput, useAddUser } from '../api/add-user';
import type { RoleOption } from '../api/get-roles';
import { MerchantPicker } from './merchant-picker';

interface Props {
  roles: readonly RoleOption[];
  merchants: readonly Merchant[];
  onClose: () => void;
}

type Touched = Partial<Record<'username' | 'password' | 'roleId', boolean>>;

/** AddUserDialog creates a user (spec 02 "Account Security", §5 "Add user"). */
export function AddUserDialog({ roles, merchants, onClose }: Props) {
  const merchantsId = useId();
  const [username, setUsername] = useState('');
  const [password, setPassword] = useState('');
  const [roleId, setRoleId] = useState<number | null>(null);
  const [merchantIds, setMerchantIds] = useState<number[]>([]);
  const [strict, setStrict] = useState(false);
  const [temporary, setTemporary] = useState(true);
  const [touched, setTouched] = useState<Touched>({});
  const add = useAddUser();

  const errors = {
    username: username.trim() ? undefined : 'Username is required.',
    password: password ? undefined : 'Password is required.',
    roleId: roleId ? undefined : 'Role is required.',
  };
  const policy = usePasswordPolicy(password, { username });
  const valid = !errors.username && !errors.password && !errors.roleId && merchantIds.length > 0 && policy.problems.length === 0;
  const touch = (f: keyof Touched) => setTouched((t) => ({ ...t, [f]: true }));

  function submit(e: FormEvent) {
    e.preventDefault();
    setTouched({ username: true, password: true, roleId: true });
    const parsed = addUserInput.safeParse({ username, password, roleId: roleId ?? 0, merchantIds, hasStrictAccessRules: strict, isTemporaryPassword: temporary });
    if (!parsed.success || add.isPending) return;
    add.mutate(parsed.data, {
      onSuccess: () => {
        notify.success('User created');
        onClose();
      },
      onError: (err) => notify.error(errorMessage(err, 'Failed to create user')),
    });
  }

  return (
    <DialogFrame
      title="Add User"
      size="md"
      onClose={onClose}
      footer={
        <>
          <Button variant="outline" onClick={onClose} disabled={add.isPending}>
            Cancel
          </Button>
          <Button type="submit" form="add-user-form" colorPalette="blue" disabled={!valid} loading={add.isPending}>
            Save
          </Button>
        </>
      }
    >
      <form id="add-user-form" onSubmit={submit} noValidate>
        <Stack gap={4}>
          <Field.Root required invalid={!!touched.username && !!errors.username}>
            <Field.Label>Username</Field.Label>
            <Input autoComplete="off" value={username} onChange={(e) => setUsername(e.target.value)} onBlur={() => touch('username')} />
            <Field.ErrorText>{errors.username}</Field.ErrorText>
          </Field.Root>
          <Field.Root required invalid={!!touched.password && !!errors.password}>
            <Field.Label>Password</Field.Label>
            <Input
              type="password"
              autoComplete="new-password"
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              onBlur={() => touch('password')}
              aria-describedby="add-user-password-rules"
            />
            <Field.ErrorText>{errors.password}</Field.ErrorText>
          </Field.Root>
          <PasswordPolicyFeedback id="add-user-password-rules" state={policy} password={password} />
          <Field.Root required invalid={!!touched.roleId && !!errors.roleId}>
            <Field.Label>Role</Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field value={roleId ?? ''} onChange={(e) => setRoleId(e.target.value ? Number(e.target.value) : null)} onBlur={() => touch('roleId')}>
                <option value="">Select a role</option>
                {roles.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
            <Field.ErrorText>{errors.roleId}</Field.ErrorText>
          </Field.Root>
          <Field.Root required>
            <Field.Label htmlFor={merchantsId}>Merchants</Field.Label>
            <MerchantPicker id={merchantsId} merchants={merchants} value={merchantIds} onChange={setMerchantIds} />
            <Field.HelperText>Select at least one merchant.</Field.HelperText>
          </Field.Root>
          <FlagSwitch label="Strict access rules (IP restricted)" checked={strict} onChange={setStrict} />
          <FlagSwitch label="Temporary password" checked={temporary} onChange={setTemporary} />
        </Stack>
      </form>
    </DialogFrame>
  );
}
