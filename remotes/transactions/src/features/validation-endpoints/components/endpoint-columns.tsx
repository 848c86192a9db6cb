import { FlagSwitch } from '@paygate/sdk';
import { collabNamer, type CollabOption } from '../../../api/get-collabs';
import { CollabField } from '../../../components/collab-select';
import { DraftInput, type DraftInputSpec } from '../../../components/draft-input';
import { OnOff, URL_CELL, type UrlEndpointColumn } from '../../../components/url-endpoints-table';
import type { ValidationEndpoint } from '../api/types';
import { PRIORITY_MAX, PRIORITY_MIN, type EndpointDraft, type EndpointDraftErrors } from '../utils/form';

/** The text fields of a validation endpoint, in the add form and in an edited row. */
export const ENDPOINT_URL_INPUT: DraftInputSpec<EndpointDraft> = { field: 'url', label: 'Endpoint URL', type: 'url' };
export const PRIORITY_INPUT: DraftInputSpec<EndpointDraft> = { field: 'priority', label: 'Priority', type: 'number', min: PRIORITY_MIN, max: PRIORITY_MAX };

type Column = UrlEndpointColumn<ValidationEndpoint, EndpointDraft, keyof EndpointDraftErrors>;

/**
 * endpointColumns are the columns of the validation endpoints table (spec 02
 * §2); a row edit changes every field, the collab included.
 */
export function endpointColumns(admin: boolean, collabs: readonly CollabOption[]): Column[] {
  const name = collabNamer(collabs, admin);
  return [
    {
      header: admin ? 'Collab' : 'Provider',
      view: (e) => name(e.collabId),
      edit: ({ draft, errors, set }) => (
        <CollabField inRow collabs={collabs} value={draft.collabId} error={errors.collabId} onChange={(collabId) => set({ collabId })} />
      ),
      editProps: { minW: '48' },
    },
    {
      header: 'Endpoint URL',
      view: (e) => e.url,
      viewProps: URL_CELL,
      edit: (form) => <DraftInput inRow form={form} {...ENDPOINT_URL_INPUT} />,
      editProps: { minW: '64' },
    },
    {
      header: 'Priority',
      view: (e) => e.priority,
      edit: (form) => <DraftInput inRow form={form} {...PRIORITY_INPUT} />,
      editProps: { w: '28' },
    },
    {
      header: 'Awaitable',
      view: (e) => <OnOff on={e.awaitable} />,
      edit: ({ draft, set }) => <FlagSwitch label="Awaitable" hideLabel checked={draft.awaitable} onChange={(on) => set({ awaitable: on })} />,
    },
    {
      header: 'Cash In',
      view: (e) => <OnOff on={e.forCashIn} />,
      edit: ({ draft, set }) => <FlagSwitch label="Cash In" hideLabel checked={draft.forCashIn} onChange={(on) => set({ forCashIn: on })} />,
    },
    {
      header: 'Cash Out',
      view: (e) => <OnOff on={e.forCashOut} />,
      edit: ({ draft, set }) => <FlagSwitch label="Cash Out" hideLabel checked={draft.forCashOut} onChange={(on) => set({ forCashOut: on })} />,
    },
  ];
}
