import { Box, Code, List } from '@chakra-ui/react';
import { preview } from '../utils/balances';

/**
 * RawResponse shows a provider's answer as a tree: objects open to their
 * keys, every other value as its preview (spec 02 §9: arrays of 5 or fewer
 * items show up to 3, strings are cut at 10 characters).
 */
export function RawResponse({ value }: { value: unknown }) {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return <Code>{preview(value)}</Code>;
  }
  return (
    <List.Root as="ul" ps="4" gap="0.5" fontSize="sm" listStyleType="none">
      {Object.entries(value as Record<string, unknown>).map(([k, v]) => (
        <List.Item key={k}>
          <Box as="span" fontWeight="medium">
            {k}:
          </Box>{' '}
          {v !== null && typeof v === 'object' && !Array.isArray(v) ? <RawResponse value={v} /> : <Code>{preview(v)}</Code>}
        </List.Item>
      ))}
    </List.Root>
  );
}
