import { Switch } from '@chakra-ui/react';

export interface FlagSwitchProps {
  label: string;
  checked: boolean;
  onChange: (on: boolean) => void;
  /** In a table row the column header says what it is; the label then only names it for assistive technology. */
  hideLabel?: boolean;
}

/** FlagSwitch is a labelled on/off switch (a checkbox to assistive technology and keyboards). */
export function FlagSwitch({ label, checked, onChange, hideLabel }: FlagSwitchProps) {
  return (
    <Switch.Root size="sm" checked={checked} onCheckedChange={(e) => onChange(e.checked)}>
      <Switch.HiddenInput aria-label={hideLabel ? label : undefined} />
      <Switch.Control />
      {!hideLabel && <Switch.Label>{label}</Switch.Label>}
    </Switch.Root>
  );
}
