import { Field, Input } from '@chakra-ui/react';
import type { DraftErrors } from '../utils/draft';

/** DraftForm is what the fields of a draft get: the draft, its messages and a way to change it. */
export interface DraftForm<Draft, F extends string> {
  draft: Draft;
  errors: DraftErrors<F>;
  set: (patch: Partial<Draft>) => void;
}

/** TextField names a draft's fields that hold typed text. */
type TextField<Draft> = { [K in keyof Draft]: Draft[K] extends string ? K : never }[keyof Draft] & string;

/** DraftInputSpec is one text or number field of a draft, as both the add form and the row edit show it. */
export interface DraftInputSpec<Draft> {
  field: TextField<Draft>;
  label: string;
  type: 'url' | 'number';
  min?: number;
  max?: number;
}

interface Props<Draft, F extends string> extends DraftInputSpec<Draft> {
  form: DraftForm<Draft, F>;
  /** In a table row: small, and named for assistive technology only (the column header shows the name). */
  inRow?: boolean;
  placeholder?: string;
  /** Shown below the input while it has no message (forms only). */
  helper?: string;
  w?: string;
}

/**
 * DraftInput is a text or number field of a draft with its message: a
 * required, labelled field in an add form, or a small input in an edited row.
 */
export function DraftInput<Draft, F extends string>({ form, field, label, type, min, max, inRow, placeholder, helper, w }: Props<Draft, F>) {
  const value = form.draft[field] as string;
  const error = (form.errors as Partial<Record<string, string>>)[field];
  const change = (text: string) => form.set({ [field]: text } as Partial<Draft>);
  if (inRow) {
    return (
      <Field.Root invalid={!!error}>
        <Input size="xs" aria-label={label} type={type} min={min} max={max} value={value} onChange={(e) => change(e.target.value)} />
        <Field.ErrorText>{error}</Field.ErrorText>
      </Field.Root>
    );
  }
  return (
    <Field.Root required invalid={!!error} w={w}>
      <Field.Label>{label}</Field.Label>
      <Input
        size="sm"
        type={type}
        placeholder={placeholder}
        min={min}
        max={max}
        step={type === 'number' ? 1 : undefined}
        value={value}
        onChange={(e) => change(e.target.value)}
      />
      <Field.ErrorText>{error}</Field.ErrorText>
      {helper && !error && <Field.HelperText>{helper}</Field.HelperText>}
    </Field.Root>
  );
}
