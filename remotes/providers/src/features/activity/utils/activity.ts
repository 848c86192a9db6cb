import type { ActivityAnswer } from '../api/get-activity-logs';

/** The category filter's values (spec 01 §5). */
export const ACTIVITY_CATEGORIES = [
  'Callback URL',
  'Validation Endpoint',
  'Limits',
  'Settings',
  'Credentials',
  'Status',
  'Configuration',
  'Sensitive',
  'Other',
] as const;
export type ActivityCategory = (typeof ACTIVITY_CATEGORIES)[number];

/** The severity filter's values (spec 01 §5). */
export const ACTIVITY_SEVERITIES = ['critical', 'warning', 'normal'] as const;
export type ActivitySeverity = (typeof ACTIVITY_SEVERITIES)[number];

/** The markers the gateway puts in messages (spec 01 §4). */
export const CRITICAL_MARKER = 'ATTENTION:';
export const SENSITIVE_MARKER = 'Sensitive action performed';

/** Words that make a log user a background job (spec 01 §4). */
const SYSTEM_WORDS = ['background', 'job', 'system', 'auto'];

/** ActivityEntry is one parsed log entry with its classification. */
export interface ActivityEntry {
  /** Unique within one answer. */
  key: string;
  /** Milliseconds since the epoch. */
  time: number;
  message: string;
  sensitiveActionName: string;
  actionType: string;
  userId: string;
  username: string;
  ip: string;
  collabId: string;
  providerId: string;
  merchantName: string;
  providerName: string;
  userAgent: string;
  oldValue: string;
  newValue: string;
  reason: string;
  count: string;
  channelName: string;
  payTypeName: string;
  payTypeCode: string;
  /** The id of the confirmation (step-up) the change was applied with; '' for none. */
  confirmationId: string;
  /** That confirmation's proofs, as read from the entry's Proofs. */
  proofs: ActivityProofs;
  /** The entry records a confirmed change: it has a confirmation id or proofs. */
  hasConfirmation: boolean;
  /** The entry could not be parsed; message says so. */
  unparsable: boolean;
  category: ActivityCategory;
  severity: ActivitySeverity;
  isSystem: boolean;
  isCritical: boolean;
  isSensitive: boolean;
}

/** isSystemUser: the user's name marks a background job. */
export function isSystemUser(username: string): boolean {
  const n = username.toLowerCase();
  return SYSTEM_WORDS.some((w) => n.includes(w));
}

/** isCriticalMessage: the message carries 'ATTENTION:'. */
export function isCriticalMessage(message: string): boolean {
  return message.includes(CRITICAL_MARKER);
}

/** isSensitiveMessage: the message carries 'Sensitive action performed'. */
export function isSensitiveMessage(message: string): boolean {
  return message.includes(SENSITIVE_MARKER);
}

/** categoryOf maps an action type to a filter category; anything unknown is Other. */
export function categoryOf(actionType: string): ActivityCategory {
  return (ACTIVITY_CATEGORIES as readonly string[]).includes(actionType) ? (actionType as ActivityCategory) : 'Other';
}

/** severityOf: critical for 'ATTENTION:', warning for a sensitive action, normal otherwise. */
export function severityOf(message: string): ActivitySeverity {
  if (isCriticalMessage(message)) return 'critical';
  if (isSensitiveMessage(message)) return 'warning';
  return 'normal';
}

/**
 * ActivityProof is one proof of a confirmation (docs/contracts-approvals.md
 * "A proof"): who signed, in which role, and how.
 */
export interface ActivityProof {
  /** Unique among the entry's proofs. */
  key: string;
  /** 'webauthn', 'totp' or 'none' (another kind is shown as unknown). */
  kind: string;
  /** 'actor', 'requester' or 'approver'. */
  role: string;
  /** The signer's user id as text; '' when absent. */
  userId: string;
  username: string;
  confirmationId: string;
  /** The proof exactly as recorded: what Verify sends back to auth. */
  raw: Readonly<Record<string, unknown>>;
}

/**
 * ActivityProofs is what an entry's Proofs held: nothing (no confirmation),
 * a list of proofs, or a value that is not a list of proof objects.
 */
export type ActivityProofs = { status: 'none' } | { status: 'read'; proofs: ActivityProof[] } | { status: 'unreadable' };

export const NO_PROOFS: ActivityProofs = { status: 'none' };
const UNREADABLE: ActivityProofs = { status: 'unreadable' };

const isPlainObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);
const optionalText = (v: unknown): v is string | undefined => v === undefined || typeof v === 'string';

/** toProof reads one proof object; null when it is not one (not an object, or a field of the wrong type). */
function toProof(v: unknown, index: number): ActivityProof | null {
  if (!isPlainObject(v)) return null;
  const { kind, role, userId, username, confirmationId } = v;
  if (typeof kind !== 'string' || typeof role !== 'string') return null;
  if (!optionalText(username) || !optionalText(confirmationId)) return null;
  if (userId !== undefined && !(typeof userId === 'string' || (typeof userId === 'number' && Number.isFinite(userId)))) return null;
  return {
    key: String(index),
    kind,
    role,
    userId: userId === undefined ? '' : String(userId),
    username: username ?? '',
    confirmationId: confirmationId ?? '',
    raw: v,
  };
}

/**
 * parseProofs reads an entry's Proofs defensively: absent, null or '' is no
 * proofs; a list (or JSON text of a list) of proof objects is read; anything
 * else (text that is not JSON, a lone object, a number, a list with an
 * element that is not a proof object) is unreadable.
 */
export function parseProofs(value: unknown): ActivityProofs {
  let v = value;
  if (typeof v === 'string') {
    if (v.trim() === '') return NO_PROOFS;
    try {
      v = JSON.parse(v) as unknown;
    } catch {
      return UNREADABLE;
    }
  }
  if (v === undefined || v === null) return NO_PROOFS;
  if (!Array.isArray(v)) return UNREADABLE;
  const proofs: ActivityProof[] = [];
  for (const [i, item] of v.entries()) {
    const proof = toProof(item, i);
    if (!proof) return UNREADABLE;
    proofs.push(proof);
  }
  return { status: 'read', proofs };
}

const ROLE_LABELS: Readonly<Record<string, string>> = { actor: 'Actor', requester: 'Requester', approver: 'Approver' };

/** proofRoleLabel names a proof's role: Actor, Requester or Approver; another role as recorded. */
export function proofRoleLabel(role: string): string {
  return ROLE_LABELS[role] ?? (role ? `Unknown role (${role})` : 'Unknown role');
}

const KIND_LABELS: Readonly<Record<string, string>> = {
  webauthn: 'Passkey',
  totp: 'TOTP code (weaker proof)',
  none: 'No signature (step-up did not apply)',
};

/** proofKindLabel names a proof's kind: a passkey, a TOTP code (the weaker proof), or no signature. */
export function proofKindLabel(kind: string): string {
  return KIND_LABELS[kind] ?? (kind ? `Unknown kind (${kind})` : 'Unknown kind');
}

/** proofSigner is a proof's signer, 'username (userId)'. */
export function proofSigner(p: Pick<ActivityProof, 'username' | 'userId'>): string {
  const name = p.username || 'Unknown user';
  return p.userId ? `${name} (${p.userId})` : name;
}

const str = (v: unknown): string => (v === undefined || v === null ? '' : typeof v === 'string' ? v : JSON.stringify(v));

function classify(base: Omit<ActivityEntry, 'category' | 'severity' | 'isSystem' | 'isCritical' | 'isSensitive' | 'hasConfirmation'>): ActivityEntry {
  return {
    ...base,
    hasConfirmation: base.confirmationId !== '' || base.proofs.status !== 'none',
    category: categoryOf(base.actionType),
    severity: severityOf(base.message),
    isSystem: isSystemUser(base.username),
    isCritical: isCriticalMessage(base.message),
    isSensitive: isSensitiveMessage(base.message),
  };
}

const EMPTY = {
  sensitiveActionName: '',
  actionType: '',
  userId: '',
  username: '',
  ip: '',
  collabId: '',
  providerId: '',
  merchantName: '',
  providerName: '',
  userAgent: '',
  oldValue: '',
  newValue: '',
  reason: '',
  count: '',
  channelName: '',
  payTypeName: '',
  payTypeCode: '',
  confirmationId: '',
  proofs: NO_PROOFS,
};

function nanosToMillis(ns: string): number {
  const n = Number(ns);
  return Number.isFinite(n) ? Math.floor(n / 1e6) : NaN;
}

/**
 * parseActivity turns the Loki-like answer into entries, newest first. A
 * value whose message is not a JSON object becomes an entry reading
 * `unparsableText` ('Failed to parse collab logs' or 'Failed to parse logs').
 */
export function parseActivity(answer: ActivityAnswer | undefined, unparsableText: string): ActivityEntry[] {
  const entries: ActivityEntry[] = [];
  (answer?.data?.result ?? []).forEach((stream, s) => {
    (stream.values ?? []).forEach((value, v) => {
      const [ns, raw] = Array.isArray(value) ? value : [];
      const key = `${s}:${v}:${ns ?? ''}`;
      const streamTime = nanosToMillis(String(ns ?? ''));
      let m: Record<string, unknown> | null = null;
      try {
        const parsed: unknown = JSON.parse(String(raw));
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) m = parsed as Record<string, unknown>;
      } catch {
        m = null;
      }
      if (!m) {
        entries.push(
          classify({
            ...EMPTY,
            key,
            time: streamTime,
            message: unparsableText,
            unparsable: true,
          }),
        );
        return;
      }
      const stamp = typeof m.timestamp === 'string' ? Date.parse(m.timestamp) : NaN;
      entries.push(
        classify({
          key,
          time: Number.isFinite(stamp) ? stamp : streamTime,
          message: str(m.Message),
          sensitiveActionName: str(m.SensitiveActionName),
          actionType: str(m.ActionType),
          userId: str(m.UserId),
          username: str(m.Username),
          ip: str(m.IP),
          collabId: str(m.CollabId),
          providerId: str(m.ProviderId),
          merchantName: str(m.MerchantName),
          providerName: str(m.ProviderName),
          userAgent: str(m.UserAgent),
          oldValue: str(m.OldValue),
          newValue: str(m.NewValue),
          reason: str(m.Reason),
          count: str(m.Count),
          channelName: str(m.ChannelName),
          payTypeName: str(m.PayTypeName),
          payTypeCode: str(m.PayTypeCode),
          confirmationId: str(m.ConfirmationId),
          proofs: parseProofs(m.Proofs),
          unparsable: false,
        }),
      );
    });
  });
  return entries.sort((a, b) => (Number.isFinite(b.time) ? b.time : 0) - (Number.isFinite(a.time) ? a.time : 0));
}


/** ActivityStats are the dialog's tiles. */
export interface ActivityStats {
  total: number;
  user: number;
  system: number;
  critical: number;
  sensitive: number;
}

/** activityStats counts the entries by the classification of spec 01 §4. */
export function activityStats(entries: readonly ActivityEntry[]): ActivityStats {
  return {
    total: entries.length,
    user: entries.filter((e) => !e.isSystem).length,
    system: entries.filter((e) => e.isSystem).length,
    critical: entries.filter((e) => e.isCritical).length,
    sensitive: entries.filter((e) => e.isSensitive).length,
  };
}

/** ActivityFilters are the dialog's filters; '' means any. */
export interface ActivityFilters {
  category: ActivityCategory | '';
  user: string;
  severity: ActivitySeverity | '';
}

export const NO_FILTERS: ActivityFilters = { category: '', user: '', severity: '' };

/** filterActivity keeps the entries matching every set filter. */
export function filterActivity(entries: readonly ActivityEntry[], f: ActivityFilters): ActivityEntry[] {
  return entries.filter(
    (e) => (!f.category || e.category === f.category) && (!f.user || e.username === f.user) && (!f.severity || e.severity === f.severity),
  );
}

/** activityUsers lists the distinct user names, sorted. */
export function activityUsers(entries: readonly ActivityEntry[]): string[] {
  return [...new Set(entries.map((e) => e.username).filter(Boolean))].sort((a, b) => a.localeCompare(b));
}

/** The paginator (spec 01 §9): 25 per page, options 10/25/50/100. */
export const PAGE_SIZES = [10, 25, 50, 100] as const;
export const DEFAULT_PAGE_SIZE = 25;

/** Strings longer than this are collapsed in the JSON diff view (spec 01 §9). */
export const EXPANDABLE_LENGTH = 50;

/** parseJsonValue reads an Old/New value holding JSON; a value that is not JSON stays the string itself. */
export function parseJsonValue(raw: string): unknown {
  if (raw === '') return undefined;
  try {
    return JSON.parse(raw);
  } catch {
    return raw;
  }
}

/** DiffRow is one line of the diff view. */
export interface DiffRow {
  /** The key path, '' for a scalar value. */
  path: string;
  old: unknown;
  new: unknown;
  changed: boolean;
}


/**
 * diffValues compares two JSON values: objects key by key (one level deep,
 * in key order), anything else as one row.
 */
export function diffValues(oldValue: unknown, newValue: unknown): DiffRow[] {
  if (isPlainObject(oldValue) || isPlainObject(newValue)) {
    const o = isPlainObject(oldValue) ? oldValue : {};
    const n = isPlainObject(newValue) ? newValue : {};
    const keys = [...new Set([...Object.keys(o), ...Object.keys(n)])];
    return keys.map((k) => ({ path: k, old: o[k], new: n[k], changed: JSON.stringify(o[k]) !== JSON.stringify(n[k]) }));
  }
  return [{ path: '', old: oldValue, new: newValue, changed: JSON.stringify(oldValue) !== JSON.stringify(newValue) }];
}
