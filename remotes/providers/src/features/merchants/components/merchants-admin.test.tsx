import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { SECRET_SHOWN_ONCE } from '@paygate/sdk';
import { describe, expect, it } from 'vitest';
import { providersLoader } from '../../../testing/fixtures';

const LIST = [
  { id: 1, name: 'Acme Games', hash: 'hash-acme', contactName: 'Ann', contactEmail: 'ann@acme.example', disabled: false },
  { id: 2, name: 'Blue Harbor Shop', hash: 'hash-blue', contactName: '', contactEmail: '', disabled: true },
];

const SECRETS = [
  { id: '8', createdAt: '2026-12-06T10:00:00Z', createdBy: 'admin', state: 'active' },
  { id: '7', createdAt: '2026-12-01T10:00:00Z', createdBy: 'admin', lastUsedAt: '2026-12-06T09:00:00Z', expiresAt: '2026-12-07T10:00:00Z', state: 'expiring' },
  { id: '6', createdAt: '2026-11-01T10:00:00Z', createdBy: 'admin', expiresAt: '2026-11-02T10:00:00Z', state: 'revoked' },
];

function serve() {
  server.use(http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(LIST)));
}

async function rowOf(name: string) {
  const table = await screen.findByRole('table', { name: 'Merchants' });
  const cell = await within(table).findByText(name);
  return cell.closest('tr')!;
}

describe('Merchants page: managing merchants (issue 30)', () => {
  it('adds a merchant with the fields typed', async () => {
    serve();
    let body: unknown;
    server.use(
      http.post(`${GATEWAY}/api/v1/merchants`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ id: 4, name: 'Delta Foods', hash: 'hash-delta', contactName: '', contactEmail: 'd@delta.example', disabled: false });
      }),
    );
    const { user, router } = renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    await user.click(await screen.findByRole('button', { name: 'Add Merchant' }));
    const dialog = await screen.findByRole('dialog', { name: 'Add Merchant' });
    await user.type(within(dialog).getByLabelText(/Name/), 'Delta Foods');
    await user.type(within(dialog).getByLabelText('Contact email'), 'd@delta.example');
    await user.click(within(dialog).getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(body).toEqual({ name: 'Delta Foods', contactName: '', contactEmail: 'd@delta.example' }));
    // "Then create its first collaboration" (on by default) opens the Providers page's
    // Initialize Collaboration dialog for the new merchant.
    await waitFor(() => expect(locationOf(router)).toBe('/providers'));
    expect(screen.queryByRole('dialog', { name: 'Add Merchant' })).not.toBeInTheDocument();
  });

  it('disables a merchant after a confirmation', async () => {
    serve();
    let body: unknown;
    server.use(
      http.put(`${GATEWAY}/api/v1/merchants/1`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ ...LIST[0], disabled: true });
      }),
    );
    const { user } = renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    await user.click(within(await rowOf('Acme Games')).getByRole('button', { name: 'Disable' }));
    const confirm = await screen.findByRole('alertdialog');
    expect(confirm).toHaveTextContent('Its payments are refused until it is enabled again.');
    expect(body).toBeUndefined();
    await user.click(within(confirm).getByRole('button', { name: 'Disable' }));
    await waitFor(() => expect(body).toEqual({ disabled: true }));
    expect(within(await rowOf('Blue Harbor Shop')).getByRole('button', { name: 'Enable' })).toBeInTheDocument();
  });

  it('lists secrets, rotates with an overlap window and shows the new value once', async () => {
    serve();
    let rotate: unknown;
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants/1/secrets`, () => HttpResponse.json(SECRETS)),
      http.post(`${GATEWAY}/api/v1/merchants/1/secrets`, async ({ request }) => {
        rotate = await request.json();
        return HttpResponse.json({ secret: { id: '9', createdAt: '2026-12-06T11:00:00Z', state: 'active' }, value: 'pgs_new-value', merchantHash: 'hash-acme' });
      }),
    );
    const { user } = renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    await user.click(within(await rowOf('Acme Games')).getByRole('button', { name: 'Credentials' }));
    const panel = await screen.findByRole('dialog', { name: 'Credentials - Acme Games' });
    const table = await within(panel).findByRole('table', { name: 'Secrets' });
    await within(table).findByText('expiring');
    expect(within(table).getAllByRole('row')).toHaveLength(4);
    expect(within(table).getByText('revoked')).toBeInTheDocument();
    expect(within(table).getAllByText('Never')).toHaveLength(2);
    // A revoked secret has no Revoke button; the two accepted ones do.
    expect(within(table).getAllByRole('button', { name: /^Revoke secret / }).map((b) => b.getAttribute('aria-label'))).toEqual(['Revoke secret 8', 'Revoke secret 7']);

    await user.click(within(panel).getByRole('button', { name: 'Rotate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rotate secret' });
    const hours = within(dialog).getByLabelText('Overlap window (hours)');
    await user.clear(hours);
    await user.type(hours, '1');
    await user.click(within(dialog).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(rotate).toEqual({ overlapSeconds: 3600 }));
    const shown = await screen.findByRole('dialog', { name: 'New secret' });
    expect(shown).toHaveTextContent(SECRET_SHOWN_ONCE);
    expect(within(shown).getByTestId('secret-value')).toHaveTextContent('pgs_new-value');
    expect(within(shown).getByRole('button', { name: 'Copy' })).toBeInTheDocument();
    await user.click(within(shown).getByRole('button', { name: 'Done' }));
    // Back to the panel; the value is gone for good.
    expect(await screen.findByRole('dialog', { name: 'Credentials - Acme Games' })).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByText('pgs_new-value')).not.toBeInTheDocument());
  });

  it('revokes a secret after a confirmation', async () => {
    serve();
    let revoked = false;
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants/1/secrets`, () => HttpResponse.json(SECRETS)),
      http.post(`${GATEWAY}/api/v1/merchants/1/secrets/7/revoke`, () => {
        revoked = true;
        return HttpResponse.json({ ...SECRETS[1], state: 'revoked' });
      }),
    );
    const { user } = renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    await user.click(within(await rowOf('Acme Games')).getByRole('button', { name: 'Credentials' }));
    const table = await screen.findByRole('table', { name: 'Secrets' });
    await within(table).findByText('expiring');
    await user.click(within(table).getByRole('button', { name: 'Revoke secret 7' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Revoke secret' });
    expect(confirm).toHaveTextContent('Revoke secret 7 of Acme Games?');
    await user.click(within(confirm).getByRole('button', { name: 'Revoke' }));
    await waitFor(() => expect(revoked).toBe(true));
    // Back to the list, in the same Credentials dialog.
    expect(await screen.findByRole('dialog', { name: 'Credentials - Acme Games' })).toBeInTheDocument();
  });

  it('says in the dialog, which stays open, why a rotation was refused; an overlap out of range is not sent', async () => {
    serve();
    const bodies: unknown[] = [];
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants/1/secrets`, () => HttpResponse.json(SECRETS)),
      http.post(`${GATEWAY}/api/v1/merchants/1/secrets`, async ({ request }) => {
        bodies.push(await request.json());
        return HttpResponse.json({ code: 'failed_precondition', message: 'Merchant Acme Games already has 10 secrets still accepted: revoke one first.' }, { status: 422 });
      }),
    );
    const { user } = renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    await user.click(within(await rowOf('Acme Games')).getByRole('button', { name: 'Credentials' }));
    const panel = await screen.findByRole('dialog', { name: 'Credentials - Acme Games' });
    await within(panel).findByText('expiring');
    await user.click(within(panel).getByRole('button', { name: 'Rotate' }));
    const dialog = await screen.findByRole('dialog', { name: 'Rotate secret' });
    const hours = within(dialog).getByRole('textbox', { name: 'Overlap window (hours)' });
    await user.clear(hours);
    await user.type(hours, '721');
    await user.click(within(dialog).getByRole('button', { name: 'Rotate' }));
    await waitFor(() => expect(hours).toHaveAccessibleErrorMessage('Enter the overlap in hours, from 0 to 720.'));
    expect(hours).toHaveAccessibleDescription('How long the current secrets stay accepted: 0 to 720 hours.');
    expect(bodies).toEqual([]);
    await user.clear(hours);
    await user.type(hours, '0{Enter}');
    expect(await within(dialog).findByRole('alert')).toHaveTextContent('The secret was not created: Merchant Acme Games already has 10 secrets still accepted: revoke one first.');
    expect(bodies).toEqual([{ overlapSeconds: 0 }]);
    expect(screen.getByRole('dialog', { name: 'Rotate secret' })).toBeInTheDocument();
  });

  it('creates the first secret (no overlap sent) and shows it once', async () => {
    serve();
    let body: unknown;
    server.use(
      http.get(`${GATEWAY}/api/v1/merchants/1/secrets`, () => HttpResponse.json([])),
      http.post(`${GATEWAY}/api/v1/merchants/1/secrets`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ secret: { id: '1', createdAt: '2026-12-06T11:00:00Z', state: 'active' }, value: 'pgs_first', merchantHash: 'hash-acme' });
      }),
    );
    const { user } = renderApp('/merchants', { user: ADMIN, loader: providersLoader() });
    await user.click(within(await rowOf('Acme Games')).getByRole('button', { name: 'Credentials' }));
    const panel = await screen.findByRole('dialog', { name: 'Credentials - Acme Games' });
    expect(await within(panel).findByText('No secrets yet: create one to sign payment requests.')).toBeInTheDocument();
    expect(within(panel).queryByRole('button', { name: 'Rotate' })).not.toBeInTheDocument();
    await user.click(within(panel).getByRole('button', { name: 'Create secret' }));
    await user.click(within(await screen.findByRole('dialog', { name: 'Create secret' })).getByRole('button', { name: 'Create' }));
    const shown = await screen.findByRole('dialog', { name: 'New secret' });
    expect(body).toEqual({});
    expect(within(shown).getByTestId('secret-value')).toHaveTextContent('pgs_first');
  });
});
