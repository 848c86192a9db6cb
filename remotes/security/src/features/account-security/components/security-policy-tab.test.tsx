import { screen, waitFor } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { AUTH, server } from '@paygate/devkit/testing/msw';
import { ADMIN } from '@paygate/devkit/testing/tokens';
import { describe, expect, it } from 'vitest';
import { renderSecurity } from '../../../testing/fixtures';

describe('Security Policy tab (issue 27, Settings Access)', () => {
  it('shows the settings in minutes and hours, checks the bounds and saves every field', async () => {
    let sent: unknown;
    server.use(
      http.get(`${AUTH}/api/v1/auth-settings`, () =>
        HttpResponse.json({ settings: { requireSecondFactor: 'REQUIRE_SECOND_FACTOR_OFF', sessionIdleTimeoutSeconds: 86400, sessionMaxLifetimeSeconds: 604800 } }),
      ),
      http.put(`${AUTH}/api/v1/auth-settings`, async ({ request }) => {
        sent = await request.json();
        return HttpResponse.json(sent as Record<string, unknown>);
      }),
    );
    const { user } = renderSecurity(ADMIN, 'policy');
    const idle = await screen.findByLabelText('Idle timeout (minutes)');
    expect(idle).toHaveValue(1440);
    const life = screen.getByLabelText('Maximum session lifetime (hours)');
    expect(life).toHaveValue(168);
    await user.selectOptions(screen.getByLabelText('Require a second factor'), 'REQUIRE_SECOND_FACTOR_ADMIN_WIDE');
    await user.clear(idle);
    await user.type(idle, '2');
    expect(await screen.findByText('Enter 5 to 43,200 minutes.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Save' })).toBeDisabled();
    await user.clear(idle);
    await user.type(idle, '30');
    await user.clear(life);
    await user.type(life, '12');
    await user.click(screen.getByRole('button', { name: 'Save' }));
    await waitFor(() =>
      expect(sent).toEqual({
        settings: { requireSecondFactor: 'REQUIRE_SECOND_FACTOR_ADMIN_WIDE', sessionIdleTimeoutSeconds: 1800, sessionMaxLifetimeSeconds: 43200 },
      }),
    );
    expect(await screen.findByText('Security policy saved')).toBeInTheDocument();
  });
});
