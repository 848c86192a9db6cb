import { Field, HStack, IconButton, Input, NativeSelect } from '@chakra-ui/react';
import { useState } from 'react';
import { fieldId, numberError, type CredentialField } from '../utils/credentials';
import { EyeIcon, EyeOffIcon } from './eye-icons';

interface Props {
  field: CredentialField;
  onChange: (value: string) => void;
}

/**
 * CredentialInput edits one credential value, masked until its eye toggle
 * shows it (spec 02 §5); true/false values are a select.
 */
export function CredentialInput({ field, onChange }: Props) {
  const [shown, setShown] = useState(false);
  const id = fieldId(field);
  const error = numberError(field);
  return (
    <Field.Root invalid={!!error}>
      <Field.Label>{field.key}</Field.Label>
      <HStack w="full" gap="1">
        {field.kind === 'boolean' && shown ? (
          <NativeSelect.Root size="sm">
            <NativeSelect.Field aria-label={id} value={field.value} onChange={(e) => onChange(e.target.value)}>
              <option value="true">true</option>
              <option value="false">false</option>
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        ) : (
          <Input
            size="sm"
            aria-label={id}
            type={shown ? (field.kind === 'number' ? 'number' : 'text') : 'password'}
            inputMode={field.kind === 'number' ? 'decimal' : undefined}
            autoComplete="off"
            readOnly={field.kind === 'boolean'}
            value={field.value}
            onChange={(e) => onChange(e.target.value)}
          />
        )}
        <IconButton
          size="sm"
          variant="ghost"
          aria-label={shown ? `Hide ${id}` : `Show ${id}`}
          aria-pressed={shown}
          onClick={() => setShown((s) => !s)}
        >
          {shown ? <EyeOffIcon /> : <EyeIcon />}
        </IconButton>
      </HStack>
      {error && <Field.ErrorText>{error}</Field.ErrorText>}
    </Field.Root>
  );
}
