import { keepPreviousData, queryOptions, useQuery } from '@tanstack/react-query';
import type { ListFilesRequestJson, ListFilesResponseJson } from '@paygate/gen/gateway/v1/files_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { isProcessing } from '../utils/file-status';
import { toExportFile, type ExportFile } from './types';

/** The paging of the file list (server-side, spec 02 §9). */
export const filesInput = z.object({
  page: z.number().int().min(1),
  take: z.number().int().min(1).max(100),
}) satisfies z.ZodType<ListFilesRequestJson>;

export type FilesInput = z.infer<typeof filesInput>;

/** FilePage is one page of files with its paging figures. */
export interface FilePage {
  files: ExportFile[];
  totalCount: number;
  currentPage: number;
  totalPages: number;
}

/** fetchFiles reads one page of the caller's files, newest first (GET {gatewayUrl}/api/v1/files?page&take). */
export async function fetchFiles(input: FilesInput, signal?: AbortSignal): Promise<FilePage> {
  const { page, take } = filesInput.parse(input);
  const body = await api.get<ListFilesResponseJson | undefined>('gateway', '/api/v1/files', { query: { page, take }, signal });
  return {
    files: (body?.files ?? []).map(toExportFile),
    totalCount: Number(body?.totalCount ?? 0),
    currentPage: body?.currentPage ?? page,
    totalPages: body?.totalPages ?? 0,
  };
}

/** The key prefix of every file list. */
export const FILES_KEY = ['files', 'list'] as const;

/** filesQuery is the query of one page of files. */
export const filesQuery = (input: FilesInput) =>
  queryOptions({
    queryKey: [...FILES_KEY, input],
    queryFn: ({ signal }) => fetchFiles(input, signal),
    placeholderData: keepPreviousData,
  });

/** How often the list reloads while a file is Scheduled or In Progress (spec 02 §9). */
export const FILES_REFRESH_MS = 20_000;

/** useFiles reads one page of files and reloads it every 20 s while any of them is still being written. */
export function useFiles(input: FilesInput) {
  return useQuery({
    ...filesQuery(input),
    refetchInterval: (query) => (query.state.data?.files.some((f) => isProcessing(f.status)) ? FILES_REFRESH_MS : false),
  });
}
