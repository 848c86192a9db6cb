import { Button, Menu, Portal } from '@chakra-ui/react';
import { statusesLabel, TRANSACTION_STATUSES } from '../../../utils/status';

interface Props {
  value: readonly number[];
  onChange: (codes: number[]) => void;
  disabled?: boolean;
}

/** StatusFilter is the status multi-select; its label names at most 3 statuses. */
export function StatusFilter({ value, onChange, disabled }: Props) {
  const label = statusesLabel(value);
  return (
    <Menu.Root closeOnSelect={false}>
      <Menu.Trigger asChild>
        <Button size="sm" variant="outline" disabled={disabled} aria-label={`Statuses: ${label}`}>
          Statuses: {label}
        </Button>
      </Menu.Trigger>
      <Portal>
        <Menu.Positioner>
          <Menu.Content maxH="80" overflowY="auto">
            {TRANSACTION_STATUSES.map((s) => (
              <Menu.CheckboxItem
                key={s.value}
                value={String(s.value)}
                checked={value.includes(s.value)}
                onCheckedChange={(checked) => onChange(checked ? [...value, s.value] : value.filter((v) => v !== s.value))}
              >
                {s.label}
                <Menu.ItemIndicator />
              </Menu.CheckboxItem>
            ))}
            {value.length > 0 && (
              <Menu.Item value="clear" onSelect={() => onChange([])}>
                Clear statuses
              </Menu.Item>
            )}
          </Menu.Content>
        </Menu.Positioner>
      </Portal>
    </Menu.Root>
  );
}
