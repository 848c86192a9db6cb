import { Badge, Button, EmptyState, Field, HStack, Input, Skeleton, Table } from '@chakra-ui/react';
import { callbackTypeLabel, type CallbackUrl } from '../api/types';
import { MAX_ATTEMPTS_MAX, MAX_ATTEMPTS_MIN, type CallbackDraft, type CallbackDraftErrors } from '../utils/form';
import { FlagSwitch } from '../../../components/flag-switch';
import { CallbackTypeSelect } from './callback-fields';

/** RowEdit is the row being edited, with its draft and the messages of a failed save. */
export interface RowEdit {
  id: string;
  draft: CallbackDraft;
  errors: CallbackDraftErrors;
}

interface Props {
  callbacks: CallbackUrl[];
  loading: boolean;
  /** Edit and delete are offered (the Edit Transactions permission). */
  canEdit: boolean;
  /** The collab column's header: Collab for admins, Provider for others. */
  collabHeader: string;
  collabName: (collabId: number) => string;
  editing: RowEdit | null;
  /** A save or delete is running for this row. */
  busyId: string | null;
  emptyText: string;
  onEdit: (c: CallbackUrl) => void;
  onDraft: (patch: Partial<CallbackDraft>) => void;
  onCancelEdit: () => void;
  onSave: (c: CallbackUrl) => void;
  onDelete: (c: CallbackUrl) => void;
}

const COLUMNS = 7;

const onOff = (on: boolean, yes: string, no: string) => (
  <Badge colorPalette={on ? 'green' : 'gray'} variant="subtle">
    {on ? yes : no}
  </Badge>
);

/** CallbacksTable lists callback URLs; one row at a time is edited in place. */
export function CallbacksTable(props: Props) {
  const { callbacks, loading, canEdit, collabHeader, collabName, editing, busyId, emptyText } = props;
  return (
    <Table.ScrollArea borderWidth="1px" borderRadius="md">
      <Table.Root size="sm" aria-label="Callback URLs" aria-busy={loading}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>{collabHeader}</Table.ColumnHeader>
            <Table.ColumnHeader>Callback URL</Table.ColumnHeader>
            <Table.ColumnHeader>Enabled</Table.ColumnHeader>
            <Table.ColumnHeader>Max Attempts</Table.ColumnHeader>
            <Table.ColumnHeader>Signature</Table.ColumnHeader>
            <Table.ColumnHeader>Type</Table.ColumnHeader>
            <Table.ColumnHeader>{canEdit ? 'Actions' : ''}</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {loading &&
            [0, 1, 2].map((i) => (
              <Table.Row key={`s${i}`}>
                <Table.Cell colSpan={COLUMNS}>
                  <Skeleton height="5" />
                </Table.Cell>
              </Table.Row>
            ))}
          {!loading && callbacks.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={COLUMNS}>
                <EmptyState.Root size="sm">
                  <EmptyState.Content>
                    <EmptyState.Description>{emptyText}</EmptyState.Description>
                  </EmptyState.Content>
                </EmptyState.Root>
              </Table.Cell>
            </Table.Row>
          )}
          {!loading &&
            callbacks.map((c) =>
              editing?.id === c.id ? (
                <EditRow key={c.id} {...props} row={c} edit={editing} />
              ) : (
                <Table.Row key={c.id} data-testid={`callback-${c.id}`}>
                  <Table.Cell>{collabName(c.collabId)}</Table.Cell>
                  <Table.Cell fontFamily="mono" fontSize="xs" wordBreak="break-all">
                    {c.callbackUrl}
                  </Table.Cell>
                  <Table.Cell>{onOff(c.isEnabled, 'Enabled', 'Disabled')}</Table.Cell>
                  <Table.Cell>{c.maxAttempts}</Table.Cell>
                  <Table.Cell>{onOff(c.addSignature, 'Signed', 'Unsigned')}</Table.Cell>
                  <Table.Cell>{callbackTypeLabel(c.transactionTypeId)}</Table.Cell>
                  <Table.Cell>
                    {canEdit && (
                      <HStack gap="1">
                        <Button size="xs" variant="outline" disabled={editing !== null || busyId !== null} onClick={() => props.onEdit(c)}>
                          Edit
                        </Button>
                        <Button size="xs" variant="outline" colorPalette="red" disabled={editing !== null || busyId !== null} onClick={() => props.onDelete(c)}>
                          Delete
                        </Button>
                      </HStack>
                    )}
                  </Table.Cell>
                </Table.Row>
              ),
            )}
        </Table.Body>
      </Table.Root>
    </Table.ScrollArea>
  );
}

function EditRow({ row, edit, collabName, busyId, onDraft, onCancelEdit, onSave }: Props & { row: CallbackUrl; edit: RowEdit }) {
  const { draft, errors } = edit;
  return (
    <Table.Row data-testid={`callback-${row.id}`} bg="bg.muted">
      <Table.Cell>{collabName(row.collabId)}</Table.Cell>
      <Table.Cell minW="64">
        <Field.Root invalid={!!errors.callbackUrl}>
          <Input size="xs" aria-label="Callback URL" type="url" value={draft.callbackUrl} onChange={(e) => onDraft({ callbackUrl: e.target.value })} />
          <Field.ErrorText>{errors.callbackUrl}</Field.ErrorText>
        </Field.Root>
      </Table.Cell>
      <Table.Cell>
        <FlagSwitch label="Enabled" hideLabel checked={draft.isEnabled} onChange={(on) => onDraft({ isEnabled: on })} />
      </Table.Cell>
      <Table.Cell w="28">
        <Field.Root invalid={!!errors.maxAttempts}>
          <Input
            size="xs"
            aria-label="Max attempts"
            type="number"
            min={MAX_ATTEMPTS_MIN}
            max={MAX_ATTEMPTS_MAX}
            value={draft.maxAttempts}
            onChange={(e) => onDraft({ maxAttempts: e.target.value })}
          />
          <Field.ErrorText>{errors.maxAttempts}</Field.ErrorText>
        </Field.Root>
      </Table.Cell>
      <Table.Cell>
        <FlagSwitch label="Add signature" hideLabel checked={draft.addSignature} onChange={(on) => onDraft({ addSignature: on })} />
      </Table.Cell>
      <Table.Cell w="32">
        <CallbackTypeSelect value={draft.transactionTypeId} onChange={(t) => onDraft({ transactionTypeId: t })} />
      </Table.Cell>
      <Table.Cell>
        <HStack gap="1">
          <Button size="xs" colorPalette="blue" loading={busyId === row.id} onClick={() => onSave(row)}>
            Save
          </Button>
          <Button size="xs" variant="outline" disabled={busyId === row.id} onClick={onCancelEdit}>
            Cancel
          </Button>
        </HStack>
      </Table.Cell>
    </Table.Row>
  );
}
