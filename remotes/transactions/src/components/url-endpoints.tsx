import type { UseMutationResult } from '@tanstack/react-query';
import { ConfirmDialog, errorMessage, notify } from '@paygate/sdk';
import { useState } from 'react';
import { hasErrors, type DraftErrors } from '../utils/draft';
import { UrlEndpointsTable, type RowEdit, type UrlEndpointColumn } from './url-endpoints-table';

/** UrlEndpointTexts name what a URL-endpoints screen lists; its messages are made from them. */
export interface UrlEndpointTexts {
  /** One of them, mid-sentence: 'callback URL'. */
  noun: string;
  /** Many of them, mid-sentence: 'callback URLs'. */
  plural: string;
  /** One of them in a title: 'Callback URL'. */
  title: string;
  /** The questions asked before a row edit and a delete. */
  updateConfirmation: string;
  deleteConfirmation: string;
}

/** capitalized starts a sentence with the text. */
export const capitalized = (text: string) => text.charAt(0).toUpperCase() + text.slice(1);

/** UrlEndpointsProps configure a UrlEndpoints list. */
export interface UrlEndpointsProps<Row extends { id: string }, Draft, F extends string, Stored, UpdateInput extends { id: string }> {
  texts: UrlEndpointTexts;
  /** Rows are test-identified as `<testId>-<id>`. */
  testId: string;
  columns: readonly UrlEndpointColumn<Row, Draft, F>[];
  rows: Row[];
  loading: boolean;
  /** The row's Edit and Delete are offered (each when the server's rule for its call lets the user in). */
  canUpdate: boolean;
  canDelete: boolean;
  emptyText: string;
  /** The list's query: its failure shows in the table, with a retry. */
  list: { isError: boolean; error: unknown; refetch: () => unknown };
  draftOf: (row: Row) => Draft;
  validate: (draft: Draft) => DraftErrors<F>;
  update: UseMutationResult<Stored, Error, UpdateInput>;
  toUpdate: (row: Row, draft: Draft) => UpdateInput;
  /** updatedUrl is the detail of the "updated" toast. */
  updatedUrl: (stored: Stored, draft: Draft) => string;
  /** onUpdated runs after that toast, to tell more. */
  onUpdated?: (stored: Stored, row: Row, draft: Draft) => void;
  remove: UseMutationResult<void, Error, { id: string }>;
  urlOf: (row: Row) => string;
  /** reload refreshes the lists after a change. */
  reload: () => void;
}

type Pending<Row, Draft> = { kind: 'update'; row: Row; draft: Draft } | { kind: 'delete'; row: Row };

/**
 * UrlEndpoints is the list of a URL-endpoints screen (callback URLs,
 * validation endpoints): the table with its in-place row edit, the questions
 * asked before an edit or a delete is sent, and the list's failure (a row of
 * the table) with a retry. The screen around it owns the filters and the add dialog; it remounts
 * the list (a new key) where an open row edit must be dropped.
 */
export function UrlEndpoints<Row extends { id: string }, Draft, F extends string, Stored, UpdateInput extends { id: string }>(
  props: UrlEndpointsProps<Row, Draft, F, Stored, UpdateInput>,
) {
  const { texts, list, update, remove } = props;
  const [editing, setEditing] = useState<RowEdit<Draft, F> | null>(null);
  const [pending, setPending] = useState<Pending<Row, Draft> | null>(null);
  const Noun = capitalized(texts.noun);

  function save(row: Row) {
    if (!editing) return;
    const errors = props.validate(editing.draft);
    setEditing({ ...editing, errors });
    if (hasErrors(errors)) return;
    setPending({ kind: 'update', row, draft: editing.draft });
  }

  function confirm() {
    if (!pending) return;
    if (pending.kind === 'update') {
      const { row, draft } = pending;
      update.mutate(props.toUpdate(row, draft), {
        onSuccess: (stored) => {
          notify.success(`${Noun} updated`, props.updatedUrl(stored, draft));
          props.onUpdated?.(stored, row, draft);
          setEditing(null);
          props.reload();
        },
        onError: (err) => notify.error(`Failed to update ${texts.noun}`, errorMessage(err, 'Please try again.')),
        onSettled: () => setPending(null),
      });
    } else {
      const { row } = pending;
      remove.mutate(
        { id: row.id },
        {
          onSuccess: () => {
            notify.success(`${Noun} deleted`, props.urlOf(row));
            props.reload();
          },
          onError: (err) => notify.error(`Failed to delete ${texts.noun}`, errorMessage(err, 'Please try again.')),
          onSettled: () => setPending(null),
        },
      );
    }
  }

  const busyId = update.isPending ? (update.variables?.id ?? null) : remove.isPending ? (remove.variables?.id ?? null) : null;

  return (
    <>
      <UrlEndpointsTable
        label={capitalized(texts.plural)}
        testId={props.testId}
        columns={props.columns}
        rows={props.rows}
        loading={props.loading}
        error={list.isError ? `Failed to fetch ${texts.plural}: ${errorMessage(list.error, 'Unknown error')}` : null}
        onRetry={() => void list.refetch()}
        canUpdate={props.canUpdate}
        canDelete={props.canDelete}
        editing={editing}
        busyId={busyId}
        emptyText={props.emptyText}
        onEdit={(row) => setEditing({ id: row.id, draft: props.draftOf(row), errors: {} })}
        onDraft={(patch) => setEditing((e) => (e ? { ...e, draft: { ...e.draft, ...patch } } : e))}
        onCancelEdit={() => setEditing(null)}
        onSave={save}
        onDelete={(row) => setPending({ kind: 'delete', row })}
      />
      {pending && (
        <ConfirmDialog
          title={pending.kind === 'update' ? `Update ${texts.title}` : `Delete ${texts.title}`}
          message={pending.kind === 'update' ? texts.updateConfirmation : texts.deleteConfirmation}
          confirmLabel={pending.kind === 'update' ? 'Update' : 'Delete'}
          destructive={pending.kind === 'delete'}
          pending={update.isPending || remove.isPending}
          onCancel={() => setPending(null)}
          onConfirm={confirm}
        />
      )}
    </>
  );
}
