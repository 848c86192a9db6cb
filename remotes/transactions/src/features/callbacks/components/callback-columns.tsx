import { Button, Text } from '@chakra-ui/react';
import { FlagSwitch } from '@paygate/sdk';
import { DraftInput, type DraftInputSpec } from '../../../components/draft-input';
import { OnOff, URL_CELL, type UrlEndpointColumn } from '../../../components/url-endpoints-table';
import { callbackTypeLabel, type CallbackUrl } from '../api/types';
import { MAX_ATTEMPTS_MAX, MAX_ATTEMPTS_MIN, type CallbackDraft, type CallbackDraftErrors } from '../utils/form';
import { CallbackTypeSelect } from './callback-fields';

/** The text fields of a callback URL, in the add form and in an edited row. */
export const CALLBACK_URL_INPUT: DraftInputSpec<CallbackDraft> = { field: 'callbackUrl', label: 'Callback URL', type: 'url' };
export const MAX_ATTEMPTS_INPUT: DraftInputSpec<CallbackDraft> = { field: 'maxAttempts', label: 'Max attempts', type: 'number', min: MAX_ATTEMPTS_MIN, max: MAX_ATTEMPTS_MAX };

type Column = UrlEndpointColumn<CallbackUrl, CallbackDraft, keyof CallbackDraftErrors>;

/**
 * callbackColumns are the columns of the callback URLs table (spec 02 §2); a
 * row edit changes every field but the collab.
 * collabHeader: Collab for admins, Provider for others. onSettings, given
 * to users who may edit callback URLs, opens a row's delivery settings
 * (final statuses and custom headers).
 */
export function callbackColumns(collabHeader: string, collabName: (collabId: number) => string, onSettings?: (c: CallbackUrl) => void): Column[] {
  return [
    { header: collabHeader, view: (c) => collabName(c.collabId) },
    {
      header: 'Callback URL',
      view: (c) => c.callbackUrl,
      viewProps: URL_CELL,
      edit: (form) => <DraftInput inRow form={form} {...CALLBACK_URL_INPUT} />,
      editProps: { minW: '64' },
    },
    {
      header: 'Enabled',
      view: (c) => <OnOff on={c.isEnabled} yes="Enabled" no="Disabled" />,
      edit: ({ draft, set }) => <FlagSwitch label="Enabled" hideLabel checked={draft.isEnabled} onChange={(on) => set({ isEnabled: on })} />,
    },
    {
      header: 'Max Attempts',
      view: (c) => c.maxAttempts,
      edit: (form) => <DraftInput inRow form={form} {...MAX_ATTEMPTS_INPUT} />,
      editProps: { w: '28' },
    },
    {
      header: 'Signature',
      view: (c) => <OnOff on={c.addSignature} yes="Signed" no="Unsigned" />,
      edit: ({ draft, set }) => <FlagSwitch label="Add signature" hideLabel checked={draft.addSignature} onChange={(on) => set({ addSignature: on })} />,
    },
    {
      header: 'Type',
      view: (c) => (
        <>
          <span>{callbackTypeLabel(c.transactionTypeId)}</span>
          {c.finalStatuses.length > 0 && (
            <Text as="span" display="block" fontSize="xs" color="fg.muted">
              Final statuses {c.finalStatuses.join(', ')}
            </Text>
          )}
        </>
      ),
      edit: ({ draft, set }) => <CallbackTypeSelect value={draft.transactionTypeId} onChange={(t) => set({ transactionTypeId: t })} />,
      editProps: { w: '32' },
    },
    {
      header: 'Headers',
      view: (c) => (
        <>
          <span>{headersSummary(c)}</span>
          {onSettings && (
            <Button size="xs" variant="outline" display="block" mt="1" aria-haspopup="dialog" aria-label={`Delivery settings of ${c.callbackUrl}`} onClick={() => onSettings(c)}>
              Delivery settings
            </Button>
          )}
        </>
      ),
    },
  ];
}

/** headersSummary names a URL's custom headers (a secret one's value is never shown). */
export function headersSummary(c: Pick<CallbackUrl, 'headers'>): string {
  if (c.headers.length === 0) return 'None';
  return c.headers.map((h) => (h.secret ? `${h.name} (secret)` : h.name)).join(', ');
}
