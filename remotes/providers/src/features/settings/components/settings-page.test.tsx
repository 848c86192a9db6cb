import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { NO_PERMISSION, SCREENS, session } from '@paygate/sdk';
import { locationOf, renderApp } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { ADMIN, MERCHANT_USER, tokensFor, type TestUser } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import providersRoutes from '../../../routes';
import { MERCHANTS } from '../../../testing/fixtures';
import { FRAUD, SETTING_KEYS, settingHandler, settingKeysHandler, settingsLoader } from '../../../testing/settings';
import { SettingsPage } from './settings-page';

const SUPPORT: TestUser = { username: 'support', roles: ['Support'], merchantIds: [1, 2, 3] };
/** A non-admin who may see settings: a merchant-scoped role with Settings Access (saving needs platformSettings, admin-wide). */
const READER: TestUser = { username: 'reader', roles: ['Settings readers'], permissions: ['Settings Access'], merchantIds: [1] };

function renderPage(path = '/settings', user: TestUser = ADMIN) {
  return renderApp(path, { user, loader: settingsLoader() });
}

const nav = () => screen.findByRole('navigation', { name: 'Setting keys' });
const keyNames = async () => (await within(await nav()).findAllByRole('listitem')).map((li) => li.textContent);
/** The shell's merchant filter reads the merchants for non-admins. */
const merchantsHandler = () => http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json(MERCHANTS));
const save = () => screen.getByRole('button', { name: 'Save Changes' });

describe('Settings page (spec 02 §2 "Settings", §4, §5, §8)', () => {
  it('lists the keys, searches them, and collapses and expands the list', async () => {
    server.use(settingKeysHandler(), settingHandler());
    const { user } = renderPage();
    expect(await keyNames()).toEqual(['BalanceCacheSeconds', 'FraudDetection', 'PollingIntervalSeconds', 'LegacyFlags', 'Nothing']);
    await waitFor(() => expect(document.title).toBe('Paygate - Settings'));
    expect(screen.getByText('Select a setting to view or change it.')).toBeInTheDocument();

    await user.type(screen.getByRole('searchbox', { name: 'Search settings' }), 'poll');
    expect(await keyNames()).toEqual(['PollingIntervalSeconds']);
    // Descriptions are searched too.
    await user.clear(screen.getByRole('searchbox', { name: 'Search settings' }));
    await user.type(screen.getByRole('searchbox', { name: 'Search settings' }), 'fraud rules');
    expect(await keyNames()).toEqual(['FraudDetection']);
    await user.type(screen.getByRole('searchbox', { name: 'Search settings' }), 'zzz');
    expect(screen.getByText('No settings match “fraud ruleszzz”.')).toBeInTheDocument();

    const collapse = screen.getByRole('button', { name: 'Collapse settings list' });
    expect(collapse).toHaveAttribute('aria-expanded', 'true');
    await user.click(collapse);
    expect(screen.queryByRole('searchbox', { name: 'Search settings' })).not.toBeInTheDocument();
    const expand = screen.getByRole('button', { name: 'Expand settings list' });
    expect(expand).toHaveAttribute('aria-expanded', 'false');
    await user.click(expand);
    expect(screen.getByRole('searchbox', { name: 'Search settings' })).toBeInTheDocument();
  });

  it('edits an object setting: Save Changes only when the value differs, the whole value posted, bounds checked', async () => {
    const posted: unknown[] = [];
    server.use(
      settingKeysHandler(),
      settingHandler(),
      http.post(`${GATEWAY}/api/v1/settings/:key`, async ({ request, params }) => {
        const body = await request.json();
        posted.push({ key: params.key, body });
        return HttpResponse.json(body as never);
      }),
    );
    const { user } = renderPage();
    await user.click(await within(await nav()).findByRole('button', { name: 'FraudDetection' }));
    const form = await screen.findByRole('form', { name: 'FraudDetection value' });
    expect(screen.getByRole('heading', { name: 'FraudDetection' })).toBeInTheDocument();
    expect(save()).toBeDisabled();

    const window = within(form).getByRole('textbox', { name: 'velocityWindowMinutes' });
    expect(window).toHaveValue('60');
    await user.clear(window);
    await user.type(window, '90');
    expect(save()).toBeEnabled();
    // Back to the loaded value: nothing to save.
    await user.clear(window);
    await user.type(window, '60');
    expect(save()).toBeDisabled();

    // Out of range, not whole, or not a number: the field says so and Save stays off.
    await user.clear(window);
    await user.type(window, '1441');
    expect(await within(form).findByText('Enter a whole number from 1 to 1440.')).toBeInTheDocument();
    expect(save()).toBeDisabled();
    await user.clear(window);
    await user.type(window, 'abc');
    expect(within(form).getByText('Enter a number with at most 20 decimals.')).toBeInTheDocument();
    expect(save()).toBeDisabled();

    // Up to 20 decimals are accepted in a number field.
    const factor = within(form).getByRole('textbox', { name: 'amountSpikeFactor' });
    await user.clear(factor);
    await user.type(factor, '2.12345678901234567890');
    await user.clear(window);
    await user.type(window, '120');
    expect(save()).toBeEnabled();
    await user.click(save());
    expect(await screen.findByText('FraudDetection updated')).toBeInTheDocument();
    expect(posted).toEqual([{ key: 'FraudDetection', body: { ...FRAUD, velocityWindowMinutes: 120, amountSpikeFactor: 2.1234567890123457 } }]);
    await waitFor(() => expect(save()).toBeDisabled());
  });

  it('converts server values (numeric strings, "true"/"false") and edits lists, booleans and null', async () => {
    const posted: unknown[] = [];
    server.use(
      settingKeysHandler(),
      settingHandler(),
      http.post(`${GATEWAY}/api/v1/settings/:key`, async ({ request }) => {
        const body = await request.json();
        posted.push(body);
        return HttpResponse.json(body as never);
      }),
    );
    const { user } = renderPage('/settings?key=LegacyFlags');
    const form = await screen.findByRole('form', { name: 'LegacyFlags value' });
    const enabled = within(form).getByRole('checkbox', { name: 'enabled' });
    expect(enabled).toBeChecked();
    expect(within(form).getByRole('textbox', { name: 'limit' })).toHaveValue('12.5');
    expect(within(form).getByLabelText('note is null')).toBeInTheDocument();
    expect(save()).toBeDisabled();

    await user.click(enabled);
    await user.click(within(form).getByRole('button', { name: 'Add item' }));
    const items = within(form).getByRole('list', { name: 'tags items' });
    expect(within(items).getAllByRole('listitem')).toHaveLength(2);
    await user.type(within(items).getByRole('textbox', { name: 'Item 2' }), 'b');
    await user.click(save());
    await screen.findByText('LegacyFlags updated');
    expect(posted).toEqual([{ enabled: false, limit: 12.5, tags: ['a', 'b'], note: null }]);

    // A whole null value is shown as null and can be saved as it is only when changed.
    await user.click(await within(await nav()).findByRole('button', { name: 'Nothing' }));
    const nothing = await screen.findByRole('form', { name: 'Nothing value' });
    expect(within(nothing).getByLabelText('Nothing is null')).toBeInTheDocument();
    expect(save()).toBeDisabled();
  });

  it('shows "Failed to update {name}" with the server message when a save is refused', async () => {
    server.use(
      settingKeysHandler(),
      settingHandler(),
      http.post(`${GATEWAY}/api/v1/settings/:key`, () =>
        HttpResponse.json({ code: 'invalid', message: 'BalanceCacheSeconds must be an integer from 0 to 3600 (it is 4000).' }, { status: 400 }),
      ),
    );
    const { user } = renderPage('/settings?key=BalanceCacheSeconds');
    const input = await screen.findByRole('textbox', { name: 'BalanceCacheSeconds' });
    await user.clear(input);
    await user.type(input, '30');
    await user.click(save());
    expect(await screen.findByText('Failed to update BalanceCacheSeconds')).toBeInTheDocument();
    expect(screen.getByText('BalanceCacheSeconds must be an integer from 0 to 3600 (it is 4000).')).toBeInTheDocument();
    // The edit stays for another try.
    expect(input).toHaveValue('30');
    expect(save()).toBeEnabled();
  });

  it('shows "Failed to load {name} settings" and an in-page error with Try Again', async () => {
    let fail = true;
    server.use(
      settingKeysHandler(),
      http.get(`${GATEWAY}/api/v1/settings/:key`, () =>
        fail ? HttpResponse.json({ code: 'internal', message: 'Something went wrong on our side.' }, { status: 500 }) : HttpResponse.json(7),
      ),
    );
    const { user } = renderPage('/settings?key=BalanceCacheSeconds');
    expect(await screen.findByText('Failed to load BalanceCacheSeconds settings')).toBeInTheDocument();
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Failed to load setting data');
    fail = false;
    await user.click(within(alert).getByRole('button', { name: 'Try Again' }));
    expect(await screen.findByRole('textbox', { name: 'BalanceCacheSeconds' })).toHaveValue('7');
    expect(screen.queryByText('Failed to load setting data')).not.toBeInTheDocument();
  });

  it('shows "Failed to refresh settings list" when the list cannot be read, and refreshes it', async () => {
    let calls = 0;
    server.use(
      http.get(`${GATEWAY}/api/v1/settings/keys`, () => {
        calls += 1;
        return calls === 1 ? HttpResponse.json({ code: 'unavailable', message: 'try later' }, { status: 503 }) : HttpResponse.json(SETTING_KEYS);
      }),
    );
    const { user } = renderPage();
    expect(await screen.findByText('Failed to refresh settings list')).toBeInTheDocument();
    expect(screen.getByText('The settings could not be loaded. Use Refresh to try again.')).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Refresh settings list' }));
    expect(await keyNames()).toHaveLength(5);
    expect(calls).toBe(2);
  });

  it('lets a non-admin with Settings Access read but not save', async () => {
    server.use(settingKeysHandler(), settingHandler(), merchantsHandler());
    renderPage('/settings?key=PollingIntervalSeconds', READER);
    const input = await screen.findByRole('textbox', { name: 'PollingIntervalSeconds' });
    expect(input).toBeDisabled();
    expect(save()).toBeDisabled();
    expect(screen.getByText('Only administrators can change settings.')).toBeInTheDocument();
    expect(screen.getByText(/last changed by admin/)).toBeInTheDocument();
  });

  it("tells a user without Settings Access 'You don't have permission to view this page.'", () => {
    session.signIn(tokensFor(SUPPORT));
    render(
      <ChakraProvider value={defaultSystem}>
        <SettingsPage />
      </ChakraProvider>,
    );
    expect(screen.getByText(NO_PERMISSION)).toBeInTheDocument();
  });

  it('is a screen of the providers remote, not reachable without Settings Access through the route guard', async () => {
    expect(providersRoutes.routes.find((r) => r.path === SCREENS.settings.path)?.Component).toBe(SettingsPage);
    server.use(merchantsHandler());
    const { router } = renderApp('/settings', { user: MERCHANT_USER, loader: settingsLoader() });
    await waitFor(() => expect(locationOf(router)).not.toBe('/settings'));
  });
});
