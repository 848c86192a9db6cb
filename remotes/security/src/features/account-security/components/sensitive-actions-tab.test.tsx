import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { PERMISSIONS } from '@paygate/sdk';
import type { ApprovalPolicyJson } from '@paygate/gen/auth/v1/confirmations_pb';
import { describe, expect, it } from 'vitest';
import { renderSecurity, sensitiveActionsHandler } from '../../../testing/fixtures';

const POLICY: ApprovalPolicyJson = { id: 3, action: 'transaction.set_status', approverPermission: 'Edit Transactions', minAmount: '1000', currency: 'EUR' };

/** handlers answer the catalogue and the policies, and record the writes. */
function handlers(policies: ApprovalPolicyJson[] = [POLICY]) {
  const sent: { method: string; path: string; body: unknown }[] = [];
  const record = async (request: Request) => {
    const body = request.method === 'DELETE' ? undefined : await request.json();
    sent.push({ method: request.method, path: new URL(request.url).pathname, body });
  };
  server.use(
    sensitiveActionsHandler(),
    http.get(`${AUTH}/api/v1/approval-policies`, () => HttpResponse.json({ policies })),
    http.put(`${AUTH}/api/v1/sensitive-actions/step-up`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ actions: [], stepUpScope: 'everyone' });
    }),
    http.post(`${AUTH}/api/v1/approval-policies`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ policy: { ...POLICY, id: 4 } });
    }),
    http.put(`${AUTH}/api/v1/approval-policies/:id`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({ policy: POLICY });
    }),
    http.delete(`${AUTH}/api/v1/approval-policies/:id`, async ({ request }) => {
      await record(request);
      return HttpResponse.json({});
    }),
    // The tests that land on Active Sessions.
    http.get(`${GATEWAY}/api/v1/user-sessions/active`, () => HttpResponse.json({ sessions: [], totalCount: '0', currentPage: 1, totalPages: 0 })),
  );
  return sent;
}

const actionsTable = () => screen.findByRole('table', { name: 'Sensitive actions' });
const rowOf = (table: HTMLElement, text: string) => within(table).getByText(text).closest('tr') as HTMLElement;

describe('Sensitive Actions tab (issue 28, requirement securityPolicy)', () => {
  it('is offered to users the server lets change the step-up setting, and not to a Merchant Admin even by its address', async () => {
    handlers();
    const { unmount } = renderSecurity(ADMIN);
    expect(await screen.findByRole('tab', { name: 'Sensitive Actions' })).toBeInTheDocument();
    unmount();
    const merchantAdmin: TestUser = { username: 'madmin', roles: ['Merchant Admin'], merchantIds: [1] };
    renderSecurity(merchantAdmin, 'sensitive-actions');
    expect(await screen.findByRole('table', { name: 'Active sessions' })).toBeInTheDocument();
    expect(screen.queryByRole('tab', { name: 'Sensitive Actions' })).not.toBeInTheDocument();
  });

  it('shows the catalogue with step-up, reason and the always-on rows, and saves the actions and the scope', async () => {
    const sent = handlers();
    const { user } = renderSecurity(ADMIN, 'sensitive-actions');
    const table = await actionsTable();
    const box = (title: string) => within(table).getByRole('checkbox', { name: `Step-up for ${title}` });
    expect(box('Override a transaction status')).toBeChecked();
    expect(box('Change a fee')).toBeChecked();
    expect(box('Change a setting')).not.toBeChecked();
    // Approving a request always needs step-up: checked and not to be changed.
    expect(box('Approve a request')).toBeChecked();
    expect(box('Approve a request')).toBeDisabled();
    expect(rowOf(table, 'Approve a request')).toHaveTextContent('Always');
    expect(rowOf(table, 'Override a transaction status')).toHaveTextContent('Required');
    expect(rowOf(table, 'Change a fee')).toHaveTextContent('Optional');

    const scope = screen.getByLabelText('Step-up applies to');
    expect(scope).toHaveValue('admin_wide');
    expect(within(scope).getAllByRole('option').map((o) => o.textContent)).toEqual(['Admin-wide users', 'Everyone', 'Nobody']);
    await user.selectOptions(scope, 'everyone');
    await user.click(box('Change a fee'));
    await user.click(box('Change a setting'));
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(sent).toEqual([{ method: 'PUT', path: '/api/v1/sensitive-actions/step-up', body: { actions: ['transaction.set_status', 'settings.set'], scope: 'everyone' } }]),
    );
    expect(await screen.findByText('Step-up settings saved')).toBeInTheDocument();
  });

  it('lists the approval policies with their thresholds', async () => {
    handlers([POLICY, { id: 5, action: 'fee.update', approverPermission: 'Edit Fees' }]);
    renderSecurity(ADMIN, 'sensitive-actions');
    const table = await screen.findByRole('table', { name: 'Approval policies' });
    await waitFor(() => expect(within(table).getAllByRole('row')).toHaveLength(3));
    expect(rowOf(table, 'Override a transaction status')).toHaveTextContent('Edit Transactions');
    expect(rowOf(table, 'Override a transaction status')).toHaveTextContent('amount at least 1000 EUR');
    expect(rowOf(table, 'Change a fee')).toHaveTextContent('Every change');
  });

  it('adds a policy from the dialog: action, one of the 30 permissions, amount and currency', async () => {
    const sent = handlers([]);
    const { user } = renderSecurity(ADMIN, 'sensitive-actions');
    expect(await screen.findByText('No approval policies: every change applies once its requester confirms it.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New Policy' }));
    const dialog = await screen.findByRole('dialog', { name: 'New Approval Policy' });
    const action = within(dialog).getByLabelText(/^Action/);
    // Approving a request cannot itself need approval.
    expect(within(action).queryByRole('option', { name: 'Approve a request' })).not.toBeInTheDocument();
    const permission = within(dialog).getByLabelText(/^Approver permission/);
    expect(within(permission).getAllByRole('option')).toHaveLength(PERMISSIONS.length + 1);
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByText('Choose an action.')).toBeInTheDocument();
    expect(within(dialog).getByText('Choose the permission an approver needs.')).toBeInTheDocument();
    await user.selectOptions(action, 'transaction.set_status');
    await user.selectOptions(permission, 'Edit Transactions');
    await user.type(within(dialog).getByLabelText('Currency (optional)'), 'eur');
    expect(await within(dialog).findByText('A currency goes with a minimum amount: set both, or neither.')).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Minimum amount (optional)'), '1000.50');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(sent).toEqual([
        {
          method: 'POST',
          path: '/api/v1/approval-policies',
          body: { policy: { action: 'transaction.set_status', approverPermission: 'Edit Transactions', minAmount: '1000.50', currency: 'EUR', minCount: 0 } },
        },
      ]),
    );
    expect(await screen.findByText('Approval policy added')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New Approval Policy' })).not.toBeInTheDocument());
  });

  it('shows the server sentence when it refuses a policy, keeping the dialog open', async () => {
    handlers([]);
    server.use(
      http.post(`${AUTH}/api/v1/approval-policies`, () =>
        HttpResponse.json({ code: 'invalid', message: 'minAmount: the action fee.update has no amount.' }, { status: 400 }),
      ),
    );
    const { user } = renderSecurity(ADMIN, 'sensitive-actions');
    await user.click(await screen.findByRole('button', { name: 'New Policy' }));
    const dialog = await screen.findByRole('dialog', { name: 'New Approval Policy' });
    await user.selectOptions(within(dialog).getByLabelText(/^Action/), 'fee.update');
    await user.selectOptions(within(dialog).getByLabelText(/^Approver permission/), 'Edit Fees');
    await user.type(within(dialog).getByLabelText('Minimum amount (optional)'), '5');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('minAmount: the action fee.update has no amount.');
  });

  it('edits a policy (PUT with the policy as body) and deletes one after a confirmation', async () => {
    const sent = handlers();
    const { user } = renderSecurity(ADMIN, 'sensitive-actions');
    await user.click(await screen.findByRole('button', { name: 'Edit the policy of Override a transaction status' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Approval Policy' });
    expect(within(dialog).getByLabelText(/^Action/)).toHaveValue('transaction.set_status');
    expect(within(dialog).getByLabelText('Minimum amount (optional)')).toHaveValue('1000');
    const count = within(dialog).getByLabelText('Minimum count (optional)');
    await user.clear(within(dialog).getByLabelText('Currency (optional)'));
    await user.type(count, '10');
    await user.click(within(dialog).getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(sent).toEqual([
        {
          method: 'PUT',
          path: '/api/v1/approval-policies/3',
          body: { policy: { action: 'transaction.set_status', approverPermission: 'Edit Transactions', minAmount: '1000', currency: '', minCount: 10 } },
        },
      ]),
    );
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Edit Approval Policy' })).not.toBeInTheDocument());

    await user.click(screen.getByRole('button', { name: 'Delete the policy of Override a transaction status' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete Approval Policy' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete' }));
    await waitFor(() => expect(sent.at(-1)).toEqual({ method: 'DELETE', path: '/api/v1/approval-policies/3', body: undefined }));
    expect(await screen.findByText('Approval policy deleted')).toBeInTheDocument();
  });
});
