import { Alert, Button, Fieldset, HStack, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { DialogFrame, mayCall, notify, useUser } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { useCollabLimits } from '../api/get-collab-limits';
import { useSaveCollabLimits } from '../api/save-collab-limits';
import { useSavePayTypeLimits } from '../api/save-pay-type-limits';
import type { AmountKey, Amounts, Collab, CollabLimits } from '../api/types';
import { deniedOr, isDenied, messageOf } from '../../../utils/errors';
import { changedAmounts, DEPOSIT_FIELDS, isChanged, isValidAmount, pickAmounts, visibleAmountKeys, WITHDRAWAL_FIELDS } from '../utils/limits';
import { AmountInput } from './amount-input';

interface Props {
  collab: Collab;
  onClose: () => void;
}

/** The scope of a set of amounts: the collab itself, or one collab pay type. */
type Scope = 'collab' | number;

/** LimitsChange is one call the save makes: only the amounts that changed. */
export type LimitsChange = { scope: 'collab'; amounts: Partial<Amounts> } | { scope: number; amounts: Partial<Amounts> };

/** The save button's states (spec 01 §2): idle, loading, success; after a success it stays disabled until the next change. */
type SaveState = 'idle' | 'loading' | 'success';

/**
 * limitsChanges lists the calls a save makes: the collab's changed amounts
 * and each pay type's, only for the fields that are shown and only where
 * something changed (spec 01 §5).
 */
export function limitsChanges(limits: CollabLimits, edits: Map<Scope, Partial<Amounts>>): LimitsChange[] {
  const out: LimitsChange[] = [];
  const collabEdits = edits.get('collab');
  if (collabEdits) {
    const initial = pickAmounts(limits);
    const amounts = changedAmounts(initial, { ...initial, ...collabEdits }, visibleAmountKeys(limits.supportsDeposits, limits.supportsWithdrawals));
    if (Object.keys(amounts).length > 0) out.push({ scope: 'collab', amounts });
  }
  for (const p of limits.collabPayTypeLimits) {
    const e = edits.get(p.collabPayTypeId);
    if (!e) continue;
    const initial = pickAmounts(p);
    const visible = visibleAmountKeys(limits.supportsDeposits && p.supportsDeposits, limits.supportsWithdrawals && p.supportsWithdrawals);
    const amounts = changedAmounts(initial, { ...initial, ...e }, visible);
    if (Object.keys(amounts).length > 0) out.push({ scope: p.collabPayTypeId, amounts });
  }
  return out;
}

/** CollabLimitsDialog edits a collab's limits and its pay types' limits (spec 01 §2 "Collab limits dialog"). */
export function CollabLimitsDialog({ collab, onClose }: Props) {
  const query = useCollabLimits({ collabId: collab.id });
  const title = `Limits - [${collab.merchant.name}] ${collab.provider.name}`;
  const readError = query.isError
    ? isDenied(query.error)
      ? "You don't have permission to access this collab limits."
      : `Failed to fetch collab limits: ${messageOf(query.error)}`
    : null;

  useEffect(() => {
    if (readError) notify.error(readError);
  }, [readError]);

  return (
    <DialogFrame title={title} size="xl" onClose={onClose}>
      {query.isPending ? (
        <Stack gap={3} aria-busy="true" aria-label="Loading limits">
          <Skeleton height="8" />
          <Skeleton height="8" />
        </Stack>
      ) : query.isError ? (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Title>The limits could not be loaded.</Alert.Title>
          <Button size="sm" variant="outline" onClick={() => void query.refetch()}>
            Retry
          </Button>
        </Alert.Root>
      ) : (
        <LimitsForm collabId={collab.id} limits={query.data} onClose={onClose} />
      )}
    </DialogFrame>
  );
}

function LimitsForm({ collabId, limits, onClose }: { collabId: number; limits: CollabLimits; onClose: () => void }) {
  const client = useQueryClient();
  const user = useUser();
  // A scope's amounts are editable only when the server's rule for its save lets the user in; without either, the dialog only reads.
  const may = {
    collab: mayCall(user, 'POST /api/v1/merchant/collabs/limits'),
    payType: mayCall(user, 'POST /api/v1/merchants/collabs/pay-type/limits'),
  };
  const editable = (scope: Scope) => (scope === 'collab' ? may.collab : may.payType);
  const saveCollab = useSaveCollabLimits();
  const savePayType = useSavePayTypeLimits();
  const [edits, setEdits] = useState<Map<Scope, Partial<Amounts>>>(new Map());
  const [saveState, setSaveState] = useState<SaveState>('idle');

  const changes = limitsChanges(limits, edits);
  const invalid = [...edits.values()].some((e) => Object.values(e).some((v) => !isValidAmount(v ?? '')));

  function edit(scope: Scope, key: AmountKey, value: string) {
    setSaveState('idle');
    setEdits((m) => new Map(m).set(scope, { ...(m.get(scope) ?? {}), [key]: value }));
  }

  async function submit() {
    setSaveState('loading');
    const saved: Scope[] = [];
    try {
      for (const change of changes) {
        if (change.scope === 'collab') {
          try {
            await saveCollab.mutateAsync({ collabId, ...change.amounts });
          } catch (err) {
            throw new Error(deniedOr(err, "You don't have permission to update this collab limits.", 'Failed to save collab limits'));
          }
        } else {
          try {
            await savePayType.mutateAsync({ collabPayTypeId: change.scope, ...change.amounts });
          } catch (err) {
            throw new Error(deniedOr(err, "You don't have permission to update this collab pay types limits.", 'Failed to save pay type limits'));
          }
        }
        saved.push(change.scope);
      }
      setSaveState('success');
      notify.success('Limits saved');
    } catch (err) {
      setSaveState('idle');
      notify.error(messageOf(err));
    } finally {
      if (saved.length > 0) {
        await client.invalidateQueries({ queryKey: ['collab-limits', collabId] });
        setEdits((m) => {
          const next = new Map(m);
          saved.forEach((s) => next.delete(s));
          return next;
        });
      }
    }
  }

  function fields(scope: Scope, initial: Amounts, deposits: boolean, withdrawals: boolean) {
    const current = { ...initial, ...(edits.get(scope) ?? {}) };
    const shown = [...(deposits ? DEPOSIT_FIELDS : []), ...(withdrawals ? WITHDRAWAL_FIELDS : [])];
    if (shown.length === 0) {
      return (
        <Text fontSize="sm" color="fg.muted">
          Neither deposits nor withdrawals are supported here.
        </Text>
      );
    }
    return (
      <SimpleGrid columns={{ base: 1, sm: 2 }} gap={3}>
        {shown.map((f) => (
          <AmountInput
            key={f.key}
            label={f.label}
            value={current[f.key]}
            changed={isChanged(initial[f.key], current[f.key])}
            disabled={saveState === 'loading' || !editable(scope)}
            onChange={(v) => edit(scope, f.key, v)}
          />
        ))}
      </SimpleGrid>
    );
  }

  return (
    <Stack gap={6}>
      <Fieldset.Root>
        <Fieldset.Legend>Collab Limits</Fieldset.Legend>
        {fields('collab', pickAmounts(limits), limits.supportsDeposits, limits.supportsWithdrawals)}
      </Fieldset.Root>
      {limits.collabPayTypeLimits.map((p) => (
        <Fieldset.Root key={p.collabPayTypeId}>
          <Fieldset.Legend>
            {p.paytypeName} ({p.paytypeCode})
          </Fieldset.Legend>
          {fields(p.collabPayTypeId, pickAmounts(p), limits.supportsDeposits && p.supportsDeposits, limits.supportsWithdrawals && p.supportsWithdrawals)}
        </Fieldset.Root>
      ))}
      <HStack justify="end" gap={3}>
        <Button variant="outline" onClick={onClose}>
          Close
        </Button>
        {(may.collab || may.payType) && (
          <Button
            colorPalette={saveState === 'success' ? 'green' : 'blue'}
            loading={saveState === 'loading'}
            loadingText="Saving"
            disabled={saveState === 'success' || changes.length === 0 || invalid}
            onClick={() => void submit()}
          >
            {saveState === 'success' ? 'Saved ✓' : 'Save'}
          </Button>
        )}
      </HStack>
    </Stack>
  );
}
