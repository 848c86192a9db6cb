import { EmptyState, HStack, IconButton, Skeleton, Stack, Table, Text } from '@chakra-ui/react';
import { formatDateTime } from '@paygate/sdk';
import type { ExportFile } from '../api/types';
import { canDelete, canDownload, exportTypeName, fileTypeName, isFailed, isProcessing } from '../utils/file-status';
import { formatSize, processingTime, relativeTime } from '../utils/format';
import { FileStatusTag } from './file-status-tag';
import { DownloadIcon, InfoIcon, TrashIcon, WarningIcon } from './row-icons';

/** FileAction is what a row button does. */
export type FileAction = 'download' | 'info' | 'delete' | 'error';

interface Props {
  files: ExportFile[];
  loading: boolean;
  failed: boolean;
  pageSize: number;
  zone: string;
  now: number;
  types: readonly { type: number; name: string }[];
  /** The id of the file being downloaded, if any. */
  downloadingId: string | null;
  onAction: (action: FileAction, file: ExportFile) => void;
  /** The server lets the user download and delete files (the rules of those calls). */
  may: { download: boolean; delete: boolean };
}

const COLUMNS = ['Name', 'Export Type', 'Format', 'Status', 'Records', 'Size', 'Created', 'Actions'];

/** FilesTable lists one page of export files with their row buttons (spec 02 "Files"). */
export function FilesTable({ files, loading, failed, pageSize, zone, now, types, downloadingId, onAction, may }: Props) {
  return (
    <Table.ScrollArea borderWidth="1px" borderRadius="md">
      <Table.Root size="sm" aria-label="Files" aria-busy={loading}>
        <Table.Header>
          <Table.Row>
            {COLUMNS.map((c) => (
              <Table.ColumnHeader key={c} textAlign={c === 'Records' || c === 'Size' ? 'end' : undefined}>
                {c}
              </Table.ColumnHeader>
            ))}
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {loading &&
            files.length === 0 &&
            Array.from({ length: Math.min(pageSize, 5) }, (_, i) => (
              <Table.Row key={`s${i}`}>
                <Table.Cell colSpan={COLUMNS.length}>
                  <Skeleton height="5" />
                </Table.Cell>
              </Table.Row>
            ))}
          {!loading && files.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={COLUMNS.length}>
                <EmptyState.Root size="sm">
                  <EmptyState.Content>
                    <EmptyState.Title>{failed ? 'Files could not be loaded' : 'No files yet'}</EmptyState.Title>
                    {!failed && <EmptyState.Description>Export transactions from the Transactions page; files are kept for 3 days.</EmptyState.Description>}
                  </EmptyState.Content>
                </EmptyState.Root>
              </Table.Cell>
            </Table.Row>
          )}
          {files.map((f) => {
            const processing = isProcessing(f.status);
            const created = f.createdUtc ? formatDateTime(f.createdUtc, zone) : '';
            return (
              <Table.Row key={f.id} data-testid={`file-${f.id}`}>
                <Table.Cell>
                  <Text fontWeight="medium" wordBreak="break-all">
                    {f.name}
                  </Text>
                  {f.createdBy && (
                    <Text fontSize="xs" color="fg.muted">
                      by {f.createdBy}
                    </Text>
                  )}
                </Table.Cell>
                <Table.Cell>{exportTypeName(f.exportType, types)}</Table.Cell>
                <Table.Cell>{fileTypeName(f.fileType)}</Table.Cell>
                <Table.Cell>
                  <Stack gap={0.5} align="start">
                    <FileStatusTag status={f.status} />
                    {processing && (
                      <Text fontSize="xs" color="fg.muted" data-testid="processing-time">
                        Processing for {processingTime(f.createdUtc, now)}
                      </Text>
                    )}
                    {!processing && f.statusMessage && (
                      <Text fontSize="xs" color="fg.muted" maxW="56" truncate title={f.statusMessage}>
                        {f.statusMessage}
                      </Text>
                    )}
                  </Stack>
                </Table.Cell>
                <Table.Cell textAlign="end">{processing ? '-' : f.recordCount}</Table.Cell>
                <Table.Cell textAlign="end" whiteSpace="nowrap">
                  {processing ? '-' : formatSize(f.fileSizeBytes)}
                </Table.Cell>
                <Table.Cell whiteSpace="nowrap">
                  <Text fontSize="sm">{created}</Text>
                  <Text fontSize="xs" color="fg.muted" data-testid="relative-time">
                    {relativeTime(f.createdUtc, now)}
                  </Text>
                </Table.Cell>
                <Table.Cell>
                  <HStack gap={1} wrap="nowrap">
                    {may.download && canDownload(f.status) && (
                      <IconButton
                        size="xs"
                        variant="outline"
                        aria-label={`Download ${f.name}`}
                        title="Download"
                        loading={downloadingId === f.id}
                        disabled={downloadingId !== null && downloadingId !== f.id}
                        onClick={() => onAction('download', f)}
                      >
                        <DownloadIcon />
                      </IconButton>
                    )}
                    <IconButton size="xs" variant="outline" aria-label={`Show info for ${f.name}`} title="Info" onClick={() => onAction('info', f)}>
                      <InfoIcon />
                    </IconButton>
                    {isFailed(f.status) && (
                      <IconButton size="xs" variant="outline" colorPalette="orange" aria-label={`Show error details for ${f.name}`} title="Error details" onClick={() => onAction('error', f)}>
                        <WarningIcon />
                      </IconButton>
                    )}
                    {may.delete && canDelete(f.status) && (
                      <IconButton size="xs" variant="outline" colorPalette="red" aria-label={`Delete ${f.name}`} title="Delete" onClick={() => onAction('delete', f)}>
                        <TrashIcon />
                      </IconButton>
                    )}
                  </HStack>
                </Table.Cell>
              </Table.Row>
            );
          })}
        </Table.Body>
      </Table.Root>
    </Table.ScrollArea>
  );
}
