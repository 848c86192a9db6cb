import { queryOptions, useQuery } from '@tanstack/react-query';
import type { GetExportColumnsRequestJson, GetExportColumnsResponseJson } from '@paygate/gen/gateway/v1/files_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { toColumns, type ExportColumn } from '../../../api/get-export-types';

/** The input of the column list: the export type. */
export const exportColumnsInput = z.object({
  type: z.number().int().positive(),
}) satisfies z.ZodType<GetExportColumnsRequestJson>;

export type ExportColumnsInput = z.infer<typeof exportColumnsInput>;

/** fetchExportColumns lists an export type's columns in their default order (GET {gatewayUrl}/api/v1/files/export/columns/{type}). */
export async function fetchExportColumns(input: ExportColumnsInput, signal?: AbortSignal): Promise<ExportColumn[]> {
  const { type } = exportColumnsInput.parse(input);
  const body = await api.get<GetExportColumnsResponseJson | undefined>('gateway', `/api/v1/files/export/columns/${type}`, { signal });
  return toColumns(body?.columns, body?.availableColumns);
}

/** exportColumnsQuery is the query of one type's columns. */
export const exportColumnsQuery = (input: ExportColumnsInput) =>
  queryOptions({
    queryKey: ['files', 'export-columns', input.type],
    queryFn: ({ signal }) => fetchExportColumns(input, signal),
    staleTime: 5 * 60_000,
  });

/** useExportColumns reads one type's columns once a type is chosen. */
export function useExportColumns(type: number | null) {
  return useQuery({ ...exportColumnsQuery({ type: type ?? 1 }), enabled: type !== null && type > 0 });
}
