import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { TerminateSessionRequestJson } from '@paygate/gen/auth/v1/sessions_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { ACTIVE_SESSIONS_KEY } from './get-active-sessions';

/** The input of a termination: the session's id. */
export const terminateSessionInput = z.object({
  id: z.string().trim().min(1),
}) satisfies z.ZodType<TerminateSessionRequestJson>;

export type TerminateSessionInput = z.infer<typeof terminateSessionInput>;

/** terminateSession ends a session (DELETE {gatewayUrl}/api/v1/user-sessions/{id}). */
export async function terminateSession(input: TerminateSessionInput): Promise<void> {
  const { id } = terminateSessionInput.parse(input);
  await api.request('gateway', `/api/v1/user-sessions/${encodeURIComponent(id)}`, { method: 'DELETE' });
}

/** useTerminateSession is the mutation of terminateSession; the session list reloads afterwards. */
export function useTerminateSession() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: terminateSession,
    onSuccess: () => client.invalidateQueries({ queryKey: ACTIVE_SESSIONS_KEY }),
  });
}
