import { Badge, Box, Button, HStack, IconButton, Menu, Portal, SimpleGrid, Text } from '@chakra-ui/react';
import { DataTable, formatAmount, formatDateTime, type DataColumn, type PagerProps, type User } from '@paygate/sdk';
import type { Transaction } from '../api/types';
import type { ManualKind } from '../hooks/use-manual-action';
import { rowActionLayout, rowActions, type RowActionKey, type RowActions } from '../utils/row-actions';
import { callbackDelivery, DELIVERY_PALETTE, pollingWarning, STATUS_PALETTE, statusClass, statusLabel } from '../../../utils/status';

/** RowDialog names the dialog a row button opens. */
export type RowDialog = 'edit' | 'logs' | 'data' | 'callbacks' | 'export' | 'searchInLogs';

interface Props {
  transactions: Transaction[];
  loading: boolean;
  /** The failed load's sentence, shown in the table with Retry. */
  error: string | null;
  onRetry: () => void;
  pagination: PagerProps & { pageSize: number };
  user: User | null;
  zone: string;
  busyId: string | null;
  onDialog: (dialog: RowDialog, t: Transaction) => void;
  onManual: (kind: ManualKind, t: Transaction) => void;
}

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

function columns({ user, zone, busyId, onDialog, onManual }: Pick<Props, 'user' | 'zone' | 'busyId' | 'onDialog' | 'onManual'>): DataColumn<Transaction>[] {
  return [
    { key: 'id', header: 'ID', cell: (t) => t.id },
    {
      key: 'reference',
      header: 'Reference ID',
      headerProps: col('reference'),
      cellProps: { ...col('reference'), fontFamily: 'mono', fontSize: 'xs' },
      cell: (t) => t.transactionReferenceId,
    },
    { key: 'merchant', header: 'Merchant / Provider', headerProps: col('merchant'), cellProps: col('merchant'), cell: (t) => `${t.merchantName} / ${t.providerName}` },
    { key: 'type', header: 'Type', headerProps: col('type'), cellProps: col('type'), cell: typeLabel },
    { key: 'amount', header: 'Amount', align: 'end', cell: (t) => formatAmount(t.amount, t.currency) },
    {
      key: 'status',
      header: 'Status',
      cell: (t) => {
        const cls = statusClass(t.transactionStatus);
        // The polls badge wraps under the status when the column is narrow, so a pending row never widens the table.
        return (
          <HStack gap="1" rowGap="0.5" wrap="wrap">
            <Badge colorPalette={STATUS_PALETTE[cls]} data-status-class={cls} aria-label={`Status ${statusLabel(t.transactionStatus)}`}>
              {statusLabel(t.transactionStatus)}
            </Badge>
            <PollingMark attempts={t.pollingAttempts} />
          </HStack>
        );
      },
    },
    {
      key: 'callbacks',
      header: 'Callbacks',
      headerProps: col('callbacks'),
      cellProps: col('callbacks'),
      cell: (t) => (
        <HStack gap="1">
          <CallbackDeliveryMark tally={t.callbackDeliveryStatus} />
          {t.isCallbackSendingCanceled && (
            <Badge size="sm" colorPalette="gray" variant="outline">
              Cancelled
            </Badge>
          )}
        </HStack>
      ),
    },
    { key: 'created', header: 'Created', cellProps: { whiteSpace: 'nowrap' }, cell: (t) => formatDateTime(t.createdUtc, zone) },
    {
      key: 'actions',
      header: 'Actions',
      headerProps: STICKY_END,
      cellProps: STICKY_END,
      cell: (t) => <RowActionsCell t={t} actions={rowActions(t, user)} busy={busyId === t.id} onDialog={onDialog} onManual={onManual} />,
    },
  ];
}

function TransactionDetails({ t, zone }: { t: Transaction; zone: string }) {
  return (
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
  );
}

/** TransactionsTable lists one page of transactions with expandable rows, the row buttons of spec 02 §2 and the pager. */
export function TransactionsTable({ transactions, loading, error, onRetry, pagination, ...rest }: Props) {
  return (
    <DataTable
      label="Transactions"
      columns={columns(rest)}
      rows={transactions}
      rowKey={(t) => t.id}
      rowProps={(t) => ({ 'data-testid': `transaction-${t.id}` })}
      loading={loading}
      loadingRows={pagination.pageSize}
      empty="No transactions found"
      error={error}
      onRetry={onRetry}
      pagination={pagination}
      expansion={{
        toggleLabel: (t, expanded) => `${expanded ? 'Collapse' : 'Expand'} transaction ${t.id}`,
        detail: (t) => <TransactionDetails t={t} zone={rest.zone} />,
      }}
      tableProps={{ whiteSpace: 'nowrap', css: { '& tbody > tr > td': { py: '1' }, ...PRIORITY_CSS } }}
      frameProps={{ css: { containerType: 'inline-size', containerName: CONTAINER } }}
    />
  );
}
