import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { UpdateStepUpSettingsRequestJson, UpdateStepUpSettingsResponseJson } from '@paygate/gen/auth/v1/confirmations_pb';
import { api } from '@paygate/sdk';
import { z } from 'zod';
import { SENSITIVE_ACTIONS_KEY } from '../../../api/get-sensitive-actions';

/** The step-up setting: the actions that need it and whom it concerns. */
export const stepUpInput = z.object({
  actions: z.array(z.string().min(1)),
  scope: z.enum(['admin_wide', 'everyone', 'none']),
}) satisfies z.ZodType<UpdateStepUpSettingsRequestJson>;

export type StepUpInput = z.infer<typeof stepUpInput>;

/**
 * updateStepUp replaces the step-up setting
 * (PUT {authUrl}/api/v1/sensitive-actions/step-up {actions, scope};
 * requirement securityPolicy). It takes effect at each user's next token.
 */
export async function updateStepUp(input: StepUpInput): Promise<UpdateStepUpSettingsResponseJson | undefined> {
  return api.request<UpdateStepUpSettingsResponseJson | undefined>('auth', '/api/v1/sensitive-actions/step-up', { method: 'PUT', body: stepUpInput.parse(input) });
}

/** useUpdateStepUp is the mutation of updateStepUp; the catalogue reloads afterwards. */
export function useUpdateStepUp() {
  const client = useQueryClient();
  return useMutation({
    mutationFn: updateStepUp,
    onSuccess: () => client.invalidateQueries({ queryKey: SENSITIVE_ACTIONS_KEY }),
  });
}
