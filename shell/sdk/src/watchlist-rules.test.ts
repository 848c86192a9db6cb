import { describe, expect, it } from 'vitest';
import { thresholdProblem, WATCHLIST_WINDOWS, watchlistWindowWords } from './watchlists';

describe('the watchlist rules the Pin and Edit dialogs share', () => {
  it('checks a threshold for its metric', () => {
    expect(thresholdProblem('sum', ' 50.25 ')).toBe('');
    expect(thresholdProblem('sum', '50.255')).toBe('The threshold must be a number such as 50 or 85.5.');
    expect(thresholdProblem('sum', '-1')).toBe('The threshold must be a number such as 50 or 85.5.');
    expect(thresholdProblem('count', '12')).toBe('');
    expect(thresholdProblem('count', '1.5')).toBe('A count threshold is a whole number.');
    expect(thresholdProblem('successRate', '100')).toBe('');
    expect(thresholdProblem('successRate', '100.01')).toBe('A success rate is at most 100 %.');
  });

  it('offers the windows from 5 minutes to 24 hours, in words', () => {
    expect(WATCHLIST_WINDOWS.map(watchlistWindowWords)).toEqual(['5 minutes', '15 minutes', '30 minutes', '1 hour', '3 hours', '6 hours', '12 hours', '24 hours']);
  });
});
