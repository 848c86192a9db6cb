import { hasPermission, isApiError, useUser } from '@paygate/sdk';
import { useMemo } from 'react';
import { useUsers } from '../api/get-users';

/** UserOption is a user the IP Restrictions tab can pick. */
export interface UserOption {
  id: string;
  username: string;
}

/** How many users the picker lists for one filter. */
const PICKER_TAKE = 100;

/**
 * useUserOptions lists the users whose IP ranges the caller may manage,
 * filtered on the server by search. A caller without Add Users whose list
 * call is refused manages their own ranges only.
 */
export function useUserOptions(search: string) {
  const me = useUser();
  const query = useUsers({ page: 1, take: PICKER_TAKE, search: search || undefined });
  const refused = isApiError(query.error) && query.error.status === 403 && !hasPermission(me, 'Add Users');
  const options: UserOption[] = useMemo(() => {
    if (refused) return me ? [{ id: me.id, username: me.username }] : [];
    return (query.data?.users ?? []).map((u) => ({ id: u.id, username: u.username }));
  }, [refused, me, query.data]);
  return { options, loading: query.isPending, failed: query.isError && !refused, error: query.error };
}
