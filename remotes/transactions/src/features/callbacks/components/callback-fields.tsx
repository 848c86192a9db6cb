import { Field, NativeSelect } from '@chakra-ui/react';
import { CALLBACK_TYPES, type CallbackTransactionType } from '../api/types';

const typeValue = (t: CallbackTransactionType) => (t === null ? 'all' : String(t));
const typeOf = (v: string): CallbackTransactionType => (v === '1' ? 1 : v === '2' ? 2 : null);

/** CallbackTypeSelect picks All, Cash In or Cash Out. */
export function CallbackTypeSelect({ value, onChange, label }: { value: CallbackTransactionType; onChange: (t: CallbackTransactionType) => void; label?: string }) {
  const select = (
    <NativeSelect.Root size="sm">
      <NativeSelect.Field aria-label={label ? undefined : 'Transaction type'} value={typeValue(value)} onChange={(e) => onChange(typeOf(e.target.value))}>
        {CALLBACK_TYPES.map((t) => (
          <option key={typeValue(t.value)} value={typeValue(t.value)}>
            {t.label}
          </option>
        ))}
      </NativeSelect.Field>
      <NativeSelect.Indicator />
    </NativeSelect.Root>
  );
  if (!label) return select;
  return (
    <Field.Root>
      <Field.Label>{label}</Field.Label>
      {select}
    </Field.Root>
  );
}
