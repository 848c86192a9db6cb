import { Field, Input, NativeSelect, SimpleGrid, Stack } from '@chakra-ui/react';
import { useId } from 'react';
import { COLLAB_MODES, SETTING_SPECS, type SettingsValues, type SettingSpec, type SettingValue } from '../utils/settings';
import { SettingSwitch } from './setting-switch';

interface Props {
  values: SettingsValues;
  onChange: (key: string, value: SettingValue) => void;
  /** The directions the provider supports; a switch of another direction stays off and disabled. */
  supportsCashIn: boolean;
  supportsCashOut: boolean;
  /** Also show settings the console does not know (as read from the server). */
  showUnknown?: boolean;
  disabled?: boolean;
}

const KNOWN = new Set(SETTING_SPECS.map((s) => s.key));

/**
 * CollabSettingsFields edits a collab's settings: switches for the flags, a
 * number for Position (empty = none) and a select for Mode.
 */
export function CollabSettingsFields({ values, onChange, supportsCashIn, supportsCashOut, showUnknown, disabled }: Props) {
  const id = useId();
  const unsupported = (spec: SettingSpec) =>
    (spec.direction === 'in' && !supportsCashIn) || (spec.direction === 'out' && !supportsCashOut);
  const unknown = showUnknown ? Object.keys(values).filter((k) => !KNOWN.has(k)) : [];

  return (
    <Stack gap={4}>
      <SimpleGrid columns={{ base: 1, sm: 2 }} gap={3}>
        {SETTING_SPECS.filter((s) => s.kind === 'switch').map((spec) => (
          <SettingSwitch
            key={spec.key}
            label={spec.label}
            checked={values[spec.key] === true && !unsupported(spec)}
            disabled={disabled || unsupported(spec)}
            onChange={(checked) => onChange(spec.key, checked)}
          />
        ))}
        {unknown
          .filter((k) => typeof values[k] === 'boolean')
          .map((k) => (
            <SettingSwitch key={k} label={k} checked={values[k] === true} disabled={disabled} onChange={(checked) => onChange(k, checked)} />
          ))}
      </SimpleGrid>
      <SimpleGrid columns={{ base: 1, sm: 2 }} gap={3}>
        <Field.Root disabled={disabled}>
          <Field.Label htmlFor={`${id}-position`}>Position</Field.Label>
          <Input
            id={`${id}-position`}
            size="sm"
            type="number"
            min={0}
            step={1}
            placeholder="None"
            value={values.Position === null || values.Position === undefined ? '' : String(values.Position)}
            onChange={(e) => onChange('Position', e.target.value === '' ? null : Number(e.target.value))}
          />
        </Field.Root>
        <Field.Root disabled={disabled}>
          <Field.Label htmlFor={`${id}-mode`}>Mode</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field id={`${id}-mode`} value={String(values.Mode ?? 1)} onChange={(e) => onChange('Mode', Number(e.target.value))}>
              {COLLAB_MODES.map((m) => (
                <option key={m.value} value={String(m.value)}>
                  {m.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        {unknown
          .filter((k) => typeof values[k] !== 'boolean')
          .map((k) => (
            <Field.Root key={k} disabled={disabled}>
              <Field.Label htmlFor={`${id}-${k}`}>{k}</Field.Label>
              <Input
                id={`${id}-${k}`}
                size="sm"
                type={typeof values[k] === 'number' ? 'number' : 'text'}
                value={values[k] === null ? '' : String(values[k])}
                onChange={(e) =>
                  onChange(k, e.target.value === '' ? null : typeof values[k] === 'number' ? Number(e.target.value) : e.target.value)
                }
              />
            </Field.Root>
          ))}
      </SimpleGrid>
    </Stack>
  );
}
