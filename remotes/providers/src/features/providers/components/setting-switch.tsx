import { Switch } from '@chakra-ui/react';

interface Props {
  label: string;
  checked: boolean;
  disabled?: boolean;
  onChange: (checked: boolean) => void;
}

/** SettingSwitch is a labelled on/off switch (a checkbox to assistive technology and keyboards). */
export function SettingSwitch({ label, checked, disabled, onChange }: Props) {
  return (
    <Switch.Root size="sm" checked={checked} disabled={disabled} onCheckedChange={(e) => onChange(e.checked)}>
      <Switch.HiddenInput />
      <Switch.Control />
      <Switch.Label>{label}</Switch.Label>
    </Switch.Root>
  );
}
