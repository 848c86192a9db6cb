import { DatePicker, HStack, IconButton, Input, Portal, Text, parseDate, type DateValue } from '@chakra-ui/react';
import { formatDateTime, notify } from '@paygate/sdk';
import { useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { dayInZone, MIN_DATE, normalizeRange, type DateRange } from '../../../utils/date-range';

interface Props {
  /** The range on screen: the chosen one or the default. */
  range: DateRange;
  /** Whether the user chose `range` (the default needs no clearing). */
  chosen: boolean;
  zone: string;
  disabled: boolean;
  /** A normalized range, or null to go back to the default. */
  onChange: (range: DateRange | null) => void;
}

const DAY = /^(\d{4})-(\d{2})-(\d{2})(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?)?$/;

/** parseDay reads a typed day, 'YYYY-MM-DD' with an optional time that is ignored (the range snaps to whole days). */
export function parseDay(text: string): DateValue | undefined {
  const m = DAY.exec(text.trim());
  if (!m) return undefined;
  try {
    const d = parseDate(`${m[1]}-${m[2]}-${m[3]}`);
    return d.toString() === `${m[1]}-${m[2]}-${m[3]}` ? d : undefined;
  } catch {
    return undefined;
  }
}

const MIN = parseDate(MIN_DATE);

function CalendarIcon() {
  return (
    <svg width="16" height="16" viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="2" aria-hidden="true">
      <rect x="3" y="5" width="18" height="16" rx="2" />
      <path d="M16 3v4M8 3v4M3 10h18" />
    </svg>
  );
}

/**
 * DateRangePicker is the date range of spec 02 §5: typed or picked days in
 * two months, none before 1 Jan 2025; the start snaps to 00:00:00 and the end
 * to 23:59:59.999 in the selected timezone, shown in 24-hour time. A range
 * left without an end ends with its start day (and an info toast says so); a
 * cleared range goes back to the default (yesterday … today).
 */
export function DateRangePicker({ range, chosen, zone, disabled, onChange }: Props) {
  const shown = useMemo(() => [parseDate(dayInZone(range.from, zone)), parseDate(dayInZone(range.to, zone))], [range, zone]);
  // While the calendar is open the picked days are a draft; they apply when it closes or both ends are picked.
  const [draft, setDraft] = useState<DateValue[] | null>(null);
  const draftRef = useRef<DateValue[] | null>(null);
  const openRef = useRef(false);

  // The typed days: applied on Enter or when the field is left; the range on screen wins when it changes.
  const [typed, setTyped] = useState({ start: shown[0]!.toString(), end: shown[1]!.toString() });
  const [invalid, setInvalid] = useState(false);
  // Compared by day, not by identity: the parent derives a new default range object on
  // every render (a live update), which must not wipe days being typed.
  const shownDays = `${shown[0]!.toString()}/${shown[1]!.toString()}`;
  const [seen, setSeen] = useState(shownDays);
  if (seen !== shownDays) {
    setSeen(shownDays);
    setTyped({ start: shown[0]!.toString(), end: shown[1]!.toString() });
    setInvalid(false);
  }

  const applyTyped = () => {
    const start = typed.start.trim();
    const end = typed.end.trim();
    if (start === shown[0]!.toString() && end === shown[1]!.toString()) return;
    if (!start && !end) {
      commit([]);
      return;
    }
    const from = parseDay(start);
    const to = end ? parseDay(end) : undefined;
    if (!from || (end && !to)) {
      setInvalid(true);
      return;
    }
    setInvalid(false);
    commit(to ? [from, to] : [from]);
  };
  const onKey = (e: KeyboardEvent<HTMLInputElement>) => {
    if (e.key === 'Enter') {
      e.preventDefault();
      applyTyped();
    }
  };

  const setDraftBoth = (v: DateValue[] | null) => {
    draftRef.current = v;
    setDraft(v);
  };

  const commit = (v: DateValue[]) => {
    setDraftBoth(null);
    const [start, end] = v;
    if (!start) {
      onChange(null);
      return;
    }
    const { range: next, endFilled } = normalizeRange(start.toString(), end?.toString() ?? '', zone, new Date());
    if (endFilled) notify.info('End date not selected', 'Using the end of the start day');
    onChange(next);
  };

  return (
    <DatePicker.Root
      size="sm"
      w="auto"
      selectionMode="range"
      numOfMonths={2}
      min={MIN}
      startOfWeek={1}
      timeZone={zone}
      locale="en-GB"
      disabled={disabled}
      value={draft ?? shown}
      onValueChange={(e) => {
        if (e.value.length === 0) commit([]);
        else if (openRef.current) setDraftBoth(e.value);
        else commit(e.value);
      }}
      onOpenChange={(e) => {
        openRef.current = e.open;
        if (!e.open && draftRef.current) commit(draftRef.current);
      }}
    >
      <DatePicker.Label>Date range</DatePicker.Label>
      <DatePicker.Control>
        <Input
          size="sm"
          w="28"
          aria-label="Start date"
          placeholder="YYYY-MM-DD"
          aria-invalid={invalid || undefined}
          disabled={disabled}
          value={typed.start}
          onChange={(e) => setTyped({ ...typed, start: e.target.value })}
          onKeyDown={onKey}
          onBlur={applyTyped}
        />
        <Input
          size="sm"
          w="28"
          aria-label="End date"
          placeholder="YYYY-MM-DD"
          aria-invalid={invalid || undefined}
          disabled={disabled}
          value={typed.end}
          onChange={(e) => setTyped({ ...typed, end: e.target.value })}
          onKeyDown={onKey}
          onBlur={applyTyped}
        />
        <DatePicker.IndicatorGroup>
          {chosen && (
            <DatePicker.ClearTrigger asChild>
              <IconButton size="2xs" variant="ghost" aria-label="Clear date range">
                ✕
              </IconButton>
            </DatePicker.ClearTrigger>
          )}
          <DatePicker.Trigger aria-label="Open calendar">
            <CalendarIcon />
          </DatePicker.Trigger>
        </DatePicker.IndicatorGroup>
      </DatePicker.Control>
      <HStack gap="1" fontSize="xs" color={invalid ? 'red.fg' : 'fg.muted'} aria-live="polite">
        {invalid && <Text>Type days as YYYY-MM-DD.</Text>}
        <Text>
          {formatDateTime(range.from, zone)} – {formatDateTime(range.to, zone)}
        </Text>
      </HStack>
      <Portal>
        <DatePicker.Positioner>
          <DatePicker.Content>
            <DatePicker.View view="day">
              <DatePicker.Header />
              <HStack align="start" gap="4">
                <DatePicker.DayTable />
                <DatePicker.DayTable offset={1} />
              </HStack>
            </DatePicker.View>
            <DatePicker.View view="month">
              <DatePicker.Header />
              <DatePicker.MonthTable />
            </DatePicker.View>
            <DatePicker.View view="year">
              <DatePicker.Header />
              <DatePicker.YearTable />
            </DatePicker.View>
          </DatePicker.Content>
        </DatePicker.Positioner>
      </Portal>
    </DatePicker.Root>
  );
}
