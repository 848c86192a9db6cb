import { screen, waitFor, within } from '@testing-library/react';
import type { UserEvent } from '@testing-library/user-event';
import { http, HttpResponse } from 'msw';
import type { ExportFileRequestJson } from '@paygate/gen/gateway/v1/files_pb';
import { SCREENS, useRemoteModule, type ExportWizardProps, type RemoteManifest } from '@paygate/sdk';
import { locationOf, renderApp, withRemote } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { useState } from 'react';
import { beforeEach, describe, expect, it } from 'vitest';
import { columnsHandler, MERCHANT, merchantsHandler, typesHandler } from '../../../testing/fixtures';

const FILTER: ExportWizardProps['filter'] = {
  type: 1,
  statuses: [4, 3],
  from: '2026-11-24T00:00:00.000Z',
  to: '2026-11-25T23:59:59.999Z',
  currency: 'PHP',
  paymentMethodValue: '09171234567',
  paymentMethodType: 1,
};

/**
 * TransactionsStandIn plays the transactions page: it opens the wizard the
 * way that page does, through the SDK's loadRemoteModule, which the test
 * serves from this remote's exposed module.
 */
function TransactionsStandIn() {
  const [open, setOpen] = useState(true);
  const wizard = useRemoteModule('files', './export-wizard', open);
  if (!open)
    return (
      <button type="button" onClick={() => setOpen(true)}>
        Open again
      </button>
    );
  if (wizard.status !== 'ready') return <p>Loading wizard</p>;
  const Wizard = wizard.module.default;
  return <Wizard collabId={3} filter={FILTER} labels={{ collab: 'Acme Games - GoVip', statuses: 'Success, Pending' }} onClose={() => setOpen(false)} />;
}

const standIn: RemoteManifest<'transactions'> = { name: 'transactions', routes: [{ path: SCREENS.transactions.path, Component: TransactionsStandIn }] };

function renderWizard() {
  server.use(merchantsHandler());
  return renderApp('/transactions', {
    user: MERCHANT,
    loader: withRemote(standIn),
    modules: { files: { './export-wizard': () => import('../../../export-wizard') } },
  });
}

/** exportHandler answers the export call (after `gate`, when given) and records its requests. */
function exportHandler(seen: { url: URL; body: ExportFileRequestJson }[], answer: () => Response | Promise<Response> = () => HttpResponse.json({ id: '501' })) {
  return http.post(`${GATEWAY}/api/v1/files/export`, async ({ request }) => {
    seen.push({ url: new URL(request.url), body: (await request.json()) as ExportFileRequestJson });
    return answer();
  });
}

const dialog = () => screen.findByRole('dialog', { name: 'Export Transactions' });
const button = (name: string) => within(screen.getByRole('dialog')).getByRole('button', { name });

/** toColumns goes from step 1 to step 3 with the export type and format chosen. */
async function toColumns(user: UserEvent, type = '1', format = 'CSV') {
  await user.click(button('Next'));
  const select = await screen.findByRole('combobox', { name: 'Export type' });
  await within(select).findByRole('option', { name: 'Transactions' });
  await user.selectOptions(select, type);
  if (format !== 'CSV') await user.click(screen.getByRole('radio', { name: format }));
  await user.click(button('Next'));
  await screen.findByRole('list', { name: 'Columns' });
}

beforeEach(() => {
  server.use(typesHandler(), columnsHandler());
});

describe('Export Transactions wizard (spec 02 §2 "Export dialog", §5, §8)', () => {
  it('lists the active filters in step 1, each removable, and exports what is left', async () => {
    const seen: { url: URL; body: ExportFileRequestJson }[] = [];
    server.use(exportHandler(seen));
    const { user } = renderWizard();
    const d = await dialog();
    const filters = within(d).getByRole('list', { name: 'Active filters' });
    expect(within(filters).getAllByRole('listitem').map((li) => li.textContent?.replace('✕', ''))).toEqual([
      'CollabAcme Games - GoVip',
      'Transaction TypeDeposit',
      'StatusesSuccess, Pending',
      'Date RangeNov 24, 2026, 00:00:00 (UTC+0) – Nov 25, 2026, 23:59:59 (UTC+0)',
      'CurrencyPHP',
      'Payment Method09171234567',
    ]);
    expect(within(d).queryByRole('button', { name: 'Previous' })).toBeNull();
    await user.click(within(d).getByRole('button', { name: 'Remove filter Statuses' }));
    await user.click(within(d).getByRole('button', { name: 'Remove filter Payment Method' }));
    await user.click(within(d).getByRole('button', { name: 'Remove filter Collab' }));
    expect(within(within(d).getByRole('list', { name: 'Active filters' })).getAllByRole('listitem')).toHaveLength(3);

    await toColumns(user);
    await user.click(button('Export'));
    await waitFor(() => expect(seen).toHaveLength(1));
    const { url, body } = seen[0]!;
    expect(url.searchParams.has('collabId')).toBe(false);
    expect(body.filter).toEqual({ type: 1, from: '2026-11-24T00:00:00.000Z', to: '2026-11-25T23:59:59.999Z', currency: 'PHP' });
  });

  it('sends the collab in the query and the body, the type, format, columns in order and the selected timezone', async () => {
    localStorage.setItem('selectedTimezone', 'Etc/GMT-8');
    const seen: { url: URL; body: ExportFileRequestJson }[] = [];
    server.use(exportHandler(seen));
    const { user } = renderWizard();
    await dialog();
    await toColumns(user, '1', 'Excel');
    // Keep ID, Reference ID and Amount; rename Amount; put Amount first.
    for (const name of ['Currency', 'Status', 'Created', 'Merchant']) await user.click(screen.getByRole('checkbox', { name }));
    const header = screen.getByRole('textbox', { name: 'Header for Amount' });
    await user.clear(header);
    await user.type(header, 'Sum');
    await user.click(screen.getByRole('button', { name: 'Move Amount up' }));
    expect(screen.getByRole('button', { name: 'Move Amount up' })).toHaveFocus();
    await user.keyboard('{Enter}');
    expect(screen.getByText('3 of 7 columns selected')).toBeInTheDocument();
    await user.click(button('Export'));
    await waitFor(() => expect(seen).toHaveLength(1));
    const { url, body } = seen[0]!;
    expect(url.searchParams.get('collabId')).toBe('3');
    expect(body.collabId).toBe(3);
    expect(body.settings).toEqual({
      exportType: 1,
      fileType: 1,
      columns: { amount: 'Sum', id: 'ID', transactionReferenceId: 'Reference ID' },
      columnOrder: ['amount', 'id', 'transactionReferenceId'],
      timeZone: 'Etc/GMT-8',
    });
    expect(body.filter?.statuses).toEqual([4, 3]);
    expect(body.filter?.paymentMethodType).toBe(1);
  });

  it('needs an export type before Next on step 2, and goes back with Previous', async () => {
    const { user } = renderWizard();
    await dialog();
    await user.click(button('Next'));
    const select = await screen.findByRole('combobox', { name: 'Export type' });
    await within(select).findByRole('option', { name: 'Callback attempts' });
    expect(within(select).getAllByRole('option').map((o) => o.textContent)).toEqual(['Select export type', 'Transactions', 'Transaction logs', 'Callback attempts']);
    expect(button('Next')).toBeDisabled();
    expect(screen.getByRole('radiogroup', { name: 'File format' })).toBeInTheDocument();
    expect(screen.getAllByRole('radio').map((r) => r.closest('label')?.textContent)).toEqual(['CSV', 'Excel', 'PDF']);
    expect(screen.getByRole('radio', { name: 'CSV' })).toBeChecked();
    await user.selectOptions(select, '3');
    expect(screen.getByText('One row per log entry of the selected transactions.')).toBeInTheDocument();
    expect(button('Next')).toBeEnabled();
    await user.click(button('Previous'));
    expect(screen.getByRole('list', { name: 'Active filters' })).toBeInTheDocument();
    await user.click(button('Next'));
    expect(screen.getByRole('combobox', { name: 'Export type' })).toHaveValue('3');
    expect(button('Next')).toBeEnabled();
  });

  it('says "Failed to load export types: {msg}"', async () => {
    server.use(http.get(`${GATEWAY}/api/v1/files/export/types`, () => HttpResponse.json({ code: 'internal', message: 'catalogue offline' }, { status: 500 })));
    const { user } = renderWizard();
    await dialog();
    await user.click(button('Next'));
    expect(await screen.findByText('Failed to load export types: catalogue offline')).toBeInTheDocument();
    expect(button('Next')).toBeDisabled();
  });

  it('needs at least one column to export', async () => {
    const { user } = renderWizard();
    await dialog();
    await toColumns(user);
    expect(button('Export')).toBeEnabled();
    await user.click(button('Select None'));
    expect(screen.getByText('Select at least one column to export.')).toBeInTheDocument();
    expect(button('Export')).toBeDisabled();
    await user.click(screen.getByRole('checkbox', { name: 'ID' }));
    expect(button('Export')).toBeEnabled();
  });

  it('warns that a PDF with more than 5 columns may not fit A4', async () => {
    const { user } = renderWizard();
    await dialog();
    await toColumns(user, '1', 'PDF');
    expect(screen.getByTestId('pdf-warning')).toHaveTextContent('may not fit on an A4 page');
    await user.click(screen.getByRole('checkbox', { name: 'Merchant' }));
    expect(screen.getByTestId('pdf-warning')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Created' }));
    expect(screen.queryByTestId('pdf-warning')).toBeNull();
    // Not for CSV or Excel.
    await user.click(screen.getByRole('checkbox', { name: 'Created' }));
    await user.click(button('Previous'));
    await user.click(screen.getByRole('radio', { name: 'Excel' }));
    await user.click(button('Next'));
    expect(await screen.findByText('6 of 7 columns selected')).toBeInTheDocument();
    expect(screen.queryByTestId('pdf-warning')).toBeNull();
  });

  it('remembers the columns, headers and order per export type', async () => {
    const seen: { url: URL; body: ExportFileRequestJson }[] = [];
    server.use(exportHandler(seen, () => HttpResponse.json({ code: 'invalid', message: 'stop here' }, { status: 400 })));
    const { user } = renderWizard();
    await dialog();
    await toColumns(user, '1');
    await user.click(screen.getByRole('checkbox', { name: 'Merchant' }));
    await user.click(screen.getByRole('button', { name: 'Move Reference ID up' }));
    await user.type(screen.getByRole('textbox', { name: 'Header for ID' }), ' #');
    await user.click(button('Export'));
    await waitFor(() => expect(seen).toHaveLength(1));

    // Another type has its own columns, all selected.
    await user.click(button('Previous'));
    await user.selectOptions(screen.getByRole('combobox', { name: 'Export type' }), '3');
    await user.click(button('Next'));
    expect(await screen.findByText('3 of 3 columns selected')).toBeInTheDocument();

    // Open the wizard again: type 1 comes back as it was exported.
    await user.click(button('Cancel'));
    await user.click(await screen.findByRole('button', { name: 'Open again' }));
    await dialog();
    await toColumns(user, '1');
    const order = within(screen.getByRole('list', { name: 'Columns' }))
      .getAllByRole('listitem')
      .map((li) => li.getAttribute('data-column'));
    expect(order).toEqual(['transactionReferenceId', 'id', 'amount', 'currency', 'transactionStatus', 'createdUtc', 'merchantName']);
    expect(screen.getByRole('checkbox', { name: 'Merchant' })).not.toBeChecked();
    expect(screen.getByRole('textbox', { name: 'Header for ID' })).toHaveValue('ID #');
    expect(screen.getByText('6 of 7 columns selected')).toBeInTheDocument();
    await user.click(button('Reset Columns'));
    expect(screen.getByText('7 of 7 columns selected')).toBeInTheDocument();
  });

  it('cannot be closed while exporting, then goes to /files after 2 s', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const seen: { url: URL; body: ExportFileRequestJson }[] = [];
    server.use(
      exportHandler(seen, async () => {
        await gate;
        return HttpResponse.json({ id: '501' });
      }),
    );
    const { user, router } = renderWizard();
    const d = await dialog();
    await toColumns(user);
    await user.click(button('Export'));
    await waitFor(() => expect(seen).toHaveLength(1));
    expect(button('Cancel')).toBeDisabled();
    expect(button('Previous')).toBeDisabled();
    expect(within(d).getByRole('button', { name: 'Close' })).toBeDisabled();
    await user.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Export Transactions' })).toBeInTheDocument();

    release();
    expect(await screen.findByText('Export started')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.getByRole('dialog', { name: 'Export Transactions' })).toBeInTheDocument();
    expect(locationOf(router)).toBe('/transactions');
    await new Promise((r) => setTimeout(r, 1_500));
    expect(locationOf(router)).toBe('/transactions');
    await waitFor(() => expect(locationOf(router)).toBe('/files'), { timeout: 3_000 });
  });

  it.each([
    ['the server error', HttpResponse.json({ code: 'invalid', message: 'The date range may span at most 93 days.' }, { status: 400 }), 'The date range may span at most 93 days.'],
    ['"Failed to start export" without one', new HttpResponse('gateway exploded', { status: 502 }), 'Failed to start export'],
  ])('says Export Failed with %s and stays open', async (_, response, text) => {
    server.use(exportHandler([], () => response.clone()));
    const { user, router } = renderWizard();
    await dialog();
    await toColumns(user);
    await user.click(button('Export'));
    expect(await screen.findByText('Export Failed')).toBeInTheDocument();
    expect(screen.getByText(text)).toBeInTheDocument();
    expect(button('Export')).toBeEnabled();
    expect(button('Cancel')).toBeEnabled();
    expect(locationOf(router)).toBe('/transactions');
  });

  it('closes with Cancel', async () => {
    const { user } = renderWizard();
    await dialog();
    await user.click(button('Cancel'));
    expect(await screen.findByRole('button', { name: 'Open again' })).toBeInTheDocument();
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});
