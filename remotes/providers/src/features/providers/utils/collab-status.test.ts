import { describe, expect, it } from 'vitest';
import { toCollab, type CollabWire, type PayTypeWire } from '../api/types';
import { badgeSeverity, cashCount, cashCountSeverity, directionArrow, isCollabActive } from './collab-status';

const pt = (id: number, cashIn: boolean, cashOut: boolean, inOn = cashIn, outOn = cashOut): PayTypeWire => ({
  id,
  name: `P${id}`,
  code: `P${id}`,
  cashIn,
  cashOut,
  isCashInEnabled: inOn,
  isCashOutEnabled: outOn,
});

function make(o: { enabled?: boolean; in?: boolean; out?: boolean; supIn?: boolean; supOut?: boolean; payTypes?: PayTypeWire[] }) {
  const wire: CollabWire = {
    id: 1,
    isEnabled: o.enabled ?? true,
    isCashInEnabled: o.in ?? true,
    isCashOutEnabled: o.out ?? true,
    merchant: { id: 1, name: 'Acme Games' },
    provider: { id: 1, name: 'GoVip', supportsCashIn: o.supIn ?? true, supportsCashOut: o.supOut ?? true, payTypes: o.payTypes ?? [pt(1, true, true)] },
  };
  return toCollab(wire);
}

describe('badge severity (spec 01 §4)', () => {
  it('is secondary when the collab is disabled, whatever else holds', () => {
    expect(badgeSeverity(make({ enabled: false }))).toBe('secondary');
    expect(isCollabActive(make({ enabled: false }))).toBe(false);
  });

  it('is secondary when no direction is on', () => {
    const c = make({ in: false, out: false });
    expect(badgeSeverity(c)).toBe('secondary');
    expect(isCollabActive(c)).toBe(false);
  });

  it('is danger when pay types exist but none has a supported and enabled direction', () => {
    // Supported but switched off.
    expect(badgeSeverity(make({ payTypes: [pt(1, true, true, false, false)] }))).toBe('danger');
    // Enabled flags on a direction the pay type does not support do not count.
    expect(badgeSeverity(make({ payTypes: [pt(1, false, true, true, false), pt(2, true, false, false, true)] }))).toBe('danger');
  });

  it('is not danger for a collab without pay types', () => {
    expect(badgeSeverity(make({ payTypes: [] }))).toBe('success');
  });

  it('is warning when only some of the provider’s directions are on', () => {
    expect(badgeSeverity(make({ out: false }))).toBe('warning');
    expect(badgeSeverity(make({ in: false }))).toBe('warning');
    expect(isCollabActive(make({ in: false }))).toBe(true);
  });

  it('is success when every supported direction is on', () => {
    expect(badgeSeverity(make({}))).toBe('success');
    // A cash-in-only provider with cash-in on is complete.
    expect(badgeSeverity(make({ supOut: false, out: false, payTypes: [pt(1, true, false)] }))).toBe('success');
  });

  it('derives the provider directions from the pay types when the answer lacks them', () => {
    const c = toCollab({
      id: 1,
      isEnabled: true,
      isCashInEnabled: true,
      merchant: { id: 1, name: 'A' },
      provider: { id: 2, name: 'QRPh', payTypes: [pt(3, true, false)] },
    });
    expect(c.provider.supportsCashIn).toBe(true);
    expect(c.provider.supportsCashOut).toBe(false);
    expect(badgeSeverity(c)).toBe('success');
  });
});

describe('direction arrow', () => {
  it('shows the directions that are on', () => {
    expect(directionArrow(make({}))?.arrow).toBe('⇅');
    expect(directionArrow(make({ out: false }))?.arrow).toBe('↓');
    expect(directionArrow(make({ in: false }))?.arrow).toBe('↑');
    expect(directionArrow(make({ in: false, out: false }))).toBeNull();
  });
});

describe('cash counts and their tag colour (spec 01 §4)', () => {
  const c = make({ payTypes: [pt(1, true, true, true, false), pt(2, true, true, false, false), pt(3, false, true, false, false), pt(4, true, false)] });

  it('counts enabled over the pay types that support the direction', () => {
    expect(cashCount(c, 'in')).toEqual({ enabled: 2, total: 3 });
    expect(cashCount(c, 'out')).toEqual({ enabled: 0, total: 3 });
  });

  it('is danger for none enabled, success for all, warning for some', () => {
    expect(cashCountSeverity({ enabled: 0, total: 3 })).toBe('danger');
    expect(cashCountSeverity({ enabled: 0, total: 0 })).toBe('danger');
    expect(cashCountSeverity({ enabled: 3, total: 3 })).toBe('success');
    expect(cashCountSeverity({ enabled: 1, total: 3 })).toBe('warning');
  });
});
