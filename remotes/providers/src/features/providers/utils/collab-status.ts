import type { Collab } from '../api/types';

/** Severity is the tone of a badge or tag (spec 01 §4); the palette maps it to a colour. */
export type Severity = 'secondary' | 'danger' | 'warning' | 'success';

/** SEVERITY_PALETTE maps a severity to the Chakra colour palette that shows it. */
export const SEVERITY_PALETTE: Record<Severity, string> = {
  secondary: 'gray',
  danger: 'red',
  warning: 'orange',
  success: 'green',
};

/** Direction is cash-in (deposits) or cash-out (withdrawals). */
export type Direction = 'in' | 'out';

/** isCollabActive: the collab is enabled and at least one direction is on (spec 01 §4). */
export function isCollabActive(c: Collab): boolean {
  return c.isEnabled && (c.isCashInEnabled || c.isCashOutEnabled);
}

/**
 * badgeSeverity applies spec 01 §4: secondary when the collab is disabled or
 * no direction is on; danger when it has pay types but none has a direction
 * that is both supported and enabled; warning when only some of the
 * provider's directions are on; success otherwise.
 */
export function badgeSeverity(c: Collab): Severity {
  if (!c.isEnabled || (!c.isCashInEnabled && !c.isCashOutEnabled)) return 'secondary';
  const payTypes = c.provider.payTypes;
  const usable = payTypes.some((p) => (p.cashIn && p.isCashInEnabled) || (p.cashOut && p.isCashOutEnabled));
  if (payTypes.length > 0 && !usable) return 'danger';
  const someOff = (c.provider.supportsCashIn && !c.isCashInEnabled) || (c.provider.supportsCashOut && !c.isCashOutEnabled);
  return someOff ? 'warning' : 'success';
}

/** directionArrow shows which directions are on: ↓ cash-in, ↑ cash-out, ⇅ both, nothing for none. */
export function directionArrow(c: Collab): { arrow: string; label: string } | null {
  if (c.isCashInEnabled && c.isCashOutEnabled) return { arrow: '⇅', label: 'Cash-in and cash-out on' };
  if (c.isCashInEnabled) return { arrow: '↓', label: 'Cash-in on' };
  if (c.isCashOutEnabled) return { arrow: '↑', label: 'Cash-out on' };
  return null;
}

/** CashCount is how many of the collab's pay types that support a direction have it enabled. */
export interface CashCount {
  enabled: number;
  total: number;
}

/** cashCount counts a direction over the collab's pay types that support it. */
export function cashCount(c: Collab, direction: Direction): CashCount {
  const supporting = c.provider.payTypes.filter((p) => (direction === 'in' ? p.cashIn : p.cashOut));
  const enabled = supporting.filter((p) => (direction === 'in' ? p.isCashInEnabled : p.isCashOutEnabled));
  return { enabled: enabled.length, total: supporting.length };
}

/** cashCountSeverity applies spec 01 §4: danger for none enabled, success for all, warning for some. */
export function cashCountSeverity({ enabled, total }: CashCount): Severity {
  if (enabled === 0) return 'danger';
  if (enabled >= total) return 'success';
  return 'warning';
}
