import { Button, Checkbox, Field, Input, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage, FlagSwitch, notify, PERMISSIONS, type Permission, type User } from '@paygate/sdk';
import { useId, useState, type FormEvent } from 'react';
import type { RoleOption } from '../api/get-roles';
import { roleInput, useRoleChanges } from '../api/save-role';

interface Props {
  /** The role to edit; absent for a new role. */
  role?: RoleOption;
  /** The signed-in user: only its own permissions (and scope) may be granted. */
  me: User;
  onClose: () => void;
}

/**
 * RoleDialog creates or edits a custom role: its name, whether it sees every
 * merchant, and its permissions (docs/access.md). A permission the user does
 * not hold cannot be granted (the server refuses it too), so its box is
 * disabled; a role it holds stays shown as it is.
 */
export function RoleDialog({ role, me, onClose }: Props) {
  const permsId = useId();
  const { create, update } = useRoleChanges();
  const saving = role ? update : create;
  const [name, setName] = useState(role?.name ?? '');
  const [globalScope, setGlobalScope] = useState(role?.globalScope ?? false);
  const [permissions, setPermissions] = useState<string[]>(role ? [...role.permissions] : []);
  const [touched, setTouched] = useState(false);

  const parsed = roleInput.safeParse({ name, permissions, globalScope });
  const nameError = parsed.success ? undefined : parsed.error.issues.find((i) => i.path[0] === 'name')?.message;
  const mayGrant = (p: Permission) => me.permissions.includes(p);

  function toggle(p: Permission, on: boolean) {
    setPermissions((cur) => (on ? [...cur, p] : cur.filter((x) => x !== p)));
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (!parsed.success || saving.isPending) return;
    const done = {
      onSuccess: () => {
        notify.success(role ? 'Role updated' : 'Role created');
        onClose();
      },
      onError: (err: unknown) => notify.error(errorMessage(err, role ? 'Failed to update role' : 'Failed to create role')),
    };
    if (role) update.mutate({ id: role.id, ...parsed.data }, done);
    else create.mutate(parsed.data, done);
  }

  return (
    <DialogFrame
      title={role ? `Edit Role ${role.name}` : 'New Role'}
      size="lg"
      onClose={onClose}
      footer={
        <>
          <Button variant="outline" onClick={onClose} disabled={saving.isPending}>
            Cancel
          </Button>
          <Button type="submit" form="role-form" colorPalette="blue" disabled={!parsed.success} loading={saving.isPending}>
            Save
          </Button>
        </>
      }
    >
      <form id="role-form" onSubmit={submit} noValidate>
        <Stack gap={4}>
          <Field.Root required invalid={touched && !!nameError}>
            <Field.Label>Name</Field.Label>
            <Input autoComplete="off" value={name} onChange={(e) => setName(e.target.value)} onBlur={() => setTouched(true)} />
            <Field.ErrorText>{nameError}</Field.ErrorText>
          </Field.Root>
          <Stack gap={1}>
            <FlagSwitch label="Sees every merchant (admin-wide)" checked={globalScope} onChange={setGlobalScope} />
            <Text fontSize="xs" color="fg.muted">
              {globalScope
                ? 'Holders see the data of every merchant.'
                : 'Holders see only the merchants given to them; each user of this role needs at least one merchant.'}
            </Text>
          </Stack>
          <fieldset aria-describedby={`${permsId}-help`}>
            <Text as="legend" fontWeight="medium" mb={1}>
              Permissions ({permissions.length} of {PERMISSIONS.length})
            </Text>
            <Text id={`${permsId}-help`} fontSize="xs" color="fg.muted" mb={2}>
              You can grant only the permissions you hold yourself.
            </Text>
            <SimpleGrid columns={{ base: 1, md: 2 }} gap={1}>
              {PERMISSIONS.map((p) => (
                <Checkbox.Root key={p} size="sm" checked={permissions.includes(p)} disabled={!mayGrant(p)} onCheckedChange={(e) => toggle(p, e.checked === true)}>
                  <Checkbox.HiddenInput />
                  <Checkbox.Control />
                  <Checkbox.Label>{p}</Checkbox.Label>
                </Checkbox.Root>
              ))}
            </SimpleGrid>
          </fieldset>
        </Stack>
      </form>
    </DialogFrame>
  );
}
