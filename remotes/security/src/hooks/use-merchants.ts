import { useQuery } from '@tanstack/react-query';
import { merchantsQuery, useUser, type Merchant } from '@paygate/sdk';
import { useMemo } from 'react';

/**
 * useMerchants reads the merchants the signed-in user may see (the SDK's
 * cached merchant query) and a name lookup by id. The SDK has the query but
 * no hook, so this remote keeps its own.
 */
export function useMerchants() {
  const user = useUser();
  const query = useQuery({ ...merchantsQuery(user?.username ?? ''), enabled: !!user });
  const list: Merchant[] = useMemo(() => query.data ?? [], [query.data]);
  const names = useMemo(() => new Map(list.map((m) => [m.id, m.name])), [list]);
  const nameOf = (id: number) => names.get(id) ?? `Merchant ${id}`;
  return { ...query, merchants: list, nameOf };
}
