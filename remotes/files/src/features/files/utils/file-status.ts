/** The file status codes of spec 02 §4. */
export const FILE_STATUS = { scheduled: 0, inProgress: 1, success: 2, failed: -1, cancelled: -2, deleted: -3 } as const;

/** StatusTone is how a status tag is coloured (spec 02 §4). */
export type StatusTone = 'info' | 'warning' | 'success' | 'danger' | 'neutral';

/** FileStatusView is a status as its tag shows it. */
export interface FileStatusView {
  label: string;
  tone: StatusTone;
}

const VIEWS: Record<number, FileStatusView> = {
  [FILE_STATUS.scheduled]: { label: 'Scheduled', tone: 'info' },
  [FILE_STATUS.inProgress]: { label: 'In Progress', tone: 'warning' },
  [FILE_STATUS.success]: { label: 'Success', tone: 'success' },
  [FILE_STATUS.failed]: { label: 'Failed', tone: 'danger' },
  [FILE_STATUS.cancelled]: { label: 'Cancelled', tone: 'danger' },
  [FILE_STATUS.deleted]: { label: 'Deleted', tone: 'danger' },
};

/** fileStatus names a status code and its tone; any other code is Unknown. */
export function fileStatus(code: number): FileStatusView {
  return VIEWS[code] ?? { label: 'Unknown', tone: 'neutral' };
}

/** TONE_PALETTE maps a tone to a Chakra colour palette. */
export const TONE_PALETTE: Record<StatusTone, string> = { info: 'blue', warning: 'orange', success: 'green', danger: 'red', neutral: 'gray' };

/** isProcessing: Scheduled and In Progress count as processing (spec 02 §4). */
export function isProcessing(code: number): boolean {
  return code === FILE_STATUS.scheduled || code === FILE_STATUS.inProgress;
}

/** canDownload and canDelete: a Success file may be downloaded and deleted (spec 02 §4). */
export const canDownload = (code: number) => code === FILE_STATUS.success;
export const canDelete = (code: number) => code === FILE_STATUS.success;

/** isFailed: a Failed file offers its error details. */
export const isFailed = (code: number) => code === FILE_STATUS.failed;

/** The file types of spec 02 §3 and §9. */
export const FILE_TYPES = [
  { value: 0, label: 'CSV' },
  { value: 1, label: 'Excel' },
  { value: 2, label: 'PDF' },
] as const;

/** fileTypeName names a file type: 0 CSV, 1 Excel, 2 PDF, else Unknown. */
export function fileTypeName(code: number): string {
  return FILE_TYPES.find((t) => t.value === code)?.label ?? 'Unknown';
}

/**
 * exportTypeName names an export type: 1 Transactions and 2 Statistics
 * (spec 02 §3), otherwise the name the server's types list gives it, else
 * Unknown.
 */
export function exportTypeName(code: number, types: readonly { type: number; name: string }[] = []): string {
  if (code === 1) return 'Transactions';
  if (code === 2) return 'Statistics';
  return types.find((t) => t.type === code)?.name || 'Unknown';
}
