import { Button, HStack, Stack } from '@chakra-ui/react';
import { ConfirmDialog, errorMessage, hasPermission, mayCall, NoPermission, notify, PageFrame, SCREENS, useTimezone, useUser, ViewsBar, type AppliedView } from '@paygate/sdk';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useNavigate } from 'react-router';
import { useExportTypes } from '../../../api/get-export-types';
import { useDeleteFile } from '../api/delete-file';
import { saveBlob, useDownloadFile } from '../api/download-file';
import { useFiles } from '../api/get-files';
import type { ExportFile } from '../api/types';
import { useNow } from '../hooks/use-now';
import { isProcessing } from '../utils/file-status';
import { FileErrorDialog } from './file-error-dialog';
import { FileInfoDialog } from './file-info-dialog';
import { FilesTable, type FileAction } from './files-table';

/** The page sizes of the file list and its default (spec 02 §9). */
export const FILE_PAGE_SIZES = [5, 10, 20, 30] as const;
export const DEFAULT_FILE_PAGE_SIZE = 10;
/** After a download refused as "not ready", the list reloads after this delay (spec 02 §8). */
export const NOT_READY_RELOAD_MS = 2_000;
/** The refresh toast is an info toast of 2 s (spec 02 §8). */
const REFRESH_TOAST_MS = 2_000;

/** The file list has no filters: its saved views keep only the page size. */
const NO_FILTERS = new URLSearchParams();

/** FilesPage is the Files screen (route /files, spec 02 "Files"): export files with download, info, delete and error details. */
export function FilesPage() {
  const user = useUser();
  if (!hasPermission(user, 'Files Access')) return <NoPermission />;
  return <FilesView />;
}

function FilesView() {
  const user = useUser();
  const navigate = useNavigate();
  const [zone] = useTimezone();
  const [page, setPage] = useState(1);
  const [take, setTake] = useState(DEFAULT_FILE_PAGE_SIZE);
  const [open, setOpen] = useState<{ kind: 'info' | 'error' | 'delete'; file: ExportFile } | null>(null);
  const list = useFiles({ page, take });
  const applyView = useCallback((v: AppliedView) => {
    if ((FILE_PAGE_SIZES as readonly number[]).includes(v.pageSize)) setTake(v.pageSize);
    setPage(1);
  }, []);
  const types = useExportTypes();
  const download = useDownloadFile();
  const remove = useDeleteFile();
  const files = list.data?.files ?? [];
  const processing = files.some((f) => isProcessing(f.status));
  // Processing times tick every second; relative times move on every half minute.
  const now = useNow(processing ? 1_000 : 30_000);

  const failure = list.isError ? errorMessage(list.error, 'Unknown error') : null;
  useEffect(() => {
    if (failure) notify.error(`Failed to load files: ${failure}`);
  }, [failure]);

  const reloadTimer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(reloadTimer.current), []);

  // Only a refresh the user asked for shows on the button, so that the auto-refresh never takes it away.
  const [refreshing, setRefreshing] = useState(false);
  function refresh() {
    notify.info('Refreshing', 'Updating file list...', REFRESH_TOAST_MS);
    setRefreshing(true);
    void list.refetch().finally(() => setRefreshing(false));
  }

  function startDownload(file: ExportFile) {
    download.mutate(
      { id: file.id, name: file.name },
      {
        onSuccess: (got) => {
          saveBlob(got.blob, got.filename);
          notify.success('Download Started', `Downloading ${file.name}`);
        },
        onError: (err) => {
          const message = errorMessage(err, 'The file could not be downloaded.');
          notify.error('Download Failed', message);
          if (/not ready/i.test(message)) {
            window.clearTimeout(reloadTimer.current);
            reloadTimer.current = window.setTimeout(() => void list.refetch(), NOT_READY_RELOAD_MS);
          }
        },
      },
    );
  }

  function confirmDelete(file: ExportFile) {
    remove.mutate(
      { id: file.id },
      {
        onSuccess: () => {
          setOpen(null);
          notify.success('File Deleted', `${file.name} has been deleted successfully`);
        },
        onError: (err) => {
          setOpen(null);
          notify.error('Delete Failed', errorMessage(err, 'The file could not be deleted.'));
        },
      },
    );
  }

  function onAction(action: FileAction, file: ExportFile) {
    if (action === 'download') startDownload(file);
    else setOpen({ kind: action, file });
  }

  return (
    <PageFrame
      title={SCREENS.files.title}
      actions={
        <HStack gap={2}>
          <Button size="sm" variant="outline" loading={refreshing} onClick={refresh}>
            Refresh
          </Button>
          <Button size="sm" onClick={() => void navigate(SCREENS.transactions.link)}>
            Go to Transactions
          </Button>
        </HStack>
      }
    >
      <Stack gap={4}>
        <ViewsBar list="files" user={user} filterParams={NO_FILTERS} layout={{ pageSize: take }} onApply={applyView} />
        <FilesTable
          files={files}
          loading={list.isPending}
          failure={failure}
          onRetry={() => void list.refetch()}
          pagination={{
            label: 'Files pages',
            page,
            totalPages: list.data?.totalPages ?? 0,
            totalCount: list.data?.totalCount ?? 0,
            pageSize: take,
            pageSizes: FILE_PAGE_SIZES,
            onPage: setPage,
            onPageSize: (size) => {
              setTake(size);
              setPage(1);
            },
          }}
          zone={zone}
          now={now}
          types={types.data ?? []}
          downloadingId={download.isPending ? (download.variables?.id ?? null) : null}
          onAction={onAction}
          may={{ download: mayCall(user, 'GET /api/v1/files/{id}'), delete: mayCall(user, 'DELETE /api/v1/files/{id}') }}
        />
      </Stack>

      {open?.kind === 'info' && <FileInfoDialog file={open.file} zone={zone} types={types.data ?? []} onClose={() => setOpen(null)} />}
      {open?.kind === 'error' && <FileErrorDialog file={open.file} onClose={() => setOpen(null)} />}
      {open?.kind === 'delete' && (
        <ConfirmDialog
          title="Delete File"
          message={`Are you sure you want to delete ${open.file.name}? This cannot be undone.`}
          confirmLabel="Delete"
          destructive
          pending={remove.isPending}
          onCancel={() => setOpen(null)}
          onConfirm={() => confirmDelete(open.file)}
        />
      )}
    </PageFrame>
  );
}
