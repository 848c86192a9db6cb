import { Button, Menu, Portal } from '@chakra-ui/react';
import { mayCall, type User } from '@paygate/sdk';
import { useState } from 'react';
import { BULK_ACTIONS, type BulkAction, type BulkFilter } from '../api/bulk-actions';
import { BulkActionDialog } from './bulk-action-dialog';

interface Props {
  user: User | null;
  filter: BulkFilter;
  statusName: (code: number) => string;
  collabName: (id: number) => string;
  /** Opens the export wizard with the same filter (export is not a run). */
  onExport: () => void;
}

/** BulkActionsMenu acts on the whole filter, not only the visible page (docs/contracts-bulk.md). */
export function BulkActionsMenu({ user, filter, statusName, collabName, onExport }: Props) {
  // The filter as it was when the action was chosen: the dialog's dry run
  // and run use that one.
  const [open, setOpen] = useState<{ action: BulkAction; filter: BulkFilter } | null>(null);
  if (!mayCall(user, 'POST /api/v1/bulk-actions/dry-run')) return null;
  return (
    <>
      <Menu.Root>
        <Menu.Trigger asChild>
          <Button size="sm" variant="outline">
            Bulk actions
          </Button>
        </Menu.Trigger>
        <Portal>
          <Menu.Positioner>
            <Menu.Content>
              {BULK_ACTIONS.map((a) => (
                <Menu.Item key={a.value} value={a.value} onSelect={() => (a.value === 'export' ? onExport() : setOpen({ action: a.value, filter }))}>
                  {a.label}…
                </Menu.Item>
              ))}
            </Menu.Content>
          </Menu.Positioner>
        </Portal>
      </Menu.Root>
      {open && <BulkActionDialog action={open.action} filter={open.filter} statusName={statusName} collabName={collabName} onClose={() => setOpen(null)} />}
    </>
  );
}
