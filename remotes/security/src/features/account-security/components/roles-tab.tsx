import { Badge, Button, EmptyState, HStack, Input, Skeleton, Stack, Table, Text, VisuallyHidden } from '@chakra-ui/react';
import { ConfirmDialog, errorMessage, mayCall, notify, PERMISSIONS, useUser } from '@paygate/sdk';
import { useState } from 'react';
import { useRoles, type RoleOption } from '../api/get-roles';
import { useRoleChanges } from '../api/save-role';
import { RoleDialog } from './role-dialog';
import { RoleHoldersDialog } from './role-holders-dialog';

/**
 * matrixView narrows the matrix by a search text: the roles whose name holds
 * it and the permissions whose name holds it. When the text names only roles,
 * every permission of those roles shows; when it names only permissions,
 * every role shows with those rows; when it names nothing, nothing shows.
 */
export function matrixView(roles: readonly RoleOption[], search: string): { roles: RoleOption[]; permissions: string[] } {
  const q = search.trim().toLowerCase();
  if (!q) return { roles: [...roles], permissions: [...PERMISSIONS] };
  const byRole = roles.filter((r) => r.name.toLowerCase().includes(q));
  const byPermission = PERMISSIONS.filter((p) => p.toLowerCase().includes(q));
  return {
    roles: byRole.length > 0 ? byRole : byPermission.length > 0 ? [...roles] : [],
    permissions: byPermission.length > 0 ? byPermission : byRole.length > 0 ? [...PERMISSIONS] : [],
  };
}

function Granted({ on }: { on: boolean }) {
  return on ? (
    <Badge colorPalette="green" variant="subtle">
      Yes
    </Badge>
  ) : (
    <Text as="span" color="fg.muted">
      <span aria-hidden="true">—</span>
      <VisuallyHidden>No</VisuallyHidden>
    </Text>
  );
}

/**
 * RolesTab is the permission matrix of Account Security (docs/access.md):
 * roles × the 30 permissions with each role's scope and holders, a search
 * box, the built-in roles read-only, and custom roles created, edited and
 * deleted (after a confirmation). Shown to users the server lets create roles.
 */
export function RolesTab() {
  const me = useUser();
  // Each control shows only when the server's rule for its call lets the user in.
  const may = {
    create: mayCall(me, 'POST /api/v1/roles'),
    edit: mayCall(me, 'PUT /api/v1/roles/{id}'),
    remove: mayCall(me, 'DELETE /api/v1/roles/{id}'),
  };
  const roles = useRoles();
  const { remove } = useRoleChanges();
  const [search, setSearch] = useState('');
  const [editing, setEditing] = useState<RoleOption | 'new' | null>(null);
  const [deleting, setDeleting] = useState<RoleOption | null>(null);
  const [holdersOf, setHoldersOf] = useState<RoleOption | null>(null);
  const view = matrixView(roles.data ?? [], search);

  function confirmDelete(role: RoleOption) {
    remove.mutate(role.id, {
      onSuccess: () => {
        notify.success('Role deleted');
        setDeleting(null);
      },
      onError: (err) => {
        setDeleting(null);
        notify.error(errorMessage(err, 'Failed to delete role'));
      },
    });
  }

  return (
    <Stack gap={4}>
      <HStack justify="space-between" wrap="wrap" gap={3}>
        <Input
          size="sm"
          w="72"
          type="search"
          aria-label="Search roles and permissions"
          placeholder="Search roles and permissions"
          value={search}
          onChange={(e) => setSearch(e.target.value)}
        />
        {may.create && me && (
          <Button size="sm" colorPalette="blue" onClick={() => setEditing('new')}>
            New Role
          </Button>
        )}
      </HStack>

      {roles.isError && (
        <Text role="alert" color="fg.error">
          Failed to load roles: {errorMessage(roles.error, 'Unknown error')}
        </Text>
      )}

      <Table.ScrollArea borderWidth="1px" borderRadius="md" maxW="full">
        <Table.Root size="sm" aria-label="Permission matrix" aria-busy={roles.isPending} showColumnBorder>
          <Table.Header>
            <Table.Row>
              <Table.ColumnHeader minW="48">Permission</Table.ColumnHeader>
              {view.roles.map((r) => (
                <Table.ColumnHeader key={r.id} minW="36" verticalAlign="top">
                  <Stack gap={1}>
                    <Text fontWeight="semibold">{r.name}</Text>
                    <HStack gap={1} wrap="wrap">
                      {r.builtIn ? (
                        <Badge variant="outline">Built in</Badge>
                      ) : (
                        <Badge colorPalette="purple" variant="subtle">
                          Custom
                        </Badge>
                      )}
                    </HStack>
                    {!r.builtIn && (may.edit || may.remove) && (
                      <HStack gap={1}>
                        {may.edit && me && (
                          <Button size="2xs" variant="outline" aria-label={`Edit role ${r.name}`} onClick={() => setEditing(r)}>
                            Edit
                          </Button>
                        )}
                        {may.remove && (
                          <Button size="2xs" variant="outline" colorPalette="red" aria-label={`Delete role ${r.name}`} onClick={() => setDeleting(r)}>
                            Delete
                          </Button>
                        )}
                      </HStack>
                    )}
                  </Stack>
                </Table.ColumnHeader>
              ))}
            </Table.Row>
          </Table.Header>
          <Table.Body>
            {roles.isPending &&
              [0, 1, 2].map((i) => (
                <Table.Row key={`s${i}`}>
                  <Table.Cell colSpan={2}>
                    <Skeleton height="5" />
                  </Table.Cell>
                </Table.Row>
              ))}
            {roles.isSuccess && (view.roles.length === 0 || view.permissions.length === 0) && (
              <Table.Row>
                <Table.Cell colSpan={view.roles.length + 1}>
                  <EmptyState.Root size="sm">
                    <EmptyState.Content>
                      <EmptyState.Description>No role or permission matches the search.</EmptyState.Description>
                    </EmptyState.Content>
                  </EmptyState.Root>
                </Table.Cell>
              </Table.Row>
            )}
            {roles.isSuccess && view.roles.length > 0 && view.permissions.length > 0 && (
              <>
                <Table.Row bg="bg.muted">
                  <Table.Cell as="th" scope="row" fontWeight="medium">Users</Table.Cell>
                  {view.roles.map((r) => (
                    <Table.Cell key={r.id}>
                      <Button size="2xs" variant="ghost" aria-label={`Users holding ${r.name}: ${r.userCount}`} onClick={() => setHoldersOf(r)}>
                        {r.userCount} {r.userCount === 1 ? 'user' : 'users'}
                      </Button>
                    </Table.Cell>
                  ))}
                </Table.Row>
                <Table.Row bg="bg.muted">
                  <Table.Cell as="th" scope="row" fontWeight="medium">Sees every merchant</Table.Cell>
                  {view.roles.map((r) => (
                    <Table.Cell key={r.id}>
                      <Granted on={r.globalScope} />
                    </Table.Cell>
                  ))}
                </Table.Row>
                {view.permissions.map((p) => (
                  <Table.Row key={p}>
                    <Table.Cell as="th" scope="row" fontWeight="normal">{p}</Table.Cell>
                    {view.roles.map((r) => (
                      <Table.Cell key={r.id}>
                        <Granted on={r.permissions.includes(p)} />
                      </Table.Cell>
                    ))}
                  </Table.Row>
                ))}
              </>
            )}
          </Table.Body>
        </Table.Root>
      </Table.ScrollArea>

      {editing && me && <RoleDialog role={editing === 'new' ? undefined : editing} me={me} onClose={() => setEditing(null)} />}
      {holdersOf && <RoleHoldersDialog role={holdersOf} onClose={() => setHoldersOf(null)} />}
      {deleting && (
        <ConfirmDialog
          title="Delete Role"
          message={`Delete the role ${deleting.name}? This cannot be undone. A role that users hold cannot be deleted.`}
          confirmLabel="Delete"
          destructive
          pending={remove.isPending}
          onCancel={() => setDeleting(null)}
          onConfirm={() => confirmDelete(deleting)}
        />
      )}
    </Stack>
  );
}
