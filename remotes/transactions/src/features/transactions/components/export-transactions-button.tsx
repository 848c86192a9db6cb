import { Button } from '@chakra-ui/react';
import { formatDateTime, mayCall, notify, useRemoteModule, type ExportWizardProps, type User } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { collabLabel, type CollabOption } from '../../../api/get-collabs';
import type { TransactionsInput } from '../api/get-transactions';
import { statusLabel, TRANSACTION_TYPES } from '../utils/status';

/**
 * exportScope turns the list call into what the export wizard exports: the
 * same collab and the same filters the list sends to
 * /collabs/{id}/transactions/advanced (none while a free-text search is on,
 * as the list sends none then), with the page's names for them.
 */
export function exportScope(
  input: TransactionsInput,
  { collabs, admin, zone }: { collabs: readonly CollabOption[] | undefined; admin: boolean; zone: string },
): Omit<ExportWizardProps, 'onClose'> {
  const text = (v: string | undefined) => (v?.trim() ? v.trim() : undefined);
  const filter: ExportWizardProps['filter'] = {
    type: input.type || undefined,
    statuses: input.statuses?.length ? input.statuses : undefined,
    providerTid: text(input.providerTid),
    merchantCid: text(input.merchantCid),
    nonce: text(input.nonce),
    from: input.from,
    to: input.to,
    minAmount: text(input.minAmount),
    maxAmount: text(input.maxAmount),
    currency: text(input.currency),
    paymentMethodValue: text(input.paymentMethodValue),
    paymentMethodType: text(input.paymentMethodValue) ? input.paymentMethodType : undefined,
    paymentIpAddress: text(input.paymentIpAddress),
  };
  for (const k of Object.keys(filter) as (keyof typeof filter)[]) if (filter[k] === undefined) delete filter[k];
  const collab = collabs?.find((c) => c.id === input.collabId);
  const labels: ExportWizardProps['labels'] = {};
  if (collab) labels.collab = collabLabel(collab, admin);
  if (filter.type) labels.type = TRANSACTION_TYPES.find((t) => t.value === filter.type)?.label;
  if (filter.statuses) labels.statuses = filter.statuses.map(statusLabel).join(', ');
  if (filter.from && filter.to) labels.dateRange = `${formatDateTime(filter.from, zone)} – ${formatDateTime(filter.to, zone)}`;
  return { collabId: input.collabId || null, filter, labels };
}

interface Props {
  user: User | null;
  /** The list call as the page makes it. */
  input: TransactionsInput;
  collabs: readonly CollabOption[] | undefined;
  admin: boolean;
  zone: string;
}

/**
 * ExportTransactionsButton opens the files remote's "Export Transactions"
 * wizard with the page's collab and filters (spec 02 §2, Export needs Files
 * Access). The wizard is loaded through the SDK when first opened.
 */
export function ExportTransactionsButton({ user, input, collabs, admin, zone }: Props) {
  const [open, setOpen] = useState(false);
  const wizard = useRemoteModule('files', './export-wizard', open);
  const failure = wizard.status === 'error' ? wizard.error.message : null;
  useEffect(() => {
    if (!failure) return;
    notify.error('Export unavailable', `The export wizard could not be loaded: ${failure}`);
    setOpen(false);
  }, [failure]);

  if (!mayCall(user, 'POST /api/v1/files/export')) return null;
  const Wizard = wizard.status === 'ready' ? wizard.module.default : null;
  return (
    <>
      <Button size="sm" variant="outline" aria-haspopup="dialog" loading={wizard.status === 'loading'} onClick={() => setOpen(true)}>
        Export
      </Button>
      {open && Wizard && <Wizard {...exportScope(input, { collabs, admin, zone })} onClose={() => setOpen(false)} />}
    </>
  );
}
