import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { renderApp } from '@paygate/devkit/testing';
import { server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { listHandlers, transactionsLoader, type Seen } from '../../../testing/fixtures';
import { defaultRange } from '../../../utils/date-range';
import { DateRangePicker, parseDay } from './date-range-picker';

const CHOSEN = 'dateRange=2026-03-10T00:00:00.000Z,2026-03-12T23:59:59.999Z';

async function renderPage(path: string) {
  const seen: Seen = { lists: [] };
  server.use(...listHandlers(undefined, seen));
  const view = renderApp(path, { user: ADMIN, loader: transactionsLoader() });
  await screen.findByTestId('transaction-11', {}, { timeout: 15_000 });
  const last = () => seen.lists.at(-1)!.searchParams;
  return { ...view, seen, last };
}

describe('Transactions date range picker (spec 02 §5)', () => {
  it('keeps days being typed when the page renders the same range again (a live update)', async () => {
    const now = new Date('2026-11-25T03:00:00Z');
    const picker = (onChange: (r: unknown) => void) => (
      <ChakraProvider value={defaultSystem}>
        {/* defaultRange makes a new object each time, as the page does on every render. */}
        <DateRangePicker range={defaultRange(now, 'UTC')} chosen={false} zone="UTC" disabled={false} onChange={onChange} />
      </ChakraProvider>
    );
    const changes: unknown[] = [];
    const onChange = (r: unknown) => changes.push(r);
    const view = render(picker(onChange));
    const user = userEvent.setup();
    const end = screen.getByRole('textbox', { name: 'End date' });
    await user.clear(end);
    await user.type(end, '2026-11-24');
    view.rerender(picker(onChange));
    expect(screen.getByRole('textbox', { name: 'End date' })).toHaveValue('2026-11-24');
    await user.type(screen.getByRole('textbox', { name: 'End date' }), '{Enter}');
    expect(changes).toEqual([{ from: '2026-11-24T00:00:00.000Z', to: '2026-11-24T23:59:59.999Z' }]);
  });

  it('reads typed days, snapping the start to 00:00:00 and the end to 23:59:59.999, shown in 24-hour time', async () => {
    const { user, last } = await renderPage('/transactions');
    const start = screen.getByRole('textbox', { name: 'Start date' });
    const end = screen.getByRole('textbox', { name: 'End date' });
    await user.clear(start);
    await user.type(start, '2026-03-01{Enter}');
    await user.clear(end);
    await user.type(end, '2026-03-05 13:45{Enter}');
    await waitFor(() => expect(last().get('to')).toBe('2026-03-05T23:59:59.999Z'));
    expect(last().get('from')).toBe('2026-03-01T00:00:00.000Z');
    expect(screen.getByText('Mar 1, 2026, 00:00:00 (UTC+0) – Mar 5, 2026, 23:59:59 (UTC+0)')).toBeInTheDocument();
  });

  it('shows two months, none before 1 Jan 2025, and ends a range without an end with its start day, saying so', async () => {
    const { user, last } = await renderPage('/transactions?dateRange=2025-01-05T00:00:00.000Z,2025-01-06T23:59:59.999Z');
    await user.click(screen.getByRole('button', { name: 'Open calendar' }));
    const grids = await screen.findAllByRole('grid');
    expect(grids).toHaveLength(2);
    const jan = grids[0]!;
    // Monday 30 Dec 2024 opens the first week of January 2025: before the minimum, it cannot be picked.
    const dec30 = within(jan).getAllByRole('gridcell').find((c) => c.getAttribute('data-value') === '2024-12-30');
    expect(dec30).toHaveAttribute('aria-disabled', 'true');
    const day = within(grids[1]!).getAllByRole('gridcell').find((c) => c.getAttribute('data-value') === '2025-02-14')!;
    await user.click(within(day).getByText('14'));
    await user.keyboard('{Escape}');
    expect(await screen.findByText('End date not selected')).toBeInTheDocument();
    expect(screen.getByText('Using the end of the start day')).toBeInTheDocument();
    await waitFor(() => expect(last().get('from')).toBe('2025-02-14T00:00:00.000Z'));
    expect(last().get('to')).toBe('2025-02-14T23:59:59.999Z');
  });

  it('ends a typed range without an end with its start day, and moves a start before 1 Jan 2025 to it', async () => {
    const { user, last } = await renderPage('/transactions');
    await user.clear(screen.getByRole('textbox', { name: 'Start date' }));
    await user.type(screen.getByRole('textbox', { name: 'Start date' }), '2024-06-01');
    await user.clear(screen.getByRole('textbox', { name: 'End date' }));
    await user.keyboard('{Enter}');
    await waitFor(() => expect(last().get('from')).toBe('2025-01-01T00:00:00.000Z'));
    expect(last().get('to')).toBe('2025-01-01T23:59:59.999Z');
    expect(await screen.findByText('End date not selected')).toBeInTheDocument();
  });

  it('goes back to yesterday … today in the selected timezone when the range is cleared', async () => {
    const { user, last } = await renderPage(`/transactions?${CHOSEN}`);
    expect(last().get('from')).toBe('2026-03-10T00:00:00.000Z');
    await user.click(screen.getByRole('button', { name: 'Clear date range' }));
    const def = defaultRange(new Date(), 'UTC');
    await waitFor(() => expect(last().get('from')).toBe(def.from));
    expect(last().get('to')).toBe(def.to);
    expect(screen.queryByRole('button', { name: 'Clear date range' })).toBeNull();
  });

  it('parses typed days with an optional time and refuses impossible ones', () => {
    expect(parseDay('2026-03-01')?.toString()).toBe('2026-03-01');
    expect(parseDay(' 2026-03-01 23:15:09 ')?.toString()).toBe('2026-03-01');
    expect(parseDay('2026-02-30')).toBeUndefined();
    expect(parseDay('01/03/2026')).toBeUndefined();
  });
});
