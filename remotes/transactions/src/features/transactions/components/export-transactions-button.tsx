import { Button } from '@chakra-ui/react';
import { formatDateTime, mayCall, notify, useRemoteModule, type ExportWizardProps, type User } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { collabNamer, type CollabOption } from '../../../api/get-collabs';
import type { TransactionsInput } from '../api/get-transactions';
import type { Transaction } from '../api/types';
import { statusLabel, TRANSACTION_TYPES } from '../../../utils/status';

/**
 * exportScope turns the list call into what the export wizard exports: the
 * same collab and the same filters the list sends to
 * /collabs/{id}/transactions/advanced (none while a free-text search is on,
 * as the list sends none then), with the page's names for them.
 */
export function exportScope(
  input: TransactionsInput,
  { collabs, admin, zone }: { collabs: readonly CollabOption[] | undefined; admin: boolean; zone: string },
): ExportScope {
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
  if (collab) labels.collab = collabNamer(collabs, admin)(collab.id);
  if (filter.type) labels.type = TRANSACTION_TYPES.find((t) => t.value === filter.type)?.label;
  if (filter.statuses) labels.statuses = filter.statuses.map(statusLabel).join(', ');
  if (filter.from && filter.to) labels.dateRange = `${formatDateTime(filter.from, zone)} – ${formatDateTime(filter.to, zone)}`;
  return { collabId: input.collabId || null, filter, labels };
}

/** ExportScope is what the wizard is opened with: a collab, the filter and their labels. */
export type ExportScope = Omit<ExportWizardProps, 'onClose'>;

/**
 * transactionExportScope prefills the wizard with one transaction (a row's
 * Export, spec 02 §2): its collab and its nonce, which the gateway keeps
 * unique per merchant, so the export selects that transaction alone.
 */
export function transactionExportScope(t: Pick<Transaction, 'collabId' | 'nonce'>, collabs: readonly CollabOption[] | undefined, admin: boolean): ExportScope {
  const collab = collabs?.find((c) => c.id === t.collabId);
  return { collabId: t.collabId || null, filter: { nonce: t.nonce }, labels: collab ? { collab: collabNamer(collabs, admin)(collab.id) } : {} };
}

/**
 * useExportWizard opens the files remote's "Export Transactions" wizard with
 * a scope; the wizard is loaded through the SDK when first opened, and a
 * failure to load it is reported (the next opening tries again).
 */
export function useExportWizard() {
  const [scope, setScope] = useState<ExportScope | null>(null);
  const wizard = useRemoteModule('files', './export-wizard', scope !== null);
  const failure = wizard.status === 'error' ? wizard.error.message : null;
  useEffect(() => {
    if (!failure) return;
    notify.error('Export unavailable', `The export wizard could not be loaded: ${failure}`);
    setScope(null);
  }, [failure]);
  const Wizard = wizard.status === 'ready' ? wizard.module.default : null;
  return {
    open: (next: ExportScope) => setScope(next),
    loading: wizard.status === 'loading',
    dialog: scope && Wizard ? <Wizard {...scope} onClose={() => setScope(null)} /> : null,
  };
}

interface Props {
  user: User | null;
  loading: boolean;
  onOpen: () => void;
}

/**
 * ExportTransactionsButton opens the export wizard with the page's collab and
 * filters (spec 02 §2, Export needs Files Access, as the export call does).
 */
export function ExportTransactionsButton({ user, loading, onOpen }: Props) {
  if (!mayCall(user, 'POST /api/v1/files/export')) return null;
  return (
    <Button size="sm" variant="outline" aria-haspopup="dialog" loading={loading} onClick={onOpen}>
      Export
    </Button>
  );
}
