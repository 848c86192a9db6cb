import { Badge, HStack, Portal, Text, Tooltip } from '@chakra-ui/react';

/** At most this many merchant tags show in a user row (spec 02 §9). */
export const MAX_MERCHANT_TAGS = 2;

interface Props {
  ids: readonly number[];
  nameOf: (id: number) => string;
}

/** MerchantTags shows a user's first two merchants as tags, then "..." with every name in a tooltip. */
export function MerchantTags({ ids, nameOf }: Props) {
  if (ids.length === 0) return <Text color="fg.muted">None</Text>;
  const names = ids.map(nameOf);
  const all = names.join(', ');
  return (
    <HStack gap={1} wrap="wrap">
      {names.slice(0, MAX_MERCHANT_TAGS).map((n, i) => (
        <Badge key={`${ids[i]}`} variant="outline">
          {n}
        </Badge>
      ))}
      {names.length > MAX_MERCHANT_TAGS && (
        <Tooltip.Root openDelay={100} closeDelay={100}>
          <Tooltip.Trigger asChild>
            <Badge as="button" variant="subtle" cursor="default" aria-label={`All merchants: ${all}`}>
              ...
            </Badge>
          </Tooltip.Trigger>
          <Portal>
            <Tooltip.Positioner>
              <Tooltip.Content>{all}</Tooltip.Content>
            </Tooltip.Positioner>
          </Portal>
        </Tooltip.Root>
      )}
    </HStack>
  );
}
