import type { User } from './access';
import type { CallRule } from './call-rule';
import { AGGREGATOR_CALLS } from './call-rules/aggregator.gen';
import { AUTH_CALLS } from './call-rules/auth.gen';
import { CALLBACKS_CALLS } from './call-rules/callbacks.gen';
import { GATEWAY_CALLS } from './call-rules/gateway.gen';
import { meets } from './requirement';

export type { CallRule } from './call-rule';

/**
 * CALL_RULES is who may call what, as the server enforces it: every
 * service's Rules table (Go), keyed by full gRPC method name, generated into
 * ./call-rules/*.gen.ts (`make call-rules`; a Go test of each service fails
 * when its file differs from its table). docs/contracts.md "Who may call
 * what".
 */
export const CALL_RULES = { ...AUTH_CALLS, ...GATEWAY_CALLS, ...CALLBACKS_CALLS, ...AGGREGATOR_CALLS };

type Table = typeof CALL_RULES;

/** CallMethod is a full gRPC method name of the table ("/paygate.gateway.v1.CollabService/InitializeCollab"). */
export type CallMethod = keyof Table;

/** HttpCall is a REST route of the table, "VERB /path" with path variables by JSON name ("POST /api/v1/collabs/initialize"). */
export type HttpCall = Table[CallMethod]['http'][number];

/** Call names one row of the table by its gRPC method or by one of its REST routes. */
export type Call = CallMethod | HttpCall;

const byMethod: Readonly<Record<string, CallRule>> = CALL_RULES;

/** byRoute maps each REST route to its method. */
const byRoute: ReadonlyMap<string, string> = new Map(
  Object.entries(byMethod).flatMap(([method, c]) => c.http.map((route) => [route, method] as const)),
);

/** ruleOf returns the table's row of a call (undefined for a name the table does not hold). */
export function ruleOf(call: Call): CallRule | undefined {
  const method = byRoute.get(call) ?? call;
  return byMethod[method];
}

/**
 * mayCall tells whether the server lets the user make the call, by the same
 * steps as the server's interceptor (authz.authorize): no row or an empty
 * row refuses; an internal row refuses every user; a public row admits
 * anyone; otherwise the user must be signed in, must not hold a temporary
 * password unless the row allows it, must hold one of the row's permissions
 * when it lists some, and must meet the row's requirement when it names one
 * (permissions and scope flag, never a role's name: docs/access.md).
 *
 * The console shows a control only when the server's rule for its call lets
 * the user in. A handler may refuse more (merchant scope, or a platform-wide
 * change that needs more than the rule): the control then adds that
 * condition beside mayCall (docs/contracts.md).
 */
export function mayCall(user: User | null | undefined, call: Call): boolean {
  const row = ruleOf(call);
  if (!row) return false;
  const r = row.rule;
  if (r.internal) return false;
  if (r.public) return true;
  const anyRule = !!r.authenticated || (r.permissions?.length ?? 0) > 0 || !!r.requires;
  if (!anyRule || !user) return false;
  if (user.isTemporaryPassword && !r.allowTemporaryPassword) return false;
  if (r.permissions?.length && !r.permissions.some((p) => user.permissions.includes(p))) return false;
  if (r.requires && !meets(user, r.requires)) return false;
  return true;
}

/**
 * callOfRequest finds the table's row a concrete request goes to (`GET`,
 * `/api/v1/collabs/12/settings` → 'GET /api/v1/collabs/{collabId}/settings'),
 * or undefined when no route matches. A route without variables wins over
 * one with them (`/api/v1/fees/winners` before `/api/v1/fees/{id}`), as on
 * the server.
 */
export function callOfRequest(method: string, path: string): HttpCall | undefined {
  const wanted = `${method.toUpperCase()} ${path.split('?')[0]}`;
  let best: { route: string; vars: number } | undefined;
  for (const route of byRoute.keys()) {
    const pattern = new RegExp(`^${route.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (!pattern.test(wanted)) continue;
    const vars = (route.match(/\{/g) ?? []).length;
    if (!best || vars < best.vars) best = { route, vars };
  }
  return best?.route as HttpCall | undefined;
}

// Where a handler asks more than its rule. Each helper mirrors one handler's
// own check (named in its comment) on top of mayCall, so that the console's
// control and the server agree; docs/contracts.md lists them. Like the
// handlers, they decide by requirement (docs/access.md), never by role name.

/**
 * mayStartPayments: InitializeTransaction's rule is public (a merchant may
 * sign the call instead of signing in), and its handler admits a signed-in
 * user only when it meets createTransaction: admin-wide with Create
 * Transactions (services/gateway/internal/grpcapi/transactions.go).
 */
export function mayStartPayments(user: User | null | undefined): boolean {
  return mayCall(user, 'POST /api/v1/transactions/initialize') && !!user && !user.isTemporaryPassword && meets(user, 'createTransaction');
}

/**
 * mayChangeGlobalFees: creating, changing or deleting a fee without a collab
 * (a global fee) also needs globalFees: admin-wide with Edit Fees
 * (fee.Service.editable and parse, services/gateway/internal/fee/fee.go); a
 * fee of a collab needs only the call's rule.
 */
export function mayChangeGlobalFees(user: User | null | undefined): boolean {
  return mayCall(user, 'POST /api/v1/fees') && meets(user, 'globalFees');
}

/**
 * mayStopFraudCallbacks: a fraud review that also stops its transactions'
 * callbacks needs Cancel Callbacks besides the review's rule
 * (services/gateway/internal/grpcapi/frauds.go).
 */
export function mayStopFraudCallbacks(user: User | null | undefined): boolean {
  return mayCall(user, 'POST /api/v1/frauds/{id}/status/{status}') && !!user && user.permissions.includes('Cancel Callbacks');
}
