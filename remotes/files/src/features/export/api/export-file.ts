import { useMutation } from '@tanstack/react-query';
import type { ExportFileRequestJson, ExportFileResponseJson } from '@paygate/gen/gateway/v1/files_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';

const text = z.string().optional();

/** The input of an export (spec 02 §3 Export request), checked before it is sent. */
export const exportFileInput = z.object({
  /** null: every collab in the caller's scope. */
  collabId: z.number().int().positive().nullable(),
  filter: z.object({
    type: z.number().int().min(0).max(2).optional(),
    statuses: z.array(z.number().int()).optional(),
    providerTid: text,
    merchantCid: text,
    nonce: text,
    from: text,
    to: text,
    minAmount: text,
    maxAmount: text,
    currency: text,
    paymentMethodValue: text,
    paymentMethodType: z.number().int().min(0).max(2).optional(),
    paymentIpAddress: text,
  }),
  settings: z.object({
    exportType: z.number().int().positive(),
    /** 0 CSV, 1 Excel, 2 PDF. */
    fileType: z.union([z.literal(0), z.literal(1), z.literal(2)]),
    columns: z.record(z.string().min(1), z.string().min(1)).refine((c) => Object.keys(c).length > 0, 'Select at least one column.'),
    columnOrder: z.array(z.string().min(1)).min(1),
    /** The IANA zone of the user's selected timezone. */
    timeZone: z.string().min(1),
  }),
}) satisfies z.ZodType<Omit<ExportFileRequestJson, 'collabId'> & { collabId: number | null }>;

export type ExportFileInput = z.infer<typeof exportFileInput>;

/**
 * exportFile schedules an export and answers its file id
 * (POST {gatewayUrl}/api/v1/files/export?collabId=N). The collab goes in the
 * query as the spec has it and in the body as the proto has it (the REST
 * mapping takes the whole body), so either reading finds it.
 */
export async function exportFile(input: ExportFileInput): Promise<string> {
  const { collabId, filter, settings } = exportFileInput.parse(input);
  const body: ExportFileRequestJson = { filter, settings, ...(collabId ? { collabId } : {}) };
  const res = await api.post<ExportFileResponseJson | undefined>('gateway', '/api/v1/files/export', body, { query: { collabId: collabId ?? undefined } });
  return String(res?.id ?? '');
}

/** useExportFile is the mutation of exportFile. */
export function useExportFile() {
  return useMutation({ mutationFn: exportFile });
}
