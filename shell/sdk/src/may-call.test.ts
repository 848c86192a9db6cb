import { describe, expect, it } from 'vitest';
import type { Permission, User } from './access';
import { AGGREGATOR_CALLS } from './call-rules/aggregator.gen';
import { AUTH_CALLS } from './call-rules/auth.gen';
import { CALLBACKS_CALLS } from './call-rules/callbacks.gen';
import { GATEWAY_CALLS } from './call-rules/gateway.gen';
import { CALL_RULES, callOfRequest, mayCall, ruleOf } from './may-call';

const user = (roles: string[], permissions: Permission[], isTemporaryPassword = false, globalScope = roles.includes('Admin')): User => ({
  id: '7',
  username: 'u',
  roles,
  permissions,
  merchantIds: [1],
  isTemporaryPassword,
  globalScope,
});

describe('the call table', () => {
  it('holds every service, each method once and each REST route once', () => {
    const tables = [AUTH_CALLS, GATEWAY_CALLS, CALLBACKS_CALLS, AGGREGATOR_CALLS];
    const methods = tables.flatMap((t) => Object.keys(t));
    expect(Object.keys(CALL_RULES)).toHaveLength(methods.length);
    const routes = Object.values(CALL_RULES).flatMap((c) => [...c.http]);
    expect(new Set(routes).size).toBe(routes.length);
    expect(routes).toContain('POST /api/v1/collabs/initialize');
    expect(routes).toContain('GET /api/v1/jobs/stats');
  });

  it('finds a row by method and by route', () => {
    expect(ruleOf('GET /api/v1/merchant-collabs')).toBe(ruleOf('/paygate.gateway.v1.CollabService/ListCollabs'));
    expect(ruleOf('POST /api/v1/maintenance/enable')?.rule).toEqual({ permissions: ['Edit Maintenance Mode'] });
  });

  it('maps a concrete request to its route, preferring a literal segment over a variable', () => {
    expect(callOfRequest('get', '/api/v1/collabs/12/settings?x=1')).toBe('GET /api/v1/collabs/{collabId}/settings');
    expect(callOfRequest('GET', '/api/v1/fees/winners')).toBe('GET /api/v1/fees/winners');
    expect(callOfRequest('GET', '/api/v1/fees/3')).toBe('GET /api/v1/fees/{id}');
    expect(callOfRequest('DELETE', '/api/v1/12/pay-types')).toBe('DELETE /api/v1/{collabId}/pay-types');
    expect(callOfRequest('GET', '/api/v1/nothing-here')).toBeUndefined();
  });
});

describe('mayCall (the steps of authz.authorize)', () => {
  const admin = user(['Admin'], ['Edit Collab', 'Get Providers', 'Edit Maintenance Mode']);
  const merchant = user(['Merchant'], ['Get Providers']);

  it('lets anyone make a public call, signed in or not', () => {
    expect(mayCall(null, 'POST /api/v1/login')).toBe(true);
    expect(mayCall(merchant, 'POST /api/v1/login')).toBe(true);
  });

  it('refuses an internal call to every user', () => {
    expect(mayCall(admin, '/paygate.gateway.v1.ReplayService/StreamTransactions')).toBe(false);
  });

  it('needs a signed-in user for every other call', () => {
    expect(mayCall(null, 'GET /api/v1/maintenance/status')).toBe(false);
    expect(mayCall(merchant, 'GET /api/v1/maintenance/status')).toBe(true);
  });

  it('needs one of the permissions', () => {
    expect(mayCall(admin, 'POST /api/v1/collabs/{collabId}/activeness')).toBe(true);
    expect(mayCall(merchant, 'POST /api/v1/collabs/{collabId}/activeness')).toBe(false);
  });

  it('needs the requirement too when the rule names one, by flag and permissions, never by role name', () => {
    // SetProviderActiveness: allMerchants, admin-wide with Edit Collab.
    expect(ruleOf('POST /api/v1/providers/{providerId}/activeness')?.rule).toEqual({ requires: 'allMerchants' });
    expect(mayCall(admin, 'POST /api/v1/providers/{providerId}/activeness')).toBe(true);
    expect(mayCall(user(['Merchant Admin'], ['Edit Collab']), 'POST /api/v1/providers/{providerId}/activeness')).toBe(false);
    expect(mayCall(user(['Admin'], []), 'POST /api/v1/providers/{providerId}/activeness')).toBe(false);
    expect(mayCall(user(['Admin'], ['Edit Collab'], false, false), 'POST /api/v1/providers/{providerId}/activeness')).toBe(false);
    expect(mayCall(user(['Operators'], ['Edit Collab'], false, true), 'POST /api/v1/providers/{providerId}/activeness')).toBe(true);
  });

  it('holds a user with a temporary password to the calls that allow it', () => {
    const temporary = user(['Admin'], ['Get Providers'], true);
    expect(mayCall(temporary, 'GET /api/v1/merchant-collabs')).toBe(false);
    expect(mayCall(temporary, 'POST /api/v1/logout')).toBe(true);
    expect(mayCall(temporary, 'GET /api/v1/validate-token')).toBe(true);
  });

  it('refuses a call the table does not hold', () => {
    // @ts-expect-error: not a call of the table
    expect(mayCall(admin, 'GET /api/v1/nothing-here')).toBe(false);
  });
});
