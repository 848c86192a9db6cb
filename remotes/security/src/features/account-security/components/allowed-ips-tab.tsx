import { Button, EmptyState, Field, HStack, Input, NativeSelect, Stack } from '@chakra-ui/react';
import type { AllowedIpJson } from '@paygate/gen/auth/v1/allowed_ips_pb';
import { ConfirmDialog, DataTable, errorMessage, notify, type DataColumn } from '@paygate/sdk';
import { useEffect, useState } from 'react';
import { useDebouncedValue } from '../../../hooks/use-debounced-value';
import { fieldErrors, type FieldErrors } from '../../../utils/field-errors';
import { useDeleteAllowedIp } from '../api/delete-allowed-ip';
import { useUserAllowedIps } from '../api/get-user-allowed-ips';
import { updateAllowedIpInput, useUpdateAllowedIp, type UpdateAllowedIpInput } from '../api/update-allowed-ip';
import { useUserOptions, type UserOption } from '../hooks/use-user-options';
import { AddAllowedIpDialog } from './add-allowed-ip-dialog';

type EditFields = 'name' | 'fromIP' | 'toIP';
interface RowEdit {
  id: string;
  draft: Record<EditFields, string>;
  errors: FieldErrors<EditFields>;
}

type Confirm = { kind: 'update'; input: UpdateAllowedIpInput } | { kind: 'delete'; row: AllowedIpJson };

const failure = (err: unknown) => errorMessage(err, 'Unknown error');

/** AllowedIpsTab manages the allowed IP ranges of a chosen user (spec 02 "Account Security", Allow IP). */
export function AllowedIpsTab() {
  const [filter, setFilter] = useState('');
  const search = useDebouncedValue(filter.trim(), 300);
  const users = useUserOptions(search);
  const [selected, setSelected] = useState<UserOption | null>(null);
  const [searched, setSearched] = useState<UserOption | null>(null);
  const [adding, setAdding] = useState(false);
  const [editing, setEditing] = useState<RowEdit | null>(null);
  const [confirm, setConfirm] = useState<Confirm | null>(null);

  const list = useUserAllowedIps(searched?.id ?? null);
  const update = useUpdateAllowedIp();
  const remove = useDeleteAllowedIp();
  const rows = list.data ?? [];

  useEffect(() => {
    if (list.isError) notify.error(`Failed to fetch IP restrictions: ${failure(list.error)}`);
  }, [list.isError, list.error, list.errorUpdatedAt]);

  // The chosen user stays choosable while the filter hides them.
  const options = selected && !users.options.some((u) => u.id === selected.id) ? [selected, ...users.options] : users.options;

  function runSearch() {
    if (!selected) {
      notify.warning('Please select a user first');
      return;
    }
    setEditing(null);
    if (searched?.id === selected.id) void list.refetch();
    else setSearched(selected);
  }

  function clear() {
    setFilter('');
    setSelected(null);
    setSearched(null);
    setEditing(null);
  }

  function saveRow(row: AllowedIpJson) {
    if (!editing || !searched) return;
    const parsed = updateAllowedIpInput.safeParse({ id: row.id ?? '', userId: row.userId || searched.id, ...editing.draft });
    if (!parsed.success) {
      setEditing({ ...editing, errors: fieldErrors<EditFields>(parsed.error) });
      return;
    }
    setConfirm({ kind: 'update', input: parsed.data });
  }

  function runConfirmed(c: Confirm) {
    if (c.kind === 'update') {
      update.mutate(c.input, {
        onSuccess: () => {
          notify.success('IP restriction updated');
          setEditing(null);
          setConfirm(null);
        },
        onError: (err) => {
          setConfirm(null);
          notify.error(`Failed to update IP restriction: ${failure(err)}`);
        },
      });
      return;
    }
    remove.mutate(
      { id: c.row.id ?? '', userId: c.row.userId || searched?.id || '' },
      {
        onSuccess: () => {
          notify.success('IP restriction deleted');
          setConfirm(null);
        },
        onError: (err) => {
          setConfirm(null);
          notify.error(`Failed to delete IP restriction: ${failure(err)}`);
        },
      },
    );
  }

  const setDraft = (patch: Partial<RowEdit['draft']>) =>
    setEditing((e) => {
      if (!e) return e;
      const errors = { ...e.errors };
      for (const k of Object.keys(patch) as EditFields[]) delete errors[k];
      return { ...e, draft: { ...e.draft, ...patch }, errors };
    });

  const busy = update.isPending || remove.isPending;

  const edit = (row: AllowedIpJson) => (editing !== null && editing.id === row.id ? editing : null);
  const field = (name: EditFields, label: string): DataColumn<AllowedIpJson> => ({
    key: name,
    header: label,
    cellProps: (row) => (edit(row) || name === 'name' ? {} : { fontFamily: 'mono' }),
    cell: (row) => {
      const e = edit(row);
      if (!e) return row[name];
      return (
        <Field.Root invalid={!!e.errors[name]}>
          <Input size="xs" aria-label={label} value={e.draft[name]} onChange={(ev) => setDraft({ [name]: ev.target.value })} />
          <Field.ErrorText>{e.errors[name]}</Field.ErrorText>
        </Field.Root>
      );
    },
  });
  const columns: DataColumn<AllowedIpJson>[] = [
    { key: 'id', header: 'ID', cell: (row) => row.id },
    field('name', 'Name'),
    field('fromIP', 'From IP'),
    field('toIP', 'To IP'),
    {
      key: 'actions',
      header: 'Actions',
      cell: (row) =>
        edit(row) ? (
          <HStack gap={1}>
            <Button size="xs" colorPalette="blue" loading={update.isPending} onClick={() => saveRow(row)}>
              Save
            </Button>
            <Button size="xs" variant="outline" disabled={update.isPending} onClick={() => setEditing(null)}>
              Cancel
            </Button>
          </HStack>
        ) : (
          <HStack gap={1}>
            <Button
              size="xs"
              variant="outline"
              aria-label={`Edit ${row.name ?? ''}`}
              disabled={editing !== null || busy}
              onClick={() => setEditing({ id: row.id ?? '', draft: { name: row.name ?? '', fromIP: row.fromIP ?? '', toIP: row.toIP ?? '' }, errors: {} })}
            >
              Edit
            </Button>
            <Button size="xs" variant="outline" colorPalette="red" aria-label={`Delete ${row.name ?? ''}`} disabled={editing !== null || busy} onClick={() => setConfirm({ kind: 'delete', row })}>
              Delete
            </Button>
          </HStack>
        ),
    },
  ];

  return (
    <Stack gap={4}>
      <HStack wrap="wrap" gap={3} align="end">
        <Field.Root w="56">
          <Field.Label>Filter users</Field.Label>
          <Input size="sm" type="search" placeholder="Type to filter users" value={filter} onChange={(e) => setFilter(e.target.value)} />
        </Field.Root>
        <Field.Root w="64">
          <Field.Label>User</Field.Label>
          <NativeSelect.Root size="sm" disabled={users.loading && options.length === 0}>
            <NativeSelect.Field
              value={selected?.id ?? ''}
              onChange={(e) => setSelected(options.find((u) => u.id === e.target.value) ?? null)}
            >
              <option value="">Select a user</option>
              {options.map((u) => (
                <option key={u.id} value={u.id}>
                  {u.username}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Button size="sm" variant="outline" onClick={clear}>
          Clear
        </Button>
        <Button size="sm" colorPalette="blue" loading={list.isFetching} onClick={runSearch}>
          Search
        </Button>
        <Button size="sm" colorPalette="green" onClick={() => setAdding(true)}>
          Add
        </Button>
      </HStack>
      {users.failed && <Field.Root invalid><Field.ErrorText>Failed to load users: {failure(users.error)}</Field.ErrorText></Field.Root>}

      {!searched ? (
        <EmptyState.Root size="sm" borderWidth="1px" borderRadius="md">
          <EmptyState.Content>
            <EmptyState.Title>Select a User</EmptyState.Title>
            <EmptyState.Description>Choose a user and press Search to see their IP restrictions.</EmptyState.Description>
          </EmptyState.Content>
        </EmptyState.Root>
      ) : (
        <DataTable
          label={`IP restrictions of ${searched.username}`}
          columns={columns}
          rows={rows}
          rowKey={(row) => row.id ?? ''}
          rowProps={(row) => (editing?.id === row.id ? { bg: 'bg.muted' } : {})}
          loading={list.isPending}
          loadingRows={2}
          empty="No IP Restrictions"
          emptyDetail={`${searched.username} may sign in from any address.`}
          error={list.isError && 'The IP restrictions could not be loaded.'}
          errorDetail={failure(list.error)}
          onRetry={() => void list.refetch()}
          retrying={list.isFetching}
        />
      )}

      {adding && <AddAllowedIpDialog users={options} initialUserId={selected?.id ?? null} onClose={() => setAdding(false)} />}
      {confirm && (
        <ConfirmDialog
          title={confirm.kind === 'update' ? 'Update IP Restriction' : 'Delete IP Restriction'}
          message={
            confirm.kind === 'update'
              ? `Save the changes to ${confirm.input.name} (${confirm.input.fromIP} – ${confirm.input.toIP})?`
              : `Delete the IP restriction ${confirm.row.name ?? ''} (${confirm.row.fromIP ?? ''} – ${confirm.row.toIP ?? ''})?`
          }
          confirmLabel={confirm.kind === 'update' ? 'Update' : 'Delete'}
          destructive={confirm.kind === 'delete'}
          pending={busy}
          onCancel={() => setConfirm(null)}
          onConfirm={() => runConfirmed(confirm)}
        />
      )}
    </Stack>
  );
}
