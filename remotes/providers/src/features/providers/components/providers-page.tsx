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
import { ConfirmDialog, isAdmin, mayCall, merchantsQuery, notify, PageFrame, SCREENS, useSelectedMerchant, useUser, type User } from '@paygate/sdk';
import { useMemo, useState } from 'react';
import { useNavigate } from 'react-router';
import { useDisableMaintenance } from '../api/disable-maintenance';
import { useEnableMaintenance } from '../api/enable-maintenance';
import { useMaintenanceStatus } from '../api/get-maintenance-status';
import { useMerchantCollabs } from '../api/get-merchant-collabs';
import { useSetCollabActiveness } from '../api/set-collab-activeness';
import type { Collab } from '../api/types';
import { merchantsOf, searchCollabs, sortCollabs, SORT_KEYS, type SortDirection, type SortKey } from '../utils/collab-list';
import { disableMaintenanceError, enableMaintenanceError, messageOf, toggleMaintenanceError } from '../utils/errors';
import { ActivityDialog } from './activity-dialog';
import { CollabCard } from './collab-card';
import { CollabLimitsDialog } from './collab-limits-dialog';
import { CollabSettingsDialog } from './collab-settings-dialog';
import { InitializeCollabDialog } from './initialize-collab-dialog';
import { MerchantFilter } from './merchant-filter';

/** The maintenance banner's text (spec 01 §2). */
export const MAINTENANCE_BANNER = 'New transactions will not be accepted regardless of provider status';

type OpenDialog =
  | { kind: 'initialize' }
  | { kind: 'settings'; collab: Collab }
  | { kind: 'limits'; collab: Collab }
  | { kind: 'activity'; merchant: { id: number; name: string } | null }
  | { kind: 'disable-collab'; collab: Collab }
  | { kind: 'enable-maintenance' };

const ALL = 'all';

/**
 * scopedMerchant is the merchant a non-admin user's view is narrowed to: the
 * sidebar's Current Merchant when it is one of theirs. Admins choose with the
 * page's own filter and tabs instead.
 */
function scopedMerchant(user: User, selected: number | null): number | undefined {
  if (isAdmin(user) || selected === null || !user.merchantIds.includes(selected)) return undefined;
  return selected;
}

/** ProvidersPage lists the collabs with their toolbar, filters and dialogs (spec 01 §2 "Providers page"). */
export function ProvidersPage() {
  const user = useUser();
  if (!user) return null;
  return <Providers user={user} />;
}

function Providers({ user }: { user: User }) {
  const navigate = useNavigate();
  const admin = isAdmin(user);
  const [selectedMerchant] = useSelectedMerchant();
  const scope = scopedMerchant(user, selectedMerchant);

  const collabsQuery = useMerchantCollabs({ merchantId: scope });
  const merchants = useQuery(merchantsQuery(user.username));
  const needsStatus = collabsQuery.isSuccess && collabsQuery.data.isMaintenanceModeEnabled === undefined;
  const statusQuery = useMaintenanceStatus(needsStatus);
  /** Whether maintenance mode is on; undefined until the list or the status says. */
  const maintenanceState: boolean | undefined = collabsQuery.data?.isMaintenanceModeEnabled ?? statusQuery.data;
  const maintenance = maintenanceState ?? false;
  /** The state could not be read: the toolbar offers a toggle (see toggleMaintenance). */
  const maintenanceUnknown = maintenanceState === undefined && (collabsQuery.isError || statusQuery.isError);

  const [search, setSearch] = useState('');
  const [sortKey, setSortKey] = useState<SortKey>('provider');
  const [sortDirection, setSortDirection] = useState<SortDirection>('asc');
  const [merchantIds, setMerchantIds] = useState<number[]>([]);
  const [tab, setTab] = useState<string>(ALL);
  const [dialog, setDialog] = useState<OpenDialog | null>(null);
  const close = () => setDialog(null);

  const activeness = useSetCollabActiveness();
  const enableMaintenance = useEnableMaintenance();
  const disableMaintenance = useDisableMaintenance();

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

  function turnMaintenance(on: boolean) {
    const mutation = on ? enableMaintenance : disableMaintenance;
    mutation.mutate(undefined, {
      onSuccess: () => {
        notify.success(on ? 'Maintenance mode enabled' : 'Maintenance mode disabled');
        close();
      },
      onError: (err) => {
        notify.error(on ? enableMaintenanceError(err) : disableMaintenanceError(err));
        close();
      },
    });
  }

  /** askMaintenance goes the other way from the known state: enabling asks first, disabling does not. */
  function askMaintenance(on: boolean) {
    if (on) turnMaintenance(false);
    else setDialog({ kind: 'enable-maintenance' });
  }

  /**
   * toggleMaintenance is the button's action while the state is not known (the collab list came
   * without the flag, or not at all, and the status could not be read): it reads the status again
   * and goes the other way; when that read fails too the direction is unknown, and the error says
   * so ('Failed to toggle maintenance mode', spec 01 §8) without changing anything.
   */
  async function toggleMaintenance() {
    const read = await statusQuery.refetch();
    if (read.data === undefined || read.isError) notify.error(toggleMaintenanceError(read.error));
    else askMaintenance(read.data);
  }

  // Each control shows only when the server's rule for its call lets the user in (docs/contracts.md).
  const activity = activityMerchant();
  const may = {
    add: mayCall(user, 'POST /api/v1/collabs/initialize'),
    maintenance: mayCall(user, maintenance ? 'POST /api/v1/maintenance/disable' : 'POST /api/v1/maintenance/enable'),
    activity: mayCall(user, activity ? 'GET /api/v1/logs/merchants/{merchantId}/collabs/activity' : 'GET /api/v1/logs/collabs/activity'),
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
  const refreshing = collabsQuery.isFetching || statusQuery.isFetching;
  const maintenancePending = enableMaintenance.isPending || disableMaintenance.isPending;

  return (
    <PageFrame
      title={SCREENS.providers.title}
      actions={
        <HStack gap={2} wrap="wrap" role="toolbar" aria-label="Providers actions">
          {may.add && (
            <Button size="sm" colorPalette="blue" onClick={() => setDialog({ kind: 'initialize' })}>
              Add
            </Button>
          )}
          {may.maintenance &&
            (maintenanceUnknown ? (
              <Button size="sm" variant="outline" loading={maintenancePending || statusQuery.isFetching} onClick={() => void toggleMaintenance()}>
                Toggle Maintenance
              </Button>
            ) : (
              <Button
                size="sm"
                variant="outline"
                colorPalette={maintenance ? 'green' : 'orange'}
                loading={maintenancePending}
                disabled={maintenanceState === undefined}
                onClick={() => askMaintenance(maintenance)}
              >
                {maintenance ? 'Disable Maintenance' : 'Enable Maintenance'}
              </Button>
            ))}
          {may.activity && (
            <Button size="sm" variant="outline" onClick={() => setDialog({ kind: 'activity', merchant: activity })}>
              Recent Actions
            </Button>
          )}
          <IconButton
            size="sm"
            variant="outline"
            aria-label="Refresh"
            title="Refresh"
            loading={refreshing}
            onClick={() => {
              void collabsQuery.refetch();
              if (needsStatus) void statusQuery.refetch();
            }}
          >
            <span aria-hidden>⟳</span>
          </IconButton>
        </HStack>
      }
    >
      {maintenance && (
        <Alert.Root status="warning" role="status">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>Maintenance mode is on</Alert.Title>
            <Alert.Description>{MAINTENANCE_BANNER}</Alert.Description>
          </Alert.Content>
        </Alert.Root>
      )}

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
          merchantId={admin ? undefined : (scope ?? user.merchantIds[0])}
          merchants={merchantChoices}
          collabs={collabsQuery.data?.collabs ?? []}
          onClose={close}
        />
      )}
      {dialog?.kind === 'settings' && <CollabSettingsDialog collab={dialog.collab} onClose={close} />}
      {dialog?.kind === 'limits' && <CollabLimitsDialog collab={dialog.collab} onClose={close} />}
      {dialog?.kind === 'activity' && <ActivityDialog merchant={dialog.merchant} onClose={close} />}
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
      {dialog?.kind === 'enable-maintenance' && (
        <ConfirmDialog
          title="Enable Maintenance"
          message="Are you sure you want to enable maintenance mode? The gateway stops accepting new transactions."
          confirmLabel="Enable"
          destructive
          pending={enableMaintenance.isPending}
          onCancel={close}
          onConfirm={() => turnMaintenance(true)}
        />
      )}
    </PageFrame>
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
