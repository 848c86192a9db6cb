import { Button, HStack, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { mayCall, PageFrame, SCREENS, seesAllMerchants, useSelectedMerchant, useUser, type User } from '@paygate/sdk';
import { useState } from 'react';
import { collabNamer, useCollabs } from '../../../api/get-collabs';
import { CollabSelect } from '../../../components/collab-select';
import { UrlEndpoints, type UrlEndpointTexts } from '../../../components/url-endpoints';
import { useDeleteCallback } from '../api/delete-callback';
import { useCallbacks, type CallbacksInput } from '../api/get-callbacks';
import { useUpdateCallback } from '../api/update-callback';
import { callbackFields, draftOf, validateCallbackDraft } from '../utils/form';
import { CallbackRetryDialog } from './callback-retry-dialog';
import { EndpointHealthPanel } from './endpoint-health';
import { AddCallbackDialog } from './add-callback-dialog';
import { ApiSecretsSection } from './api-secrets-section';
import { callbackColumns } from './callback-columns';
import { DeliverySettingsDialog } from './delivery-settings-dialog';
import type { CallbackUrl } from '../api/types';

/** The confirmations asked before a row edit and a delete (spec 02 §2). */
export const UPDATE_CONFIRMATION = 'Are you sure you want to update this callback URL?';
export const DELETE_CONFIRMATION = 'Are you sure you want to delete this callback URL?';

const TEXTS: UrlEndpointTexts = {
  noun: 'callback URL',
  plural: 'callback URLs',
  title: 'Callback URL',
  updateConfirmation: UPDATE_CONFIRMATION,
  deleteConfirmation: DELETE_CONFIRMATION,
};

/**
 * listScope decides which callback URLs the page lists: the chosen collab's;
 * with no collab chosen, every callback URL of the user's merchant (the
 * sidebar's Current Merchant when it is one of theirs), so a merchant admin
 * sees all their URLs at once. A user without merchants (an admin) picks a
 * collab first: listing every merchant's URLs would take a call per merchant.
 */
export function listScope(user: Pick<User, 'merchantIds'>, collabId: number | null, selectedMerchant: number | null): CallbacksInput | null {
  if (collabId !== null) return { kind: 'collab', id: collabId };
  const merchant = selectedMerchant !== null && user.merchantIds.includes(selectedMerchant) ? selectedMerchant : user.merchantIds[0];
  return merchant === undefined ? null : { kind: 'merchant', id: merchant };
}

/** CallbacksPage is the Callbacks screen (route /callbacks, spec 02 §2): callback URLs with row editing, add and delete. */
export function CallbacksPage() {
  const user = useUser();
  if (!user) return null;
  return <Callbacks user={user} />;
}

function Callbacks({ user }: { user: User }) {
  const admin = seesAllMerchants(user);
  // Each control shows only when the server's rule for its call lets the user in (docs/contracts.md).
  const may = {
    create: mayCall(user, 'POST /api/v1/callbacks'),
    update: mayCall(user, 'POST /api/v1/callbacks/{id}'),
    delete: mayCall(user, 'DELETE /api/v1/callbacks/{id}'),
    enable: mayCall(user, 'POST /api/v1/callbacks/{id}/enable'),
    health: mayCall(user, 'GET /api/v1/merchants/{merchantId}/callbacks/health'),
    headers: mayCall(user, 'PUT /api/v1/callbacks/{id}/headers'),
  };
  const queryClient = useQueryClient();
  const [selectedMerchant] = useSelectedMerchant();
  const [collabId, setCollabId] = useState<number | null>(null);
  const [adding, setAdding] = useState(false);
  const [retrying, setRetrying] = useState<'retry' | 'recover' | null>(null);
  const [settingsOf, setSettingsOf] = useState<CallbackUrl | null>(null);
  const mayRetry = mayCall(user, 'POST /api/v1/callback-retries/dry-run');
  // A new list (another collab chosen) drops an open row edit.
  const [listKey, setListKey] = useState(0);

  const collabs = useCollabs({});
  const scope = listScope(user, collabId, selectedMerchant);
  const list = useCallbacks(scope);
  const update = useUpdateCallback();
  const remove = useDeleteCallback();
  const reload = () => void queryClient.invalidateQueries({ queryKey: ['callbacks'] });

  const collabName = collabNamer(collabs.data, admin);
  const merchantName = scope?.kind === 'merchant' ? (collabs.data?.find((c) => c.merchantId === scope.id)?.merchantName ?? `merchant ${scope.id}`) : '';

  // The health is a merchant's: the listed merchant's, or the chosen collab's.
  const healthMerchant = scope === null ? null : scope.kind === 'merchant' ? scope.id : (collabs.data?.find((c) => c.id === scope.id)?.merchantId ?? null);

  function choose(id: number | null) {
    setCollabId(id);
    setListKey((k) => k + 1);
  }

  const emptyText =
    scope === null
      ? `${admin ? 'Select a collab' : 'Select a provider'} to see its callback URLs.`
      : `No callback URLs found.${may.create ? ' Add one with Add Callback URL.' : ''}`;

  return (
    <PageFrame
      title={SCREENS.callbacks.title}
      actions={
        <HStack gap="2">
          {mayRetry && scope !== null && (
            <>
              <Button size="sm" variant="outline" aria-haspopup="dialog" onClick={() => setRetrying('retry')}>
                Retry failed…
              </Button>
              <Button size="sm" variant="outline" aria-haspopup="dialog" onClick={() => setRetrying('recover')}>
                Recover since…
              </Button>
            </>
          )}
          {may.create && (
            <Button size="sm" colorPalette="blue" onClick={() => setAdding(true)}>
              Add Callback URL
            </Button>
          )}
        </HStack>
      }
    >
      <HStack gap="3" align="end" wrap="wrap">
        <CollabSelect admin={admin} collabs={collabs.data} value={collabId} onChange={choose} loading={collabs.isPending} label={admin ? 'Collab' : 'Provider'} />
        {scope?.kind === 'merchant' && (
          <Text fontSize="sm" color="fg.muted" pb="1">
            Showing every callback URL of {merchantName}.
          </Text>
        )}
      </HStack>

      <EndpointHealthPanel merchantId={healthMerchant} urls={scope ? (list.data ?? []) : []} canEnable={may.enable} canReadHealth={may.health} onEnabled={reload} />

      <UrlEndpoints
        key={listKey}
        texts={TEXTS}
        testId="callback"
        columns={callbackColumns(admin ? 'Collab' : 'Provider', collabName, may.update && may.headers ? setSettingsOf : undefined)}
        rows={scope ? (list.data ?? []) : []}
        loading={scope !== null && list.isPending}
        canUpdate={may.update}
        canDelete={may.delete}
        emptyText={emptyText}
        list={list}
        draftOf={draftOf}
        validate={validateCallbackDraft}
        update={update}
        toUpdate={(row, draft) => ({ id: row.id, ...callbackFields(draft) })}
        updatedUrl={(_stored, draft) => draft.callbackUrl.trim()}
        remove={remove}
        urlOf={(row) => row.callbackUrl}
        reload={reload}
      />

      <ApiSecretsSection user={user} merchantId={healthMerchant} />

      {retrying && scope && (
        <CallbackRetryDialog
          mode={retrying}
          collabId={scope.kind === 'collab' ? scope.id : null}
          merchantId={scope.kind === 'merchant' ? scope.id : null}
          urls={list.data ?? []}
          onClose={() => setRetrying(null)}
        />
      )}

      {settingsOf && <DeliverySettingsDialog url={settingsOf} onSaved={reload} onClose={() => setSettingsOf(null)} />}

      {adding && (
        <AddCallbackDialog
          collabs={collabs.data ?? []}
          collabId={collabId}
          // Show the list the new callback URL is in.
          onCreated={choose}
          onClose={() => setAdding(false)}
        />
      )}
    </PageFrame>
  );
}
