import { Alert, Button, Fieldset, HStack, Separator, Skeleton, Stack, Text, VisuallyHidden } from '@chakra-ui/react';
import { ConfirmDialog, DataTable, DialogFrame, mayCall, notify, useUser, type DataColumn } from '@paygate/sdk';
import { useEffect, useMemo, useRef, useState } from 'react';
import { useCollabSettings } from '../api/get-collab-settings';
import { useProviders } from '../api/get-providers';
import { useRemovePayTypes } from '../api/remove-pay-types';
import { useSaveCollabSettings } from '../api/save-collab-settings';
import type { Collab, CollabPayTypeSetting, CollabSettings } from '../api/types';
import { deniedOr, messageOf } from '../../../utils/errors';
import { changedSettings, fromServerSettings, type SettingsValues, type SettingValue } from '../utils/settings';
import { AddPayTypeForm } from './add-pay-type-form';
import { CollabSettingsFields } from './collab-settings-fields';
import { SettingSwitch } from './setting-switch';

/** How long the dialog shows a successful save before it closes (spec 01 §9). */
export const CLOSE_AFTER_SAVE_MS = 1_000;

interface Props {
  collab: Collab;
  onClose: () => void;
}

type Channels = Record<number, { IsCashInEnabled: boolean; IsCashOutEnabled: boolean }>;

/** removalQuestion is the text of the 'Confirm Deletion' dialog (spec 01 §2). */
export function removalQuestion(p: Pick<CollabPayTypeSetting, 'name' | 'code'>): string {
  return `Remove ${p.name} (${p.code}) from this collaboration?`;
}

/**
 * changedPayTypeSettings lists the pay types whose channel switches differ
 * from the saved ones; a direction the pay type does not support stays off.
 */
export function changedPayTypeSettings(saved: readonly CollabPayTypeSetting[], edits: Channels) {
  return saved
    .filter((p) => edits[p.payTypeId])
    .map((p) => {
      const e = edits[p.payTypeId]!;
      return {
        payTypeId: p.payTypeId,
        IsCashInEnabled: p.cashIn && e.IsCashInEnabled,
        IsCashOutEnabled: p.cashOut && e.IsCashOutEnabled,
        changed: (p.cashIn && e.IsCashInEnabled) !== p.IsCashInEnabled || (p.cashOut && e.IsCashOutEnabled) !== p.IsCashOutEnabled,
      };
    })
    .filter((p) => p.changed)
    .map(({ changed: _changed, ...rest }) => rest);
}

/** CollabSettingsDialog edits a collab's settings and pay types (spec 01 §2 "Collab settings dialog"). */
export function CollabSettingsDialog({ collab, onClose }: Props) {
  const query = useCollabSettings({ collabId: collab.id });
  const title = `Settings - [${collab.merchant.name}] ${collab.provider.name}`;

  useEffect(() => {
    if (query.isError) notify.error(`Failed to fetch collab settings: ${messageOf(query.error)}`);
  }, [query.isError, query.error]);

  return (
    <DialogFrame title={title} size="xl" onClose={onClose} footer={query.isSuccess ? undefined : <Button variant="outline" onClick={onClose}>Close</Button>}>
      {query.isPending ? (
        <Stack gap={3} aria-busy="true" aria-label="Loading settings">
          <Skeleton height="6" />
          <Skeleton height="6" />
          <Skeleton height="6" />
        </Stack>
      ) : query.isError ? (
        <Alert.Root status="error">
          <Alert.Indicator />
          <Alert.Title>The settings could not be loaded.</Alert.Title>
          <Button size="sm" variant="outline" onClick={() => void query.refetch()}>
            Retry
          </Button>
        </Alert.Root>
      ) : (
        <SettingsForm collab={collab} saved={query.data} onClose={onClose} />
      )}
    </DialogFrame>
  );
}

function SettingsForm({ collab, saved, onClose }: { collab: Collab; saved: CollabSettings; onClose: () => void }) {
  const initial = useMemo(() => fromServerSettings(saved.settings), [saved.settings]);
  const [edits, setEdits] = useState<SettingsValues>({});
  const [channels, setChannels] = useState<Channels>({});
  const [state, setState] = useState<'idle' | 'saved' | 'failed'>('idle');
  const [removing, setRemoving] = useState<CollabPayTypeSetting | null>(null);
  const user = useUser();
  // Each change shows only when the server's rule for its call lets the user in; without any, the dialog only reads.
  const may = {
    save: mayCall(user, 'POST /api/v1/collabs/settings'),
    add: mayCall(user, 'PUT /api/v1/{collabId}/pay-types'),
    remove: mayCall(user, 'DELETE /api/v1/{collabId}/pay-types'),
  };
  const save = useSaveCollabSettings();
  const remove = useRemovePayTypes();
  const providers = useProviders();
  const timer = useRef<number | undefined>(undefined);
  useEffect(() => () => window.clearTimeout(timer.current), []);

  const values = { ...initial, ...edits };
  const settingsDiff = changedSettings(initial, values);
  const channelDiff = changedPayTypeSettings(saved.payTypeSettings, channels);
  const dirty = Object.keys(settingsDiff).length > 0 || channelDiff.length > 0;

  const provider = providers.data?.find((p) => p.id === collab.provider.id);
  const onCollab = new Set(saved.payTypeSettings.map((p) => p.payTypeId));
  const offered = (provider?.payTypes ?? []).filter((p) => !onCollab.has(p.id));

  function change(key: string, value: SettingValue) {
    setState('idle');
    setEdits((e) => ({ ...e, [key]: value }));
  }

  function channel(p: CollabPayTypeSetting, direction: 'IsCashInEnabled' | 'IsCashOutEnabled', on: boolean) {
    setState('idle');
    setChannels((c) => {
      const current = c[p.payTypeId] ?? { IsCashInEnabled: p.IsCashInEnabled, IsCashOutEnabled: p.IsCashOutEnabled };
      return { ...c, [p.payTypeId]: { ...current, [direction]: on } };
    });
  }

  function submit() {
    save.mutate(
      { collabId: collab.id, settings: settingsDiff, ...(channelDiff.length > 0 ? { payTypeSettings: channelDiff } : {}) },
      {
        onSuccess: () => {
          setState('saved');
          timer.current = window.setTimeout(onClose, CLOSE_AFTER_SAVE_MS);
        },
        onError: (err) => {
          setState('failed');
          notify.error(`Failed to save collab settings: ${messageOf(err)}`);
        },
      },
    );
  }

  function confirmRemove(p: CollabPayTypeSetting) {
    remove.mutate(
      { collabId: collab.id, payTypeIds: [p.payTypeId] },
      {
        onSuccess: () => {
          notify.success('Pay type removed', `${p.name} (${p.code})`);
          setChannels(({ [p.payTypeId]: _gone, ...rest }) => rest);
          setRemoving(null);
        },
        onError: (err) => {
          notify.error(deniedOr(err, "You don't have permission to delete collab pay types.", 'Failed to remove pay type'));
          setRemoving(null);
        },
      },
    );
  }

  const payTypeColumns: DataColumn<CollabPayTypeSetting>[] = [
    { key: 'payType', header: 'Pay type', cell: (p) => `${p.name} (${p.code})` },
    {
      key: 'cashIn',
      header: 'Cash-in',
      cell: (p) =>
        p.cashIn ? (
          <SettingSwitch label={`${p.name} cash-in`} checked={(channels[p.payTypeId] ?? p).IsCashInEnabled} disabled={!may.save} onChange={(on) => channel(p, 'IsCashInEnabled', on)} />
        ) : (
          <Text color="fg.muted">Not supported</Text>
        ),
    },
    {
      key: 'cashOut',
      header: 'Cash-out',
      cell: (p) =>
        p.cashOut ? (
          <SettingSwitch label={`${p.name} cash-out`} checked={(channels[p.payTypeId] ?? p).IsCashOutEnabled} disabled={!may.save} onChange={(on) => channel(p, 'IsCashOutEnabled', on)} />
        ) : (
          <Text color="fg.muted">Not supported</Text>
        ),
    },
    {
      key: 'actions',
      header: <VisuallyHidden>Actions</VisuallyHidden>,
      align: 'end',
      cell: (p) =>
        may.remove && (
          <Button size="xs" variant="outline" colorPalette="red" aria-label={`Remove ${p.name} (${p.code})`} onClick={() => setRemoving(p)}>
            Remove
          </Button>
        ),
    },
  ];

  return (
    <Stack gap={6}>
      <Fieldset.Root>
        <Fieldset.Legend>Collab Settings</Fieldset.Legend>
        <CollabSettingsFields
          values={values}
          onChange={change}
          supportsCashIn={collab.provider.supportsCashIn}
          supportsCashOut={collab.provider.supportsCashOut}
          showUnknown
          disabled={!may.save}
        />
      </Fieldset.Root>

      <Fieldset.Root>
        <Fieldset.Legend>Pay Types</Fieldset.Legend>
        <DataTable
          label="Pay types of the collaboration"
          columns={payTypeColumns}
          rows={saved.payTypeSettings}
          rowKey={(p) => String(p.payTypeId)}
          empty="No pay types on this collaboration yet."
        />
      </Fieldset.Root>

      {may.add && (
        <>
          <Separator />
          {providers.isPending ? <Skeleton height="8" /> : <AddPayTypeForm collabId={collab.id} offered={offered} />}
        </>
      )}

      <HStack justify="end" gap={3}>
        {state === 'saved' && (
          <Text color="fg.success" role="status">
            Settings saved
          </Text>
        )}
        {state === 'failed' && (
          <Text color="fg.error" role="alert">
            Failed to save
          </Text>
        )}
        <Button variant="outline" onClick={onClose}>
          {may.save ? 'Cancel' : 'Close'}
        </Button>
        {may.save && (
          <Button colorPalette="blue" onClick={submit} loading={save.isPending} disabled={!dirty || state === 'saved'}>
            Save
          </Button>
        )}
      </HStack>

      {removing && (
        <ConfirmDialog
          title="Confirm Deletion"
          message={removalQuestion(removing)}
          confirmLabel="Remove"
          destructive
          pending={remove.isPending}
          onCancel={() => setRemoving(null)}
          onConfirm={() => confirmRemove(removing)}
        />
      )}
    </Stack>
  );
}
