import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { renderApp } from '@paygate/devkit/testing';
import { AUTH, GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { listHandlers, providersLoader } from '../../../testing/fixtures';

type Entry = Record<string, unknown>;
const BASE = Date.parse('2025-11-20T12:00:00Z');

/** answer builds the Loki-like answer, newest first; a string entry is sent as is (unparsable). */
function answer(entries: (Entry | string)[]) {
  return {
    status: 'success',
    data: {
      resultType: 'streams',
      result: entries.map((e, i) => ({
        stream: { collabId: '1' },
        values: [[`${BASE - i * 60_000}000000`, typeof e === 'string' ? e : JSON.stringify({ timestamp: new Date(BASE - i * 60_000).toISOString(), ...e })]],
      })),
      stats: {},
    },
  };
}

const LOGS: Entry[] = [
  { Message: 'ATTENTION: maintenance mode enabled', ActionType: 'Configuration', Username: 'admin' },
  {
    Message: 'Limits changed',
    ActionType: 'Limits',
    Username: 'admin',
    MerchantName: 'Acme Games',
    ProviderName: 'GoVip',
    IP: '10.0.0.7',
    OldValue: JSON.stringify({ maximalDepositAmount: '', note: 'short' }),
    NewValue: JSON.stringify({ maximalDepositAmount: '2500.00', note: 'short', memo: 'x'.repeat(60) }),
  },
  { Message: 'Sensitive action performed: pay type removed', ActionType: 'Settings', Username: 'merchant-admin' },
  { Message: 'Collab enabled', ActionType: 'Status', Username: 'background-job' },
  { Message: 'Something else', ActionType: 'Unknown thing', Username: 'autobot' },
];

async function openActivity(respond: () => Response, ...handlers: Parameters<typeof server.use>) {
  const queries: URLSearchParams[] = [];
  server.use(
    http.get(`${GATEWAY}/api/v1/logs/collabs/activity`, ({ request }) => {
      queries.push(new URL(request.url).searchParams);
      return respond();
    }),
    ...handlers,
    ...listHandlers(),
  );
  const view = renderApp('/providers', { user: ADMIN, loader: providersLoader() });
  await screen.findAllByRole('article');
  await view.user.click(screen.getByRole('button', { name: 'Recent Actions' }));
  const dialog = await screen.findByRole('dialog', { name: 'Recent Collab Actions' });
  return { ...view, dialog, queries };
}

const tile = (dialog: HTMLElement, label: string) =>
  within(within(dialog).getByRole('group', { name: 'Activity statistics' })).getByText(label).closest('[data-stat]')?.textContent;
const titles = (dialog: HTMLElement) =>
  within(within(dialog).getByRole('list', { name: 'Actions' }))
    .getAllByRole('listitem')
    .map((li) => li.querySelector('.chakra-timeline__title')?.textContent);

describe('Activity dialog (spec 01 §2)', () => {
  it('asks for the last seven days with a limit', async () => {
    const { queries, dialog } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    const q = queries[0]!;
    const days = (Date.parse(q.get('to')!) - Date.parse(q.get('from')!)) / 86_400_000;
    expect(days).toBeCloseTo(7);
    expect(Number(q.get('limit'))).toBeGreaterThan(0);
  });

  it('shows the tiles classified per spec 01 §4', async () => {
    const { dialog } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    expect(tile(dialog, 'Total')).toBe('Total5');
    expect(tile(dialog, 'User')).toBe('User3');
    expect(tile(dialog, 'System')).toBe('System2');
    expect(tile(dialog, 'Critical')).toBe('Critical1');
    expect(tile(dialog, 'Sensitive')).toBe('Sensitive1');
    expect(titles(dialog)).toEqual(LOGS.map((l) => l.Message));
  });

  it('filters by category, user and severity, and says when nothing matches', async () => {
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    const category = await within(dialog).findByLabelText('Category');
    expect(within(category).getAllByRole('option').map((o) => o.textContent)).toEqual([
      'All categories',
      'Callback URL',
      'Validation Endpoint',
      'Limits',
      'Settings',
      'Credentials',
      'Status',
      'Configuration',
      'Sensitive',
      'Other',
    ]);
    const severity = within(dialog).getByLabelText('Severity');
    expect(within(severity).getAllByRole('option').map((o) => o.textContent)).toEqual(['All severities', 'critical', 'warning', 'normal']);

    await user.selectOptions(category, 'Other');
    expect(titles(dialog)).toEqual(['Something else']);
    await user.selectOptions(category, '');
    await user.selectOptions(within(dialog).getByLabelText('User'), 'admin');
    expect(titles(dialog)).toEqual(['ATTENTION: maintenance mode enabled', 'Limits changed']);
    await user.selectOptions(severity, 'critical');
    expect(titles(dialog)).toEqual(['ATTENTION: maintenance mode enabled']);
    await user.selectOptions(severity, 'warning');
    expect(within(dialog).getByText('No actions found matching the selected filters.')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Clear filters' }));
    expect(titles(dialog)).toHaveLength(5);
  });

  it("says 'No activity logs available' when there are none", async () => {
    const { dialog } = await openActivity(() => HttpResponse.json(answer([])));
    expect(await within(dialog).findByText('No activity logs available')).toBeInTheDocument();
  });

  it('shows details and the JSON diff on Show More, long strings expandable', async () => {
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(LOGS)));
    const item = (await within(dialog).findAllByRole('listitem'))[1]!;
    await user.click(within(item).getByRole('button', { name: 'Show More' }));
    expect(within(item).getByText('10.0.0.7')).toBeInTheDocument();
    const diff = within(item).getByRole('table', { name: 'Changes' });
    const rows = within(diff).getAllByRole('row').slice(1);
    expect(rows.map((r) => [(r as HTMLTableRowElement).cells[0]?.textContent, r.getAttribute('data-changed')])).toEqual([
      ['maximalDepositAmount', 'true'],
      ['note', null],
      ['memo', 'true'],
    ]);
    const memo = rows[2]!;
    expect(within(memo).getByText(`${'x'.repeat(50)}…`)).toBeInTheDocument();
    await user.click(within(memo).getByRole('button', { name: 'Expand' }));
    expect(within(memo).getByText('x'.repeat(60))).toBeInTheDocument();
    await user.click(within(memo).getByRole('button', { name: 'Collapse' }));
    await user.click(within(item).getByRole('button', { name: 'Show Less' }));
    expect(within(item).queryByRole('table')).not.toBeInTheDocument();
  });

  it('pages 25 at a time and shows the paginator only when there are more results than a page', async () => {
    const many = Array.from({ length: 30 }, (_, i) => ({ Message: `Action ${i + 1}`, ActionType: 'Limits', Username: 'admin' }));
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(many)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    expect(titles(dialog)).toHaveLength(25);
    const nav = within(dialog).getByRole('navigation', { name: 'Pagination' });
    expect(within(nav).getByText('Page 1 of 2')).toBeInTheDocument();
    const size = within(nav).getByRole('combobox', { name: 'Rows per page' });
    expect(within(size).getAllByRole('option').map((o) => o.textContent)).toEqual(['10', '25', '50', '100']);
    await user.click(within(nav).getByRole('button', { name: 'Next' }));
    expect(titles(dialog)).toEqual(['Action 26', 'Action 27', 'Action 28', 'Action 29', 'Action 30']);
    await user.selectOptions(size, '10');
    expect(titles(dialog)).toHaveLength(10);
    expect(within(nav).getByText('Page 1 of 3')).toBeInTheDocument();
    await user.selectOptions(size, '50');
    expect(titles(dialog)).toHaveLength(30);
    expect(within(dialog).queryByRole('navigation', { name: 'Pagination' })).not.toBeInTheDocument();
  });

  it('has no paginator for exactly one page', async () => {
    const page = Array.from({ length: 25 }, (_, i) => ({ Message: `Action ${i + 1}`, ActionType: 'Limits', Username: 'admin' }));
    const { dialog } = await openActivity(() => HttpResponse.json(answer(page)));
    await within(dialog).findByRole('list', { name: 'Actions' });
    expect(within(dialog).queryByRole('navigation', { name: 'Pagination' })).not.toBeInTheDocument();
  });

  it("shows 'Failed to fetch activity logs: {message}' with Retry", async () => {
    let fail = true;
    const { dialog, user } = await openActivity(() =>
      fail ? HttpResponse.json({ code: 'internal', message: 'log store unavailable' }, { status: 500 }) : HttpResponse.json(answer(LOGS)),
    );
    expect(await within(dialog).findByText('Failed to fetch activity logs: log store unavailable')).toBeInTheDocument();
    fail = false;
    await user.click(within(dialog).getByRole('button', { name: 'Retry' }));
    expect(await within(dialog).findByRole('list', { name: 'Actions' })).toBeInTheDocument();
  });

  it("marks unparsable entries 'Failed to parse collab logs' here and 'Failed to parse logs' for a merchant", async () => {
    const { dialog, user } = await openActivity(
      () => HttpResponse.json(answer(['{broken', LOGS[0]!])),
      http.get(`${GATEWAY}/api/v1/logs/merchants/1/collabs/activity`, () => HttpResponse.json(answer(['nope']))),
    );
    expect(await within(dialog).findByText('Failed to parse collab logs')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await user.click(screen.getByRole('tab', { name: 'Acme Games' }));
    await user.click(screen.getByRole('button', { name: 'Recent Actions' }));
    const merchant = await screen.findByRole('dialog', { name: 'Recent Actions - Acme Games' });
    expect(await within(merchant).findByText('Failed to parse logs')).toBeInTheDocument();
  });
});

const PASSKEY_PROOF = {
  kind: 'webauthn',
  role: 'actor',
  userId: 7,
  username: 'alice',
  confirmationId: 'cfm-42',
  action: '{"method":"/paygate.gateway.v1.FeeService/UpdateFee"}',
  digest: 'ab12',
  nonce: 'bm9uY2U',
  expiresAt: 1764950000,
  credentialId: 'Y3JlZA',
  authenticatorData: 'YXV0aA',
  clientDataJson: 'Y2xpZW50',
  signature: 'c2ln',
};
const TOTP_PROOF = { ...PASSKEY_PROOF, kind: 'totp', role: 'approver', userId: 8, username: 'bob', step: 58831, mac: 'bWFj' };

const SIGNED: Entry[] = [
  {
    Message: 'Sensitive action performed: fee updated',
    ActionType: 'Sensitive',
    Username: 'alice',
    SensitiveActionName: 'fee.update',
    Reason: 'Quarterly fee review',
    ConfirmationId: 'cfm-42',
    Proofs: [PASSKEY_PROOF, TOTP_PROOF],
  },
  { Message: 'Limits changed', ActionType: 'Limits', Username: 'admin', Reason: 'Merchant asked for it' },
  { Message: 'Status changed', ActionType: 'Status', Username: 'carol', ConfirmationId: 'cfm-43', Proofs: '{not a list' },
];

/** item finds the entry whose title is `title`. */
async function item(dialog: HTMLElement, title: string) {
  const items = await within(dialog).findAllByRole('listitem');
  const found = items.find((li) => li.querySelector('.chakra-timeline__title')?.textContent === title);
  if (!found) throw new Error(`no entry ${title}`);
  return found;
}

/** proofRows opens the entry's details and returns the rows of its proofs table. */
async function proofRows(view: Awaited<ReturnType<typeof openActivity>>, title: string) {
  const entry = await item(view.dialog, title);
  await view.user.click(within(entry).getByRole('button', { name: 'Show More' }));
  const block = within(entry).getByRole('region', { name: 'Confirmation' });
  return { entry, block, rows: within(within(block).getByRole('table', { name: 'Proofs' })).getAllByRole('row').slice(1) };
}

describe('Signed entries (issue 28)', () => {
  it("marks an entry applied with a confirmation 'Signed' in its row", async () => {
    const { dialog } = await openActivity(() => HttpResponse.json(answer(SIGNED)));
    expect(within(await item(dialog, 'Sensitive action performed: fee updated')).getByText('Signed')).toBeInTheDocument();
    expect(within(await item(dialog, 'Status changed')).getByText('Signed')).toBeInTheDocument();
    expect(within(await item(dialog, 'Limits changed')).queryByText('Signed')).not.toBeInTheDocument();
  });

  it('shows the reason, the confirmation id and each proof in the Confirmation block', async () => {
    const view = await openActivity(() => HttpResponse.json(answer(SIGNED)));
    const { block, rows } = await proofRows(view, 'Sensitive action performed: fee updated');
    expect(within(block).getByText('Quarterly fee review')).toBeInTheDocument();
    expect(within(block).getByText('cfm-42')).toBeInTheDocument();
    expect(rows.map((r) => [...(r as HTMLTableRowElement).cells].slice(0, 3).map((c) => c.textContent))).toEqual([
      ['Actor', 'alice (7)', 'Passkey'],
      ['Approver', 'bob (8)', 'TOTP code (weaker proof)'],
    ]);
    for (const r of rows) expect(within(r).getByRole('button', { name: 'Verify' })).toBeInTheDocument();
  });

  it('shows the reason of an entry without a confirmation, and no Confirmation block', async () => {
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(SIGNED)));
    const entry = await item(dialog, 'Limits changed');
    await user.click(within(entry).getByRole('button', { name: 'Show More' }));
    expect(within(entry).getByText('Merchant asked for it')).toBeInTheDocument();
    expect(within(entry).queryByRole('region', { name: 'Confirmation' })).not.toBeInTheDocument();
  });

  it('says when the proofs could not be read', async () => {
    const { dialog, user } = await openActivity(() => HttpResponse.json(answer(SIGNED)));
    const entry = await item(dialog, 'Status changed');
    await user.click(within(entry).getByRole('button', { name: 'Show More' }));
    const block = within(entry).getByRole('region', { name: 'Confirmation' });
    expect(within(block).getByText('The proofs could not be read.')).toBeInTheDocument();
    expect(within(block).getByText('cfm-43')).toBeInTheDocument();
    expect(within(block).queryByRole('table')).not.toBeInTheDocument();
  });

  it('verifies a proof: sends it as recorded, shows the check running, then that it is valid', async () => {
    const sent: unknown[] = [];
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const view = await openActivity(
      () => HttpResponse.json(answer(SIGNED)),
      http.post(`${AUTH}/api/v1/confirmations/verify`, async ({ request }) => {
        sent.push(await request.json());
        await held;
        return HttpResponse.json({ valid: true, kind: 'webauthn', reason: '', userId: '7', username: 'alice' });
      }),
    );
    const { rows } = await proofRows(view, 'Sensitive action performed: fee updated');
    const actor = rows[0]!;
    await view.user.click(within(actor).getByRole('button', { name: 'Verify' }));
    expect(await within(actor).findByRole('status')).toHaveTextContent('Verifying…');
    expect(within(actor).getByRole('button', { name: 'Verify' })).toBeDisabled();
    release();
    await waitFor(() => expect(within(actor).getByRole('status')).toHaveTextContent('Valid — signed by alice'));
    expect(within(actor).getByRole('status')).toHaveAttribute('aria-live', 'polite');
    expect(within(actor).getByRole('button', { name: 'Verify' })).toBeEnabled();
    expect(sent).toHaveLength(1);
    const body = sent[0] as { proof: string };
    expect(Object.keys(body)).toEqual(['proof']);
    expect(JSON.parse(body.proof)).toEqual(PASSKEY_PROOF);
    expect(within(rows[1]!).getByRole('status')).toHaveTextContent('');
  });

  it("says 'Not valid: {reason}' when auth refuses the proof", async () => {
    const view = await openActivity(
      () => HttpResponse.json(answer(SIGNED)),
      http.post(`${AUTH}/api/v1/confirmations/verify`, () =>
        HttpResponse.json({ valid: false, kind: 'totp', reason: 'The MAC does not match the code of that step and the digest.', userId: '8', username: 'bob' }),
      ),
    );
    const { rows } = await proofRows(view, 'Sensitive action performed: fee updated');
    const approver = rows[1]!;
    await view.user.click(within(approver).getByRole('button', { name: 'Verify' }));
    await waitFor(() =>
      expect(within(approver).getByRole('status')).toHaveTextContent('Not valid: The MAC does not match the code of that step and the digest.'),
    );
  });

  it('says when the check itself failed, and may be tried again', async () => {
    let fail = true;
    const view = await openActivity(
      () => HttpResponse.json(answer(SIGNED)),
      http.post(`${AUTH}/api/v1/confirmations/verify`, () =>
        fail
          ? HttpResponse.json({ code: 'internal', message: 'auth is unavailable' }, { status: 500 })
          : HttpResponse.json({ valid: true, kind: 'webauthn', reason: '', userId: '7', username: 'alice' }),
      ),
    );
    const { rows } = await proofRows(view, 'Sensitive action performed: fee updated');
    const actor = rows[0]!;
    await view.user.click(within(actor).getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(within(actor).getByRole('status')).toHaveTextContent('Could not verify: auth is unavailable'));
    fail = false;
    await view.user.click(within(actor).getByRole('button', { name: 'Verify' }));
    await waitFor(() => expect(within(actor).getByRole('status')).toHaveTextContent('Valid — signed by alice'));
  });
});
