import { Field, NativeSelect } from '@chakra-ui/react';
import { useCollabChoices } from '@paygate/sdk';
import type { CollabOption } from '../api/get-collabs';

interface Props {
  /** Admins pick "merchant - provider" under "Select Collab"; others pick a provider under "Select Provider". */
  admin: boolean;
  collabs: readonly CollabOption[] | undefined;
  value: number | null;
  onChange: (collabId: number | null) => void;
  loading?: boolean;
  /** A visible label above the select; the placeholder still names it for assistive technology. */
  label?: string;
  w?: string;
}

/** collabPlaceholder is the collab selector's placeholder (spec 02 §2). */
export function collabPlaceholder(admin: boolean): string {
  return admin ? 'Select Collab' : 'Select Provider';
}

/** CollabSelect is the page-level collab selector shared by the screens of this remote. */
export function CollabSelect({ admin, collabs, value, onChange, loading, label, w = '72' }: Props) {
  const placeholder = collabPlaceholder(admin);
  return (
    <Field.Root w={w}>
      {label && <Field.Label>{label}</Field.Label>}
      <NativeSelect.Root size="sm" disabled={loading}>
        <NativeSelect.Field
          aria-label={placeholder}
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
        >
          <option value="">{placeholder}</option>
          <CollabOptions collabs={collabs} value={value} />
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
    </Field.Root>
  );
}

/**
 * CollabOptions are the options of a collab select, after its placeholder:
 * the collabs of the sidebar's Current Merchant (the chosen one kept), each
 * labelled apart from the others (the SDK's useCollabChoices).
 */
function CollabOptions({ collabs, value }: { collabs: readonly CollabOption[] | undefined; value: number | null }) {
  return useCollabChoices(collabs, value).map((c) => (
    <option key={c.id} value={c.id}>
      {c.label}
    </option>
  ));
}

interface CollabFieldProps {
  collabs: readonly CollabOption[];
  value: number | null;
  error: string | undefined;
  onChange: (collabId: number | null) => void;
  /** In a table row: smaller, named for assistive technology instead of labelled. */
  inRow?: boolean;
}

/** CollabField picks the collaboration a callback URL or validation endpoint belongs to, in a form or an edited row. */
export function CollabField({ collabs, value, error, onChange, inRow }: CollabFieldProps) {
  return (
    <Field.Root required={!inRow} invalid={!!error}>
      {!inRow && <Field.Label>Collaboration</Field.Label>}
      <NativeSelect.Root size={inRow ? 'xs' : 'sm'}>
        <NativeSelect.Field
          aria-label={inRow ? 'Collaboration' : undefined}
          value={value ?? ''}
          onChange={(e) => onChange(e.target.value ? Number(e.target.value) : null)}
        >
          <option value="">Select a collaboration</option>
          <CollabOptions collabs={collabs} value={value} />
        </NativeSelect.Field>
        <NativeSelect.Indicator />
      </NativeSelect.Root>
      <Field.ErrorText>{error}</Field.ErrorText>
    </Field.Root>
  );
}
