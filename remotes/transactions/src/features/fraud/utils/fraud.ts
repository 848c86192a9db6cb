/** The level of a fraud (spec 02 §3): 1 Low, 2 Medium, 3 High, 4 Critical, anything else None. */
export function levelLabel(level: number): string {
  return LEVELS[level] ?? 'None';
}

const LEVELS: Record<number, string> = { 1: 'Low', 2: 'Medium', 3: 'High', 4: 'Critical' };

/** The badge colour of each level. */
export function levelPalette(level: number): string {
  return { 1: 'blue', 2: 'yellow', 3: 'orange', 4: 'red' }[level] ?? 'gray';
}

/** The review statuses a reviewer may choose (spec 02 §4 Fraud reviewStatus). */
export const REVIEW_STATUSES = [
  { value: 0, label: 'Not Reviewed' },
  { value: 1, label: 'Confirmed' },
  { value: 2, label: 'Denied' },
] as const;

export const DENIED = 2;

/** reviewStatusLabel names a review status; values beyond 0, 1, 2 read "Unknown". */
export function reviewStatusLabel(status: number): string {
  return REVIEW_STATUSES.find((s) => s.value === status)?.label ?? 'Unknown';
}

/** The colour of each review status. */
export function reviewStatusPalette(status: number): string {
  return { 0: 'gray', 1: 'red', 2: 'green' }[status] ?? 'gray';
}

/** ReviewDraft is the Manage fraud dialog's form. */
export interface ReviewDraft {
  status: number;
  notes: string;
  cancelCallbacks: boolean;
}

/**
 * reviewProblem says why a review cannot be saved, or null when it can (spec
 * 02 §4): it must change the status or the note, and Denied needs a note.
 */
export function reviewProblem(saved: { reviewStatus: number; notes: string }, draft: ReviewDraft): string | null {
  const notes = draft.notes.trim();
  if (draft.status === DENIED && !notes) return 'A note is required to deny a fraud.';
  if (draft.status === saved.reviewStatus && notes === saved.notes.trim()) return 'Change the status or the note to save.';
  return null;
}

/** FraudFilters are the fraud list's filters as the form holds them. */
export interface FraudFilters {
  /** '' for any, else '0', '1' or '2'. */
  status: string;
  clientId: string;
  merchantClientId: string;
  transactionId: string;
  referenceId: string;
  /** The merchant id, or null for every merchant (admins only). */
  merchantId: number | null;
}

export const EMPTY_FILTERS: FraudFilters = { status: '', clientId: '', merchantClientId: '', transactionId: '', referenceId: '', merchantId: null };

/**
 * merchantFilterInvalid is the rule of spec 02 §5: for an admin, the
 * merchant filter is invalid when a merchant client id is given without a
 * merchant.
 */
export function merchantFilterInvalid(filters: FraudFilters, admin: boolean): boolean {
  return admin && filters.merchantClientId.trim() !== '' && filters.merchantId === null;
}

/** transactionIdInvalid: a transaction id is all digits. */
export function transactionIdInvalid(filters: FraudFilters): boolean {
  const id = filters.transactionId.trim();
  return id !== '' && !/^\d+$/.test(id);
}

/** FraudDays are the applied days of the date filter (yyyy-mm-dd), or null for the default range. */
export type FraudDays = { from: string; to: string } | null;

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/**
 * fraudViewQuery writes the applied filters as a saved view keeps them
 * (docs/contracts-views.md): status, merchantId, clientId, merchantClientId,
 * transactionId, referenceId, and the days when the user chose them (from,
 * to); empty values left out.
 */
export function fraudViewQuery(f: FraudFilters, days: FraudDays): URLSearchParams {
  const p = new URLSearchParams();
  if (f.status !== '') p.set('status', f.status);
  if (f.merchantId !== null) p.set('merchantId', String(f.merchantId));
  for (const k of ['clientId', 'merchantClientId', 'transactionId', 'referenceId'] as const) if (f[k].trim()) p.set(k, f[k].trim());
  if (days) {
    p.set('from', days.from);
    p.set('to', days.to);
  }
  return p;
}

/** fraudFiltersOfView reads a view's query back; unknown or malformed values are left out. */
export function fraudFiltersOfView(query: URLSearchParams): { filters: FraudFilters; days: FraudDays } {
  const status = query.get('status') ?? '';
  const merchant = query.get('merchantId') ?? '';
  const filters: FraudFilters = {
    status: REVIEW_STATUSES.some((s) => String(s.value) === status) ? status : '',
    merchantId: /^\d+$/.test(merchant) && Number(merchant) > 0 ? Number(merchant) : null,
    clientId: query.get('clientId') ?? '',
    merchantClientId: query.get('merchantClientId') ?? '',
    transactionId: query.get('transactionId') ?? '',
    referenceId: query.get('referenceId') ?? '',
  };
  const from = query.get('from') ?? '';
  const to = query.get('to') ?? '';
  return { filters, days: DAY.test(from) && DAY.test(to) ? { from, to } : null };
}
