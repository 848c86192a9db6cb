import { Alert, Button, Checkbox, Field, Fieldset, NativeSelect, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import { ConfirmDialog, DialogFrame, notify, type User } from '@paygate/sdk';
import { useId, useMemo, useState } from 'react';
import { useProviders } from '../api/get-providers';
import { useInitializeCollab } from '../api/initialize-collab';
import type { Collab, PayType, Provider } from '../api/types';
import { messageOf } from '../../../utils/errors';
import { NEW_COLLAB_DEFAULTS, toServerSettings, withProviderDirections, type SettingsValues } from '../utils/settings';
import { CollabSettingsFields } from './collab-settings-fields';
import { SettingSwitch } from './setting-switch';

/** The confirmation asked before a collab is created (spec 01 §2). */
export const CREATE_CONFIRMATION = 'Are you sure you want to create a new collaboration?';

interface Props {
  user: User;
  /** A merchant user's own merchant: the merchant field is hidden and preset to it. */
  merchantId: number | undefined;
  merchants: readonly { id: number; name: string }[];
  /** The collabs the user can see, to leave out providers a merchant already works with. */
  collabs: readonly Collab[];
  onClose: () => void;
}

interface ChannelFlags {
  IsCashInEnabled: boolean;
  IsCashOutEnabled: boolean;
}

/** availableProviders leaves out the providers the merchant already has a collab with (spec 01 §5). */
export function availableProviders(providers: readonly Provider[], collabs: readonly Collab[], merchantId: number | undefined): Provider[] {
  if (merchantId === undefined) return [];
  const taken = new Set(collabs.filter((c) => c.merchant.id === merchantId).map((c) => c.provider.id));
  return providers.filter((p) => !taken.has(p.id));
}

const payTypeLabel = (p: Pick<PayType, 'name' | 'code'>) => `${p.name} (${p.code})`;

/**
 * InitializeCollabDialog creates a collab (spec 01 §2 "Initialize
 * Collaboration dialog", §4 "Collab creation form").
 */
export function InitializeCollabDialog({ user, merchantId: preset, merchants, collabs, onClose }: Props) {
  const id = useId();
  const providers = useProviders();
  const create = useInitializeCollab();
  // A user limited to its own merchants creates collabs of the merchant it works in.
  const merchantHidden = preset !== undefined && !user.globalScope;

  const [merchantId, setMerchantId] = useState<number | undefined>(preset);
  const [providerId, setProviderId] = useState<number | undefined>();
  const [payTypeIds, setPayTypeIds] = useState<number[]>([]);
  const [channels, setChannels] = useState<Record<number, ChannelFlags>>({});
  const [settings, setSettings] = useState<SettingsValues>(NEW_COLLAB_DEFAULTS);
  const [confirming, setConfirming] = useState(false);

  const choices = useMemo(() => availableProviders(providers.data ?? [], collabs, merchantId), [providers.data, collabs, merchantId]);
  const provider = choices.find((p) => p.id === providerId);

  function chooseMerchant(next: number | undefined) {
    // Changing the merchant clears the provider and the pay types.
    setMerchantId(next);
    setProviderId(undefined);
    setPayTypeIds([]);
    setChannels({});
  }

  function chooseProvider(next: number | undefined) {
    // Changing the provider clears the pay types and takes its directions.
    setProviderId(next);
    setPayTypeIds([]);
    setChannels({});
    const p = choices.find((c) => c.id === next);
    if (p) setSettings((s) => withProviderDirections(s, p.supportsCashIn, p.supportsCashOut));
  }

  function togglePayType(p: PayType, on: boolean) {
    setPayTypeIds((ids) => (on ? [...ids, p.id] : ids.filter((x) => x !== p.id)));
    if (on) setChannels((c) => ({ ...c, [p.id]: { IsCashInEnabled: p.cashIn, IsCashOutEnabled: p.cashOut } }));
  }

  function submit() {
    if (merchantId === undefined || !provider) return;
    const selected = provider.payTypes.filter((p) => payTypeIds.includes(p.id));
    create.mutate(
      {
        ProviderId: provider.id,
        MerchantId: merchantId,
        PayTypeIds: selected.map((p) => p.id),
        PayTypeSettings: selected.map((p) => ({
          PayTypeId: p.id,
          IsCashInEnabled: p.cashIn && (channels[p.id]?.IsCashInEnabled ?? p.cashIn),
          IsCashOutEnabled: p.cashOut && (channels[p.id]?.IsCashOutEnabled ?? p.cashOut),
        })),
        CollabSettings: toServerSettings(settings),
      },
      {
        onSuccess: (collab) => {
          notify.success('Collaboration created', `${collab.merchant.name || merchantName(merchantId)} × ${collab.provider.name || provider.name}`);
          onClose();
        },
        onError: (err) => {
          setConfirming(false);
          notify.error(`Failed to create collaboration: ${messageOf(err)}`);
        },
      },
    );
  }

  const merchantName = (mid: number) => merchants.find((m) => m.id === mid)?.name ?? `Merchant ${mid}`;
  const ready = merchantId !== undefined && provider !== undefined;

  return (
    <>
      <DialogFrame
        title="Initialize Collaboration"
        size="xl"
        onClose={onClose}
        footer={
          <>
            <Button variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button colorPalette="blue" disabled={!ready} loading={create.isPending} onClick={() => setConfirming(true)}>
              Save
            </Button>
          </>
        }
      >
        <Stack gap={5}>
          {providers.isError && (
            <Alert.Root status="error">
              <Alert.Indicator />
              <Alert.Title>Failed to fetch providers: {messageOf(providers.error)}</Alert.Title>
            </Alert.Root>
          )}
          <SimpleGrid columns={{ base: 1, sm: 2 }} gap={4}>
            {!merchantHidden && (
              <Field.Root required>
                <Field.Label htmlFor={`${id}-merchant`}>Merchant</Field.Label>
                <NativeSelect.Root size="sm">
                  <NativeSelect.Field
                    id={`${id}-merchant`}
                    value={merchantId === undefined ? '' : String(merchantId)}
                    onChange={(e) => chooseMerchant(e.target.value === '' ? undefined : Number(e.target.value))}
                  >
                    <option value="">Select a merchant</option>
                    {merchants.map((m) => (
                      <option key={m.id} value={String(m.id)}>
                        {m.name} ({m.id})
                      </option>
                    ))}
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
              </Field.Root>
            )}
            <Field.Root required disabled={merchantId === undefined}>
              <Field.Label htmlFor={`${id}-provider`}>Provider</Field.Label>
              {providers.isPending ? (
                <Skeleton height="8" />
              ) : (
                <NativeSelect.Root size="sm" disabled={merchantId === undefined}>
                  <NativeSelect.Field
                    id={`${id}-provider`}
                    value={providerId === undefined ? '' : String(providerId)}
                    onChange={(e) => chooseProvider(e.target.value === '' ? undefined : Number(e.target.value))}
                  >
                    <option value="">{merchantId === undefined ? 'Choose a merchant first' : 'Select a provider'}</option>
                    {choices.map((p) => (
                      <option key={p.id} value={String(p.id)}>
                        {p.name}
                      </option>
                    ))}
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
              )}
              {merchantId !== undefined && providers.isSuccess && choices.length === 0 && (
                <Field.HelperText>This merchant already works with every provider.</Field.HelperText>
              )}
            </Field.Root>
          </SimpleGrid>

          <Fieldset.Root disabled={!provider}>
            <Fieldset.Legend>Pay Types</Fieldset.Legend>
            {!provider ? (
              <Text fontSize="sm" color="fg.muted">
                Choose a provider to see its pay types.
              </Text>
            ) : provider.payTypes.length === 0 ? (
              <Text fontSize="sm" color="fg.muted">
                This provider has no pay types.
              </Text>
            ) : (
              <SimpleGrid columns={{ base: 1, sm: 2 }} gap={2}>
                {provider.payTypes.map((p) => (
                  <Checkbox.Root key={p.id} size="sm" checked={payTypeIds.includes(p.id)} onCheckedChange={(e) => togglePayType(p, e.checked === true)}>
                    <Checkbox.HiddenInput />
                    <Checkbox.Control />
                    <Checkbox.Label>{payTypeLabel(p)}</Checkbox.Label>
                  </Checkbox.Root>
                ))}
              </SimpleGrid>
            )}
          </Fieldset.Root>

          <Fieldset.Root>
            <Fieldset.Legend>Collab Settings</Fieldset.Legend>
            <CollabSettingsFields
              values={settings}
              onChange={(key, value) => setSettings((s) => ({ ...s, [key]: value }))}
              supportsCashIn={provider?.supportsCashIn ?? true}
              supportsCashOut={provider?.supportsCashOut ?? true}
            />
          </Fieldset.Root>

          {provider && payTypeIds.length > 0 && (
            <Fieldset.Root>
              <Fieldset.Legend>Pay Type Settings</Fieldset.Legend>
              <Stack gap={3}>
                {provider.payTypes
                  .filter((p) => payTypeIds.includes(p.id))
                  .map((p) => (
                    <SimpleGrid key={p.id} columns={{ base: 1, sm: 3 }} gap={2} alignItems="center">
                      <Text fontWeight="medium">{payTypeLabel(p)}</Text>
                      <SettingSwitch
                        label={`${p.name} cash-in`}
                        checked={p.cashIn && (channels[p.id]?.IsCashInEnabled ?? false)}
                        disabled={!p.cashIn}
                        onChange={(on) => setChannels((c) => ({ ...c, [p.id]: { ...(c[p.id] ?? flagsOf(p)), IsCashInEnabled: on } }))}
                      />
                      <SettingSwitch
                        label={`${p.name} cash-out`}
                        checked={p.cashOut && (channels[p.id]?.IsCashOutEnabled ?? false)}
                        disabled={!p.cashOut}
                        onChange={(on) => setChannels((c) => ({ ...c, [p.id]: { ...(c[p.id] ?? flagsOf(p)), IsCashOutEnabled: on } }))}
                      />
                    </SimpleGrid>
                  ))}
              </Stack>
            </Fieldset.Root>
          )}
        </Stack>
      </DialogFrame>
      {confirming && (
        <ConfirmDialog
          title="Confirm"
          message={CREATE_CONFIRMATION}
          confirmLabel="Create"
          pending={create.isPending}
          onCancel={() => setConfirming(false)}
          onConfirm={submit}
        />
      )}
    </>
  );
}

const flagsOf = (p: PayType): ChannelFlags => ({ IsCashInEnabled: p.cashIn, IsCashOutEnabled: p.cashOut });
