import { Box, Button, Code, Text } from '@chakra-ui/react';
import { DataTable, type DataColumn } from '@paygate/sdk';
import { useState } from 'react';
import { diffValues, EXPANDABLE_LENGTH, parseJsonValue, type DiffRow } from '../utils/activity';

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

const FIELD: DataColumn<DiffRow> = { key: 'field', header: 'Field', cellProps: { fontWeight: 'medium' }, cell: (r) => r.path };
const VALUES: DataColumn<DiffRow>[] = [
  { key: 'old', header: 'Old value', cell: (r) => <JsonValue value={r.old} /> },
  { key: 'new', header: 'New value', cell: (r) => <JsonValue value={r.new} /> },
];

/** JsonDiff shows an entry's old and new values side by side, changed keys highlighted. */
export function JsonDiff({ oldValue, newValue }: { oldValue: string; newValue: string }) {
  const rows = diffValues(parseJsonValue(oldValue), parseJsonValue(newValue));
  const keyed = rows.some((r) => r.path !== '');
  return (
    <DataTable
      label="Changes"
      columns={keyed ? [FIELD, ...VALUES] : VALUES}
      rows={rows}
      rowKey={(r) => r.path || 'value'}
      rowProps={(r) => (r.changed ? { bg: 'yellow.subtle', 'data-changed': 'true' } : {})}
      empty="Nothing changed."
    />
  );
}
