import { Button, Menu, Portal } from '@chakra-ui/react';

interface Props {
  merchants: readonly { id: number; name: string }[];
  /** The chosen merchant ids; none chosen means every merchant. */
  value: readonly number[];
  onChange: (ids: number[]) => void;
}

/** MerchantFilter is the admin's multi-choice merchant filter of the Providers page. */
export function MerchantFilter({ merchants, value, onChange }: Props) {
  const summary = value.length === 0 ? 'All merchants' : `${value.length} selected`;
  return (
    <Menu.Root closeOnSelect={false}>
      <Menu.Trigger asChild>
        <Button size="sm" variant="outline" aria-label={`Filter merchants: ${summary}`}>
          Merchants: {summary}
        </Button>
      </Menu.Trigger>
      <Portal>
        <Menu.Positioner>
          <Menu.Content maxH="72" overflowY="auto">
            {merchants.map((m) => (
              <Menu.CheckboxItem
                key={m.id}
                value={String(m.id)}
                checked={value.includes(m.id)}
                onCheckedChange={(checked) => onChange(checked ? [...value, m.id] : value.filter((id) => id !== m.id))}
              >
                {m.name}
                <Menu.ItemIndicator />
              </Menu.CheckboxItem>
            ))}
            {value.length > 0 && (
              <Menu.Item value="clear" onSelect={() => onChange([])}>
                Show all merchants
              </Menu.Item>
            )}
          </Menu.Content>
        </Menu.Positioner>
      </Portal>
    </Menu.Root>
  );
}
