import { screen, waitFor } from '@testing-library/react';
import type { ExportWizardProps } from '@paygate/sdk';
import { renderApp, type LocalModules } from '@paygate/devkit/testing';
import { server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it, vi } from 'vitest';
import { listHandlers, rowMenuItems, runRowAction, transactionsLoader, type Seen } from '../../../testing/fixtures';

const SUPPORT_WITHOUT_FILES: TestUser = { username: 'msupport', roles: ['Merchant Support'], merchantIds: [1] };

/** A stand-in for the files remote's wizard that shows what it was opened with. */
function wizardModule(opened: ExportWizardProps[]) {
  return async () => ({
    default: (props: ExportWizardProps) => {
      opened.push(props);
      return (
        <div role="dialog" aria-label="Export Transactions">
          <button type="button" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      );
    },
  });
}

function renderPage(path: string, user: TestUser, modules?: LocalModules) {
  return renderApp(path, { user, loader: transactionsLoader(), modules });
}

describe('Export button of the Transactions page (spec 02 §2, §6: files-access)', () => {
  it('is shown to a user with Files Access only', async () => {
    server.use(...listHandlers());
    renderPage('/transactions', { username: 'merchant', roles: ['Merchant'], merchantIds: [1] });
    expect(await screen.findByTestId('transaction-11', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Export' })).toBeInTheDocument();
  });

  it('is hidden from a user without Files Access', async () => {
    server.use(...listHandlers());
    renderPage('/transactions', SUPPORT_WITHOUT_FILES);
    expect(await screen.findByTestId('transaction-11', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Export' })).toBeNull();
  });

  it("opens the files remote's wizard with the collab and the filters the list sends", async () => {
    const seen: Seen = { lists: [] };
    server.use(...listHandlers(undefined, seen));
    const opened: ExportWizardProps[] = [];
    const { user } = renderPage(
      '/transactions?selectedCollabId=1&transactionTypeFilter=1&transactionStatusesFilter=4,3&currencyFilter=PHP&paymentMethodValueFilter=09171234567&dateRange=2026-11-20T00:00:00.000Z,2026-11-21T23:59:59.999Z',
      ADMIN,
      { files: { './export-wizard': wizardModule(opened) } },
    );
    expect(await screen.findByTestId('transaction-11', {}, { timeout: 15_000 })).toBeInTheDocument();
    // The collab names are known before the wizard opens.
    await screen.findByRole('option', { name: 'Acme Games - GoVip' });
    await user.click(screen.getByRole('button', { name: 'Export' }));
    expect(await screen.findByRole('dialog', { name: 'Export Transactions' })).toBeInTheDocument();
    const props = opened.at(-1)!;
    const sent = seen.lists.at(-1)!;
    expect(sent.pathname).toBe('/api/v1/collabs/1/transactions/advanced');
    expect(props.collabId).toBe(1);
    expect(props.filter).toEqual({
      type: Number(sent.searchParams.get('type')),
      statuses: sent.searchParams.get('statuses')!.split(',').map(Number),
      currency: sent.searchParams.get('currency'),
      paymentMethodValue: sent.searchParams.get('paymentMethodValue'),
      paymentMethodType: Number(sent.searchParams.get('paymentMethodType')),
      from: sent.searchParams.get('from'),
      to: sent.searchParams.get('to'),
    });
    expect(props.filter).toMatchObject({ type: 1, statuses: [4, 3], paymentMethodType: 1, from: '2026-11-20T00:00:00.000Z' });
    expect(props.labels).toEqual({
      collab: 'Acme Games - GoVip',
      type: 'Deposit',
      statuses: 'Success, Pending',
      dateRange: 'Nov 20, 2026, 00:00:00 (UTC+0) – Nov 21, 2026, 23:59:59 (UTC+0)',
    });
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('says so when the wizard cannot be loaded, and tries again on the next click', async () => {
    server.use(...listHandlers());
    const load = vi.fn<() => Promise<unknown>>().mockRejectedValueOnce(new Error('Could not load /remotes/files/remoteEntry.js')).mockResolvedValue({ default: () => <p>Wizard here</p> });
    const { user } = renderPage('/transactions', ADMIN, { files: { './export-wizard': load } });
    await user.click(await screen.findByRole('button', { name: 'Export' }, { timeout: 15_000 }));
    expect(await screen.findByText('The export wizard could not be loaded: Could not load /remotes/files/remoteEntry.js')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Export' }));
    expect(await screen.findByText('Wizard here')).toBeInTheDocument();
  });

  it("offers each row's Export to a user with Files Access, opening the wizard with that transaction alone", async () => {
    server.use(...listHandlers());
    const opened: ExportWizardProps[] = [];
    const { user } = renderPage('/transactions', ADMIN, { files: { './export-wizard': wizardModule(opened) } });
    expect(await screen.findByTestId('transaction-11', {}, { timeout: 15_000 })).toBeInTheDocument();
    await screen.findByRole('option', { name: 'Acme Games - GoVip' });
    expect(await rowMenuItems(user, 11)).toContain('Export');
    await runRowAction(user, 11, 'Export');
    expect(await screen.findByRole('dialog', { name: 'Export Transactions' })).toBeInTheDocument();
    // The collab and the merchant's nonce (unique per merchant) select this transaction only.
    expect(opened.at(-1)).toMatchObject({ collabId: 1, filter: { nonce: 'nonce-11' }, labels: { collab: 'Acme Games - GoVip' } });
    await user.click(screen.getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it("leaves each row's Export out for a user without Files Access", async () => {
    server.use(...listHandlers());
    const { user } = renderPage('/transactions', { username: 'ops', permissions: ['Get Transactions', 'Edit Transactions', 'View Logs'], merchantIds: [1] });
    expect(await screen.findByTestId('transaction-11', {}, { timeout: 15_000 })).toBeInTheDocument();
    expect(await rowMenuItems(user, 11)).not.toContain('Export');
  });
});
