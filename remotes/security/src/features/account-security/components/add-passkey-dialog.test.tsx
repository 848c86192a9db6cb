import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { AUTH, server } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import type * as Sdk from '@paygate/sdk';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { renderSecurity } from '../../../testing/fixtures';

// jsdom has no authenticator: the SDK's ceremony is replaced, the rest of the SDK is real.
const ceremony = vi.hoisted(() => ({ register: vi.fn<(name: string) => Promise<unknown>>() }));
vi.mock('@paygate/sdk', async (importOriginal) => {
  const sdk = await importOriginal<typeof Sdk>();
  return { ...sdk, passkeysSupported: () => true, registerPasskey: (name: string) => ceremony.register(name) };
});

const ME: TestUser = { username: 'tester', roles: ['Merchant Support'] };
const CREDENTIALS = `${AUTH}/api/v1/webauthn/credentials`;

beforeEach(() => {
  ceremony.register.mockReset();
});

async function openDialog() {
  let registered = false;
  server.use(http.get(CREDENTIALS, () => HttpResponse.json(registered ? [{ id: 'n', description: 'MacBook Pro', createdAt: new Date().toISOString() }] : [])));
  const view = renderSecurity(ME, 'passkeys');
  await view.user.click(await screen.findByRole('button', { name: 'Add Your First Passkey' }));
  const dialog = await screen.findByRole('dialog', { name: 'Add New Passkey' });
  return { ...view, dialog, markRegistered: () => (registered = true) };
}

describe('Add New Passkey dialog (spec 02 "Account Security", spec 01 §8)', () => {
  it('registers with the typed name, toasts Passkey Created and shows the new passkey', async () => {
    const { user, dialog, markRegistered } = await openDialog();
    ceremony.register.mockImplementation(async () => {
      markRegistered();
      return {};
    });
    const name = within(dialog).getByLabelText(/Passkey Name/);
    expect(name).toHaveAttribute('placeholder', 'e.g., MacBook Pro');
    await user.type(name, 'MacBook Pro');
    await user.click(within(dialog).getByRole('button', { name: 'Create Passkey' }));
    expect(await screen.findByText('Passkey Created')).toBeInTheDocument();
    expect(screen.getByText('Your passkey has been set up successfully!')).toBeInTheDocument();
    expect(ceremony.register).toHaveBeenCalledWith('MacBook Pro');
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Add New Passkey' })).not.toBeInTheDocument());
    expect(await screen.findByRole('table', { name: 'Passkeys' })).toBeInTheDocument();
  });

  it('registers without a name, the name being optional, named after the browser, its system and the day', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
    );
    const { user, dialog } = await openDialog();
    ceremony.register.mockResolvedValue({});
    const today = new Date();
    await user.click(within(dialog).getByRole('button', { name: 'Create Passkey' }));
    await waitFor(() => expect(ceremony.register).toHaveBeenCalled());
    const day = `${today.getDate()} ${today.toLocaleString('en-US', { month: 'short' })} ${today.getFullYear()}`;
    expect(ceremony.register).toHaveBeenCalledWith(`Chrome on Linux · ${day}`);
  });

  it('sends a name of blanks as the default name too', async () => {
    vi.spyOn(navigator, 'userAgent', 'get').mockReturnValue(
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.4 Safari/605.1.15',
    );
    const { user, dialog } = await openDialog();
    ceremony.register.mockResolvedValue({});
    await user.type(within(dialog).getByLabelText(/Passkey Name/), '   ');
    await user.click(within(dialog).getByRole('button', { name: 'Create Passkey' }));
    await waitFor(() => expect(ceremony.register).toHaveBeenCalledWith(expect.stringMatching(/^Safari on macOS · \d{1,2} [A-Z][a-z]{2} \d{4}$/)));
  });

  // Spec 02 §8 words the page's texts; spec 01's "Passkey registration was cancelled or not allowed"
  // belongs to the setup dialog, not here.
  it.each([
    ['NotAllowedError', 'denied', 'Passkey creation was cancelled or not allowed'],
    ['InvalidStateError', 'exists', 'A passkey already exists for this device'],
    ['NotSupportedError', 'unsupported', 'Your device does not support passkeys'],
    ['Error', '', 'Failed to create passkey. Please try again.'],
  ])("shows spec 02's text for a browser %s and keeps the dialog open", async (name, message, text) => {
    const { user, dialog } = await openDialog();
    ceremony.register.mockRejectedValue(Object.assign(new Error(message), { name }));
    await user.click(within(dialog).getByRole('button', { name: 'Create Passkey' }));
    expect(await screen.findByText(text)).toBeInTheDocument();
    expect(screen.queryByText('Passkey registration was cancelled or not allowed')).not.toBeInTheDocument();
    expect(screen.getByRole('dialog', { name: 'Add New Passkey' })).toBeInTheDocument();
  });

  it("shows the server's refusal as it says it", async () => {
    const { user, dialog } = await openDialog();
    ceremony.register.mockRejectedValue(Object.assign(new Error('The passkey name must be at most 64 characters long.'), { name: 'ApiError' }));
    await user.click(within(dialog).getByRole('button', { name: 'Create Passkey' }));
    expect(await screen.findByText('The passkey name must be at most 64 characters long.')).toBeInTheDocument();
  });
});
