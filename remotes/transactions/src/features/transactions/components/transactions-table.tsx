import { Badge, Box, Button, HStack, IconButton, Menu, Portal, SimpleGrid, Skeleton, Table, Text } from '@chakra-ui/react';
import { formatAmount, formatDateTime, type User } from '@paygate/sdk';
import { Fragment, useState } from 'react';
import type { Transaction } from '../api/types';
import type { ManualKind } from '../hooks/use-manual-action';
import { rowActionLayout, rowActions, type RowActionKey, type RowActions } from '../utils/row-actions';
import { callbackDelivery, DELIVERY_PALETTE, pollingWarning, STATUS_PALETTE, statusClass, statusLabel } from '../utils/status';

/** RowDialog names the dialog a row button opens. */
export type RowDialog = 'edit' | 'logs' | 'data' | 'callbacks' | 'export' | 'searchInLogs';

interface Props {
  transactions: Transaction[];
  loading: boolean;
  pageSize: number;
  user: User | null;
  zone: string;
  busyId: string | null;
  onDialog: (dialog: RowDialog, t: Transaction) => void;
  onManual: (kind: ManualKind, t: Transaction) => void;
}

const COLUMNS = 10;

/**
 * The columns a narrow table leaves out, lowest priority first, with the
 * table width (px) below which each is hidden. ID, Amount, Status, Created
 * and Actions always stay; a hidden column's value is in the row's details.
 * The widths are the table's own (a container query), so they hold whatever
 * the sidebar takes: at 1,024 px wide the table keeps only the columns that
 * always stay.
 */
export const OPTIONAL_COLUMNS = [
  { key: 'type', hideBelow: 1190 },
  { key: 'merchant', hideBelow: 1115 },
  { key: 'callbacks', hideBelow: 955 },
  { key: 'reference', hideBelow: 880 },
] as const;
type OptionalColumn = (typeof OPTIONAL_COLUMNS)[number]['key'];

const CONTAINER = 'transactions-table';

/**
 * A hidden column's cells disappear; its detail in the expanded row appears
 * only while the column is hidden (the callback tally is always among the
 * details).
 */
const PRIORITY_CSS = Object.fromEntries(
  OPTIONAL_COLUMNS.flatMap(({ key, hideBelow }) => [
    [`@container ${CONTAINER} (width < ${hideBelow}px)`, { [`& [data-column="${key}"]`]: { display: 'none' } }],
    [`@container ${CONTAINER} (width >= ${hideBelow}px)`, { [`& [data-column-detail="${key}"]`]: { display: 'none' } }],
  ]),
);

/** col marks a cell (or detail) of an optional column. */
const col = (key: OptionalColumn) => ({ 'data-column': key });

/** The Actions column stays in view at the right edge while a narrow screen scrolls the table sideways. */
const STICKY_END = { position: 'sticky', insetInlineEnd: 0, bg: 'bg', zIndex: 1, boxShadow: 'inset 1px 0 0 var(--chakra-colors-border)' } as const;
const FEE_TYPES = ['None', 'Percent', 'Fixed'];

/** CallbackDeliveryMark shows the callback tally as "x a/b" (spec 02 §2) with a sentence for assistive technology. */
export function CallbackDeliveryMark({ tally }: { tally: string }) {
  const d = callbackDelivery(tally);
  return (
    <Text as="span" whiteSpace="nowrap" role="img" aria-label={d.label} data-delivery={d.state} color={`${DELIVERY_PALETTE[d.state]}.fg`} fontSize="sm">
      <span aria-hidden>
        {d.mark} {d.figures}
      </span>
    </Text>
  );
}

/**
 * PollingMark shows how often the gateway polled the provider for the
 * status; above 10 attempts it is highlighted as a warning (spec 02 §2).
 */
export function PollingMark({ attempts }: { attempts: number }) {
  if (attempts <= 0) return null;
  const warn = pollingWarning(attempts);
  return (
    <Badge
      size="sm"
      variant={warn ? 'surface' : 'outline'}
      colorPalette={warn ? 'orange' : 'gray'}
      whiteSpace="nowrap"
      data-polling-warning={warn}
      aria-label={`Polling attempts: ${attempts}${warn ? ', more than 10' : ''}`}
      title={warn ? 'More than 10 status polls: check the provider' : 'Status polls'}
    >
      {warn ? '⚠ ' : ''}
      {attempts} polls
    </Badge>
  );
}

interface RowActionsCellProps {
  t: Transaction;
  actions: RowActions;
  busy: boolean;
  onDialog: (dialog: RowDialog, t: Transaction) => void;
  onManual: (kind: ManualKind, t: Transaction) => void;
}

/**
 * RowActionsCell keeps a row one line high: the first two actions are
 * buttons, every other action the user may take is in the row's menu.
 */
function RowActionsCell({ t, actions, busy, onDialog, onManual }: RowActionsCellProps) {
  const { inline, menu } = rowActionLayout(actions);
  const run = (key: RowActionKey) => {
    if (key === 'markFailed') onManual('cancel', t);
    else if (key === 'markSuccess') onManual('load', t);
    else onDialog(key, t);
  };
  const manual = (key: RowActionKey) => key === 'markFailed' || key === 'markSuccess';
  return (
    <HStack gap="1" wrap="nowrap">
      {inline.map((a) => (
        <Button key={a.key} size="2xs" variant="outline" onClick={() => run(a.key)}>
          {a.label}
        </Button>
      ))}
      {menu.length > 0 && (
        <Menu.Root>
          <Menu.Trigger asChild>
            <IconButton size="2xs" variant="ghost" aria-label={`More actions for transaction ${t.id}`}>
              ⋯
            </IconButton>
          </Menu.Trigger>
          <Portal>
            <Menu.Positioner>
              <Menu.Content>
                {menu.map((a) => (
                  <Menu.Item
                    key={a.key}
                    value={a.key}
                    onSelect={() => run(a.key)}
                    disabled={manual(a.key) && busy}
                    color={a.key === 'markFailed' ? 'red.fg' : a.key === 'markSuccess' ? 'green.fg' : undefined}
                  >
                    {a.label}
                  </Menu.Item>
                ))}
              </Menu.Content>
            </Menu.Positioner>
          </Portal>
        </Menu.Root>
      )}
    </HStack>
  );
}

const typeLabel = (t: Pick<Transaction, 'transactionType'>) => (t.transactionType === 2 ? 'Withdrawal' : 'Deposit');

function Detail({ label, value, column }: { label: string; value: string; column?: OptionalColumn }) {
  return (
    <Box data-column-detail={column}>
      <Text fontSize="xs" color="fg.muted">
        {label}
      </Text>
      <Text fontSize="sm" wordBreak="break-all">
        {value || '-'}
      </Text>
    </Box>
  );
}

/** TransactionsTable lists one page of transactions with expandable rows and the row buttons of spec 02 §2. */
export function TransactionsTable({ transactions, loading, pageSize, user, zone, busyId, onDialog, onManual }: Props) {
  const [open, setOpen] = useState<Set<string>>(new Set());
  const toggle = (id: string) => {
    const next = new Set(open);
    if (next.has(id)) next.delete(id);
    else next.add(id);
    setOpen(next);
  };

  return (
    <Table.ScrollArea borderWidth="1px" borderRadius="md" css={{ containerType: 'inline-size', containerName: CONTAINER }}>
      <Table.Root size="sm" aria-label="Transactions" aria-busy={loading} whiteSpace="nowrap" css={{ '& tbody > tr > td': { py: '1' }, ...PRIORITY_CSS }}>
        <Table.Header>
          <Table.Row>
            <Table.ColumnHeader w="8" />
            <Table.ColumnHeader>ID</Table.ColumnHeader>
            <Table.ColumnHeader {...col('reference')}>Reference ID</Table.ColumnHeader>
            <Table.ColumnHeader {...col('merchant')}>Merchant / Provider</Table.ColumnHeader>
            <Table.ColumnHeader {...col('type')}>Type</Table.ColumnHeader>
            <Table.ColumnHeader textAlign="end">Amount</Table.ColumnHeader>
            <Table.ColumnHeader>Status</Table.ColumnHeader>
            <Table.ColumnHeader {...col('callbacks')}>Callbacks</Table.ColumnHeader>
            <Table.ColumnHeader>Created</Table.ColumnHeader>
            <Table.ColumnHeader {...STICKY_END}>Actions</Table.ColumnHeader>
          </Table.Row>
        </Table.Header>
        <Table.Body>
          {loading && transactions.length === 0 &&
            Array.from({ length: pageSize }, (_, i) => (
              <Table.Row key={`s${i}`}>
                <Table.Cell colSpan={COLUMNS}>
                  <Skeleton height="5" />
                </Table.Cell>
              </Table.Row>
            ))}
          {!loading && transactions.length === 0 && (
            <Table.Row>
              <Table.Cell colSpan={COLUMNS}>
                <Text textAlign="center" py="4" color="fg.muted">
                  No transactions found
                </Text>
              </Table.Cell>
            </Table.Row>
          )}
          {transactions.map((t) => {
            const actions = rowActions(t, user);
            const expanded = open.has(t.id);
            const cls = statusClass(t.transactionStatus);
            return (
              <Fragment key={t.id}>
                <Table.Row data-testid={`transaction-${t.id}`}>
                  <Table.Cell>
                    <IconButton size="2xs" variant="ghost" aria-label={`${expanded ? 'Collapse' : 'Expand'} transaction ${t.id}`} aria-expanded={expanded} onClick={() => toggle(t.id)}>
                      {expanded ? '▾' : '▸'}
                    </IconButton>
                  </Table.Cell>
                  <Table.Cell>{t.id}</Table.Cell>
                  <Table.Cell {...col('reference')} fontFamily="mono" fontSize="xs">
                    {t.transactionReferenceId}
                  </Table.Cell>
                  <Table.Cell {...col('merchant')}>
                    {t.merchantName} / {t.providerName}
                  </Table.Cell>
                  <Table.Cell {...col('type')}>{typeLabel(t)}</Table.Cell>
                  <Table.Cell textAlign="end">{formatAmount(t.amount, t.currency)}</Table.Cell>
                  <Table.Cell>
                    <HStack gap="1">
                      <Badge colorPalette={STATUS_PALETTE[cls]} data-status-class={cls} aria-label={`Status ${statusLabel(t.transactionStatus)}`}>
                        {statusLabel(t.transactionStatus)}
                      </Badge>
                      <PollingMark attempts={t.pollingAttempts} />
                    </HStack>
                  </Table.Cell>
                  <Table.Cell {...col('callbacks')}>
                    <HStack gap="1">
                      <CallbackDeliveryMark tally={t.callbackDeliveryStatus} />
                      {t.isCallbackSendingCanceled && (
                        <Badge size="sm" colorPalette="gray" variant="outline">
                          Cancelled
                        </Badge>
                      )}
                    </HStack>
                  </Table.Cell>
                  <Table.Cell whiteSpace="nowrap">{formatDateTime(t.createdUtc, zone)}</Table.Cell>
                  <Table.Cell {...STICKY_END}>
                    <RowActionsCell t={t} actions={actions} busy={busyId === t.id} onDialog={onDialog} onManual={onManual} />
                  </Table.Cell>
                </Table.Row>
                {expanded && (
                  <Table.Row>
                    <Table.Cell colSpan={COLUMNS} bg="bg.muted" whiteSpace="normal">
                      <SimpleGrid columns={{ base: 2, md: 4 }} gap="3" p="2" aria-label={`Details of transaction ${t.id}`}>
                        <Detail column="reference" label="Reference ID" value={t.transactionReferenceId} />
                        <Detail column="merchant" label="Merchant / Provider" value={`${t.merchantName} / ${t.providerName}`} />
                        <Detail column="type" label="Type" value={typeLabel(t)} />
                        <Detail label="Nonce" value={t.nonce} />
                        <Detail label="Merchant Client ID" value={t.merchantClientId} />
                        <Detail label="Provider TID" value={t.providerTransactionId} />
                        <Detail label="Pay Type" value={t.providerPayType} />
                        <Detail label="Status Message" value={t.transactionStatusMessage} />
                        <Detail label="Error" value={t.errorMessage} />
                        <Detail label="Payment Method" value={t.paymentMethodValue} />
                        <Detail label="Payment IP" value={t.paymentIpAddress} />
                        <Detail label="Destination" value={t.destinationAmount ? `${t.destinationAmount} ${t.destinationCurrency}` : ''} />
                        <Detail
                          label="Fee"
                          value={t.appliedFeeType ? `${FEE_TYPES[t.appliedFeeType] ?? ''} ${t.appliedFeeValue} → ${t.appliedFeeAmount} ${t.appliedFeeCurrency} (${t.appliedFeePayer === 1 ? 'client fee' : 'merchant fee'})` : ''}
                        />
                        <Detail label="Callbacks" value={`${callbackDelivery(t.callbackDeliveryStatus).figures} delivered${t.isCallbackSendingCanceled ? ', sending cancelled' : ''}`} />
                        <Detail label="Polling Attempts" value={String(t.pollingAttempts)} />
                        <Detail label="Updated" value={t.updatedUtc ? formatDateTime(t.updatedUtc, zone) : ''} />
                      </SimpleGrid>
                    </Table.Cell>
                  </Table.Row>
                )}
              </Fragment>
            );
          })}
        </Table.Body>
      </Table.Root>
    </Table.ScrollArea>
  );
}
