import { Box, Button, Code, Table, Text } from '@chakra-ui/react';
import { useState } from 'react';
import { diffValues, EXPANDABLE_LENGTH, parseJsonValue } from '../utils/activity';

/** JsonValue shows one JSON value; text longer than 50 characters is collapsed until expanded (spec 01 §9). */
export function JsonValue({ value }: { value: unknown }) {
  const [expanded, setExpanded] = useState(false);
  if (value === undefined) {
    return <Text color="fg.muted">—</Text>;
  }
  const text = typeof value === 'string' ? value : JSON.stringify(value);
  const long = text.length > EXPANDABLE_LENGTH;
  return (
    <Box>
      <Code whiteSpace="pre-wrap" wordBreak="break-all" variant="surface">
        {long && !expanded ? `${text.slice(0, EXPANDABLE_LENGTH)}…` : text}
      </Code>
      {long && (
        <Button size="2xs" variant="plain" px={1} aria-expanded={expanded} onClick={() => setExpanded(!expanded)}>
          {expanded ? 'Collapse' : 'Expand'}
        </Button>
      )}
    </Box>
  );
}

/** JsonDiff shows an entry's old and new values side by side, changed keys highlighted. */
export function JsonDiff({ oldValue, newValue }: { oldValue: string; newValue: string }) {
  const rows = diffValues(parseJsonValue(oldValue), parseJsonValue(newValue));
  const keyed = rows.some((r) => r.path !== '');
  return (
    <Table.Root size="sm" variant="outline" aria-label="Changes">
      <Table.Header>
        <Table.Row>
          {keyed && <Table.ColumnHeader>Field</Table.ColumnHeader>}
          <Table.ColumnHeader>Old value</Table.ColumnHeader>
          <Table.ColumnHeader>New value</Table.ColumnHeader>
        </Table.Row>
      </Table.Header>
      <Table.Body>
        {rows.map((r) => (
          <Table.Row key={r.path || 'value'} bg={r.changed ? 'yellow.subtle' : undefined} data-changed={r.changed ? 'true' : undefined}>
            {keyed && <Table.Cell fontWeight="medium">{r.path}</Table.Cell>}
            <Table.Cell>
              <JsonValue value={r.old} />
            </Table.Cell>
            <Table.Cell>
              <JsonValue value={r.new} />
            </Table.Cell>
          </Table.Row>
        ))}
      </Table.Body>
    </Table.Root>
  );
}
