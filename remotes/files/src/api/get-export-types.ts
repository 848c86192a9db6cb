import { queryOptions, useQuery } from '@tanstack/react-query';
import type { ExportColumnJson, ExportTypeJson } from '@paygate/gen/gateway/v1/files_pb';
import { api } from '@paygate/sdk';

/** ExportColumn is one column an export can write: the field it reads and its default header. */
export interface ExportColumn {
  field: string;
  name: string;
}

/** ExportType is one kind of export the server offers, every field present. */
export interface ExportType {
  type: number;
  name: string;
  description: string;
  /** The columns in their default order. */
  columns: ExportColumn[];
}

/**
 * toColumns reads a type's columns: the ordered list when the server sent
 * one, else the availableColumns map in its own order.
 */
export function toColumns(columns: ExportColumnJson[] | undefined, available: Record<string, string> | undefined): ExportColumn[] {
  if (columns?.length) return columns.filter((c) => c.field).map((c) => ({ field: c.field ?? '', name: c.name || (c.field ?? '') }));
  return Object.entries(available ?? {}).map(([field, name]) => ({ field, name: name || field }));
}

/** toExportType fills the fields proto3 JSON may leave out. */
export function toExportType(t: ExportTypeJson): ExportType {
  return { type: t.type ?? 0, name: t.name ?? '', description: t.description ?? '', columns: toColumns(t.columns, t.availableColumns) };
}

/** fetchExportTypes lists the export types (GET {gatewayUrl}/api/v1/files/export/types, a bare array). */
export async function fetchExportTypes(signal?: AbortSignal): Promise<ExportType[]> {
  const body = await api.get<ExportTypeJson[] | { types?: ExportTypeJson[] } | undefined>('gateway', '/api/v1/files/export/types', { signal });
  const list = Array.isArray(body) ? body : (body?.types ?? []);
  return list.map(toExportType);
}

/** exportTypesQuery is the query of the export types; they change with a deployment only. */
export const exportTypesQuery = () =>
  queryOptions({
    queryKey: ['files', 'export-types'],
    queryFn: ({ signal }) => fetchExportTypes(signal),
    staleTime: 5 * 60_000,
  });

/** useExportTypes reads the export types. */
export function useExportTypes() {
  return useQuery(exportTypesQuery());
}
