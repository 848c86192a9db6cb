import { Button, Field, Fieldset, HStack, NativeSelect, SimpleGrid, Stack, Text } from '@chakra-ui/react';
import { notify } from '@paygate/sdk';
import { useId, useState } from 'react';
import { useAddPayTypes, type NewPayType } from '../api/add-pay-types';
import type { AmountKey, PayType } from '../api/types';
import { deniedOr } from '../../../utils/errors';
import { DEPOSIT_FIELDS, isValidAmount, normalizeAmount, WITHDRAWAL_FIELDS } from '../utils/limits';
import { AmountInput } from './amount-input';
import { SettingSwitch } from './setting-switch';

interface Props {
  collabId: number;
  /** The provider's pay types that are not on the collab yet. */
  offered: readonly PayType[];
}

/** The optional amounts of an add, by the limits' keys, and their names in the add payload. */
const PAYLOAD_KEYS: Record<AmountKey, keyof NewPayType> = {
  minimalDepositAmount: 'MinimalDepositAmount',
  maximalDepositAmount: 'MaximalDepositAmount',
  minimalWithdrawAmount: 'MinimalWithdrawalAmount',
  maximalWithdrawAmount: 'MaximalWithdrawalAmount',
};

const EMPTY_AMOUNTS: Record<AmountKey, string> = {
  minimalDepositAmount: '',
  maximalDepositAmount: '',
  minimalWithdrawAmount: '',
  maximalWithdrawAmount: '',
};

/**
 * newPayTypePayload builds the add payload (spec 01 §3, §5): a direction
 * stays on only if the pay type supports it, and an amount is sent only when
 * it is filled and belongs to a supported direction.
 */
export function newPayTypePayload(
  payType: PayType,
  flags: { cashIn: boolean; cashOut: boolean },
  amounts: Record<AmountKey, string>,
): NewPayType {
  const payload: NewPayType = {
    PayTypeId: payType.id,
    IsCashInEnabled: payType.cashIn && flags.cashIn,
    IsCashOutEnabled: payType.cashOut && flags.cashOut,
  };
  const fields = [...(payType.cashIn ? DEPOSIT_FIELDS : []), ...(payType.cashOut ? WITHDRAWAL_FIELDS : [])];
  for (const { key } of fields) {
    const value = normalizeAmount(amounts[key]);
    if (value !== '') (payload as Record<string, unknown>)[PAYLOAD_KEYS[key]] = value;
  }
  return payload;
}

/** AddPayTypeForm adds one of the provider's remaining pay types to a collab (spec 01 §2 "Collab settings dialog"). */
export function AddPayTypeForm({ collabId, offered }: Props) {
  const id = useId();
  const add = useAddPayTypes();
  const [payTypeId, setPayTypeId] = useState<number | undefined>();
  const [flags, setFlags] = useState({ cashIn: true, cashOut: true });
  const [amounts, setAmounts] = useState(EMPTY_AMOUNTS);
  const [missing, setMissing] = useState(false);
  const payType = offered.find((p) => p.id === payTypeId);
  const invalid = Object.values(amounts).some((a) => !isValidAmount(a));

  function choose(next: number | undefined) {
    setPayTypeId(next);
    setMissing(false);
    setFlags({ cashIn: true, cashOut: true });
    setAmounts(EMPTY_AMOUNTS);
  }

  function submit() {
    if (!payType) {
      setMissing(true);
      return;
    }
    add.mutate(
      { collabId, payTypes: [newPayTypePayload(payType, flags, amounts)] },
      {
        onSuccess: () => {
          notify.success('Pay type added', `${payType.name} (${payType.code})`);
          choose(undefined);
        },
        onError: (err) => notify.error(deniedOr(err, "You don't have permission to update collab pay types.", 'Failed to add pay type')),
      },
    );
  }

  if (offered.length === 0) {
    return (
      <Text fontSize="sm" color="fg.muted">
        Every pay type of this provider is on the collaboration.
      </Text>
    );
  }

  return (
    <Fieldset.Root>
      <Fieldset.Legend>Add Pay Type</Fieldset.Legend>
      <Stack gap={3}>
        <Field.Root invalid={missing}>
          <Field.Label htmlFor={`${id}-pay-type`}>Pay type to add</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field
              id={`${id}-pay-type`}
              value={payTypeId === undefined ? '' : String(payTypeId)}
              onChange={(e) => choose(e.target.value === '' ? undefined : Number(e.target.value))}
            >
              <option value="">Select a pay type</option>
              {offered.map((p) => (
                <option key={p.id} value={String(p.id)}>
                  {p.name} ({p.code})
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
          <Field.ErrorText>Select a pay type first.</Field.ErrorText>
        </Field.Root>
        {payType && (
          <>
            <HStack gap={6}>
              {payType.cashIn && (
                <SettingSwitch label="Cash-in" checked={flags.cashIn} onChange={(on) => setFlags((f) => ({ ...f, cashIn: on }))} />
              )}
              {payType.cashOut && (
                <SettingSwitch label="Cash-out" checked={flags.cashOut} onChange={(on) => setFlags((f) => ({ ...f, cashOut: on }))} />
              )}
            </HStack>
            <SimpleGrid columns={{ base: 1, sm: 2 }} gap={3}>
              {[...(payType.cashIn ? DEPOSIT_FIELDS : []), ...(payType.cashOut ? WITHDRAWAL_FIELDS : [])].map((f) => (
                <AmountInput
                  key={f.key}
                  label={`${f.label} (optional)`}
                  value={amounts[f.key]}
                  onChange={(v) => setAmounts((a) => ({ ...a, [f.key]: v }))}
                />
              ))}
            </SimpleGrid>
          </>
        )}
        <HStack>
          <Button size="sm" colorPalette="blue" variant="outline" onClick={submit} loading={add.isPending} disabled={!payType || invalid}>
            Add Pay Type
          </Button>
        </HStack>
      </Stack>
    </Fieldset.Root>
  );
}
