import { Field, Input, InputGroup } from '@chakra-ui/react';
import { compareDecimal, isDecimal } from '@paygate/sdk';
import { isValidAmount, LIMIT_INPUT, normalizeAmount } from '../utils/limits';

interface Props {
  label: string;
  value: string;
  onChange: (value: string) => void;
  /** The value differs from the saved one: the field is highlighted. */
  changed?: boolean;
  disabled?: boolean;
}

/** AmountInput is a PHP amount: minimum 0, step 100, two decimals (spec 01 §9). */
export function AmountInput({ label, value, onChange, changed, disabled }: Props) {
  const invalid = !isValidAmount(value);
  return (
    <Field.Root invalid={invalid} disabled={disabled}>
      <Field.Label>{label}</Field.Label>
      <InputGroup startAddon={LIMIT_INPUT.currency}>
        <Input
          size="sm"
          type="number"
          inputMode="decimal"
          min={LIMIT_INPUT.min}
          step={LIMIT_INPUT.step}
          placeholder="No limit"
          value={value}
          data-changed={changed ? 'true' : undefined}
          bg={changed ? 'yellow.subtle' : undefined}
          borderColor={changed ? 'yellow.solid' : undefined}
          onChange={(e) => onChange(e.target.value)}
          onBlur={() => {
            // Two decimals, as the server keeps amounts.
            if (isDecimal(value) && compareDecimal(value, '0') >= 0) onChange(normalizeAmount(value));
          }}
        />
      </InputGroup>
      <Field.ErrorText>Enter an amount of 0 or more with at most two decimals.</Field.ErrorText>
      {changed && <Field.HelperText>Changed</Field.HelperText>}
    </Field.Root>
  );
}
