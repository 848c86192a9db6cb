import { describe, expect, it } from 'vitest';
import { groupByStage, parseLogs } from './logs';

describe('transaction logs', () => {
  it('groups entries by the viewer stages in order', () => {
    const entries = parseLogs([
      { id: '3', stage: 'Status Change', message: 'to 4', level: 'Information' },
      { id: '1', stage: 'Initialization', message: 'start', content: { a: 1 } },
      { id: '2', stage: 'API Request', message: 'call', headers: { x: '***' } },
    ]);
    expect(groupByStage(entries).map((g) => g.stage)).toEqual(['Initialization', 'API Request', 'Status Change']);
    expect(entries[1]?.details).toEqual({ content: { a: 1 } });
  });

  it('accepts the {logs} form and refuses anything else', () => {
    expect(parseLogs({ logs: [] })).toEqual([]);
    expect(() => parseLogs('oops')).toThrow('Failed to parse logs');
    expect(() => parseLogs([{ message: 'no stage' }])).toThrow('Failed to parse logs');
  });
});
