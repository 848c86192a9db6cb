import { Alert, Button, Checkbox, HStack, IconButton, Input, Skeleton, Stack, Text } from '@chakra-ui/react';
import { useEffect, useRef, useState } from 'react';
import { moveColumn, type ColumnSetting } from '../utils/column-settings';
import { PDF_MAX_COLUMNS } from '../utils/file-types';

interface Props {
  columns: ColumnSetting[];
  loading: boolean;
  /** The PDF warning applies (PDF with more than 5 columns). */
  pdfWarning: boolean;
  onChange: (columns: ColumnSetting[]) => void;
  onReset: () => void;
}

/**
 * ColumnsStep picks the columns to export, their headers and their order
 * (step 3). Each row moves with its up and down buttons, so the order is set
 * from the keyboard as well as with a pointer.
 */
export function ColumnsStep({ columns, loading, pdfWarning, onChange, onReset }: Props) {
  const selected = columns.filter((c) => c.selected).length;
  const update = (index: number, patch: Partial<ColumnSetting>) => onChange(columns.map((c, i) => (i === index ? { ...c, ...patch } : c)));
  const selectAll = (on: boolean) => onChange(columns.map((c) => ({ ...c, selected: on })));
  // A moved row keeps the keyboard focus on its button (or on the other one at either end).
  const list = useRef<HTMLDivElement>(null);
  const [focus, setFocus] = useState<{ field: string; dir: 'up' | 'down' } | null>(null);
  useEffect(() => {
    if (!focus) return;
    const row = [...(list.current?.querySelectorAll<HTMLElement>('[data-column]') ?? [])].find((r) => r.dataset.column === focus.field);
    const buttons = row?.querySelectorAll<HTMLButtonElement>('button[data-move]');
    const wanted = [...(buttons ?? [])].find((b) => b.dataset.move === focus.dir && !b.disabled) ?? [...(buttons ?? [])].find((b) => !b.disabled);
    wanted?.focus();
    setFocus(null);
  }, [focus]);
  const move = (index: number, by: -1 | 1) => {
    const field = columns[index]?.field;
    onChange(moveColumn(columns, index, by));
    if (field) setFocus({ field, dir: by < 0 ? 'up' : 'down' });
  };

  if (loading && columns.length === 0) {
    return (
      <Stack gap={2} aria-busy>
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} height="8" />
        ))}
      </Stack>
    );
  }
  return (
    <Stack gap={3}>
      <HStack justify="space-between" wrap="wrap" gap={2}>
        <Text fontSize="sm" aria-live="polite" data-testid="selected-columns">
          {selected} of {columns.length} columns selected
        </Text>
        <HStack gap={2}>
          <Button size="xs" variant="outline" onClick={() => selectAll(true)}>
            Select All
          </Button>
          <Button size="xs" variant="outline" onClick={() => selectAll(false)}>
            Select None
          </Button>
          <Button size="xs" variant="ghost" onClick={onReset}>
            Reset Columns
          </Button>
        </HStack>
      </HStack>
      {selected === 0 && (
        <Text fontSize="sm" color="fg.error" role="alert">
          Select at least one column to export.
        </Text>
      )}
      {pdfWarning && (
        <Alert.Root status="warning" data-testid="pdf-warning">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Too many columns for a PDF</Alert.Title>
            <Alert.Description>
              {selected} columns are selected; a PDF with more than {PDF_MAX_COLUMNS} columns may not fit on an A4 page. Choose fewer columns, or CSV or Excel.
            </Alert.Description>
          </Alert.Content>
        </Alert.Root>
      )}
      <Stack as="ol" ref={list} gap={1.5} listStyleType="none" aria-label="Columns">
        {columns.map((c, i) => (
          <HStack as="li" key={c.field} gap={2} borderWidth="1px" borderRadius="md" px={2} py={1} data-column={c.field} opacity={c.selected ? 1 : 0.7}>
            <Checkbox.Root size="sm" checked={c.selected} onCheckedChange={(e) => update(i, { selected: e.checked === true })} w="44" flexShrink={0}>
              <Checkbox.HiddenInput />
              <Checkbox.Control />
              <Checkbox.Label>{c.defaultName}</Checkbox.Label>
            </Checkbox.Root>
            <Input
              size="xs"
              aria-label={`Header for ${c.defaultName}`}
              placeholder={c.defaultName}
              value={c.name}
              disabled={!c.selected}
              onChange={(e) => update(i, { name: e.target.value })}
            />
            <IconButton size="xs" variant="ghost" aria-label={`Move ${c.defaultName} up`} data-move="up" disabled={i === 0} onClick={() => move(i, -1)}>
              <span aria-hidden>↑</span>
            </IconButton>
            <IconButton size="xs" variant="ghost" aria-label={`Move ${c.defaultName} down`} data-move="down" disabled={i === columns.length - 1} onClick={() => move(i, 1)}>
              <span aria-hidden>↓</span>
            </IconButton>
          </HStack>
        ))}
      </Stack>
    </Stack>
  );
}
