import { Text } from '@chakra-ui/react';

/** Detail is one 'Label: value' line of an entry's details; nothing for an empty value. */
export function Detail({ label, value }: { label: string; value: string }) {
  if (!value) return null;
  return (
    <Text fontSize="sm">
      <Text as="span" color="fg.muted">
        {label}:
      </Text>{' '}
      {value}
    </Text>
  );
}
