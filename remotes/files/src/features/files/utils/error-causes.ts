/** FailureKind is the probable cause of a failed export, read from its error message. */
export type FailureKind = 'timeout' | 'permission' | 'memory' | 'generic';

/** FailureAdvice is what the error dialog says about a failure. */
export interface FailureAdvice {
  kind: FailureKind;
  causes: string[];
  advice: string;
}

const ADVICE: Record<FailureKind, Omit<FailureAdvice, 'kind'>> = {
  timeout: {
    causes: ['The export took longer than the server allows.', 'The selected date range or filters match too many transactions.'],
    advice: 'Narrow the date range or add filters on the Transactions page, then export again.',
  },
  permission: {
    causes: ['Your account is not allowed to read some of the selected data.', 'Your permissions changed after the export was requested.'],
    advice: 'Check that you may see the selected collab, or ask an administrator for access, then export again.',
  },
  memory: {
    causes: ['The file grew too large for the server to write at once.', 'Too many rows or columns were selected.'],
    advice: 'Export fewer columns or a shorter period (CSV handles large exports best), then export again.',
  },
  generic: {
    causes: ['An unexpected error stopped the export.', 'A service the export needs may have been unavailable.'],
    advice: 'Try the export again; if it fails again, contact support with the file name.',
  },
};

const PATTERNS: [FailureKind, RegExp][] = [
  ['timeout', /time(d)?[\s-]?out|deadline|took too long/i],
  ['permission', /permission|forbidden|denied|unauthori[sz]ed|not allowed/i],
  ['memory', /memory|\boom\b|too large|heap/i],
];

/** failureAdvice lists the probable causes of a failure by its message content (spec 02 "Files"). */
export function failureAdvice(message: string): FailureAdvice {
  const kind = PATTERNS.find(([, re]) => re.test(message))?.[0] ?? 'generic';
  return { kind, ...ADVICE[kind] };
}
