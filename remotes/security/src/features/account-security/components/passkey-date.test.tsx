import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { PasskeyDate, passkeyDate } from './passkey-date';

const NOW = Date.parse('2026-01-10T12:00:00Z');
const HOUR = 3_600_000;
const ago = (h: number) => new Date(NOW - h * HOUR).toISOString();

describe('passkey dates (spec 02 §9)', () => {
  it('reads Today, Yesterday and "N days ago" by hours elapsed', () => {
    expect(passkeyDate(ago(0), NOW, 'UTC')).toBe('Today');
    expect(passkeyDate(ago(23.9), NOW, 'UTC')).toBe('Today');
    expect(passkeyDate(ago(24), NOW, 'UTC')).toBe('Yesterday');
    expect(passkeyDate(ago(47.9), NOW, 'UTC')).toBe('Yesterday');
    expect(passkeyDate(ago(48), NOW, 'UTC')).toBe('2 days ago');
    expect(passkeyDate(ago(167.9), NOW, 'UTC')).toBe('6 days ago');
  });

  it('reads a date from 168 hours on, in the selected timezone', () => {
    expect(passkeyDate('2025-12-31T23:30:00Z', NOW, 'UTC')).toBe('Dec 31, 2025');
    expect(passkeyDate('2025-12-31T23:30:00Z', NOW, 'Etc/GMT-2')).toBe('Jan 1, 2026');
  });

  it('reads Never for a missing date', () => {
    expect(passkeyDate(null, NOW, 'UTC')).toBe('Never');
    expect(passkeyDate(undefined, NOW, 'UTC')).toBe('Never');
    expect(passkeyDate('', NOW, 'UTC')).toBe('Never');
  });

  it('renders a time element with the exact time as its title', () => {
    render(<PasskeyDate value="2025-12-31T23:30:00Z" now={NOW} zone="UTC" />);
    expect(screen.getByText('Dec 31, 2025')).toHaveAttribute('title', 'Dec 31, 2025, 23:30:00 (UTC+0)');
  });
});
