import { Badge } from '@chakra-ui/react';

/** The statuses in words, and their colours. */
const STATUS: Record<string, { label: string; palette: string }> = {
  pending: { label: 'Pending', palette: 'orange' },
  approved: { label: 'Approved', palette: 'green' },
  rejected: { label: 'Rejected', palette: 'red' },
  expired: { label: 'Expired', palette: 'gray' },
  failed: { label: 'Failed', palette: 'red' },
};

/** statusLabel names a status in words. */
export function statusLabel(status: string): string {
  return STATUS[status]?.label ?? status;
}

/** ApprovalStatus is a request's status as a badge. */
export function ApprovalStatus({ status }: { status: string }) {
  const s = STATUS[status];
  return (
    <Badge colorPalette={s?.palette ?? 'gray'} variant={status === 'failed' ? 'solid' : 'subtle'}>
      {statusLabel(status)}
    </Badge>
  );
}
