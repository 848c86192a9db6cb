import '@paygate/devkit/testing/pointer-event';
import { screen, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import { withRemote } from '@paygate/devkit/testing';
import { GATEWAY } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import type { TransactionListWire, TransactionWire } from '../features/transactions/api/types';
import transactionsRoutes from '../routes';

/** transactionsLoader serves the real transactions remote and stubs the others. */
export function transactionsLoader() {
  return withRemote(transactionsRoutes);
}

/** A merchant admin of merchant 1 (role grants include Edit Transactions). */
export const MERCHANT_ADMIN: TestUser = { username: 'madmin', roles: ['Merchant Admin'], merchantIds: [1] };

/** A merchant admin of merchant 1 whose grants leave out Edit Transactions (Edit Collab opens Callbacks and Validation Endpoints). */
export const READ_ONLY_MERCHANT_ADMIN: TestUser = { username: 'viewer', roles: ['Merchant Admin'], permissions: ['Get Transactions', 'Get Providers', 'Edit Collab'], merchantIds: [1] };

/** The demo merchants of docs/contracts.md. */
export const MERCHANTS = [
  { id: 1, name: 'Acme Games', hash: 'hash-acme' },
  { id: 2, name: 'Blue Harbor Shop', hash: 'hash-blue' },
];

const GCASH = { id: 1, name: 'GCash', code: 'GCASH', cashIn: true, cashOut: true };
const BANK = { id: 4, name: 'Bank Transfer', code: 'BANK', cashIn: false, cashOut: true };

/** Demo providers with their pay types. */
export const PROVIDERS = [
  { id: 1, name: 'GoVip', isEnabled: true, payTypes: [GCASH] },
  { id: 3, name: 'FbPay', isEnabled: true, payTypes: [GCASH, BANK] },
];

/** Demo collabs (merchant × provider). */
export const COLLABS = [
  { id: 1, merchant: { id: 1, name: 'Acme Games' }, provider: { id: 1, name: 'GoVip' } },
  { id: 3, merchant: { id: 2, name: 'Blue Harbor Shop' }, provider: { id: 3, name: 'FbPay' } },
];

/** tx builds a transaction on the wire. */
export function tx(id: number, over: Partial<TransactionWire> = {}): TransactionWire {
  return {
    id: String(id),
    transactionReferenceId: `ref-${id}`,
    merchantClientId: `client-${id}`,
    nonce: `nonce-${id}`,
    amount: '100.00',
    currency: 'PHP',
    transactionType: 1,
    transactionStatus: 3,
    merchantName: 'Acme Games',
    providerName: 'GoVip',
    providerPayType: 'GCASH',
    createdUtc: '2026-11-21T10:00:00Z',
    updatedUtc: '2026-11-21T10:00:05Z',
    collabId: 1,
    ...over,
  };
}

/** page wraps transactions in a list answer. */
export function page(transactions: TransactionWire[], over: Partial<TransactionListWire> = {}): TransactionListWire {
  return { transactions, totalCount: transactions.length, totalPages: transactions.length ? 1 : 0, currentPage: 1, totalAmounts: {}, ...over };
}

/** Requests the handlers saw, for assertions. */
export interface Seen {
  lists: URL[];
}

/** baseHandlers answer what every screen of this remote reads: merchants, providers and collabs. */
export function baseHandlers() {
  return [
    http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS)),
    http.get(`${GATEWAY}/api/v1/providers`, () => HttpResponse.json(PROVIDERS)),
    http.get(`${GATEWAY}/api/v1/merchant-collabs`, () => HttpResponse.json({ collabs: COLLABS })),
    http.get(`${GATEWAY}/api/v1/merchants/:id/callbacks/health`, () => HttpResponse.json({ endpoints: [] })),
    // The Callbacks page's API secrets section (issue 30).
    http.get(`${GATEWAY}/api/v1/merchants/:id/secrets`, () => HttpResponse.json([])),
  ];
}

/**
 * listHandlers answers the Transactions page's reads; `list` decides each
 * list answer, and one transaction is read from it. A transaction has no
 * validation results unless a test says otherwise.
 */
export function listHandlers(list: (url: URL) => TransactionListWire = () => page([tx(11), tx(12, { transactionType: 2, transactionStatus: 4 })]), seen?: Seen) {
  return [
    ...baseHandlers(),
    http.get(`${GATEWAY}/api/v1/transactions/:id/validation`, () => HttpResponse.json([])),
    // One transaction as the list has it (the Edit dialog reads it afresh).
    http.get(`${GATEWAY}/api/v1/transactions/:id`, ({ params }) => {
      const found = list(new URL(`${GATEWAY}/api/v1/collabs/0/transactions/advanced`)).transactions?.find((t) => t.id === params.id);
      return found ? HttpResponse.json(found) : HttpResponse.json({ code: 'not_found', message: `Transaction ${String(params.id)} was not found.` }, { status: 404 });
    }),
    http.get(`${GATEWAY}/api/v1/collabs/:id/transactions/advanced`, ({ request }) => {
      const url = new URL(request.url);
      seen?.lists.push(url);
      return HttpResponse.json(list(url));
    }),
  ];
}

/**
 * runRowAction takes one of a row's actions by its name: a button of the row
 * when it is one, otherwise the item of the row's "More actions" menu.
 */
export async function runRowAction(user: UserEvent, id: number | string, name: string) {
  const row = screen.getByTestId(`transaction-${id}`);
  const button = within(row).queryByRole('button', { name });
  if (button) {
    await user.click(button);
    return;
  }
  await user.click(within(row).getByRole('button', { name: `More actions for transaction ${id}` }));
  const menu = await screen.findByRole('menu', { name: `More actions for transaction ${id}` });
  const item = within(menu).getByRole('menuitem', { name });
  // Press and release as two steps, as a hand does: the menu highlights the
  // item on press and selects the highlighted item on click; one synthetic
  // click can reach it before the highlight is applied.
  await user.pointer({ keys: '[MouseLeft>]', target: item });
  await user.pointer({ keys: '[/MouseLeft]', target: item });
}

/** rowMenuItems opens a row's "More actions" menu and names its items. */
export async function rowMenuItems(user: UserEvent, id: number | string): Promise<string[]> {
  const row = screen.getByTestId(`transaction-${id}`);
  await user.click(within(row).getByRole('button', { name: `More actions for transaction ${id}` }));
  const menu = await screen.findByRole('menu', { name: `More actions for transaction ${id}` });
  const names = within(menu).getAllByRole('menuitem').map((m) => m.textContent ?? '');
  await user.keyboard('{Escape}');
  return names;
}
