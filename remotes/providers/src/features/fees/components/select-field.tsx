import { Field, NativeSelect } from '@chakra-ui/react';

export interface SelectFieldProps {
  label: string;
  value: string;
  onChange: (value: string) => void;
  options: readonly { value: string; label: string }[];
  error?: string;
  disabled?: boolean;
  required?: boolean;
}

/** SelectField is a labelled native select with an error message. */
export function SelectField({ label, value, onChange, options, error, disabled, required }: SelectFieldProps) {
  return (
    <Field.Root invalid={!!error} disabled={disabled} required={required}>
      <Field.Label>{label}</Field.Label>
      <NativeSelect.Root size="sm" disabled={disabled}>
        <NativeSelect.Field aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>
          {options.map((o) => (
            <option key={o.value} value={o.value}>
              {o.label}
            </option>
          ))}
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
      {error && <Field.ErrorText>{error}</Field.ErrorText>}
    </Field.Root>
  );
}
