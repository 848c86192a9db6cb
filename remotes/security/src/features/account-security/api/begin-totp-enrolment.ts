import { useMutation } from '@tanstack/react-query';
import type { BeginTotpEnrolmentResponseJson } from '@paygate/gen/auth/v1/second_factor_pb';
import { api, ApiError, type TotpEnrolment } from '@paygate/sdk';

/** beginTotpEnrolment makes a new pending key for the caller (POST {authUrl}/api/v1/second-factor/totp/begin). */
export async function beginTotpEnrolment(): Promise<TotpEnrolment> {
  const res = await api.post<BeginTotpEnrolmentResponseJson>('auth', '/api/v1/second-factor/totp/begin', {});
  const e = res?.enrolment;
  if (!e?.secret || !e.otpauthUrl) throw new ApiError(502, 'internal', 'The server answered without a key');
  return { ...e, secret: e.secret, otpauthUrl: e.otpauthUrl };
}

/** useBeginTotpEnrolment is the mutation of beginTotpEnrolment. */
export function useBeginTotpEnrolment() {
  return useMutation({ mutationFn: beginTotpEnrolment });
}
