import { Button, Field, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useMemo, useState } from 'react';
import type { RadarProvider } from '../api/get-providers';
import { useSetSla } from '../api/set-sla';
import type { RadarSla } from '../api/types';

interface Props {
  /** The SLA edited, or null to add one. */
  sla: RadarSla | null;
  providers: RadarProvider[];
  onClose: () => void;
}

/** minutesInvalid tells why a number of minutes is not an SLA (1 second to 30 days), or ''. */
export function minutesInvalid(text: string): string {
  const m = Number(text);
  if (text.trim() === '' || !Number.isFinite(m)) return 'Enter a number of minutes.';
  const s = Math.round(m * 60);
  if (s < 1 || s > 2_592_000) return 'Enter from 0.02 minutes (1 second) to 43200 minutes (30 days).';
  return '';
}

/** SlaDialog adds an SLA or changes one's duration (its provider, pay type and direction are its key). */
export function SlaDialog({ sla, providers, onClose }: Props) {
  const save = useSetSla();
  const [providerId, setProviderId] = useState(sla?.providerId ?? 0);
  const [payTypeId, setPayTypeId] = useState(sla?.payTypeId ?? 0);
  const [transactionType, setTransactionType] = useState(sla?.transactionType ?? 0);
  const [minutes, setMinutes] = useState(sla ? String(sla.overdueAfterSeconds / 60) : '30');
  const invalid = minutesInvalid(minutes);
  const payTypes = useMemo(() => {
    const source = providerId ? providers.filter((p) => p.id === providerId) : providers;
    const byId = new Map<number, string>();
    for (const p of source) for (const t of p.payTypes) byId.set(t.id, t.name);
    return [...byId].map(([id, name]) => ({ id, name })).sort((a, b) => a.name.localeCompare(b.name));
  }, [providers, providerId]);
  const editing = sla !== null;

  function submit() {
    if (invalid) return;
    save.mutate(
      { providerId, payTypeId, transactionType, overdueAfterSeconds: Math.round(Number(minutes) * 60) },
      {
        onSuccess: () => {
          notify.success('SLA saved');
          onClose();
        },
        onError: (e) => notify.error('Failed to save the SLA', errorMessage(e, 'Unknown error')),
      },
    );
  }

  return (
    <DialogFrame
      title={editing ? 'Edit SLA' : 'Add SLA'}
      onClose={onClose}
      size="md"
      footer={
        <>
          <Button variant="outline" onClick={onClose}>
            Cancel
          </Button>
          <Button onClick={submit} disabled={!!invalid} loading={save.isPending}>
            Save
          </Button>
        </>
      }
    >
      <Stack gap={3} as="form" onSubmit={(e) => (e.preventDefault(), submit())}>
        <Field.Root disabled={editing}>
          <Field.Label>Provider</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field aria-label="SLA provider" value={providerId} onChange={(e) => (setProviderId(Number(e.target.value)), setPayTypeId(0))}>
              <option value={0}>Any provider</option>
              {(editing && sla.providerId && !providers.some((p) => p.id === sla.providerId) ? [{ id: sla.providerId, name: sla.providerName }] : [])
                .concat(providers)
                .map((p) => (
                  <option key={p.id} value={p.id}>
                    {p.name}
                  </option>
                ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root disabled={editing}>
          <Field.Label>Pay type</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field aria-label="SLA pay type" value={payTypeId} onChange={(e) => setPayTypeId(Number(e.target.value))}>
              <option value={0}>Any pay type</option>
              {(editing && sla.payTypeId && !payTypes.some((t) => t.id === sla.payTypeId) ? [{ id: sla.payTypeId, name: sla.payTypeName }] : [])
                .concat(payTypes)
                .map((t) => (
                  <option key={t.id} value={t.id}>
                    {t.name}
                  </option>
                ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root disabled={editing}>
          <Field.Label>Direction</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field aria-label="SLA direction" value={transactionType} onChange={(e) => setTransactionType(Number(e.target.value))}>
              <option value={0}>Both</option>
              <option value={1}>Deposits</option>
              <option value={2}>Withdrawals</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root invalid={!!invalid} required>
          <Field.Label>Overdue after (minutes)</Field.Label>
          <Input size="sm" inputMode="decimal" value={minutes} onChange={(e) => setMinutes(e.target.value)} />
          {invalid ? <Field.ErrorText>{invalid}</Field.ErrorText> : <Field.HelperText>A non-final transaction older than this is overdue.</Field.HelperText>}
        </Field.Root>
        {!editing && (
          <Text fontSize="sm" color="fg.muted">
            The most specific SLA applies: a provider counts most, then a pay type, then a direction. Saving an SLA whose provider, pay type and direction exist already changes its time.
          </Text>
        )}
      </Stack>
    </DialogFrame>
  );
}
