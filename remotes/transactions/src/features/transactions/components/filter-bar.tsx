import { Button, Field, HStack, Input, NativeSelect, Stack, Wrap } from '@chakra-ui/react';
import { useState, type FormEvent, type ReactNode } from 'react';
import type { DateRange } from '../../../utils/date-range';
import { EMPTY_FILTERS, type Filters } from '../utils/query-state';
import { amountFilter } from '../utils/search';
import { TRANSACTION_TYPES } from '../../../utils/status';
import { DateRangePicker } from './date-range-picker';
import { StatusFilter } from './status-filter';

type TextKey =
  | 'providerTidFilter'
  | 'merchantCidFilter'
  | 'nonceFilter'
  | 'minAmountFilter'
  | 'maxAmountFilter'
  | 'currencyFilter'
  | 'paymentMethodValueFilter'
  | 'paymentIpAddressFilter';

const TEXT_FIELDS: { key: TextKey; label: string }[] = [
  { key: 'providerTidFilter', label: 'Provider TID' },
  { key: 'merchantCidFilter', label: 'Merchant CID' },
  { key: 'nonceFilter', label: 'Nonce' },
  { key: 'minAmountFilter', label: 'Min Amount' },
  { key: 'maxAmountFilter', label: 'Max Amount' },
  { key: 'currencyFilter', label: 'Currency' },
  { key: 'paymentMethodValueFilter', label: 'Payment Method' },
  { key: 'paymentIpAddressFilter', label: 'Payment IP' },
];

interface Props {
  filters: Filters;
  range: DateRange;
  zone: string;
  /** Disabled while a free-text search is filled (spec 02 §5). */
  disabled: boolean;
  onChange: (patch: Partial<Filters>) => void;
  /** Shown after Apply and Clear, on their line while it has room (the saved views). */
  aside?: ReactNode;
}

/** FilterBar edits the list filters; text filters apply on Enter or Apply, the others at once. */
export function FilterBar({ filters, range, zone, disabled, onChange, aside }: Props) {
  const [draft, setDraft] = useState<Record<TextKey, string>>(() => pickText(filters));
  const [seen, setSeen] = useState(filters);
  if (seen !== filters) {
    // The URL changed (back/forward, clear): show what it says.
    setSeen(filters);
    setDraft(pickText(filters));
  }

  const apply = (e?: FormEvent) => {
    e?.preventDefault();
    onChange({ ...draft, currencyFilter: draft.currencyFilter.trim().toUpperCase() });
  };

  return (
    <form onSubmit={apply} aria-label="Transaction filters">
      <Stack gap="3">
        <Wrap gap="3" align="end">
          <Field.Root w="40" disabled={disabled}>
            <Field.Label>Type</Field.Label>
            <NativeSelect.Root size="sm">
              <NativeSelect.Field value={filters.transactionTypeFilter} onChange={(e) => onChange({ transactionTypeFilter: Number(e.target.value) })}>
                <option value={0}>All types</option>
                {TRANSACTION_TYPES.map((t) => (
                  <option key={t.value} value={t.value}>
                    {t.label}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </Field.Root>
          <StatusFilter value={filters.transactionStatusesFilter} onChange={(v) => onChange({ transactionStatusesFilter: v })} disabled={disabled} />
          <DateRangePicker range={range} chosen={filters.dateRange !== null} zone={zone} disabled={disabled} onChange={(dateRange) => onChange({ dateRange })} />
        </Wrap>
        <Wrap gap="3" align="end">
          {TEXT_FIELDS.map(({ key, label }) => (
            <Field.Root key={key} w="40" disabled={disabled}>
              <Field.Label>{label}</Field.Label>
              <Input
                size="sm"
                value={draft[key]}
                inputMode={key === 'minAmountFilter' || key === 'maxAmountFilter' ? 'decimal' : undefined}
                onChange={(e) => {
                  const v = key === 'minAmountFilter' || key === 'maxAmountFilter' ? amountFilter(e.target.value) : e.target.value;
                  if (v !== null) setDraft({ ...draft, [key]: v });
                }}
              />
            </Field.Root>
          ))}
          <HStack>
            <Button size="sm" type="submit" disabled={disabled}>
              Apply Filters
            </Button>
            <Button
              size="sm"
              variant="outline"
              disabled={disabled}
              onClick={() => onChange({ ...pickText(EMPTY_FILTERS), transactionTypeFilter: 0, transactionStatusesFilter: [], dateRange: null })}
            >
              Clear Filters
            </Button>
          </HStack>
          {aside}
        </Wrap>
      </Stack>
    </form>
  );
}

function pickText(f: Filters): Record<TextKey, string> {
  return Object.fromEntries(TEXT_FIELDS.map(({ key }) => [key, f[key]])) as Record<TextKey, string>;
}
