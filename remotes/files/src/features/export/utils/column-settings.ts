import { readStored, writeStored } from '@paygate/sdk';
import { z } from 'zod';

/** ColumnSetting is one column of step 3: whether it is exported, under which header, in list order. */
export interface ColumnSetting {
  field: string;
  /** The server's default header. */
  defaultName: string;
  /** The header the user typed (blank: the default). */
  name: string;
  selected: boolean;
}

/** initialColumns: every column selected, default headers, default order. */
export function initialColumns(available: readonly { field: string; name: string }[]): ColumnSetting[] {
  return available.map((c) => ({ field: c.field, defaultName: c.name, name: c.name, selected: true }));
}

/**
 * mergeColumns applies remembered choices to the columns the server offers:
 * remembered columns first in their remembered order with their header and
 * selection, then any column the server added since, selected, in default
 * order; remembered fields the server no longer offers are dropped.
 */
export function mergeColumns(available: readonly { field: string; name: string }[], remembered: readonly RememberedColumn[] | undefined): ColumnSetting[] {
  const defaults = initialColumns(available);
  if (!remembered?.length) return defaults;
  const byField = new Map(defaults.map((c) => [c.field, c]));
  const out: ColumnSetting[] = [];
  for (const r of remembered) {
    const c = byField.get(r.field);
    if (!c) continue;
    out.push({ ...c, name: r.name.trim() ? r.name : c.defaultName, selected: r.selected });
    byField.delete(r.field);
  }
  return [...out, ...byField.values()];
}

/** moveColumn moves the column at `index` one place up (-1) or down (+1). */
export function moveColumn(columns: readonly ColumnSetting[], index: number, by: -1 | 1): ColumnSetting[] {
  const to = index + by;
  if (index < 0 || index >= columns.length || to < 0 || to >= columns.length) return [...columns];
  const next = [...columns];
  const [moved] = next.splice(index, 1);
  if (moved) next.splice(to, 0, moved);
  return next;
}

/** headerOf is the header a column is exported under: the typed name, or the default when blank. */
export const headerOf = (c: ColumnSetting) => c.name.trim() || c.defaultName;

/** toExportColumns builds the request's columns map (field → header) and order from the selected columns. */
export function toExportColumns(columns: readonly ColumnSetting[]): { columns: Record<string, string>; columnOrder: string[] } {
  const chosen = columns.filter((c) => c.selected);
  return { columns: Object.fromEntries(chosen.map((c) => [c.field, headerOf(c)])), columnOrder: chosen.map((c) => c.field) };
}

const remembered = z.object({ field: z.string(), name: z.string(), selected: z.boolean() });

/** RememberedColumn is one column choice kept in the browser. */
export type RememberedColumn = z.infer<typeof remembered>;

const store = z.record(z.string(), z.array(remembered));

function readAll(): Record<string, RememberedColumn[]> {
  const raw = readStored('exportColumns');
  if (!raw) return {};
  try {
    const parsed = store.safeParse(JSON.parse(raw));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

/** rememberedColumns reads the column choices last used for an export type (spec 02 §2: kept per export type in the browser). */
export function rememberedColumns(exportType: number): RememberedColumn[] | undefined {
  return readAll()[String(exportType)];
}

/** rememberColumns keeps the column choices of an export type for the next export. */
export function rememberColumns(exportType: number, columns: readonly ColumnSetting[]): void {
  const all = readAll();
  all[String(exportType)] = columns.map((c) => ({ field: c.field, name: headerOf(c), selected: c.selected }));
  writeStored('exportColumns', JSON.stringify(all));
}
