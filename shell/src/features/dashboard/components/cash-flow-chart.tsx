import { Box, Center, Text, VisuallyHidden } from '@chakra-ui/react';
import { BarTooltip, ResponsiveBar } from '@nivo/bar';
import { DataTable, formatDecimal, type DataColumn } from '@paygate/sdk';
import type { CashFlow } from '../api/get-statistics';
import { dayLabel } from '../utils/days';

const CASH_IN = '#38a169';
const CASH_OUT = '#e53e3e';

interface DayRow {
  [key: string]: string | number;
  day: string;
  'Cash In': number;
  'Cash Out': number;
  cashInText: string;
  cashOutText: string;
}

/** dayRows joins the cash-in and cash-out series by day, in day order. */
function dayRows(cashIn: CashFlow, cashOut: CashFlow, zone: string): DayRow[] {
  const byStart = new Map<string, { in: string; out: string }>();
  for (const d of cashIn.days) byStart.set(d.start, { in: d.amount, out: byStart.get(d.start)?.out ?? '0' });
  for (const d of cashOut.days) byStart.set(d.start, { in: byStart.get(d.start)?.in ?? '0', out: d.amount });
  return [...byStart.entries()]
    .sort(([a], [b]) => Date.parse(a) - Date.parse(b))
    .map(([start, v]) => ({
      day: dayLabel(start, zone),
      // Bar heights only: the figures shown as text stay exact.
      'Cash In': Number(v.in),
      'Cash Out': Number(v.out),
      cashInText: formatDecimal(v.in),
      cashOutText: formatDecimal(v.out),
    }));
}

function dayColumns(currency: string): DataColumn<DayRow>[] {
  return [
    { key: 'day', header: 'Day', cell: (r) => r.day },
    { key: 'in', header: `Cash In (${currency})`, cell: (r) => r.cashInText },
    { key: 'out', header: `Cash Out (${currency})`, cell: (r) => r.cashOutText },
  ];
}

/**
 * CashFlowChart is the cash-in/cash-out bar chart, one pair of bars per day
 * of the range; a visually hidden table carries the same figures for screen
 * readers.
 */
export function CashFlowChart({ cashIn, cashOut, currency, zone }: { cashIn: CashFlow; cashOut: CashFlow; currency: string; zone: string }) {
  const rows = dayRows(cashIn, cashOut, zone);
  const empty = rows.every((r) => r['Cash In'] === 0 && r['Cash Out'] === 0);
  return (
    <Box>
      <Box h="260px" aria-hidden>
        {empty ? (
          <Center h="full" borderWidth="1px" borderStyle="dashed" borderRadius="md">
            <Text color="fg.muted">No Data</Text>
          </Center>
        ) : (
          <ResponsiveBar
            data={rows}
            keys={['Cash In', 'Cash Out']}
            indexBy="day"
            groupMode="grouped"
            margin={{ top: 10, right: 10, bottom: 40, left: 70 }}
            padding={0.3}
            colors={({ id }) => (id === 'Cash In' ? CASH_IN : CASH_OUT)}
            enableLabel={false}
            animate={false}
            axisBottom={{ tickRotation: rows.length > 14 ? -45 : 0 }}
            axisLeft={{ format: (v: number) => v.toLocaleString('en-US', { notation: 'compact' }) }}
            // The tooltip shows the exact figure, not the bar height's float.
            tooltip={(bar) => <BarTooltip {...bar} formattedValue={`${bar.id === 'Cash In' ? bar.data.cashInText : bar.data.cashOutText} ${currency}`} />}
          />
        )}
      </Box>
      <VisuallyHidden>
        <DataTable label="Cash in and cash out per day" columns={dayColumns(currency)} rows={rows} rowKey={(r) => r.day} empty="No Data" />
      </VisuallyHidden>
    </Box>
  );
}
