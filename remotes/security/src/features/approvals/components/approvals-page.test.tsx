import { act, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { AUTH, server } from '@paygate/devkit/testing/msw';
import { ADMIN, type TestUser } from '@paygate/devkit/testing/tokens';
import { CONFIRMATION_HEADER } from '@paygate/sdk';
import type { ApprovalRequestJson } from '@paygate/gen/auth/v1/approvals_pb';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { approvalRequest, renderApprovals, sensitiveActionsHandler } from '../../../testing/fixtures';

/** A fee desk user: may approve fee changes (Edit Fees), not an admin. */
const FEE_DESK: TestUser = { username: 'bob', roles: ['Fee desk'], permissions: ['View Fees', 'Edit Fees'], globalScope: true };

const CHALLENGE = { action: '{"action":"approval.approve","values":{"id":"12"}}', request: 'CAw=' };

/**
 * rejectDialog is the reject dialog of request #12 as the document holds it
 * now, looked up at each step.
 */
const rejectDialog = () => screen.getByRole('alertdialog', { name: 'Reject request #12' });

/**
 * settledRejectDialog waits for the reject dialog to settle: its reason box
 * holds the focus on its own. The request's dialog, which it replaces, hands
 * its focus back to the list's row when it closes; under load (CI) that came
 * after the reject dialog had focused its reason box, and DialogFrame takes
 * it back.
 */
async function settledRejectDialog() {
  await waitFor(() => expect(within(rejectDialog()).getByLabelText(/Reason/)).toHaveFocus());
}

/**
 * listHandler answers ListApprovalRequests from `pages` (keyed by the
 * beforeId asked, '0' for the first page) and records each request's query.
 */
function listHandler(pages: Record<string, { requests: ApprovalRequestJson[]; nextBeforeId?: string }>) {
  const asked: Record<string, string>[] = [];
  server.use(
    sensitiveActionsHandler(),
    http.get(`${AUTH}/api/v1/approvals`, ({ request }) => {
      const query = Object.fromEntries(new URL(request.url).searchParams);
      asked.push(query);
      const page = pages[query.beforeId ?? '0'] ?? { requests: [] };
      return HttpResponse.json({ requests: page.requests, nextBeforeId: page.nextBeforeId ?? '0' });
    }),
  );
  return asked;
}

const table = () => screen.findByRole('table', { name: 'Approval requests' });
const rows = (t: HTMLElement) => within(t).getAllByRole('row').slice(1);

afterEach(() => {
  vi.useRealTimers();
});

describe('Approvals page (issue 28)', () => {
  it('lists the pending requests newest first, by default, with who asked and when they expire', async () => {
    const asked = listHandler({ '0': { requests: [approvalRequest(), approvalRequest({ id: '11', title: 'Change a setting', action: 'settings.set', summary: ['Setting maxRetries: 3 → 5'], requestedByUsername: 'carol', requestedBy: '9' })] } });
    renderApprovals(FEE_DESK);
    expect(await screen.findByRole('heading', { name: 'Approvals', level: 2 })).toBeInTheDocument();
    const t = await table();
    await waitFor(() => expect(rows(t)).toHaveLength(2));
    expect(rows(t)[0]).toHaveTextContent('#12');
    expect(rows(t)[0]).toHaveTextContent('Change a fee');
    expect(rows(t)[0]).toHaveTextContent('Fee 4 of Acme Games');
    expect(rows(t)[0]).toHaveTextContent('alice');
    expect(rows(t)[0]).toHaveTextContent('Jan 6, 2026, 10:00:00 (UTC+0)');
    expect(rows(t)[0]).toHaveTextContent('Pending');
    expect(rows(t)[1]).toHaveTextContent('carol');
    expect(asked[0]).toEqual({ status: 'pending', pageSize: '25' });
    expect(screen.getByLabelText('Status')).toHaveValue('pending');
    await waitFor(() => expect(document.title).toBe('Paygate - Approvals'));
  });

  it('says so when nothing waits, and when nothing matches the filters', async () => {
    listHandler({});
    const { user } = renderApprovals(FEE_DESK);
    expect(await screen.findByText('No approval requests are waiting.')).toBeInTheDocument();
    await user.click(screen.getByRole('checkbox', { name: 'Only mine' }));
    expect(await screen.findByText('No approval requests match these filters.')).toBeInTheDocument();
  });

  it('filters by status, action and "only mine", from the catalogue of actions', async () => {
    const asked = listHandler({ '0': { requests: [approvalRequest()] } });
    const { user } = renderApprovals(FEE_DESK);
    await table();
    const action = screen.getByLabelText('Action');
    await waitFor(() => expect(within(action).getByRole('option', { name: 'Change a fee' })).toBeInTheDocument());
    await user.selectOptions(screen.getByLabelText('Status'), 'approved');
    await waitFor(() => expect(asked.at(-1)).toEqual({ status: 'approved', pageSize: '25' }));
    await user.selectOptions(action, 'fee.update');
    await waitFor(() => expect(asked.at(-1)).toEqual({ status: 'approved', action: 'fee.update', pageSize: '25' }));
    await user.click(screen.getByRole('checkbox', { name: 'Only mine' }));
    await waitFor(() => expect(asked.at(-1)).toEqual({ status: 'approved', action: 'fee.update', mine: 'true', pageSize: '25' }));
    await user.selectOptions(screen.getByLabelText('Status'), '');
    await waitFor(() => expect(asked.at(-1)).toEqual({ action: 'fee.update', mine: 'true', pageSize: '25' }));
  });

  it('loads more from the cursor the server answered, until the last page', async () => {
    const first = Array.from({ length: 25 }, (_, i) => approvalRequest({ id: String(100 - i) }));
    const asked = listHandler({
      '0': { requests: first, nextBeforeId: '76' },
      '76': { requests: [approvalRequest({ id: '75' }), approvalRequest({ id: '74' })] },
    });
    const { user } = renderApprovals(FEE_DESK);
    const t = await table();
    await waitFor(() => expect(rows(t)).toHaveLength(25));
    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await waitFor(() => expect(rows(t)).toHaveLength(27));
    expect(rows(t)[26]).toHaveTextContent('#74');
    // The next page is asked from the cursor, with the same filters (a 5 s reload may ask the first page again).
    expect(asked.find((q) => q.beforeId === '76')).toEqual({ status: 'pending', pageSize: '25', beforeId: '76' });
    expect(asked[0]).toEqual({ status: 'pending', pageSize: '25' });
    // The last page: nothing more to load.
    expect(screen.queryByRole('button', { name: 'Load more' })).not.toBeInTheDocument();
  });

  it('reloads the list every 5 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    let answer = [approvalRequest()];
    const asked: unknown[] = [];
    server.use(
      sensitiveActionsHandler(),
      http.get(`${AUTH}/api/v1/approvals`, ({ request }) => {
        asked.push(request.url);
        return HttpResponse.json({ requests: answer, nextBeforeId: '0' });
      }),
    );
    renderApprovals(FEE_DESK);
    const t = await table();
    await waitFor(() => expect(rows(t)).toHaveLength(1));
    answer = [approvalRequest({ id: '13', requestedByUsername: 'dave' }), approvalRequest()];
    await act(() => vi.advanceTimersByTimeAsync(5_000));
    await waitFor(() => expect(rows(t)).toHaveLength(2));
    expect(rows(t)[0]).toHaveTextContent('dave');
    expect(asked.length).toBeGreaterThanOrEqual(2);
  });

  it('shows the server message when the list cannot be loaded, and retries', async () => {
    let fail = true;
    server.use(
      sensitiveActionsHandler(),
      http.get(`${AUTH}/api/v1/approvals`, () =>
        fail ? HttpResponse.json({ code: 'internal', message: 'The approvals store is down.' }, { status: 500 }) : HttpResponse.json({ requests: [approvalRequest()] }),
      ),
    );
    const { user } = renderApprovals(FEE_DESK);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('The approval requests could not be loaded.');
    expect(alert).toHaveTextContent('The approvals store is down.');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Retry' }));
    const t = await table();
    await waitFor(() => expect(rows(t)).toHaveLength(1));
  });

  it('opens a request with its summary, the exact new values, the reason, the requester and the expiry', async () => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    const { user } = renderApprovals(FEE_DESK);
    await user.click(await screen.findByRole('button', { name: 'Review request #12' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    expect(within(dialog).getByRole('list', { name: 'Summary of the change' })).toHaveTextContent('Percentage: 1.5 → 2.5');
    expect(within(dialog).getByLabelText('New values')).toHaveTextContent('"percentage": "2.5"');
    expect(within(dialog).getByLabelText('Values when requested')).toHaveTextContent('"percentage": "1.5"');
    expect(within(dialog).getByText('new contract')).toBeInTheDocument();
    expect(within(dialog).getByText('alice')).toBeInTheDocument();
    expect(within(dialog).getByText('Jan 6, 2026, 10:00:00 (UTC+0)')).toBeInTheDocument();
    expect(within(dialog).getByText('Edit Fees')).toBeInTheDocument();
    expect(within(dialog).getByText(/Requester alice: passkey/)).toBeInTheDocument();
    expect(within(dialog).getByRole('button', { name: 'Approve' })).toBeEnabled();
    expect(within(dialog).getByRole('button', { name: 'Reject' })).toBeEnabled();
  });

  it('opens a row from the keyboard too', async () => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    const { user } = renderApprovals(FEE_DESK);
    const t = await table();
    await waitFor(() => expect(rows(t)).toHaveLength(1));
    rows(t)[0]!.focus();
    await user.keyboard('{Enter}');
    expect(await screen.findByRole('dialog', { name: 'Change a fee (request #12)' })).toBeInTheDocument();
  });

  it('offers no decision on a request the server says the caller may not decide (its own)', async () => {
    listHandler({ '0': { requests: [approvalRequest({ requestedBy: '7', requestedByUsername: 'bob', canDecide: false })] } });
    const { user } = renderApprovals(FEE_DESK);
    await user.click(await screen.findByRole('button', { name: 'View request #12' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    expect(within(dialog).getByText(/This is your request: another user holding Edit Fees must approve it\./)).toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
    expect(within(dialog).queryByRole('button', { name: 'Reject' })).not.toBeInTheDocument();
  });

  it('approves through the step-up confirmation: the call is repeated with the token and the request is applied', async () => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    const seen: (string | null)[] = [];
    const bodies: unknown[] = [];
    server.use(
      http.post(`${AUTH}/api/v1/approvals/12/approve`, async ({ request }) => {
        const header = request.headers.get(CONFIRMATION_HEADER);
        seen.push(header);
        bodies.push(await request.json());
        if (header !== 'tok-1') return HttpResponse.json({ code: 'confirmation_required', message: 'This change needs your confirmation.', confirmation: CHALLENGE }, { status: 428 });
        return HttpResponse.json({ request: approvalRequest({ status: 'approved', canDecide: false, decidedBy: '7', decidedByUsername: 'bob', decidedAt: '2026-01-05T11:00:00Z' }) });
      }),
      http.post(`${AUTH}/api/v1/confirmations`, () => HttpResponse.json({ confirmationId: 'c-1', title: 'Approve a request', summary: ['Approve request 12'], method: 'none' })),
      http.post(`${AUTH}/api/v1/confirmations/c-1/finish`, () => HttpResponse.json({ token: 'tok-1' })),
    );
    const { user } = renderApprovals(FEE_DESK);
    await user.click(await screen.findByRole('button', { name: 'Review request #12' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    const confirm = await screen.findByRole('dialog', { name: 'Approve a request' });
    await user.click(within(confirm).getByRole('button', { name: 'Confirm' }));
    expect(await screen.findByText('Request approved')).toBeInTheDocument();
    expect(seen).toEqual([null, 'tok-1']);
    expect(bodies).toEqual([{}, {}]);
    const after = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    await waitFor(() => expect(within(after).getByText('Approved')).toBeInTheDocument());
    expect(within(after).getByText(/bob/)).toBeInTheDocument();
    expect(within(after).queryByRole('button', { name: 'Approve' })).not.toBeInTheDocument();
  });

  it('says nothing when the confirmation is cancelled', async () => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    server.use(
      http.post(`${AUTH}/api/v1/approvals/12/approve`, () =>
        HttpResponse.json({ code: 'confirmation_required', message: 'This change needs your confirmation.', confirmation: CHALLENGE }, { status: 428 }),
      ),
      http.post(`${AUTH}/api/v1/confirmations`, () => HttpResponse.json({ confirmationId: 'c-1', title: 'Approve a request', method: 'none' })),
    );
    const { user } = renderApprovals(FEE_DESK);
    await user.click(await screen.findByRole('button', { name: 'Review request #12' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    const confirm = await screen.findByRole('dialog', { name: 'Approve a request' });
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Approve a request' })).not.toBeInTheDocument());
    expect(within(dialog).getByRole('button', { name: 'Approve' })).toBeEnabled();
    expect(within(dialog).queryByRole('alert')).not.toBeInTheDocument();
  });

  it.each([
    [403, 'forbidden', 'You cannot approve your own request.'],
    [409, 'conflict', 'This request expired: it can no longer be approved.'],
    [409, 'conflict', 'The fee changed since the request was made; ask for it again.'],
  ])('shows the server sentence of a refused approval (%i)', async (status, code, message) => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    server.use(http.post(`${AUTH}/api/v1/approvals/12/approve`, () => HttpResponse.json({ code, message }, { status })));
    const { user } = renderApprovals(FEE_DESK);
    await user.click(await screen.findByRole('button', { name: 'Review request #12' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await within(dialog).findByRole('alert')).toHaveTextContent(message);
  });

  it('tells when the approved change could not be applied (failed)', async () => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    server.use(
      http.post(`${AUTH}/api/v1/approvals/12/approve`, () =>
        HttpResponse.json({ request: approvalRequest({ status: 'failed', canDecide: false, outcome: 'The fee changed since the request was made.', decidedByUsername: 'bob' }) }),
      ),
    );
    const { user } = renderApprovals(FEE_DESK);
    await user.click(await screen.findByRole('button', { name: 'Review request #12' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    await user.click(within(dialog).getByRole('button', { name: 'Approve' }));
    expect(await screen.findByText('The change could not be applied')).toBeInTheDocument();
    expect(within(dialog).getByText('Failure reason')).toBeInTheDocument();
    expect(within(dialog).getAllByText('The fee changed since the request was made.').length).toBeGreaterThan(0);
  });

  it('rejects with a required reason', async () => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    const sent: unknown[] = [];
    server.use(
      http.post(`${AUTH}/api/v1/approvals/12/reject`, async ({ request }) => {
        sent.push(await request.json());
        return HttpResponse.json({ request: approvalRequest({ status: 'rejected', canDecide: false, outcome: 'not agreed with finance', decidedByUsername: 'bob' }) });
      }),
    );
    const { user } = renderApprovals(FEE_DESK);
    await user.click(await screen.findByRole('button', { name: 'Review request #12' }));
    const dialog = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    await user.click(within(dialog).getByRole('button', { name: 'Reject' }));
    await settledRejectDialog();
    await user.click(within(rejectDialog()).getByRole('button', { name: 'Reject' }));
    expect(await within(rejectDialog()).findByText('Enter why you reject this request.')).toBeInTheDocument();
    expect(sent).toEqual([]);
    await user.type(within(rejectDialog()).getByLabelText(/Reason/), '  not agreed with finance ');
    await user.click(within(rejectDialog()).getByRole('button', { name: 'Reject' }));
    expect(await screen.findByText('Request rejected')).toBeInTheDocument();
    expect(sent).toEqual([{ reason: 'not agreed with finance' }]);
    const after = await screen.findByRole('dialog', { name: 'Change a fee (request #12)' });
    expect(within(after).getByText('Rejected')).toBeInTheDocument();
    expect(within(after).getByText('not agreed with finance')).toBeInTheDocument();
  });

  it('keeps the reject dialog open with the server sentence when the rejection is refused', async () => {
    listHandler({ '0': { requests: [approvalRequest()] } });
    server.use(
      http.post(`${AUTH}/api/v1/approvals/12/reject`, () => HttpResponse.json({ code: 'conflict', message: 'This request was already approved.' }, { status: 409 })),
    );
    const { user } = renderApprovals(ADMIN);
    await user.click(await screen.findByRole('button', { name: 'Review request #12' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Change a fee (request #12)' })).getByRole('button', { name: 'Reject' }));
    await settledRejectDialog();
    await user.type(within(rejectDialog()).getByLabelText(/Reason/), 'no');
    await user.click(within(rejectDialog()).getByRole('button', { name: 'Reject' }));
    expect(await within(rejectDialog()).findByRole('alert')).toHaveTextContent('This request was already approved.');
  });
});
