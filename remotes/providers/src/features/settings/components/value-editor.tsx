import { Badge, Box, Button, Field, Fieldset, HStack, IconButton, Input, Stack, Switch, Text } from '@chakra-ui/react';
import { useEffect, useState } from 'react';
import type { SettingSchema } from '../api/types';
import { kindOf, MAX_DECIMALS, parseNumber, type JsonValue } from '../utils/json-value';
import { emptyValue, numberProblem, rangeHint } from '../utils/schema';

/** ValueEditorProps configure one node of the value editor. */
export interface ValueEditorProps {
  /** The node's path, unique in the form (e.g. 'FraudDetection.velocityWindowMinutes'); it keys validity. */
  path: string;
  /** The accessible label: the field's name, the key, or 'Item n'. */
  label: string;
  value: JsonValue;
  /** What the node takes, when the server said; otherwise the value's own type is edited. */
  schema?: SettingSchema;
  description?: string;
  disabled?: boolean;
  onChange: (value: JsonValue) => void;
  /** Reports whether the node's input can be saved (a numeric text that is not a number cannot). */
  onValidity: (path: string, valid: boolean) => void;
}

/**
 * ValueEditor edits any JSON value (spec 02 "Settings"): numbers (0 to 20
 * decimals), booleans, texts, lists (items added and removed), objects (their
 * fields) and null, following the key's schema when there is one.
 */
export function ValueEditor(props: ValueEditorProps) {
  const { schema, value } = props;
  const type = value === null && !(schema?.type && !schema.nullable) ? 'null' : schema?.type || kindOf(value);
  switch (type) {
    case 'integer':
    case 'number':
      return <NumberEditor {...props} integer={type === 'integer'} />;
    case 'boolean':
      return <BooleanEditor {...props} />;
    case 'array':
      return <ArrayEditor {...props} />;
    case 'object':
      return <ObjectEditor {...props} />;
    case 'null':
      return <NullEditor {...props} />;
    default:
      return <TextEditor {...props} />;
  }
}

function NumberEditor({ path, label, value, schema, description, disabled, integer, onChange, onValidity }: ValueEditorProps & { integer: boolean }) {
  const [text, setText] = useState(typeof value === 'number' ? String(value) : '');
  // A value set from outside (a reload, a discard) replaces the text.
  useEffect(() => {
    if (typeof value === 'number' && parseNumber(text) !== value) setText(String(value));
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only an outside change of value resets the text
  }, [value]);
  const n = parseNumber(text);
  const problem = n === null ? `Enter a number with at most ${MAX_DECIMALS} decimals.` : numberProblem(n, schema);
  useEffect(() => {
    onValidity(path, problem === null);
    return () => onValidity(path, true);
  }, [path, problem, onValidity]);
  const hint = [integer ? 'Whole number' : 'Number', rangeHint(schema)].filter(Boolean).join(' ');
  return (
    <Field.Root invalid={problem !== null} disabled={disabled}>
      <Field.Label>{label}</Field.Label>
      <Input
        size="sm"
        maxW="xs"
        inputMode="decimal"
        value={text}
        onChange={(e) => {
          setText(e.target.value);
          const parsed = parseNumber(e.target.value);
          if (parsed !== null) onChange(parsed);
        }}
      />
      {description && <Field.HelperText>{description}</Field.HelperText>}
      <Field.HelperText>{hint}</Field.HelperText>
      <Field.ErrorText>{problem}</Field.ErrorText>
    </Field.Root>
  );
}

function BooleanEditor({ label, value, description, disabled, onChange }: ValueEditorProps) {
  return (
    <Stack gap={1}>
      <Switch.Root size="sm" checked={value === true} disabled={disabled} onCheckedChange={(e) => onChange(e.checked)}>
        <Switch.HiddenInput />
        <Switch.Control />
        <Switch.Label>{label}</Switch.Label>
      </Switch.Root>
      {description && (
        <Text fontSize="sm" color="fg.muted">
          {description}
        </Text>
      )}
    </Stack>
  );
}

function TextEditor({ label, value, schema, description, disabled, onChange }: ValueEditorProps) {
  return (
    <Field.Root disabled={disabled}>
      <Field.Label>{label}</Field.Label>
      <Input size="sm" value={typeof value === 'string' ? value : ''} maxLength={schema?.maxLength} onChange={(e) => onChange(e.target.value)} />
      {description && <Field.HelperText>{description}</Field.HelperText>}
    </Field.Root>
  );
}

function NullEditor({ label, schema, description, disabled, onChange }: ValueEditorProps) {
  return (
    <Stack gap={1}>
      <Text fontWeight="medium" fontSize="sm">
        {label}
      </Text>
      <HStack>
        <Badge variant="outline" aria-label={`${label} is null`}>
          null
        </Badge>
        {schema?.type && (
          <Button size="xs" variant="outline" disabled={disabled} onClick={() => onChange(emptyValue({ ...schema, nullable: false }))}>
            Set a value
          </Button>
        )}
      </HStack>
      {description && (
        <Text fontSize="sm" color="fg.muted">
          {description}
        </Text>
      )}
    </Stack>
  );
}

function ArrayEditor({ path, label, value, schema, description, disabled, onChange, onValidity }: ValueEditorProps) {
  const items = Array.isArray(value) ? value : [];
  const max = schema?.maximum;
  return (
    <Fieldset.Root disabled={disabled}>
      <Fieldset.Legend>{label}</Fieldset.Legend>
      {description && <Fieldset.HelperText>{description}</Fieldset.HelperText>}
      <Stack gap={3} as="ol" listStyleType="none" aria-label={`${label} items`}>
        {items.map((item, i) => (
          <HStack as="li" key={i} align="end" gap={2}>
            <Box flex="1">
              <ValueEditor
                path={`${path}[${i}]`}
                label={`Item ${i + 1}`}
                value={item}
                schema={schema?.items}
                disabled={disabled}
                onValidity={onValidity}
                onChange={(v) => onChange(items.map((x, j) => (j === i ? v : x)))}
              />
            </Box>
            <IconButton size="xs" variant="ghost" aria-label={`Remove item ${i + 1} of ${label}`} disabled={disabled} onClick={() => onChange(items.filter((_, j) => j !== i))}>
              ✕
            </IconButton>
          </HStack>
        ))}
        {items.length === 0 && (
          <Text fontSize="sm" color="fg.muted">
            The list is empty.
          </Text>
        )}
      </Stack>
      <Box>
        <Button
          size="xs"
          variant="outline"
          disabled={disabled || (max !== undefined && items.length >= max)}
          onClick={() => onChange([...items, emptyValue(schema?.items, items[items.length - 1])])}
        >
          Add item
        </Button>
      </Box>
    </Fieldset.Root>
  );
}

function ObjectEditor({ path, label, value, schema, description, disabled, onChange, onValidity }: ValueEditorProps) {
  const obj = value !== null && typeof value === 'object' && !Array.isArray(value) ? value : {};
  const known = schema?.properties ?? [];
  const fields = [
    ...known.map((f) => ({ name: f.name, schema: f.schema, description: f.description })),
    // Fields the schema does not name (or every field, without a schema) are edited by their own type.
    ...Object.keys(obj)
      .filter((k) => !known.some((f) => f.name === k))
      .map((name) => ({ name, schema: undefined, description: undefined })),
  ];
  return (
    <Fieldset.Root disabled={disabled}>
      <Fieldset.Legend>{label}</Fieldset.Legend>
      {description && <Fieldset.HelperText>{description}</Fieldset.HelperText>}
      <Stack gap={4} pl={3} borderLeftWidth="2px" borderColor="border.muted">
        {fields.map((f) => (
          <ValueEditor
            key={f.name}
            path={`${path}.${f.name}`}
            label={f.name}
            value={obj[f.name] ?? null}
            schema={f.schema}
            description={f.description}
            disabled={disabled}
            onValidity={onValidity}
            onChange={(v) => onChange({ ...obj, [f.name]: v })}
          />
        ))}
        {fields.length === 0 && (
          <Text fontSize="sm" color="fg.muted">
            The object has no fields.
          </Text>
        )}
      </Stack>
    </Fieldset.Root>
  );
}
