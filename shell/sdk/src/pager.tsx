import { Button, HStack, NativeSelect, Text } from '@chakra-ui/react';
import type { ReactNode } from 'react';

export interface PagerProps {
  /** What is paged, for assistive technology ('Files pages', 'Sessions pages'). */
  label: string;
  /** The current page, from 1. */
  page: number;
  /**
   * The number of pages of an offset list. A keyset (cursor) list leaves it
   * out and says with hasNext whether another page follows.
   */
  totalPages?: number;
  /** A keyset list: whether a page follows the current one. */
  hasNext?: boolean;
  /** The number of rows of the whole list, shown as "N total". */
  totalCount?: number;
  /** A sentence in place of "N total" ('The latest 100 of 240 attempts'). */
  summary?: ReactNode;
  /** The page-size choice shows when the pager has the size, the sizes and onPageSize. */
  pageSize?: number;
  pageSizes?: readonly number[];
  onPage: (page: number) => void;
  onPageSize?: (size: number) => void;
}

/**
 * Pager moves through a paged list, offset ("Page 2 of 5") or keyset
 * ("Page 2", Next while another page follows), and picks its page size.
 */
export function Pager({ label, page, totalPages, hasNext, totalCount, summary, pageSize, pageSizes, onPage, onPageSize }: PagerProps) {
  const last = totalPages === undefined ? undefined : Math.max(1, totalPages);
  const current = last === undefined ? page : Math.min(page, last);
  const more = last === undefined ? !!hasNext : page < last;
  return (
    <HStack as="nav" aria-label={label} justify="space-between" wrap="wrap" gap={3}>
      <HStack>
        <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Text fontSize="sm" aria-live="polite">
          Page {current}
          {last !== undefined && ` of ${last}`}
        </Text>
        <Button size="sm" variant="outline" disabled={!more} onClick={() => onPage(page + 1)}>
          Next
        </Button>
        {(summary !== undefined || totalCount !== undefined) && (
          <Text fontSize="sm" color="fg.muted">
            {summary ?? `${totalCount} total`}
          </Text>
        )}
      </HStack>
      {pageSize !== undefined && pageSizes && onPageSize && (
        <NativeSelect.Root size="sm" w="32">
          <NativeSelect.Field aria-label="Rows per page" value={pageSize} onChange={(e) => onPageSize(Number(e.target.value))}>
            {pageSizes.map((s) => (
              <option key={s} value={s}>
                {s} / page
              </option>
            ))}
          </NativeSelect.Field>
          <NativeSelect.Indicator />
        </NativeSelect.Root>
      )}
    </HStack>
  );
}
