import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { readStored, rememberPasskey } from '@paygate/sdk';
import { AUTH, server } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import type * as Sdk from '@paygate/sdk';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderSecurity } from '../../../testing/fixtures';

// The browser half of WebAuthn does not exist in jsdom: whether passkeys are
// supported is the test's choice; everything else is the real SDK.
const support = vi.hoisted(() => ({ on: true }));
vi.mock('@paygate/sdk', async (importOriginal) => {
  const sdk = await importOriginal<typeof Sdk>();
  return { ...sdk, passkeysSupported: () => support.on };
});

const ME: TestUser = { username: 'tester', roles: ['Merchant Support'] };
const CREDENTIALS = `${AUTH}/api/v1/webauthn/credentials`;
const DAY = 24 * 3_600_000;
const ago = (ms: number) => new Date(Date.now() - ms).toISOString();

beforeEach(() => {
  support.on = true;
});

describe('Passkeys tab (spec 02 "Account Security", §8, §9)', () => {
  it('lists Name, Created and Last Used as Today, Yesterday, N days ago, a date or Never', async () => {
    server.use(
      http.get(CREDENTIALS, () =>
        HttpResponse.json([
          { id: 'a', description: 'MacBook Pro', createdAt: '2025-03-05T10:00:00Z', lastUsed: ago(2 * 3_600_000) },
          { id: 'b', description: 'Phone', createdAt: ago(30 * 3_600_000), lastUsed: ago(3 * DAY + 60_000) },
          { id: 'c', description: 'Key', createdAt: ago(7 * DAY + 60_000), lastUsed: null },
        ]),
      ),
    );
    renderSecurity(ME, 'passkeys');
    const table = await screen.findByRole('table', { name: 'Passkeys' });
    // Skeleton rows stand in while loading: wait for the passkeys themselves.
    await within(table).findByText('MacBook Pro');
    expect(within(table).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Created', 'Last Used', 'Actions']);
    const cells = (name: string) => Array.from(within(table).getByText(name).closest('tr')!.querySelectorAll('td')).map((c) => c.textContent);
    expect(cells('MacBook Pro').slice(0, 3)).toEqual(['MacBook Pro', 'Mar 5, 2025', 'Today']);
    expect(cells('Phone').slice(0, 3)).toEqual(['Phone', 'Yesterday', '3 days ago']);
    expect(cells('Key')[2]).toBe('Never');
    expect(screen.getByRole('button', { name: 'Add New Passkey' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add Your First Passkey' })).not.toBeInTheDocument();
  });

  it('offers Add Your First Passkey when there are none', async () => {
    server.use(http.get(CREDENTIALS, () => HttpResponse.json([])));
    renderSecurity(ME, 'passkeys');
    expect(await screen.findByRole('button', { name: 'Add Your First Passkey' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add New Passkey' })).not.toBeInTheDocument();
  });

  it("says the browser doesn't support passkeys and offers no registration", async () => {
    support.on = false;
    server.use(http.get(CREDENTIALS, () => HttpResponse.json([])));
    renderSecurity(ME, 'passkeys');
    expect(await screen.findByText("Your browser or device doesn't support passkeys.")).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Add Your First Passkey' })).not.toBeInTheDocument();
  });

  it('shows the load error with Retry, which loads again', async () => {
    let calls = 0;
    server.use(
      http.get(CREDENTIALS, () => {
        calls += 1;
        return calls === 1 ? new HttpResponse(null, { status: 500 }) : HttpResponse.json([{ id: 'a', description: 'MacBook Pro', createdAt: ago(DAY * 10) }]);
      }),
    );
    const { user } = renderSecurity(ME, 'passkeys');
    expect(await screen.findByText('Failed to load passkeys. Please try again.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Retry' }));
    expect(await screen.findByText('MacBook Pro')).toBeInTheDocument();
    expect(calls).toBe(2);
  });

  it('removes a passkey after a confirmation, and forgets the hint when none is left', async () => {
    rememberPasskey('tester');
    let deleted = '';
    server.use(
      http.get(CREDENTIALS, () => HttpResponse.json(deleted ? [] : [{ id: 'a b', description: 'MacBook Pro', createdAt: ago(DAY * 10) }])),
      http.delete(`${CREDENTIALS}/:id`, ({ params }) => {
        deleted = String(params.id);
        return HttpResponse.json({});
      }),
    );
    const { user } = renderSecurity(ME, 'passkeys');
    await user.click(await screen.findByRole('button', { name: 'Remove passkey MacBook Pro' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Remove Passkey' });
    await user.click(within(dialog).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByRole('button', { name: 'Add Your First Passkey' })).toBeInTheDocument();
    expect(deleted).toBe('a b');
    expect(readStored('passkeyUsers')).toBeNull();
  });

  it("says 'Failed to remove passkey. Please try again.' when the removal fails", async () => {
    server.use(
      http.get(CREDENTIALS, () => HttpResponse.json([{ id: 'a', description: 'MacBook Pro', createdAt: ago(DAY * 10) }])),
      http.delete(`${CREDENTIALS}/a`, () => new HttpResponse(null, { status: 500 })),
    );
    const { user } = renderSecurity(ME, 'passkeys');
    await user.click(await screen.findByRole('button', { name: 'Remove passkey MacBook Pro' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Remove' }));
    expect(await screen.findByText('Failed to remove passkey. Please try again.')).toBeInTheDocument();
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(screen.getByText('MacBook Pro')).toBeInTheDocument();
  });
});
