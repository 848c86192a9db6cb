import { queryOptions, useQuery } from '@tanstack/react-query';
import type { FileJson, GetFileInfoRequestJson } from '@paygate/gen/gateway/v1/files_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toExportFile, type ExportFile } from './types';

/** The input of the file info: the file's id. */
export const fileInfoInput = z.object({
  id: z.string().regex(/^\d+$/),
}) satisfies z.ZodType<GetFileInfoRequestJson>;

export type FileInfoInput = z.infer<typeof fileInfoInput>;

/** fetchFileInfo reads one file with its manifest (GET {gatewayUrl}/api/v1/files/{id}/info). */
export async function fetchFileInfo(input: FileInfoInput, signal?: AbortSignal): Promise<ExportFile> {
  const { id } = fileInfoInput.parse(input);
  const body = await api.get<FileJson | undefined>('gateway', `/api/v1/files/${id}/info`, { signal });
  return toExportFile(body ?? {});
}

/** fileInfoQuery is the query of one file's info. */
export const fileInfoQuery = (input: FileInfoInput) =>
  queryOptions({
    queryKey: ['files', 'info', input.id],
    queryFn: ({ signal }) => fetchFileInfo(input, signal),
    retry: false,
  });

/** useFileInfo reads one file's info. */
export function useFileInfo(input: FileInfoInput) {
  return useQuery(fileInfoQuery(input));
}
