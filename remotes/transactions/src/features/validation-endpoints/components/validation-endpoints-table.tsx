import { Badge, Button, EmptyState, Field, HStack, Input, NativeSelect, Skeleton, Table } from '@chakra-ui/react';
import { collabLabel, type CollabOption } from '../../../api/get-collabs';
import { FlagSwitch } from '../../../components/flag-switch';
import type { ValidationEndpoint } from '../api/types';
import { PRIORITY_MAX, PRIORITY_MIN, type EndpointDraft, type EndpointDraftErrors } from '../utils/form';

/** EndpointEdit is the row being edited, with its draft and the messages of a failed save. */
export interface EndpointEdit {
  id: string;
  draft: EndpointDraft;
  errors: EndpointDraftErrors;
}

interface Props {
  endpoints: ValidationEndpoint[];
  loading: boolean;
  admin: boolean;
  collabs: readonly CollabOption[];
  editing: EndpointEdit | null;
  busyId: string | null;
  emptyText: string;
  onEdit: (e: ValidationEndpoint) => void;
  onDraft: (patch: Partial<EndpointDraft>) => void;
  onCancelEdit: () => void;
  onSave: (e: ValidationEndpoint) => void;
  onDelete: (e: ValidationEndpoint) => void;
}

const COLUMNS = 7;

const flag = (on: boolean) => (
  <Badge colorPalette={on ? 'green' : 'gray'} variant="subtle">
    {on ? 'Yes' : 'No'}
  </Badge>
);

/** ValidationEndpointsTable lists a collab's endpoints; one row at a time is edited in place. */
export function ValidationEndpointsTable(props: Props) {
  const { endpoints, loading, admin, collabs, editing, busyId, emptyText } = props;
  const name = (id: number) => {
    const c = collabs.find((x) => x.id === id);
    return c ? collabLabel(c, admin) : `Collab ${id}`;
  };
  return (
    <Table.ScrollArea borderWidth="1px" borderRadius="md">
      <Table.Root size="sm" aria-label="Validation endpoints" aria-busy={loading}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader>{admin ? 'Collab' : 'Provider'}</Table.ColumnHeader>
            <Table.ColumnHeader>Endpoint URL</Table.ColumnHeader>
            <Table.ColumnHeader>Priority</Table.ColumnHeader>
            <Table.ColumnHeader>Awaitable</Table.ColumnHeader>
            <Table.ColumnHeader>Cash In</Table.ColumnHeader>
            <Table.ColumnHeader>Cash Out</Table.ColumnHeader>
            <Table.ColumnHeader>Actions</Table.ColumnHeader>
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
          {!loading && endpoints.length === 0 && (
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
            endpoints.map((e) =>
              editing?.id === e.id ? (
                <EditRow key={e.id} {...props} row={e} edit={editing} />
              ) : (
                <Table.Row key={e.id} data-testid={`endpoint-${e.id}`}>
                  <Table.Cell>{name(e.collabId)}</Table.Cell>
                  <Table.Cell fontFamily="mono" fontSize="xs" wordBreak="break-all">
                    {e.url}
                  </Table.Cell>
                  <Table.Cell>{e.priority}</Table.Cell>
                  <Table.Cell>{flag(e.awaitable)}</Table.Cell>
                  <Table.Cell>{flag(e.forCashIn)}</Table.Cell>
                  <Table.Cell>{flag(e.forCashOut)}</Table.Cell>
                  <Table.Cell>
                    <HStack gap="1">
                      <Button size="xs" variant="outline" disabled={editing !== null || busyId !== null} onClick={() => props.onEdit(e)}>
                        Edit
                      </Button>
                      <Button size="xs" variant="outline" colorPalette="red" disabled={editing !== null || busyId !== null} onClick={() => props.onDelete(e)}>
                        Delete
                      </Button>
                    </HStack>
                  </Table.Cell>
                </Table.Row>
              ),
            )}
        </Table.Body>
      </Table.Root>
    </Table.ScrollArea>
  );
}

function EditRow({ row, edit, admin, collabs, busyId, onDraft, onCancelEdit, onSave }: Props & { row: ValidationEndpoint; edit: EndpointEdit }) {
  const { draft, errors } = edit;
  return (
    <Table.Row data-testid={`endpoint-${row.id}`} bg="bg.muted">
      <Table.Cell minW="48">
        <Field.Root invalid={!!errors.collabId}>
          <NativeSelect.Root size="xs">
            <NativeSelect.Field aria-label="Collaboration" value={draft.collabId ?? ''} onChange={(e) => onDraft({ collabId: e.target.value ? Number(e.target.value) : null })}>
              <option value="">Select a collaboration</option>
              {collabs.map((c) => (
                <option key={c.id} value={c.id}>
                  {collabLabel(c, admin)}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
          <Field.ErrorText>{errors.collabId}</Field.ErrorText>
        </Field.Root>
      </Table.Cell>
      <Table.Cell minW="64">
        <Field.Root invalid={!!errors.url}>
          <Input size="xs" aria-label="Endpoint URL" type="url" value={draft.url} onChange={(e) => onDraft({ url: e.target.value })} />
          <Field.ErrorText>{errors.url}</Field.ErrorText>
        </Field.Root>
      </Table.Cell>
      <Table.Cell w="28">
        <Field.Root invalid={!!errors.priority}>
          <Input size="xs" aria-label="Priority" type="number" min={PRIORITY_MIN} max={PRIORITY_MAX} value={draft.priority} onChange={(e) => onDraft({ priority: e.target.value })} />
          <Field.ErrorText>{errors.priority}</Field.ErrorText>
        </Field.Root>
      </Table.Cell>
      <Table.Cell>
        <FlagSwitch label="Awaitable" hideLabel checked={draft.awaitable} onChange={(on) => onDraft({ awaitable: on })} />
      </Table.Cell>
      <Table.Cell>
        <FlagSwitch label="Cash In" hideLabel checked={draft.forCashIn} onChange={(on) => onDraft({ forCashIn: on })} />
      </Table.Cell>
      <Table.Cell>
        <FlagSwitch label="Cash Out" hideLabel checked={draft.forCashOut} onChange={(on) => onDraft({ forCashOut: on })} />
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
