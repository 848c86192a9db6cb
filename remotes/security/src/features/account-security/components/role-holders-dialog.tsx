import { Button, List, Skeleton, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage } from '@paygate/sdk';
import type { RoleOption } from '../api/get-roles';
import { useUsers } from '../api/get-users';

/** The most holders the dialog lists; the count says how many there are. */
const MAX_SHOWN = 100;

/** RoleHoldersDialog lists the users holding a role (among the users the caller manages). */
export function RoleHoldersDialog({ role, onClose }: { role: RoleOption; onClose: () => void }) {
  const holders = useUsers({ page: 1, take: MAX_SHOWN, roleId: role.id });
  const users = holders.data?.users ?? [];
  const total = holders.data?.totalCount ?? 0;
  return (
    <DialogFrame
      title={`Users holding ${role.name}`}
      size="sm"
      onClose={onClose}
      footer={
        <Button variant="outline" onClick={onClose}>
          Close
        </Button>
      }
    >
      <Stack gap={2}>
        {holders.isPending && <Skeleton height="5" />}
        {holders.isError && (
          <Text role="alert" color="fg.error">
            Failed to load users: {errorMessage(holders.error, 'Unknown error')}
          </Text>
        )}
        {holders.isSuccess && users.length === 0 && <Text>No user holds this role.</Text>}
        {users.length > 0 && (
          <List.Root aria-label={`Holders of ${role.name}`} ps={4}>
            {users.map((u) => (
              <List.Item key={u.id}>
                {u.username}
                {u.isDisabled ? ' (disabled)' : ''}
              </List.Item>
            ))}
          </List.Root>
        )}
        {total > users.length && (
          <Text fontSize="sm" color="fg.muted">
            and {total - users.length} more
          </Text>
        )}
      </Stack>
    </DialogFrame>
  );
}
