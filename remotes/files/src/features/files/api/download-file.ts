import { useMutation } from '@tanstack/react-query';
import type { DownloadFileRequestJson } from '@paygate/gen/gateway/v1/files_pb';
import { api, type Download } from '@paygate/sdk';
import { z } from 'zod';

/** The input of a download: the file's id and the name to save it under when the server sends none. */
export const downloadFileInput = z.object({
  id: z.string().regex(/^\d+$/),
  name: z.string(),
}) satisfies z.ZodType<DownloadFileRequestJson & { name: string }>;

export type DownloadFileInput = z.infer<typeof downloadFileInput>;

/**
 * downloadFile reads a file's bytes through the API client, so the bearer
 * token is sent (GET {gatewayUrl}/api/v1/files/{id}); a file not ready answers
 * 409 with a message containing "not ready".
 */
export async function downloadFile(input: DownloadFileInput): Promise<Download & { filename: string }> {
  const { id, name } = downloadFileInput.parse(input);
  const file = await api.download('gateway', `/api/v1/files/${id}`);
  return { ...file, filename: file.filename ?? (name || `file-${id}`) };
}

/**
 * saveBlob hands a downloaded file to the browser through an object URL and a
 * temporary link, and frees the URL once the browser has taken it.
 */
export function saveBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  link.rel = 'noopener';
  link.style.display = 'none';
  document.body.appendChild(link);
  link.click();
  link.remove();
  window.setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** useDownloadFile is the mutation of downloadFile. */
export function useDownloadFile() {
  return useMutation({ mutationFn: downloadFile });
}
