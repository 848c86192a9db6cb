import { HStack, IconButton, Stack, Text } from '@chakra-ui/react';
import { DataTable, formatDateTime, type DataColumn, type PagerProps } from '@paygate/sdk';
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
  /** The failed load's detail (the server's message). */
  failure: string | null;
  onRetry: () => void;
  pagination: PagerProps & { pageSize: number };
  zone: string;
  now: number;
  types: readonly { type: number; name: string }[];
  /** The id of the file being downloaded, if any. */
  downloadingId: string | null;
  onAction: (action: FileAction, file: ExportFile) => void;
  /** The server lets the user download and delete files (the rules of those calls). */
  may: { download: boolean; delete: boolean };
}

/** FilesTable lists one page of export files with their row buttons (spec 02 "Files"), the pager under it. */
export function FilesTable({ files, loading, failure, onRetry, pagination, zone, now, types, downloadingId, onAction, may }: Props) {
  const columns: DataColumn<ExportFile>[] = [
    {
      key: 'name',
      header: 'Name',
      cell: (f) => (
        <>
          <Text fontWeight="medium" wordBreak="break-all">
            {f.name}
          </Text>
          {f.createdBy && (
            <Text fontSize="xs" color="fg.muted">
              by {f.createdBy}
            </Text>
          )}
        </>
      ),
    },
    { key: 'exportType', header: 'Export Type', cell: (f) => exportTypeName(f.exportType, types) },
    { key: 'format', header: 'Format', cell: (f) => fileTypeName(f.fileType) },
    {
      key: 'status',
      header: 'Status',
      cell: (f) => {
        const processing = isProcessing(f.status);
        return (
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
        );
      },
    },
    { key: 'records', header: 'Records', align: 'end', cell: (f) => (isProcessing(f.status) ? '-' : f.recordCount) },
    { key: 'size', header: 'Size', align: 'end', cellProps: { whiteSpace: 'nowrap' }, cell: (f) => (isProcessing(f.status) ? '-' : formatSize(f.fileSizeBytes)) },
    {
      key: 'created',
      header: 'Created',
      cellProps: { whiteSpace: 'nowrap' },
      cell: (f) => (
        <>
          <Text fontSize="sm">{f.createdUtc ? formatDateTime(f.createdUtc, zone) : ''}</Text>
          <Text fontSize="xs" color="fg.muted" data-testid="relative-time">
            {relativeTime(f.createdUtc, now)}
          </Text>
        </>
      ),
    },
    {
      key: 'actions',
      header: 'Actions',
      cell: (f) => (
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
      ),
    },
  ];
  return (
    <DataTable
      label="Files"
      columns={columns}
      rows={files}
      rowKey={(f) => f.id}
      rowProps={(f) => ({ 'data-testid': `file-${f.id}` })}
      loading={loading}
      loadingRows={Math.min(pagination.pageSize, 5)}
      empty="No files yet"
      emptyDetail="Export transactions from the Transactions page; files are kept for 3 days."
      error={failure && 'Files could not be loaded'}
      errorDetail={failure}
      onRetry={onRetry}
      pagination={pagination}
    />
  );
}
