import { RecentActions } from '../features/activity/components/recent-actions';
import { MaintenanceSwitch } from '../features/maintenance/components/maintenance-switch';
import { ProvidersPage } from '../features/providers/components/providers-page';

/**
 * ProvidersScreen is the Providers route (spec 01 §2): the providers feature's page, with the
 * maintenance switch (features/maintenance) and Recent Actions (features/activity) in its slots.
 * Features do not import each other; the screens that put several together live here.
 */
export function ProvidersScreen() {
  return <ProvidersPage maintenance={MaintenanceSwitch} recentActions={RecentActions} />;
}
