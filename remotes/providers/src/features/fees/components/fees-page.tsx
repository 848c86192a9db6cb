import { Button, Stack } from '@chakra-ui/react';
import {
  collabLabels,
  ConfirmDialog,
  errorMessage,
  hasPermission,
  mayCall,
  mayChangeGlobalFees,
  NoPermission,
  notify,
  PageFrame,
  SCREENS,
  seesAllMerchants,
  useCollabChoices,
  useUser,
  type CollabChoice,
  type User,
} from '@paygate/sdk';
import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useDeleteFee } from '../api/delete-fee';
import { useFees, type FeesInput } from '../api/get-fees';
import { useFeeLookups, type CollabOption } from '../api/get-lookups';
import type { Fee } from '../api/types';
import { DEFAULT_FEE_PAGE_SIZE, FEE_PAGE_SIZES, feeValueText } from '../utils/fee-form';
import { FeeDialog } from './fee-dialog';
import { FeeFiltersBar, NO_FILTERS, type FeeFilterValues } from './fee-filters';
import { FeeWinners } from './fee-winners';
import { FeesTable } from './fees-table';

/** FeesPage is the Fees screen (route /fees, spec 02 "Fees"): View Fees to read, Edit Fees to change. */
export function FeesPage() {
  const user = useUser();
  if (!user || !hasPermission(user, 'View Fees')) return <NoPermission />;
  return <FeesView user={user} />;
}

const num = (v: string) => (v === '' ? undefined : Number(v));

/**
 * offered turns a picker's choices (the SDK's useCollabChoices: the Current
 * Merchant's collabs, labelled apart) into the collabs and the label function
 * the fee filters and the fee dialog take.
 */
function offered(all: readonly CollabOption[], choices: readonly CollabChoice[]) {
  const labels = new Map(choices.map((c) => [c.id, c.label]));
  return { collabs: all.filter((c) => labels.has(c.id)), collabLabel: (c: CollabOption) => labels.get(c.id) ?? `Collab ${c.id}` };
}

/** filterInput turns the selects' values into the list call's filters. */
export function filterInput(f: FeeFilterValues, page: number, take: number): FeesInput {
  return {
    page,
    take,
    collabId: num(f.collabId),
    transactionType: num(f.transactionType),
    payTypeId: num(f.payTypeId),
    currencyFromId: num(f.currencyId),
    enabled: f.enabled === '' ? undefined : f.enabled === 'true',
  };
}

function FeesView({ user }: { user: User }) {
  const admin = seesAllMerchants(user);
  // Each control shows only when the server's rule for its call lets the user in; a global fee (no collab) also
  // needs what the fee handler asks (mayChangeGlobalFees).
  const may = {
    create: mayCall(user, 'POST /api/v1/fees'),
    update: mayCall(user, 'PUT /api/v1/fees/{id}'),
    delete: mayCall(user, 'DELETE /api/v1/fees/{id}'),
    global: mayChangeGlobalFees(user),
  };
  const [params, setParams] = useSearchParams();
  const collabParam = params.get('collabId') ?? '';
  const [filters, setFilters] = useState<FeeFilterValues>({ ...NO_FILTERS, collabId: /^\d+$/.test(collabParam) ? collabParam : '' });
  const [page, setPage] = useState(1);
  const [take, setTake] = useState(DEFAULT_FEE_PAGE_SIZE);
  const [open, setOpen] = useState<{ kind: 'edit'; fee: Fee | null } | { kind: 'delete'; fee: Fee } | null>(null);
  const list = useFees(filterInput(filters, page, take));
  const lookups = useFeeLookups();
  const remove = useDeleteFee();

  // The table names every collab apart; the pickers offer the Current Merchant's (spec 01 §4), an edited fee's kept.
  const names = useMemo(() => collabLabels(lookups.collabs, admin), [lookups.collabs, admin]);
  const collabName = (id: number) => names.get(id) ?? `Collab ${id}`;
  const payTypeName = (id: number) => lookups.payTypes.find((p) => p.id === id)?.label ?? `Pay type ${id}`;
  const selectedCollab = Number(filters.collabId) > 0 ? Number(filters.collabId) : 0;
  const filterPicker = offered(lookups.collabs, useCollabChoices(lookups.collabs, selectedCollab || null));
  const editedCollab = open?.kind === 'edit' ? (open.fee?.collabId ?? selectedCollab) : 0;
  const dialogPicker = offered(lookups.collabs, useCollabChoices(lookups.collabs, editedCollab || null));

  const failure = list.isError ? errorMessage(list.error, 'Unknown error') : null;
  useEffect(() => {
    if (failure) notify.error(`Failed to load fees: ${failure}`);
  }, [failure]);

  function changeFilters(next: FeeFilterValues) {
    setFilters(next);
    setPage(1);
    // The collab filter stays in the address, so that a link or a reload keeps it.
    setParams(
      (p) => {
        const q = new URLSearchParams(p);
        if (Number(next.collabId) > 0) q.set('collabId', next.collabId);
        else q.delete('collabId');
        return q;
      },
      { replace: true },
    );
  }

  function confirmDelete(fee: Fee) {
    remove.mutate(
      { id: fee.id },
      {
        onSuccess: () => {
          setOpen(null);
          notify.success('Fee deleted', `Fee ${fee.id} (${feeValueText(fee)}) has been deleted.`);
        },
        onError: (err) => {
          setOpen(null);
          notify.error('Failed to delete fee', errorMessage(err, 'The fee could not be deleted.'));
        },
      },
    );
  }

  return (
    <PageFrame
      title={SCREENS.fees.title}
      actions={
        may.create && (
          <Button size="sm" onClick={() => setOpen({ kind: 'edit', fee: null })}>
            Add Fee
          </Button>
        )
      }
    >
      <Stack gap={4}>
        <FeeFiltersBar
          values={filters}
          onChange={changeFilters}
          {...filterPicker}
          currencies={lookups.currencies}
          payTypes={lookups.payTypes}
        />
        {selectedCollab > 0 && <FeeWinners collabId={selectedCollab} collabName={collabName(selectedCollab)} payTypeName={payTypeName} />}
        <FeesTable
          fees={list.data?.fees ?? []}
          loading={list.isPending}
          failure={failure}
          onRetry={() => void list.refetch()}
          pagination={{
            label: 'Fees pages',
            page,
            totalPages: list.data?.totalPages ?? 0,
            totalCount: list.data?.totalCount ?? 0,
            pageSize: take,
            pageSizes: FEE_PAGE_SIZES,
            onPage: setPage,
            onPageSize: (size) => {
              setTake(size);
              setPage(1);
            },
          }}
          collabName={collabName}
          payTypeName={payTypeName}
          canEdit={(f) => may.update && (f.collabId !== 0 || may.global)}
          canDelete={(f) => may.delete && (f.collabId !== 0 || may.global)}
          onEdit={(fee) => setOpen({ kind: 'edit', fee })}
          onDelete={(fee) => setOpen({ kind: 'delete', fee })}
        />
      </Stack>

      {open?.kind === 'edit' && (
        <FeeDialog
          fee={open.fee}
          collabId={selectedCollab || undefined}
          allowGlobal={may.global}
          {...dialogPicker}
          currencies={lookups.currencies}
          payTypes={lookups.payTypes}
          onClose={() => setOpen(null)}
        />
      )}
      {open?.kind === 'delete' && (
        <ConfirmDialog
          title="Delete Fee"
          message={`Are you sure you want to delete fee ${open.fee.id} (${feeValueText(open.fee)})? Payments will no longer be charged by it.`}
          confirmLabel="Delete"
          destructive
          pending={remove.isPending}
          onCancel={() => setOpen(null)}
          onConfirm={() => confirmDelete(open.fee)}
        />
      )}
    </PageFrame>
  );
}
