import { Badge, Button, Field, HStack, IconButton, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { ConfirmDialog, DataTable, errorMessage, FlagSwitch, mayCall, notify, useUser, type DataColumn } from '@paygate/sdk';
import { useState } from 'react';
import { KeyIcon } from '../../../components/key-icon';
import { useDebouncedValue } from '../../../hooks/use-debounced-value';
import { useMerchants } from '../../../hooks/use-merchants';
import { useRoles, type RoleOption } from '../api/get-roles';
import { useUsers, type ManagedUser } from '../api/get-users';
import { useResetSecondFactor } from '../api/reset-second-factor';
import { useUpdateUser, type UpdateUserInput } from '../api/update-user';
import { AddUserDialog } from './add-user-dialog';
import { ChangeUserPasswordDialog } from './change-user-password-dialog';
import { MerchantPicker } from './merchant-picker';
import { MerchantTags } from './merchant-tags';

const PAGE_SIZES = [5, 10, 20, 50] as const;

/** UserDraft is a user row being edited: one role at most (spec 02 §5). */
export interface UserDraft {
  username: string;
  merchantIds: number[];
  roleId: number | null;
  isIpRestricted: boolean;
  isDisabled: boolean;
}

/** roleIdsOf reads a user's role ids, from their names when the server sent none. */
function roleIdsOf(user: ManagedUser, roles: readonly RoleOption[]): number[] {
  if (user.roleIds.length > 0) return user.roleIds;
  return roles.filter((r) => user.roles.includes(r.name)).map((r) => r.id);
}

/** draftOf starts the edit of a user row. */
export function draftOf(user: ManagedUser, roles: readonly RoleOption[]): UserDraft {
  return {
    username: user.username,
    merchantIds: [...user.merchantIds],
    roleId: roleIdsOf(user, roles)[0] ?? null,
    isIpRestricted: user.isIpRestricted,
    isDisabled: user.isDisabled,
  };
}

const sameSet = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x) => b.includes(x));

/**
 * userChanges is the update of a user row: only the changed fields, merchants
 * and roles only when non-empty and changed (spec 02 §5). Null when nothing changed.
 */
export function userChanges(user: ManagedUser, draft: UserDraft, roles: readonly RoleOption[]): UpdateUserInput | null {
  const changes: UpdateUserInput = { userId: user.id };
  const username = draft.username.trim();
  if (username !== user.username) changes.username = username;
  if (draft.merchantIds.length > 0 && !sameSet(draft.merchantIds, user.merchantIds)) changes.merchantIds = draft.merchantIds;
  if (draft.roleId !== null && !sameSet([draft.roleId], roleIdsOf(user, roles))) changes.roleIds = [draft.roleId];
  if (draft.isIpRestricted !== user.isIpRestricted) changes.isIpRestricted = draft.isIpRestricted;
  if (draft.isDisabled !== user.isDisabled) changes.isDisabled = draft.isDisabled;
  return Object.keys(changes).length > 1 ? changes : null;
}

/** roleNamesOf names a user's roles, from the ids when the server sent no names. */
function roleNamesOf(user: ManagedUser, roles: readonly RoleOption[]): string[] {
  return user.roles.length > 0 ? user.roles : user.roleIds.map((id) => roles.find((r) => r.id === id)?.name ?? `Role ${id}`);
}

/** RoleChange is an update that changes a user's role, waiting for the operator's yes. */
interface RoleChange {
  changes: UpdateUserInput;
  question: string;
}

/**
 * roleChangeQuestion asks before a role change (as IP, callback and endpoint edits do, issue 25),
 * naming the user, the old and the new role.
 */
export function roleChangeQuestion(user: ManagedUser, changes: UpdateUserInput, roles: readonly RoleOption[]): string {
  const from = roleNamesOf(user, roles).join(', ') || 'no role';
  const to = (changes.roleIds ?? []).map((id) => roles.find((r) => r.id === id)?.name ?? `Role ${id}`).join(', ');
  const who = changes.username ? `${user.username} (renamed ${changes.username})` : user.username;
  return `Change the role of ${who} from ${from} to ${to}?`;
}

function YesNo({ on, yes = 'Yes' }: { on: boolean; yes?: string }) {
  return (
    <Badge colorPalette={on ? 'green' : 'gray'} variant="subtle">
      {on ? yes : 'No'}
    </Badge>
  );
}

/** UsersTab lists, adds and edits users and sets their passwords (spec 02 "Account Security", Add Users). */
export function UsersTab() {
  const me = useUser();
  // Each control shows only when the server's rule for its call lets the user in (docs/contracts.md).
  const may = {
    add: mayCall(me, 'POST /api/v1/user/add'),
    edit: mayCall(me, 'PUT /api/v1/user'),
    setPassword: mayCall(me, 'POST /api/v1/user/{id}/change-password'),
    resetSecondFactor: mayCall(me, 'POST /api/v1/user/{userId}/second-factor/reset'),
  };
  const { merchants, nameOf } = useMerchants();
  const roles = useRoles();
  const roleList = roles.data ?? [];
  const [searchText, setSearchText] = useState('');
  const search = useDebouncedValue(searchText.trim(), 400);
  const [page, setPage] = useState(1);
  const [take, setTake] = useState(10);
  const list = useUsers({ page, take, search: search || undefined });
  const update = useUpdateUser();
  const [adding, setAdding] = useState(false);
  const [passwordFor, setPasswordFor] = useState<ManagedUser | null>(null);
  const [editing, setEditing] = useState<{ id: string; draft: UserDraft; error?: string } | null>(null);
  const [roleChange, setRoleChange] = useState<RoleChange | null>(null);
  const [resetFor, setResetFor] = useState<ManagedUser | null>(null);
  const reset = useResetSecondFactor();
  const rows = list.data?.users ?? [];

  const setDraft = (patch: Partial<UserDraft>) => setEditing((e) => (e ? { ...e, draft: { ...e.draft, ...patch }, error: undefined } : e));

  function save(user: ManagedUser) {
    if (!editing) return;
    if (!editing.draft.username.trim()) {
      setEditing({ ...editing, error: 'Username is required.' });
      return;
    }
    const changes = userChanges(user, editing.draft, roleList);
    if (!changes) {
      notify.info('Nothing to update');
      return;
    }
    if (changes.roleIds) {
      setRoleChange({ changes, question: roleChangeQuestion(user, changes, roleList) });
      return;
    }
    send(changes);
  }

  function send(changes: UpdateUserInput) {
    update.mutate(changes, {
      onSuccess: () => {
        notify.success('User updated');
        setEditing(null);
        setRoleChange(null);
      },
      onError: (err) => {
        setRoleChange(null);
        notify.error(errorMessage(err, 'Failed to update user'));
      },
    });
  }

  const edit = (u: ManagedUser) => (editing?.id === u.id ? editing : null);
  const columns: DataColumn<ManagedUser>[] = [
    { key: 'id', header: 'Id', cell: (u) => u.id },
    {
      key: 'username',
      header: 'Username',
      cell: (u) => {
        const e = edit(u);
        if (e)
          return (
            <Field.Root invalid={!!e.error}>
              <Input size="xs" aria-label="Username" value={e.draft.username} onChange={(ev) => setDraft({ username: ev.target.value })} />
              <Field.ErrorText>{e.error}</Field.ErrorText>
            </Field.Root>
          );
        return (
          <HStack gap={2}>
            <Text as="span">{u.username}</Text>
            {!!me && me.id === u.id && (
              <Badge colorPalette="blue" variant="solid">
                Current
              </Badge>
            )}
          </HStack>
        );
      },
    },
    {
      key: 'merchants',
      header: 'Merchants',
      cell: (u) => {
        const e = edit(u);
        return e ? (
          <MerchantPicker ariaLabel="Merchants" size="xs" merchants={merchants} value={e.draft.merchantIds} onChange={(ids) => setDraft({ merchantIds: ids })} />
        ) : (
          <MerchantTags ids={u.merchantIds} nameOf={nameOf} />
        );
      },
    },
    {
      key: 'roles',
      header: 'Roles',
      cell: (u) => {
        const e = edit(u);
        if (e)
          return (
            <NativeSelect.Root size="xs" minW="32">
              <NativeSelect.Field aria-label="Role" value={e.draft.roleId ?? ''} onChange={(ev) => setDraft({ roleId: ev.target.value ? Number(ev.target.value) : null })}>
                <option value="">Select a role</option>
                {roleList.map((r) => (
                  <option key={r.id} value={r.id}>
                    {r.name}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          );
        return (
          <HStack gap={1} wrap="wrap">
            {roleNamesOf(u, roleList).map((r) => (
              <Badge key={r} colorPalette="purple" variant="subtle">
                {r}
              </Badge>
            ))}
          </HStack>
        );
      },
    },
    { key: 'paygateAdmin', header: 'Paygate Admin', cell: (u) => <YesNo on={u.isPaygateAdmin} /> },
    { key: 'merchantAdmin', header: 'Merchant Admin', cell: (u) => <YesNo on={u.isMerchantAdmin} /> },
    {
      key: 'ipRestricted',
      header: 'IP Restricted',
      cell: (u) => {
        const e = edit(u);
        return e ? <FlagSwitch hideLabel label="IP Restricted" checked={e.draft.isIpRestricted} onChange={(on) => setDraft({ isIpRestricted: on })} /> : <YesNo on={u.isIpRestricted} />;
      },
    },
    {
      key: 'disabled',
      header: 'Disabled',
      cell: (u) => {
        const e = edit(u);
        return e ? <FlagSwitch hideLabel label="Disabled" checked={e.draft.isDisabled} onChange={(on) => setDraft({ isDisabled: on })} /> : <YesNo on={u.isDisabled} />;
      },
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (u) =>
        edit(u) ? (
          <HStack gap={1}>
            <Button size="xs" colorPalette="blue" loading={update.isPending} onClick={() => save(u)}>
              Save
            </Button>
            <Button size="xs" variant="outline" disabled={update.isPending} onClick={() => setEditing(null)}>
              Cancel
            </Button>
          </HStack>
        ) : (
          <HStack gap={1}>
            {may.edit && (
              <Button size="xs" variant="outline" aria-label={`Edit ${u.username}`} disabled={editing !== null} onClick={() => setEditing({ id: u.id, draft: draftOf(u, roleList) })}>
                Edit
              </Button>
            )}
            {may.setPassword && (
              <IconButton size="xs" variant="outline" aria-label={`Change password for ${u.username}`} title="Change password" onClick={() => setPasswordFor(u)}>
                <KeyIcon />
              </IconButton>
            )}
            {may.resetSecondFactor && u.hasSecondFactor && (
              <Button size="xs" variant="outline" colorPalette="red" aria-label={`Reset two-factor of ${u.username}`} onClick={() => setResetFor(u)}>
                Reset 2FA
              </Button>
            )}
          </HStack>
        ),
    },
  ];

  return (
    <Stack gap={4}>
      <HStack justify="space-between" wrap="wrap" gap={3}>
        <Input
          size="sm"
          w="64"
          type="search"
          aria-label="Search users"
          placeholder="Search users"
          value={searchText}
          onChange={(e) => {
            setSearchText(e.target.value);
            setPage(1);
          }}
        />
        {may.add && (
          <Button size="sm" colorPalette="blue" onClick={() => setAdding(true)}>
            Add User
          </Button>
        )}
      </HStack>

      <DataTable
        label="Users"
        columns={columns}
        rows={rows}
        rowKey={(u) => u.id}
        rowProps={(u) => (editing?.id === u.id ? { bg: 'bg.muted' } : {})}
        loading={list.isPending}
        empty="No users found."
        error={list.isError && `Failed to load users: ${errorMessage(list.error, 'Unknown error')}`}
        onRetry={() => void list.refetch()}
        retrying={list.isFetching}
        pagination={{
          label: 'Users pages',
          page,
          totalPages: list.data?.totalPages ?? 0,
          totalCount: list.data?.totalCount ?? 0,
          pageSize: take,
          pageSizes: PAGE_SIZES,
          onPage: setPage,
          onPageSize: (size) => {
            setTake(size);
            setPage(1);
          },
        }}
      />

      {adding && <AddUserDialog roles={roleList} merchants={merchants} onClose={() => setAdding(false)} />}
      {passwordFor && <ChangeUserPasswordDialog user={passwordFor} onClose={() => setPasswordFor(null)} />}
      {resetFor && (
        <ConfirmDialog
          title="Reset Two-Factor"
          message={`Remove the second factor of ${resetFor.username}? Their sessions end, and they sign in with the password alone (or must set up a new second factor when the policy requires one).`}
          confirmLabel="Reset Two-Factor"
          pending={reset.isPending}
          onCancel={() => setResetFor(null)}
          onConfirm={() =>
            reset.mutate(resetFor.id, {
              onSuccess: () => {
                notify.success('Two-factor reset', `${resetFor.username} has been signed out everywhere.`);
                setResetFor(null);
              },
              onError: (err) => {
                setResetFor(null);
                notify.error(errorMessage(err, 'Failed to reset two-factor'));
              },
            })
          }
        />
      )}
      {roleChange && (
        <ConfirmDialog
          title="Change Role"
          message={roleChange.question}
          confirmLabel="Change Role"
          pending={update.isPending}
          onCancel={() => setRoleChange(null)}
          onConfirm={() => send(roleChange.changes)}
        />
      )}
    </Stack>
  );
}
