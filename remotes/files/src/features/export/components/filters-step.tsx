import { Badge, HStack, IconButton, Stack, Text } from '@chakra-ui/react';
import type { ActiveFilter, FilterKey } from '../utils/active-filters';

interface Props {
  filters: ActiveFilter[];
  onRemove: (key: FilterKey) => void;
}

/** FiltersStep lists the filters the export applies (the transactions page's), each removable (step 1). */
export function FiltersStep({ filters, onRemove }: Props) {
  if (filters.length === 0) {
    return <Text color="fg.muted">No filters are active: every transaction you may see will be exported.</Text>;
  }
  return (
    <Stack gap={3}>
      <Text>These filters of the Transactions page select what is exported. Remove any you do not want.</Text>
      <Stack as="ul" gap={2} listStyleType="none" aria-label="Active filters">
        {filters.map((f) => (
          <HStack as="li" key={f.key} justify="space-between" borderWidth="1px" borderRadius="md" px={3} py={1.5} data-filter={f.key}>
            <HStack gap={2} minW={0}>
              <Badge variant="subtle" flexShrink={0}>
                {f.title}
              </Badge>
              <Text fontSize="sm" wordBreak="break-all">
                {f.value}
              </Text>
            </HStack>
            <IconButton size="xs" variant="ghost" aria-label={`Remove filter ${f.title}`} title="Remove" onClick={() => onRemove(f.key)}>
              <span aria-hidden>✕</span>
            </IconButton>
          </HStack>
        ))}
      </Stack>
    </Stack>
  );
}
