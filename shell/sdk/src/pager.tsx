import { Button, HStack, NativeSelect, Text } from '@chakra-ui/react';

export interface PagerProps {
  /** What is paged, for assistive technology ('Files pages', 'Sessions pages'). */
  label: string;
  /** The current page, from 1. */
  page: number;
  totalPages: number;
  totalCount: number;
  pageSize: number;
  pageSizes: readonly number[];
  onPage: (page: number) => void;
  onPageSize: (size: number) => void;
}

/** Pager moves through a server-side paged list and picks its page size. */
export function Pager({ label, page, totalPages, totalCount, pageSize, pageSizes, onPage, onPageSize }: PagerProps) {
  const last = Math.max(1, totalPages);
  return (
    <HStack as="nav" aria-label={label} justify="space-between" wrap="wrap" gap={3}>
      <HStack>
        <Button size="sm" variant="outline" disabled={page <= 1} onClick={() => onPage(page - 1)}>
          Previous
        </Button>
        <Text fontSize="sm" aria-live="polite">
          Page {Math.min(page, last)} of {last}
        </Text>
        <Button size="sm" variant="outline" disabled={page >= last} onClick={() => onPage(page + 1)}>
          Next
        </Button>
        <Text fontSize="sm" color="fg.muted">
          {totalCount} total
        </Text>
      </HStack>
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
    </HStack>
  );
}
