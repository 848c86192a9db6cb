import { Button } from '@chakra-ui/react';
import { mayCall, type User } from '@paygate/sdk';
import { useState } from 'react';
import { ActivityDialog } from './activity-dialog';

interface Props {
  user: User;
  /** The merchant whose collab actions to show; null for every collab action the user may see. */
  merchant: { id: number; name: string } | null;
}

/**
 * RecentActions is the Providers toolbar's Recent Actions button and the activity dialog it opens
 * (spec 01 §2 "Activity dialog"). It shows only when the server's rule for the read it makes lets
 * the user in (docs/contracts.md).
 */
export function RecentActions({ user, merchant }: Props) {
  const [open, setOpen] = useState<Props['merchant'] | undefined>(undefined);
  const may = mayCall(user, merchant ? 'GET /api/v1/logs/merchants/{merchantId}/collabs/activity' : 'GET /api/v1/logs/collabs/activity');
  return (
    <>
      {may && (
        <Button size="sm" variant="outline" onClick={() => setOpen(merchant)}>
          Recent Actions
        </Button>
      )}
      {open !== undefined && <ActivityDialog merchant={open} onClose={() => setOpen(undefined)} />}
    </>
  );
}
