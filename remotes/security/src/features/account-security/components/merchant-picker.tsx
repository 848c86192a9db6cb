import { chakra } from '@chakra-ui/react';
import type { Merchant } from '@paygate/sdk';

interface Props {
  merchants: readonly Merchant[];
  value: readonly number[];
  onChange: (ids: number[]) => void;
  /** Names the list when no visible label does (a table row). */
  ariaLabel?: string;
  id?: string;
  size?: 'sm' | 'xs';
}

/**
 * MerchantPicker picks any number of merchants: a native multiple select, so
 * the keyboard (arrows, Shift, Ctrl/Cmd) and assistive technology know it.
 */
export function MerchantPicker({ merchants, value, onChange, ariaLabel, id, size = 'sm' }: Props) {
  return (
    <chakra.select
      id={id}
      multiple
      aria-label={ariaLabel}
      value={value.map(String)}
      onChange={(e) => onChange(Array.from(e.target.selectedOptions, (o) => Number(o.value)))}
      htmlSize={Math.min(5, Math.max(2, merchants.length))}
      w="full"
      minW="40"
      fontSize={size}
      borderWidth="1px"
      borderRadius="md"
      px={1}
      py={1}
      bg="bg"
    >
      {merchants.map((m) => (
        <option key={m.id} value={m.id}>
          {m.name}
        </option>
      ))}
    </chakra.select>
  );
}
