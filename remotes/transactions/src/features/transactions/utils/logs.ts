/** The stages of the Transaction Logs viewer, in order (spec 02 §2; the journal calls the last one 'UI Update'). */
export const LOG_STAGES = [
  'Initialization',
  'Transaction Creation',
  'API Request',
  'API Response',
  'Polling',
  'Callback Processing',
  'Status Change',
  'UI Update',
] as const;

/** LogEntry is one journal entry as the viewer shows it. */
export interface LogEntry {
  id: string;
  createdUtc: string;
  stage: string;
  level: string;
  message: string;
  /** The payload fields that are present, by name. */
  details: Record<string, unknown>;
  exception: { type: string; message: string; stackTrace: string } | null;
}

const DETAIL_KEYS = [
  'sourceContext',
  'application',
  'transactionUpdate',
  'content',
  'headers',
  'queryParams',
  'authData',
  'webhookRequest',
  'webhookResponse',
  'webhookHeaders',
] as const;

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/**
 * parseLogs checks the journal answer: a list (or `{logs: [...]}`) of objects
 * each with a stage. Anything else throws, and the viewer says "Failed to parse logs".
 */
export function parseLogs(body: unknown): LogEntry[] {
  const list = Array.isArray(body) ? body : body && typeof body === 'object' && Array.isArray((body as { logs?: unknown }).logs) ? (body as { logs: unknown[] }).logs : null;
  if (!list) throw new Error('Failed to parse logs');
  return list.map((raw) => {
    if (!raw || typeof raw !== 'object' || typeof (raw as { stage?: unknown }).stage !== 'string') throw new Error('Failed to parse logs');
    const r = raw as Record<string, unknown>;
    const details: Record<string, unknown> = {};
    for (const k of DETAIL_KEYS) if (r[k] !== undefined && r[k] !== null && r[k] !== '') details[k] = r[k];
    const ex = r.exception && typeof r.exception === 'object' ? (r.exception as Record<string, unknown>) : null;
    return {
      id: str(r.id),
      createdUtc: str(r.createdUtc),
      stage: str(r.stage),
      level: str(r.level) || 'Information',
      message: str(r.message),
      details,
      exception: ex ? { type: str(ex.type), message: str(ex.message), stackTrace: str(ex.stackTrace) } : null,
    };
  });
}

/** groupByStage orders entries by the stages of LOG_STAGES (unknown stages last), keeping time order inside a stage. */
export function groupByStage(entries: readonly LogEntry[]): { stage: string; entries: LogEntry[] }[] {
  const order = (s: string) => {
    const i = (LOG_STAGES as readonly string[]).indexOf(s === 'SignalR UI Update' ? 'UI Update' : s);
    return i === -1 ? LOG_STAGES.length : i;
  };
  const groups = new Map<string, LogEntry[]>();
  for (const e of entries) groups.set(e.stage, [...(groups.get(e.stage) ?? []), e]);
  return [...groups.entries()].sort((a, b) => order(a[0]) - order(b[0])).map(([stage, list]) => ({ stage, entries: list }));
}
