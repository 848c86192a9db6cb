import { Badge, Button, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import type { ActiveSessionJson } from '@paygate/gen/auth/v1/sessions_pb';
import {
  auth,
  ConfirmDialog,
  DataTable,
  errorMessage,
  formatDateTime,
  hasAnyPermission,
  hasPermission,
  meets,
  notify,
  seesAllMerchants,
  type DataColumn,
  useTimezone,
  useUser,
  type Permission,
  type User,
} from '@paygate/sdk';
import { useState } from 'react';
import { useNavigate } from 'react-router';
import { useDebouncedValue } from '../../../hooks/use-debounced-value';
import { useMerchants } from '../../../hooks/use-merchants';
import { useActiveSessions } from '../api/get-active-sessions';
import { useTerminateSession } from '../api/terminate-session';
import { SessionDevice } from './session-device';
import { SessionExpiry } from './session-expiry';

/** Sessions table page sizes and the default (spec 02 §9). */
export const SESSION_PAGE_SIZES = [5, 10, 20, 50] as const;
const DEFAULT_PAGE_SIZE = 10;
/** Admins and merchants see the list refreshed every 30 s (spec 02 §4). */
export const SESSIONS_REFRESH_MS = 30_000;

/**
 * Other users' sessions are listed with a user-management permission and ended with Edit User; everyone lists
 * and ends its own (the server's rule, docs/contracts-security.md "Scope").
 */
export const LIST_OTHERS_SESSIONS: readonly Permission[] = ['Add Users', 'Edit User'];
export const END_OTHERS_SESSIONS: Permission = 'Edit User';

/** isOwnSession tells whether the session is the signed-in user's (the current one or another of its own). */
function isOwnSession(s: ActiveSessionJson, user: User | null): boolean {
  return !!s.isCurrent || (!!user && !!s.userId && s.userId === user.id);
}

/**
 * visibleSessions keeps the sessions the user may see (others' only with a user-management permission) and pins
 * the current session first, the rest in the server's order.
 */
export function visibleSessions(sessions: readonly ActiveSessionJson[], user: User | null): ActiveSessionJson[] {
  const shown = hasAnyPermission(user, LIST_OTHERS_SESSIONS) ? [...sessions] : sessions.filter((s) => isOwnSession(s, user));
  return [...shown.filter((s) => s.isCurrent), ...shown.filter((s) => !s.isCurrent)];
}

/** SessionsTab lists the active sessions the user may see and terminates them (spec 02 "Account Security"). */
export function SessionsTab() {
  const user = useUser();
  const admin = seesAllMerchants(user);
  const navigate = useNavigate();
  const [zone] = useTimezone();
  const { merchants } = useMerchants();
  const [merchantId, setMerchantId] = useState<number | undefined>(undefined);
  const [searchText, setSearchText] = useState('');
  const search = useDebouncedValue(searchText.trim(), 400);
  const [page, setPage] = useState(1);
  const [take, setTake] = useState(DEFAULT_PAGE_SIZE);
  const [confirming, setConfirming] = useState<ActiveSessionJson | null>(null);

  const list = useActiveSessions(
    { merchantId: admin ? merchantId : undefined, page, take, search: search || undefined },
    meets(user, 'adminOrMerchant') ? SESSIONS_REFRESH_MS : false,
  );
  const terminate = useTerminateSession();
  const data = list.data;
  const rows = visibleSessions(data?.sessions ?? [], user);
  const canEndOthers = hasPermission(user, END_OTHERS_SESSIONS);
  // Rendered with the answer, so that "Nh left" moves on with every refresh.
  const now = list.dataUpdatedAt || Date.now();

  const columns: DataColumn<ActiveSessionJson>[] = [
    {
      key: 'user',
      header: 'User',
      cell: (s) => (
        <HStack gap={2}>
          <Text as="span">{s.username}</Text>
          {s.isCurrent && (
            <Badge colorPalette="blue" variant="solid">
              Current
            </Badge>
          )}
        </HStack>
      ),
    },
    { key: 'ip', header: 'IP', cellProps: { fontFamily: 'mono' }, cell: (s) => s.userIp },
    { key: 'device', header: 'Device', cell: (s) => <SessionDevice userAgent={s.userAgent} /> },
    { key: 'login', header: 'Login Time', cell: (s) => (s.lastLoginUtc ? formatDateTime(s.lastLoginUtc, zone) : '') },
    { key: 'expires', header: 'Expires', cell: (s) => <SessionExpiry expiresAt={s.refreshTokenExpiryUtc} now={now} /> },
    {
      key: 'actions',
      header: 'Actions',
      cell: (s) =>
        (canEndOthers || isOwnSession(s, user)) && (
          <Button
            size="xs"
            variant="outline"
            colorPalette="red"
            aria-label={`Terminate session of ${s.username ?? ''} from ${s.userIp ?? ''}`}
            disabled={terminate.isPending}
            onClick={() => setConfirming(s)}
          >
            Terminate
          </Button>
        ),
    },
  ];

  async function refresh() {
    const result = await list.refetch();
    if (result.isError) notify.error('Failed to fetch sessions', errorMessage(result.error, ''));
  }

  function confirmTerminate(s: ActiveSessionJson) {
    terminate.mutate(
      { id: s.id ?? '' },
      {
        onSuccess: async () => {
          setConfirming(null);
          if (s.isCurrent) {
            // Ending one's own session ends the console's session too.
            await auth.logout();
            navigate('/login', { replace: true });
            return;
          }
          notify.success('Session terminated');
        },
        onError: (err) => {
          setConfirming(null);
          notify.error('Failed to terminate session', errorMessage(err, ''));
        },
      },
    );
  }

  return (
    <Stack gap={4}>
      <HStack wrap="wrap" gap={3}>
        {admin && (
          <NativeSelect.Root size="sm" w="64">
            <NativeSelect.Field
              aria-label="Merchant"
              value={merchantId ?? ''}
              onChange={(e) => {
                setMerchantId(e.target.value ? Number(e.target.value) : undefined);
                setPage(1);
              }}
            >
              <option value="">All Merchants</option>
              {merchants.map((m) => (
                <option key={m.id} value={m.id}>
                  {m.name}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        )}
        <Input
          size="sm"
          w="64"
          type="search"
          aria-label="Search sessions"
          placeholder="Search sessions"
          value={searchText}
          onChange={(e) => {
            setSearchText(e.target.value);
            setPage(1);
          }}
        />
        <Button size="sm" variant="outline" loading={list.isFetching} loadingText="Refreshing" onClick={() => void refresh()}>
          Refresh
        </Button>
      </HStack>

      <DataTable
        label="Active sessions"
        columns={columns}
        rows={rows}
        rowKey={(s) => s.id ?? ''}
        loading={list.isPending}
        empty="No active sessions."
        error={list.isError && 'Failed to load sessions'}
        errorDetail={errorMessage(list.error, '')}
        onRetry={() => void list.refetch()}
        retrying={list.isFetching}
        pagination={{
          label: 'Sessions pages',
          page,
          totalPages: data?.totalPages ?? 0,
          totalCount: data?.totalCount ?? 0,
          pageSize: take,
          pageSizes: SESSION_PAGE_SIZES,
          onPage: setPage,
          onPageSize: (size) => {
            setTake(size);
            setPage(1);
          },
        }}
      />

      {confirming && (
        <ConfirmDialog
          title="Terminate Session"
          message={
            confirming.isCurrent
              ? 'This is your current session. Terminating it will log you out. Continue?'
              : `Terminate the session of ${confirming.username ?? ''} from ${confirming.userIp ?? ''}?`
          }
          confirmLabel="Terminate"
          destructive
          pending={terminate.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() => confirmTerminate(confirming)}
        />
      )}
    </Stack>
  );
}
