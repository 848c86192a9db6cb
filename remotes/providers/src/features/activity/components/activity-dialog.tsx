import {
  Alert,
  Badge,
  Button,
  EmptyState,
  Field,
  HStack,
  NativeSelect,
  SimpleGrid,
  Skeleton,
  Stack,
  Stat,
  Text,
  Timeline,
} from '@chakra-ui/react';
import { DialogFrame, formatDateTime, useTimezone } from '@paygate/sdk';
import { useId, useMemo, useState } from 'react';
import { useActivityLogs } from '../api/get-activity-logs';
import {
  ACTIVITY_CATEGORIES,
  ACTIVITY_SEVERITIES,
  activityStats,
  activityUsers,
  DEFAULT_PAGE_SIZE,
  filterActivity,
  NO_FILTERS,
  PAGE_SIZES,
  parseActivity,
  type ActivityEntry,
  type ActivityFilters,
  type ActivitySeverity,
} from '../utils/activity';
import { messageOf } from '../../../utils/errors';
import { ConfirmationBlock } from './confirmation-block';
import { Detail } from './detail';
import { JsonDiff } from './json-diff';

interface Props {
  /** The merchant whose collab actions to show; null for every collab action the user may see. */
  merchant: { id: number; name: string } | null;
  onClose: () => void;
}

const SEVERITY_PALETTE: Record<ActivitySeverity, string> = { critical: 'red', warning: 'orange', normal: 'gray' };

/** ActivityDialog shows the recent collab actions (spec 01 §2 "Activity dialog"). */
export function ActivityDialog({ merchant, onClose }: Props) {
  const query = useActivityLogs({ merchantId: merchant?.id });
  const title = merchant ? `Recent Actions - ${merchant.name}` : 'Recent Collab Actions';
  const unparsable = merchant ? 'Failed to parse logs' : 'Failed to parse collab logs';
  const entries = useMemo(() => parseActivity(query.data, unparsable), [query.data, unparsable]);

  return (
    <DialogFrame title={title} size="cover" onClose={onClose}>
      {query.isPending ? (
        <Stack gap={3} aria-busy="true" aria-label="Loading activity">
          <Skeleton height="16" />
          <Skeleton height="10" />
          <Skeleton height="10" />
        </Stack>
      ) : query.isError ? (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Failed to fetch activity logs: {messageOf(query.error)}</Alert.Title>
          </Alert.Content>
          <Button size="sm" variant="outline" onClick={() => void query.refetch()} loading={query.isFetching}>
            Retry
          </Button>
        </Alert.Root>
      ) : (
        <ActivityView entries={entries} />
      )}
    </DialogFrame>
  );
}

function ActivityView({ entries }: { entries: ActivityEntry[] }) {
  const id = useId();
  const [filters, setFilters] = useState<ActivityFilters>(NO_FILTERS);
  const [pageSize, setPageSize] = useState<number>(DEFAULT_PAGE_SIZE);
  const [page, setPage] = useState(1);
  const stats = activityStats(entries);
  const users = activityUsers(entries);
  const filtered = filterActivity(entries, filters);
  const pages = Math.max(1, Math.ceil(filtered.length / pageSize));
  const current = Math.min(page, pages);
  const shown = filtered.slice((current - 1) * pageSize, current * pageSize);

  function filter(next: Partial<ActivityFilters>) {
    setFilters((f) => ({ ...f, ...next }));
    setPage(1);
  }

  if (entries.length === 0) {
    return (
      <EmptyState.Root>
        <EmptyState.Content>
          <EmptyState.Title>No activity logs available</EmptyState.Title>
        </EmptyState.Content>
      </EmptyState.Root>
    );
  }

  return (
    <Stack gap={5}>
      <SimpleGrid columns={{ base: 2, md: 5 }} gap={3} role="group" aria-label="Activity statistics">
        {(
          [
            ['Total', stats.total],
            ['User', stats.user],
            ['System', stats.system],
            ['Critical', stats.critical],
            ['Sensitive', stats.sensitive],
          ] as const
        ).map(([label, value]) => (
          <Stat.Root key={label} borderWidth="1px" borderRadius="md" p={3} data-stat={label}>
            <Stat.Label>{label}</Stat.Label>
            <Stat.ValueText>{value}</Stat.ValueText>
          </Stat.Root>
        ))}
      </SimpleGrid>

      <HStack gap={3} wrap="wrap" align="end">
        <Field.Root w="56">
          <Field.Label htmlFor={`${id}-category`}>Category</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field
              id={`${id}-category`}
              value={filters.category}
              onChange={(e) => filter({ category: e.target.value as ActivityFilters['category'] })}
            >
              <option value="">All categories</option>
              {ACTIVITY_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {c}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root w="56">
          <Field.Label htmlFor={`${id}-user`}>User</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field id={`${id}-user`} value={filters.user} onChange={(e) => filter({ user: e.target.value })}>
              <option value="">All users</option>
              {users.map((u) => (
                <option key={u} value={u}>
                  {u}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Field.Root w="56">
          <Field.Label htmlFor={`${id}-severity`}>Severity</Field.Label>
          <NativeSelect.Root size="sm">
            <NativeSelect.Field
              id={`${id}-severity`}
              value={filters.severity}
              onChange={(e) => filter({ severity: e.target.value as ActivityFilters['severity'] })}
            >
              <option value="">All severities</option>
              {ACTIVITY_SEVERITIES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        {(filters.category || filters.user || filters.severity) && (
          <Button size="sm" variant="ghost" onClick={() => filter(NO_FILTERS)}>
            Clear filters
          </Button>
        )}
      </HStack>

      {filtered.length === 0 ? (
        <EmptyState.Root size="sm">
          <EmptyState.Content>
            <EmptyState.Title>No actions found matching the selected filters.</EmptyState.Title>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : (
        <Timeline.Root size="md" as="ol" aria-label="Actions">
          {shown.map((e) => (
            <ActivityItem key={e.key} entry={e} />
          ))}
        </Timeline.Root>
      )}

      {filtered.length > pageSize && (
        <HStack as="nav" aria-label="Pagination" justify="space-between" wrap="wrap" gap={3}>
          <HStack gap={2}>
            <Button size="sm" variant="outline" disabled={current <= 1} onClick={() => setPage(current - 1)}>
              Previous
            </Button>
            <Text fontSize="sm" aria-live="polite">
              Page {current} of {pages}
            </Text>
            <Button size="sm" variant="outline" disabled={current >= pages} onClick={() => setPage(current + 1)}>
              Next
            </Button>
          </HStack>
          <HStack gap={2}>
            <Text fontSize="sm" aria-hidden>
              Rows per page
            </Text>
            <NativeSelect.Root size="sm" w="24">
              <NativeSelect.Field
                aria-label="Rows per page"
                value={String(pageSize)}
                onChange={(e) => {
                  setPageSize(Number(e.target.value));
                  setPage(1);
                }}
              >
                {PAGE_SIZES.map((s) => (
                  <option key={s} value={String(s)}>
                    {s}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
          </HStack>
        </HStack>
      )}
    </Stack>
  );
}

function ActivityItem({ entry: e }: { entry: ActivityEntry }) {
  const [timezone] = useTimezone();
  const [open, setOpen] = useState(false);
  const detailsId = useId();
  return (
    <Timeline.Item as="li" data-severity={e.severity}>
      <Timeline.Connector>
        <Timeline.Separator />
        <Timeline.Indicator bg={`${SEVERITY_PALETTE[e.severity]}.solid`} />
      </Timeline.Connector>
      <Timeline.Content gap={1} pb={4}>
        <Timeline.Title>{e.message || e.actionType || 'Action'}</Timeline.Title>
        <HStack gap={2} wrap="wrap" fontSize="sm" color="fg.muted">
          <Text>{formatDateTime(e.time, timezone)}</Text>
          {e.username && <Text>by {e.username}</Text>}
          <Badge size="sm">{e.category}</Badge>
          <Badge size="sm" colorPalette={SEVERITY_PALETTE[e.severity]}>
            {e.severity}
          </Badge>
          {e.isSystem && <Badge size="sm">System</Badge>}
          {e.hasConfirmation && (
            <Badge size="sm" colorPalette="green">
              Signed
            </Badge>
          )}
        </HStack>
        {!e.unparsable && (
          <Button
            size="2xs"
            variant="plain"
            px={0}
            alignSelf="start"
            aria-expanded={open}
            aria-controls={detailsId}
            onClick={() => setOpen(!open)}
          >
            {open ? 'Show Less' : 'Show More'}
          </Button>
        )}
        {open && (
          <Stack id={detailsId} gap={1} mt={1}>
            <Detail label="Merchant" value={e.merchantName} />
            <Detail label="Provider" value={e.providerName} />
            <Detail label="Pay type" value={e.payTypeName ? `${e.payTypeName}${e.payTypeCode ? ` (${e.payTypeCode})` : ''}` : ''} />
            <Detail label="Channel" value={e.channelName} />
            <Detail label="Collab" value={e.collabId} />
            <Detail label="Sensitive action" value={e.sensitiveActionName} />
            {!e.hasConfirmation && <Detail label="Reason" value={e.reason} />}
            <Detail label="Count" value={e.count} />
            <Detail label="User id" value={e.userId} />
            <Detail label="IP" value={e.ip} />
            <Detail label="User agent" value={e.userAgent} />
            {e.hasConfirmation && <ConfirmationBlock entry={e} />}
            {(e.oldValue || e.newValue) && <JsonDiff oldValue={e.oldValue} newValue={e.newValue} />}
          </Stack>
        )}
      </Timeline.Content>
    </Timeline.Item>
  );
}
