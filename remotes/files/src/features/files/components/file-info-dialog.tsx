import { Box, Code, DataList, Heading, Spinner, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, formatDateTime } from '@paygate/sdk';
import { useEffect, type ReactNode } from 'react';
import { useFileInfo } from '../api/get-file-info';
import type { ExportFile } from '../api/types';
import { exportTypeName, fileStatus, fileTypeName } from '../utils/file-status';
import { formatSize } from '../utils/format';

interface Props {
  file: ExportFile;
  zone: string;
  types: readonly { type: number; name: string }[];
  onClose: () => void;
}

function Item({ label, children }: { label: string; children: ReactNode }) {
  return (
    <DataList.Item>
      <DataList.ItemLabel minW="36">{label}</DataList.ItemLabel>
      <DataList.ItemValue wordBreak="break-all">{children}</DataList.ItemValue>
    </DataList.Item>
  );
}

/** filterEntries lists a filter object's set values as 'key: value' lines. */
export function filterEntries(filter: Record<string, unknown>): [string, string][] {
  return Object.entries(filter)
    .filter(([, v]) => v !== null && v !== undefined && v !== '' && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : typeof v === 'object' ? JSON.stringify(v) : String(v)]);
}

function FilterList({ filter }: { filter: Record<string, unknown> }) {
  const entries = filterEntries(filter);
  if (entries.length === 0) return <Text color="fg.muted">No filters</Text>;
  return (
    <Stack gap={0.5} as="ul" listStyleType="none">
      {entries.map(([k, v]) => (
        <Text as="li" key={k} fontSize="sm">
          <Text as="span" color="fg.muted">
            {k}:
          </Text>{' '}
          {v}
        </Text>
      ))}
    </Stack>
  );
}

/**
 * FileInfoDialog shows a file and, once written, its manifest (the filter
 * applied, row count, byte size, SHA-256, when it was created and finished).
 * The info is read when the dialog opens; a failure to read it is only logged
 * (spec 02 §8) and the dialog shows what the list knows.
 */
export function FileInfoDialog({ file: listed, zone, types, onClose }: Props) {
  const info = useFileInfo({ id: listed.id });
  useEffect(() => {
    if (info.isError) console.error(`Failed to fetch file info for file ${listed.id}`, info.error);
  }, [info.isError, info.error, listed.id]);
  const file = info.data ?? listed;
  const manifest = file.manifest;
  const date = (iso: string) => (iso ? formatDateTime(iso, zone) : '-');

  return (
    <DialogFrame title="File Information" onClose={onClose}>
      <Stack gap={5}>
        <DataList.Root orientation="horizontal" size="sm" gap={1.5} aria-label="File details">
          <Item label="Name">{file.name}</Item>
          <Item label="Status">{fileStatus(file.status).label}</Item>
          <Item label="Export Type">{exportTypeName(file.exportType, types)}</Item>
          <Item label="Format">{fileTypeName(file.fileType)}</Item>
          <Item label="Records">{file.recordCount}</Item>
          <Item label="Size">{formatSize(file.fileSizeBytes)}</Item>
          <Item label="Created">{date(file.createdUtc)}</Item>
          <Item label="Updated">{date(file.updatedUtc)}</Item>
          {file.createdBy && <Item label="Created By">{file.createdBy}</Item>}
          {file.statusMessage && <Item label="Status Message">{file.statusMessage}</Item>}
        </DataList.Root>

        <Box as="section" aria-label="Manifest">
          <Heading as="h3" size="sm" mb={2}>
            Manifest
          </Heading>
          {info.isPending ? (
            <Spinner size="sm" role="status" aria-label="Loading file information" />
          ) : manifest ? (
            <DataList.Root orientation="horizontal" size="sm" gap={1.5}>
              <Item label="Filter">
                <FilterList filter={manifest.filter} />
              </Item>
              <Item label="Row Count">{manifest.rowCount}</Item>
              <Item label="Byte Size">
                {formatSize(manifest.byteSize)} ({manifest.byteSize} bytes)
              </Item>
              <Item label="SHA-256">
                <Code fontSize="xs" wordBreak="break-all">
                  {manifest.sha256 || '-'}
                </Code>
              </Item>
              <Item label="Created">{date(manifest.createdUtc)}</Item>
              <Item label="Finished">{date(manifest.finishedUtc)}</Item>
              {manifest.columns.length > 0 && <Item label="Columns">{manifest.columns.map((c) => c.name || c.field).join(', ')}</Item>}
            </DataList.Root>
          ) : (
            <Stack gap={2}>
              <Text color="fg.muted">No manifest yet: it is written when the file is finished.</Text>
              <DataList.Root orientation="horizontal" size="sm">
                <Item label="Filter">
                  <FilterList filter={file.filters} />
                </Item>
              </DataList.Root>
            </Stack>
          )}
        </Box>
      </Stack>
    </DialogFrame>
  );
}
