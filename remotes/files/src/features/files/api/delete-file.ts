import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { DeleteFileRequestJson, DeleteFileResponseJson } from '@paygate/gen/gateway/v1/files_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { FILES_KEY } from './get-files';
import { toExportFile, type ExportFile } from './types';

/** The input of a delete: the file's id. */
export const deleteFileInput = z.object({
  id: z.string().regex(/^\d+$/),
}) satisfies z.ZodType<DeleteFileRequestJson>;

export type DeleteFileInput = z.infer<typeof deleteFileInput>;

/** deleteFile deletes a file and answers it as it now is (DELETE {gatewayUrl}/api/v1/files/{id}). */
export async function deleteFile(input: DeleteFileInput): Promise<ExportFile | null> {
  const { id } = deleteFileInput.parse(input);
  const body = await api.request<DeleteFileResponseJson | undefined>('gateway', `/api/v1/files/${id}`, { method: 'DELETE' });
  return body?.file ? toExportFile(body.file) : null;
}

/** useDeleteFile is the mutation of deleteFile; the file list reloads afterwards. */
export function useDeleteFile() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: deleteFile,
    onSuccess: () => client.invalidateQueries({ queryKey: FILES_KEY }),
  });
}
