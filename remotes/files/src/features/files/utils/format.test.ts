import { formatDateTime } from '@paygate/sdk';
import { describe, expect, it } from 'vitest';
import { formatSize, processingTime, relativeTime } from './format';

const NOW = Date.UTC(2026, 10, 25, 12, 0, 0);
const ago = (ms: number) => new Date(NOW - ms).toISOString();
const S = 1_000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;

describe('relativeTime (spec 02 "Files")', () => {
  it.each([
    ['a future time', NOW + 5 * M, 'Just now'],
    ['now', NOW, 'Just now'],
    ['30 seconds ago', NOW - 30 * S, 'Just now'],
    ['31 seconds ago', NOW - 31 * S, '31 seconds ago'],
    ['59 seconds ago', NOW - 59 * S, '59 seconds ago'],
    ['1 minute ago', NOW - 60 * S, '1 minute ago'],
    ['2 minutes ago', NOW - 2 * M - 10 * S, '2 minutes ago'],
    ['59 minutes ago', NOW - 59 * M, '59 minutes ago'],
    ['1 hour ago', NOW - H, '1 hour ago'],
    ['5 hours ago', NOW - 5 * H - 59 * M, '5 hours ago'],
    ['1 day ago', NOW - D, '1 day ago'],
    ['3 days ago', NOW - 3 * D - 2 * H, '3 days ago'],
  ])('%s', (_, at, text) => {
    expect(relativeTime(new Date(at).toISOString(), NOW)).toBe(text);
  });

  it('reads a timestamp without a zone marker as UTC', () => {
    expect(relativeTime('2026-11-25T11:58:00', NOW)).toBe('2 minutes ago');
    expect(relativeTime('2026-11-25 10:00:00', NOW)).toBe('2 hours ago');
  });

  it.each([[''], ['not a date'], ['2026-13-45T99:00:00Z'], [null], [undefined]])('gives nothing for the invalid date %s', (input) => {
    expect(relativeTime(input, NOW)).toBe('');
  });
});

describe('dates (spec 02 "Files": Mon D, YYYY, HH:MM:SS (UTC±N))', () => {
  it('renders in the selected timezone with its offset', () => {
    expect(formatDateTime('2026-11-25T06:15:00Z', 'UTC')).toBe('Nov 25, 2026, 06:15:00 (UTC+0)');
    expect(formatDateTime('2026-11-25T06:15:00Z', 'Etc/GMT-8')).toBe('Nov 25, 2026, 14:15:00 (UTC+8)');
    expect(formatDateTime('2026-11-25T03:05:09', 'Etc/GMT+5')).toBe('Nov 24, 2026, 22:05:09 (UTC-5)');
    expect(formatDateTime('garbage', 'UTC')).toBe('');
  });
});

describe('formatSize (B, KB, MB, GB in 1024 steps, 2 decimals)', () => {
  it.each([
    [0, '0.00 B'],
    [1, '1.00 B'],
    [1023, '1023.00 B'],
    [1024, '1.00 KB'],
    [1536, '1.50 KB'],
    [1024 * 1024 - 1, '1024.00 KB'],
    [1024 * 1024, '1.00 MB'],
    [5.25 * 1024 * 1024, '5.25 MB'],
    [1024 ** 3, '1.00 GB'],
    [3 * 1024 ** 4, '3072.00 GB'],
    [-5, '0.00 B'],
    [Number.NaN, '0.00 B'],
  ])('%d bytes read %s', (bytes, text) => {
    expect(formatSize(bytes)).toBe(text);
  });
});

describe('processingTime (minutes and seconds since creation)', () => {
  it.each([
    [ago(5 * S), '0m 05s'],
    [ago(65 * S), '1m 05s'],
    [ago(12 * M + 30 * S), '12m 30s'],
    [ago(2 * H + M), '121m 00s'],
    [new Date(NOW + M).toISOString(), '0m 00s'],
    ['2026-11-25T11:59:00', '1m 00s'],
    ['', ''],
    ['nope', ''],
  ])('since %s reads %s', (created, text) => {
    expect(processingTime(created, NOW)).toBe(text);
  });
});
