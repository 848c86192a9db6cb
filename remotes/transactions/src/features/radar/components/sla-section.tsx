import { Badge, Button, Heading, HStack, Stack } from '@chakra-ui/react';
import { ConfirmDialog, DataTable, errorMessage, formatDateTime, notify, type DataColumn } from '@paygate/sdk';
import { useState } from 'react';
import { useDeleteSla } from '../api/delete-sla';
import type { RadarProvider } from '../api/get-providers';
import { useSlas } from '../api/get-slas';
import type { RadarSla } from '../api/types';
import { directionLabel, formatSeconds } from '../utils/radar';
import { SlaDialog } from './sla-dialog';

interface Props {
  zone: string;
  /** Whether the user may add, change and delete SLAs (platformSettings). */
  canEdit: boolean;
  providers: RadarProvider[];
}

/** slaLabel names an SLA in a sentence. */
export function slaLabel(s: RadarSla): string {
  return `${s.providerId ? s.providerName : 'any provider'}, ${s.payTypeId ? s.payTypeName : 'any pay type'}, ${directionLabel(s.transactionType).toLowerCase()}`;
}

/** SlaSection lists the SLAs, with Add, Edit and Delete (asked first) for those who may change them. */
export function SlaSection({ zone, canEdit, providers }: Props) {
  const slas = useSlas();
  const remove = useDeleteSla();
  const [editing, setEditing] = useState<RadarSla | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<RadarSla | null>(null);

  const columns: DataColumn<RadarSla>[] = [
    { key: 'provider', header: 'Provider', cell: (s) => (s.providerId ? s.providerName : 'Any provider') },
    { key: 'payType', header: 'Pay type', cell: (s) => (s.payTypeId ? s.payTypeName : 'Any pay type') },
    { key: 'direction', header: 'Direction', cell: (s) => directionLabel(s.transactionType) },
    {
      key: 'after',
      header: 'Overdue after',
      cell: (s) => (
        <HStack gap={2}>
          <span>{formatSeconds(s.overdueAfterSeconds)}</span>
          {s.isDefault && <Badge>Default</Badge>}
        </HStack>
      ),
    },
    { key: 'updated', header: 'Changed', cellProps: { whiteSpace: 'nowrap' }, cell: (s) => (s.updatedBy ? `${formatDateTime(s.updatedUtc, zone)} by ${s.updatedBy}` : '') },
  ];
  if (canEdit) {
    columns.push({
      key: 'actions',
      header: 'Actions',
      cell: (s) => (
        <HStack gap={1}>
          <Button size="xs" variant="outline" aria-label={`Edit SLA for ${slaLabel(s)}`} onClick={() => setEditing(s)}>
            Edit
          </Button>
          {!s.isDefault && (
            <Button size="xs" variant="outline" colorPalette="red" aria-label={`Delete SLA for ${slaLabel(s)}`} onClick={() => setDeleting(s)}>
              Delete
            </Button>
          )}
        </HStack>
      ),
    });
  }

  return (
    <Stack gap={3} as="section" aria-labelledby="radar-slas-heading">
      <HStack justify="space-between">
        <Heading size="md" id="radar-slas-heading">
          SLAs
        </Heading>
        {canEdit && (
          <Button size="sm" onClick={() => setEditing(null)}>
            Add SLA
          </Button>
        )}
      </HStack>
      <DataTable
        label="SLAs"
        columns={columns}
        rows={slas.data ?? []}
        rowKey={(s) => s.id}
        rowProps={() => ({ 'data-testid': 'sla-row' })}
        loading={slas.isPending}
        empty="No SLAs."
        error={slas.isError ? 'The SLAs could not be loaded.' : undefined}
        errorDetail={slas.isError ? errorMessage(slas.error, 'Unknown error') : undefined}
        onRetry={() => void slas.refetch()}
      />
      {editing !== undefined && <SlaDialog sla={editing} providers={providers} onClose={() => setEditing(undefined)} />}
      {deleting && (
        <ConfirmDialog
          title="Delete SLA"
          message={`Delete the SLA for ${slaLabel(deleting)}? Its transactions fall back to the next most specific SLA.`}
          confirmLabel="Delete"
          destructive
          pending={remove.isPending}
          onCancel={() => setDeleting(null)}
          onConfirm={() =>
            remove.mutate(deleting.id, {
              onSuccess: () => {
                notify.success('SLA deleted');
                setDeleting(null);
              },
              onError: (e) => notify.error('Failed to delete the SLA', errorMessage(e, 'Unknown error')),
            })
          }
        />
      )}
    </Stack>
  );
}
