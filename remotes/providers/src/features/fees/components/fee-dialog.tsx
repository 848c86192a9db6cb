import { Alert, Box, Button, Field, HStack, Input, List, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { DataTable, DialogFrame, errorMessage, FlagSwitch, isApiError, notify, type DataColumn } from '@paygate/sdk';
import { useId, useState } from 'react';
import { READABLE_SOLID_BUTTON } from '../../../contrast';
import { useCheckFeeConflicts, type FeeConflict } from '../api/check-fee-conflicts';
import type { CollabOption, Option } from '../api/get-lookups';
import { usePreviewFee, type FeePreviewRow } from '../api/preview-fee';
import { useSaveFee } from '../api/save-fee';
import type { Fee } from '../api/types';
import { amountRangeText, FEE_TYPES, feeValueText, formOf, inputOf, PAYERS, TRANSACTION_TYPES, validateFee, type FeeErrors, type FeeForm } from '../utils/fee-form';
import { SelectField } from './select-field';

interface Props {
  /** The fee edited; null for a new fee. */
  fee: Fee | null;
  /** The collab a new fee starts on. */
  collabId?: number;
  /** Whether a global fee (no collab) may be saved: admins only. */
  allowGlobal: boolean;
  collabs: CollabOption[];
  collabLabel: (c: CollabOption) => string;
  currencies: Option[];
  payTypes: Option[];
  onClose: () => void;
}

const IMPACT_COLUMNS: DataColumn<FeePreviewRow>[] = [
  { key: 'currency', header: 'Currency', cell: (c) => c.currency },
  { key: 'transactions', header: 'Transactions', cell: (c) => c.transactionCount },
  { key: 'changed', header: 'Fee changes', cell: (c) => c.changedCount },
  { key: 'before', header: 'Fees before', cell: (c) => c.feeBefore },
  { key: 'after', header: 'Fees after', cell: (c) => c.feeAfter },
];

/** FeeDialog creates or edits a fee: validation, the server's conflict check before saving, and the what-if preview. */
export function FeeDialog({ fee, collabId, allowGlobal, collabs, collabLabel, currencies, payTypes, onClose }: Props) {
  const id = useId();
  const [form, setForm] = useState<FeeForm>(() => formOf(fee, collabId));
  const [touched, setTouched] = useState(false);
  const [conflicts, setConflicts] = useState<FeeConflict[] | null>(null);
  const [serverError, setServerError] = useState<string | null>(null);
  const check = useCheckFeeConflicts();
  const save = useSaveFee();
  const preview = usePreviewFee();
  const errors: FeeErrors = touched ? validateFee(form, !allowGlobal) : {};
  const busy = check.isPending || save.isPending;
  const feeId = fee?.id ?? '';

  const set = <K extends keyof FeeForm>(k: K) => (v: FeeForm[K]) => {
    setForm((f) => ({ ...f, [k]: v }));
    setConflicts(null);
    setServerError(null);
    preview.reset();
  };

  function doSave(allowConflict: boolean) {
    save.mutate(
      { id: feeId, fee: inputOf(form), allowConflict },
      {
        onSuccess: (saved) => {
          notify.success(fee ? 'Fee updated' : 'Fee created', `Fee ${saved.id} was saved.`);
          onClose();
        },
        onError: (err) => {
          const message = errorMessage(err, fee ? 'Failed to update fee' : 'Failed to create fee');
          setServerError(message);
          notify.error(fee ? 'Failed to update fee' : 'Failed to create fee', message);
          // Someone saved a conflicting fee meanwhile: ask the server again.
          if (isApiError(err) && err.status === 409) void askConflicts();
        },
      },
    );
  }

  async function askConflicts(): Promise<FeeConflict[] | null> {
    try {
      const found = await check.mutateAsync({ id: feeId, fee: inputOf(form) });
      setConflicts(found);
      return found;
    } catch (err) {
      setServerError(errorMessage(err, 'The conflict check failed.'));
      return null;
    }
  }

  async function submit() {
    setTouched(true);
    setServerError(null);
    if (Object.keys(validateFee(form, !allowGlobal)).length > 0) return;
    // A disabled fee conflicts with nothing; an enabled one is checked by the server first.
    const found = form.enabled ? await askConflicts() : [];
    if (found && found.length === 0) doSave(false);
  }

  function runPreview() {
    setTouched(true);
    if (Object.keys(validateFee(form, !allowGlobal)).length > 0) return;
    preview.mutate({ id: feeId, fee: inputOf(form) });
  }

  const collabOptions = [
    ...(allowGlobal ? [{ value: '0', label: 'Global (every collab)' }] : [{ value: '', label: 'Select Collab' }]),
    ...collabs.map((c) => ({ value: String(c.id), label: collabLabel(c) })),
  ];
  const currencyOptions = [{ value: '', label: 'Select currency' }, ...currencies.map((c) => ({ value: String(c.id), label: c.label }))];
  const wins = conflicts?.every((c) => c.winnerId !== c.fee.id) ?? false;

  return (
    <DialogFrame
      title={fee ? `Edit Fee ${fee.id}` : 'Add Fee'}
      size="xl"
      onClose={onClose}
      footer={
        <HStack gap={2}>
          <Button variant="outline" onClick={onClose} disabled={save.isPending}>
            Cancel
          </Button>
          <Button variant="outline" onClick={runPreview} loading={preview.isPending}>
            Preview impact
          </Button>
          {conflicts && conflicts.length > 0 ? (
            <Button colorPalette="orange" {...READABLE_SOLID_BUTTON} onClick={() => doSave(true)} loading={save.isPending}>
              Save anyway
            </Button>
          ) : (
            <Button onClick={() => void submit()} loading={busy}>
              Save
            </Button>
          )}
        </HStack>
      }
    >
      <Stack gap={4} as="form" aria-label="Fee" onSubmit={(e) => e.preventDefault()}>
        <SimpleGrid columns={{ base: 1, md: 2 }} gap={3}>
          <SelectField label="Collab" value={form.collabId || (allowGlobal ? '0' : '')} onChange={set('collabId')} options={collabOptions} error={errors.collabId} required={!allowGlobal} />
          <SelectField label="Transaction type" value={form.transactionType} onChange={set('transactionType')} options={TRANSACTION_TYPES.map((t) => ({ value: String(t.id), label: t.label }))} />
          <SelectField label="Pay type" value={form.payTypeId} onChange={set('payTypeId')} options={[{ value: '0', label: 'All' }, ...payTypes.map((p) => ({ value: String(p.id), label: p.label }))]} />
          <SelectField label="Payer" value={form.payer} onChange={set('payer')} options={PAYERS.map((p) => ({ value: String(p.id), label: p.label }))} />
          <SelectField label="Currency from" value={form.currencyFromId} onChange={set('currencyFromId')} options={currencyOptions} error={errors.currencyFromId} required />
          <SelectField label="Currency to" value={form.currencyToId} onChange={set('currencyToId')} options={currencyOptions} error={errors.currencyToId} required />
          <TextField id={`${id}-min`} label="Minimum amount" placeholder="No minimum" value={form.amountMin} onChange={set('amountMin')} error={errors.amountMin} />
          <TextField id={`${id}-max`} label="Maximum amount" placeholder="No maximum" value={form.amountMax} onChange={set('amountMax')} error={errors.amountMax} />
          <SelectField label="Fee type" value={form.feeType} onChange={set('feeType')} options={FEE_TYPES.map((t) => ({ value: String(t.id), label: t.label }))} />
          <TextField
            id={`${id}-value`}
            label={form.feeType === '1' ? 'Value (%)' : 'Value'}
            placeholder={form.feeType === '0' ? 'No value' : form.feeType === '1' ? 'e.g. 1.5' : 'e.g. 15.00'}
            value={form.feeType === '0' ? '' : form.value}
            onChange={set('value')}
            error={errors.value}
            disabled={form.feeType === '0'}
            required={form.feeType !== '0'}
          />
          <TextField id={`${id}-priority`} label="Priority" value={form.priority} onChange={set('priority')} error={errors.priority} helper="Higher wins among equally specific fees." />
          <Box alignSelf="end" pb={2}>
            <FlagSwitch label="Enabled" checked={form.enabled} onChange={set('enabled')} />
          </Box>
        </SimpleGrid>

        {serverError && (
          <Alert.Root status="error" role="alert">
            <Alert.Indicator />
            <Alert.Title>{serverError}</Alert.Title>
          </Alert.Root>
        )}

        {conflicts && conflicts.length > 0 && (
          <Alert.Root status="warning" role="alert" aria-label="Fee conflicts">
            <Alert.Indicator />
            <Alert.Content>
              <Alert.Title>
                This fee conflicts with {conflicts.length} enabled fee{conflicts.length === 1 ? '' : 's'}.
              </Alert.Title>
              <Alert.Description>
                <List.Root ps={4}>
                  {conflicts.map((c) => (
                    <List.Item key={c.fee.id}>
                      Fee {c.fee.id} ({feeValueText(c.fee)}, {amountRangeText(c.fee.amountMin, c.fee.amountMax)}, priority {c.fee.priority}):{' '}
                      <strong>{c.winnerId === c.fee.id ? `fee ${c.fee.id} wins` : 'this fee wins'}</strong> where they overlap.
                    </List.Item>
                  ))}
                </List.Root>
                <Text mt={2}>{wins ? 'This fee wins every overlap.' : 'Where another fee wins, this one will not apply.'} Change the fee, or save it anyway.</Text>
              </Alert.Description>
            </Alert.Content>
          </Alert.Root>
        )}

        {preview.isError && (
          <Alert.Root status="error">
            <Alert.Indicator />
            <Alert.Title>{errorMessage(preview.error, 'The preview failed.')}</Alert.Title>
          </Alert.Root>
        )}
        {preview.isSuccess && (
          <Box as="section" aria-label="Fee preview">
            <Text fontWeight="semibold" mb={1}>
              Impact over the last 30 days
            </Text>
            <DataTable
              label="Fee impact"
              columns={IMPACT_COLUMNS}
              rows={preview.data.currencies}
              rowKey={(c) => c.currency}
              empty="No transaction of the last 30 days falls under this fee."
            />
          </Box>
        )}
      </Stack>
    </DialogFrame>
  );
}

interface TextFieldProps {
  id: string;
  label: string;
  value: string;
  onChange: (v: string) => void;
  error?: string;
  placeholder?: string;
  helper?: string;
  disabled?: boolean;
  required?: boolean;
}

function TextField({ id, label, value, onChange, error, placeholder, helper, disabled, required }: TextFieldProps) {
  return (
    <Field.Root invalid={!!error} disabled={disabled} required={required}>
      <Field.Label htmlFor={id}>{label}</Field.Label>
      <Input id={id} size="sm" inputMode="decimal" placeholder={placeholder} value={value} onChange={(e) => onChange(e.target.value)} />
      {error ? <Field.ErrorText>{error}</Field.ErrorText> : helper && <Field.HelperText>{helper}</Field.HelperText>}
    </Field.Root>
  );
}
