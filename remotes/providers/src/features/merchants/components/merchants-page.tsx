import { Code } from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { DataTable, merchantsQuery, NoPermission, notify, PageFrame, SCREENS, seesAllMerchants, useUser, type DataColumn, type Merchant, type User } from '@paygate/sdk';
import { useEffect } from 'react';

/** The fetch failure text of spec 01 §8. */
export const MERCHANTS_FETCH_ERROR = 'Failed to fetch merchants. Please try again.';

const COLUMNS: DataColumn<Merchant>[] = [
  { key: 'id', header: 'ID', cell: (m) => m.id },
  { key: 'name', header: 'Name', cell: (m) => m.name },
  { key: 'hash', header: 'Hash', cell: (m) => <Code>{m.hash}</Code> },
];

/** MerchantsPage lists every merchant for admins (spec 01 §2 "Merchants page"). */
export function MerchantsPage() {
  const user = useUser();
  // The route guard already sends non-admins away; the page says so itself too.
  if (!user || !seesAllMerchants(user)) {
    return <NoPermission />;
  }
  return <Merchants user={user} />;
}

function Merchants({ user }: { user: User }) {
  const merchants = useQuery(merchantsQuery(user.username));

  useEffect(() => {
    if (merchants.isError) notify.error(MERCHANTS_FETCH_ERROR);
  }, [merchants.isError, merchants.errorUpdatedAt]);

  return (
    <PageFrame title={SCREENS.merchants.title}>
      <DataTable
        label="Merchants"
        columns={COLUMNS}
        rows={merchants.data ?? []}
        rowKey={(m) => String(m.id)}
        loading={merchants.isPending}
        empty="No merchants yet."
        error={merchants.isError && 'The merchant list could not be loaded.'}
        onRetry={() => void merchants.refetch()}
        retrying={merchants.isFetching}
      />
    </PageFrame>
  );
}
