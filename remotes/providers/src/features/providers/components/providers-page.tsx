import {
  Alert,
  Box,
  Button,
  EmptyState,
  Flex,
  HStack,
  IconButton,
  Input,
  NativeSelect,
  SimpleGrid,
  Skeleton,
  Tabs,
} from '@chakra-ui/react';
import { useQuery } from '@tanstack/react-query';
import { ConfirmDialog, mayCall, merchantsQuery, notify, PageFrame, SCREENS, seesAllMerchants, useSelectedMerchant, useUser, type User } from '@paygate/sdk';
import { useEffect, useMemo, useState, type ComponentType, type ReactNode } from 'react';
import { useNavigate, useSearchParams } from 'react-router';
import { messageOf } from '../../../utils/errors';
import { useMerchantCollabs } from '../api/get-merchant-collabs';
import { useSetCollabActiveness } from '../api/set-collab-activeness';
import type { Collab } from '../api/types';
import { merchantsOf, searchCollabs, sortCollabs, SORT_KEYS, type SortDirection, type SortKey } from '../utils/collab-list';
import { CollabCard } from './collab-card';
import { CollabLimitsDialog } from './collab-limits-dialog';
import { CollabSettingsDialog } from './collab-settings-dialog';
import { InitializeCollabDialog } from './initialize-collab-dialog';
import { MerchantFilter } from './merchant-filter';

type OpenDialog =
  | { kind: 'initialize'; merchantId?: number }
  | { kind: 'settings'; collab: Collab }
  | { kind: 'limits'; collab: Collab }
  | { kind: 'disable-collab'; collab: Collab };

/**
 * The page's slots, which other features fill (src/app/providers-screen.tsx): this feature knows
 * their props, not their code (no imports across features).
 */
export interface ProvidersPageProps {
  /**
   * maintenance is the maintenance switch (features/maintenance): given the collab list's word on
   * maintenance mode, it hands its toolbar control, its banner and its refresh to children.
   */
  maintenance: ComponentType<{
    user: User;
    listed: { isEnabled: boolean | undefined; loaded: boolean; failed: boolean };
    children: (parts: { control: ReactNode; banner: ReactNode; refresh: () => void; refreshing: boolean }) => ReactNode;
  }>;
  /** recentActions is the toolbar's Recent Actions (features/activity), about one merchant or (null) every merchant. */
  recentActions: ComponentType<{ user: User; merchant: { id: number; name: string } | null }>;
}

const ALL = 'all';

/**
 * scopedMerchant is the merchant a non-admin user's view is narrowed to: the
 * sidebar's Current Merchant when it is one of theirs. Admins choose with the
 * page's own filter and tabs instead.
 */
function scopedMerchant(user: User, selected: number | null): number | undefined {
  if (seesAllMerchants(user) || selected === null || !user.merchantIds.includes(selected)) return undefined;
  return selected;
}

/** ProvidersPage lists the collabs with their toolbar, filters and dialogs (spec 01 §2 "Providers page"). */
export function ProvidersPage(props: ProvidersPageProps) {
  const user = useUser();
  if (!user) return null;
  return <Providers user={user} {...props} />;
}

function Providers({ user, maintenance: Maintenance, recentActions: RecentActions }: { user: User } & ProvidersPageProps) {
  const navigate = useNavigate();
  const admin = seesAllMerchants(user);
  const [selectedMerchant] = useSelectedMerchant();
  const scope = scopedMerchant(user, selectedMerchant);

  const collabsQuery = useMerchantCollabs({ merchantId: scope });
  const merchants = useQuery(merchantsQuery(user.username));

  const [search, setSearch] = useState('');
  const [sortKey, setSortKey] = useState<SortKey>('provider');
  const [sortDirection, setSortDirection] = useState<SortDirection>('asc');
  const [merchantIds, setMerchantIds] = useState<number[]>([]);
  const [tab, setTab] = useState<string>(ALL);
  const [dialog, setDialog] = useState<OpenDialog | null>(null);
  const close = () => setDialog(null);

  // ?initialize={merchantId}: the Merchants page's "Then create its first
  // collaboration" opens the Initialize Collaboration dialog for the new merchant.
  const [params, setParams] = useSearchParams();
  const initializeFor = Number(params.get('initialize'));
  useEffect(() => {
    if (!Number.isInteger(initializeFor) || initializeFor <= 0) return;
    if (mayCall(user, 'POST /api/v1/collabs/initialize')) setDialog({ kind: 'initialize', merchantId: initializeFor });
    setParams(
      (p) => {
        p.delete('initialize');
        return p;
      },
      { replace: true },
    );
  }, [initializeFor, setParams, user]);

  const activeness = useSetCollabActiveness();

  // Every collab the user may see in the current scope (search and tabs aside).
  const scoped = useMemo(() => {
    const list = collabsQuery.data?.collabs ?? [];
    return scope === undefined ? list : list.filter((c) => c.merchant.id === scope);
  }, [collabsQuery.data, scope]);

  const merchantChoices = useMemo(() => {
    const known = merchants.data?.map((m) => ({ id: m.id, name: m.name })) ?? [];
    const seen = new Set(known.map((m) => m.id));
    return [...known, ...merchantsOf(scoped).filter((m) => !seen.has(m.id))];
  }, [merchants.data, scoped]);

  const tabMerchants = merchantIds.length === 0 ? merchantChoices : merchantChoices.filter((m) => merchantIds.includes(m.id));
  const activeTab = tab !== ALL && tabMerchants.some((m) => String(m.id) === tab) ? tab : ALL;

  const visible = useMemo(() => {
    let list = scoped;
    if (admin && merchantIds.length > 0) list = list.filter((c) => merchantIds.includes(c.merchant.id));
    if (admin && activeTab !== ALL) list = list.filter((c) => String(c.merchant.id) === activeTab);
    return sortCollabs(searchCollabs(list, search), sortKey, sortDirection);
  }, [scoped, admin, merchantIds, activeTab, search, sortKey, sortDirection]);

  const merchantName = (id: number) =>
    merchantChoices.find((m) => m.id === id)?.name ?? scoped.find((c) => c.merchant.id === id)?.merchant.name ?? `Merchant ${id}`;

  /** The merchant Recent Actions is about: the admin's tab (or single filtered merchant), else the user's scope. */
  function activityMerchant(): { id: number; name: string } | null {
    let id: number | undefined;
    if (admin) {
      if (activeTab !== ALL) id = Number(activeTab);
      else if (merchantIds.length === 1) id = merchantIds[0];
    } else {
      id = scope ?? (user.merchantIds.length === 1 ? user.merchantIds[0] : undefined);
    }
    return id === undefined ? null : { id, name: merchantName(id) };
  }

  function setActiveness(collab: Collab, isEnabled: boolean) {
    activeness.mutate(
      { collabId: collab.id, isEnabled },
      {
        onSuccess: () => {
          notify.success(`[${collab.merchant.name}] ${collab.provider.name} is now ${isEnabled ? 'enabled' : 'disabled'}`);
          close();
        },
        onError: (err) => {
          notify.error(`Failed to update provider activeness: ${messageOf(err)}`);
          close();
        },
      },
    );
  }

  // Each control shows only when the server's rule for its call lets the user in (docs/contracts.md).
  const activity = activityMerchant();
  const may = {
    add: mayCall(user, 'POST /api/v1/collabs/initialize'),
    fees: mayCall(user, 'GET /api/v1/fees'),
    toggle: mayCall(user, 'POST /api/v1/collabs/{collabId}/activeness'),
  };

  const loading = collabsQuery.isPending;
  const grid = (
    <CollabGrid
      loading={loading}
      collabs={visible}
      searching={search.trim() !== ''}
      canViewFees={may.fees}
      canToggle={may.toggle}
      togglingId={activeness.isPending ? activeness.variables?.collabId : undefined}
      onFees={(c) => navigate(`/fees?collabId=${c.id}`)}
      onSettings={(c) => setDialog({ kind: 'settings', collab: c })}
      onLimits={(c) => setDialog({ kind: 'limits', collab: c })}
      onToggle={(c) => (c.isEnabled ? setDialog({ kind: 'disable-collab', collab: c }) : setActiveness(c, true))}
    />
  );
  const listed = {
    isEnabled: collabsQuery.data?.isMaintenanceModeEnabled,
    loaded: collabsQuery.isSuccess,
    failed: collabsQuery.isError,
  };

  return (
    <Maintenance user={user} listed={listed}>
      {(maintenance) => (
        <PageFrame
          title={SCREENS.providers.title}
          actions={
            <HStack gap={2} wrap="wrap" role="toolbar" aria-label="Providers actions">
              {may.add && (
                <Button size="sm" colorPalette="blue" onClick={() => setDialog({ kind: 'initialize' })}>
                  Add
                </Button>
              )}
              {maintenance.control}
              <RecentActions user={user} merchant={activity} />
              <IconButton
                size="sm"
                variant="outline"
                aria-label="Refresh"
                title="Refresh"
                loading={collabsQuery.isFetching || maintenance.refreshing}
                onClick={() => {
                  void collabsQuery.refetch();
                  maintenance.refresh();
                }}
              >
                <span aria-hidden>⟳</span>
              </IconButton>
            </HStack>
          }
        >
          {maintenance.banner}

          <Flex gap={3} wrap="wrap" align="end">
            <Box flex="1" minW="56">
              <Input aria-label="Search by name" size="sm" type="search" placeholder="Search by name..." value={search} onChange={(e) => setSearch(e.target.value)} />
            </Box>
            <HStack gap={2}>
              <NativeSelect.Root size="sm" w="40">
                <NativeSelect.Field aria-label="Sort by" value={sortKey} onChange={(e) => setSortKey(e.target.value as SortKey)}>
                  {SORT_KEYS.map((k) => (
                    <option key={k.value} value={k.value}>
                      Sort by {k.label.toLowerCase()}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
              <Button
                size="sm"
                variant="outline"
                aria-label={sortDirection === 'asc' ? 'Sort ascending (click for descending)' : 'Sort descending (click for ascending)'}
                onClick={() => setSortDirection(sortDirection === 'asc' ? 'desc' : 'asc')}
              >
                {sortDirection === 'asc' ? 'Ascending ↑' : 'Descending ↓'}
              </Button>
              {admin && <MerchantFilter merchants={merchantChoices} value={merchantIds} onChange={setMerchantIds} />}
            </HStack>
          </Flex>

          {collabsQuery.isError ? (
            <Alert.Root status="error">
              <Alert.Indicator />
              <Alert.Content>
                <Alert.Title>Failed to fetch collaborations: {messageOf(collabsQuery.error)}</Alert.Title>
              </Alert.Content>
              <Button size="sm" variant="outline" onClick={() => void collabsQuery.refetch()}>
                Retry
              </Button>
            </Alert.Root>
          ) : admin ? (
            <Tabs.Root value={activeTab} onValueChange={(e) => setTab(e.value)} variant="line" lazyMount>
              <Tabs.List overflowX="auto">
                <Tabs.Trigger value={ALL}>All</Tabs.Trigger>
                {tabMerchants.map((m) => (
                  <Tabs.Trigger key={m.id} value={String(m.id)}>
                    {m.name}
                  </Tabs.Trigger>
                ))}
              </Tabs.List>
              <Tabs.Content value={activeTab}>
                {grid}
              </Tabs.Content>
            </Tabs.Root>
          ) : (
            grid
          )}

          {dialog?.kind === 'initialize' && (
            <InitializeCollabDialog
              user={user}
              merchantId={dialog.merchantId ?? (admin ? undefined : (scope ?? user.merchantIds[0]))}
              merchants={merchantChoices}
              collabs={collabsQuery.data?.collabs ?? []}
              onClose={close}
            />
          )}
          {dialog?.kind === 'settings' && <CollabSettingsDialog collab={dialog.collab} onClose={close} />}
          {dialog?.kind === 'limits' && <CollabLimitsDialog collab={dialog.collab} onClose={close} />}
          {dialog?.kind === 'disable-collab' && (
            <ConfirmDialog
              title="Disable Collaboration"
              message={`Disable ${dialog.collab.provider.name} for ${dialog.collab.merchant.name}? It stops taking transactions until enabled again.`}
              confirmLabel="Disable"
              destructive
              pending={activeness.isPending}
              onCancel={close}
              onConfirm={() => setActiveness(dialog.collab, false)}
            />
          )}
        </PageFrame>
      )}
    </Maintenance>
  );
}

interface GridProps {
  loading: boolean;
  collabs: Collab[];
  searching: boolean;
  canViewFees: boolean;
  canToggle: boolean;
  togglingId: number | undefined;
  onFees: (c: Collab) => void;
  onSettings: (c: Collab) => void;
  onLimits: (c: Collab) => void;
  onToggle: (c: Collab) => void;
}

/** CollabGrid shows the cards, skeletons while loading, or the empty state. */
function CollabGrid({ loading, collabs, searching, canViewFees, canToggle, togglingId, onFees, onSettings, onLimits, onToggle }: GridProps) {
  if (loading) {
    return (
      <SimpleGrid columns={{ base: 1, md: 2, xl: 3 }} gap={4} aria-busy="true" aria-label="Loading collaborations">
        {[0, 1, 2].map((i) => (
          <Skeleton key={i} height="40" borderRadius="md" />
        ))}
      </SimpleGrid>
    );
  }
  if (collabs.length === 0) {
    return (
      <EmptyState.Root size="sm">
        <EmptyState.Content>
          <EmptyState.Title>No collaborations found</EmptyState.Title>
          <EmptyState.Description>
            {searching ? 'No provider name matches your search.' : 'There are no collaborations to show here yet.'}
          </EmptyState.Description>
        </EmptyState.Content>
      </EmptyState.Root>
    );
  }
  return (
    <SimpleGrid as="section" columns={{ base: 1, md: 2, xl: 3 }} gap={4} aria-label="Collaborations">
      {collabs.map((c) => (
        <CollabCard
          key={c.id}
          collab={c}
          canViewFees={canViewFees}
          canToggle={canToggle}
          toggling={togglingId === c.id}
          onFees={() => onFees(c)}
          onSettings={() => onSettings(c)}
          onLimits={() => onLimits(c)}
          onToggle={() => onToggle(c)}
        />
      ))}
    </SimpleGrid>
  );
}
