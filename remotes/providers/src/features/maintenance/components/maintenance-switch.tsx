import { Alert, Button } from '@chakra-ui/react';
import { ConfirmDialog, mayCall, notify, type User } from '@paygate/sdk';
import { useState, type ReactNode } from 'react';
import { useDisableMaintenance } from '../api/disable-maintenance';
import { useEnableMaintenance } from '../api/enable-maintenance';
import { useMaintenanceStatus } from '../api/get-maintenance-status';
import { disableMaintenanceError, enableMaintenanceError, toggleMaintenanceError } from '../utils/errors';

/** The maintenance banner's text (spec 01 §2). */
export const MAINTENANCE_BANNER = 'New transactions will not be accepted regardless of provider status';

/** ListedMaintenance is what the collab list said of maintenance mode. */
export interface ListedMaintenance {
  /** isEnabled is the list's flag: undefined while it loads, when it failed, or when it came as a bare list. */
  isEnabled: boolean | undefined;
  /** loaded: the list answered (with or without the flag). */
  loaded: boolean;
  /** failed: the list could not be read. */
  failed: boolean;
}

/** MaintenanceParts are the switch's parts, for the page to place. */
export interface MaintenanceParts {
  /** control is the toolbar's button (nothing for a user whose change the server would refuse). */
  control: ReactNode;
  /** banner says that maintenance mode is on (nothing while it is off or not known). */
  banner: ReactNode;
  /** refresh reads the switch again, with the page's list, when the list did not say. */
  refresh: () => void;
  /** refreshing: the switch is being read. */
  refreshing: boolean;
}

interface Props {
  user: User;
  listed: ListedMaintenance;
  /** children places the parts. */
  children: (parts: MaintenanceParts) => ReactNode;
}

/**
 * MaintenanceSwitch is the Providers page's maintenance switch (spec 01 §2, §8 "Maintenance"): the
 * toolbar's Enable / Disable Maintenance button, the question before enabling, and the banner. It
 * starts from the collab list's flag and reads GET /api/v1/maintenance/status only when the list
 * came without it.
 */
export function MaintenanceSwitch({ user, listed, children }: Props) {
  const needsStatus = listed.loaded && listed.isEnabled === undefined;
  const statusQuery = useMaintenanceStatus(needsStatus);
  /** Whether maintenance mode is on; undefined until the list or the status says. */
  const state: boolean | undefined = listed.isEnabled ?? statusQuery.data;
  const on = state ?? false;
  /** The state could not be read: the toolbar offers a toggle (see toggle). */
  const unknown = state === undefined && (listed.failed || statusQuery.isError);

  const [asking, setAsking] = useState(false);
  const enable = useEnableMaintenance();
  const disable = useDisableMaintenance();
  const pending = enable.isPending || disable.isPending;

  function turn(enabled: boolean) {
    const mutation = enabled ? enable : disable;
    mutation.mutate(undefined, {
      onSuccess: () => {
        notify.success(enabled ? 'Maintenance mode enabled' : 'Maintenance mode disabled');
        setAsking(false);
      },
      onError: (err) => {
        notify.error(enabled ? enableMaintenanceError(err) : disableMaintenanceError(err));
        setAsking(false);
      },
    });
  }

  /** ask goes the other way from the known state: enabling asks first, disabling does not. */
  function ask(current: boolean) {
    if (current) turn(false);
    else setAsking(true);
  }

  /**
   * toggle is the button's action while the state is not known (the collab list came without the
   * flag, or not at all, and the status could not be read): it reads the status again and goes
   * the other way; when that read fails too the direction is unknown, and the error says so
   * ('Failed to toggle maintenance mode', spec 01 §8) without changing anything.
   */
  async function toggle() {
    const read = await statusQuery.refetch();
    if (read.data === undefined || read.isError) notify.error(toggleMaintenanceError(read.error));
    else ask(read.data);
  }

  // The button shows only when the server's rule for its call lets the user in (docs/contracts.md).
  const may = mayCall(user, on ? 'POST /api/v1/maintenance/disable' : 'POST /api/v1/maintenance/enable');
  const control = !may ? null : unknown ? (
    <Button size="sm" variant="outline" loading={pending || statusQuery.isFetching} onClick={() => void toggle()}>
      Toggle Maintenance
    </Button>
  ) : (
    <Button
      size="sm"
      variant="outline"
      colorPalette={on ? 'green' : 'orange'}
      loading={pending}
      disabled={state === undefined}
      onClick={() => ask(on)}
    >
      {on ? 'Disable Maintenance' : 'Enable Maintenance'}
    </Button>
  );
  const banner = on && (
    <Alert.Root status="warning" role="status">
      <Alert.Indicator />
      <Alert.Content>
        <Alert.Title>Maintenance mode is on</Alert.Title>
        <Alert.Description>{MAINTENANCE_BANNER}</Alert.Description>
      </Alert.Content>
    </Alert.Root>
  );

  return (
    <>
      {children({
        control,
        banner,
        refresh: () => {
          if (needsStatus) void statusQuery.refetch();
        },
        refreshing: statusQuery.isFetching,
      })}
      {asking && (
        <ConfirmDialog
          title="Enable Maintenance"
          message="Are you sure you want to enable maintenance mode? The gateway stops accepting new transactions."
          confirmLabel="Enable"
          destructive
          pending={enable.isPending}
          onCancel={() => setAsking(false)}
          onConfirm={() => turn(true)}
        />
      )}
    </>
  );
}
