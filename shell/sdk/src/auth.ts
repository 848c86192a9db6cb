import type {
  LoginRequestJson,
  LoginResponseJson,
  ValidateTokenResponseJson,
} from '@paygate/gen/auth/v1/auth_pb';
import type {
  BeginSignInEnrolmentResponseJson,
  CompleteSecondFactorLoginRequestJson,
  CompleteSecondFactorLoginResponseJson,
  CompleteSignInEnrolmentResponseJson,
  TotpEnrolmentJson,
} from '@paygate/gen/auth/v1/second_factor_pb';
import { normalizeUser, type User } from './access';
import { tokensFrom, type ApiClient } from './api-client';
import { ApiError } from './api-error';
import type { SessionStore } from './session';
import { readTabStored, writeStored, writeTabStored } from './storage';

/**
 * SecondStep is what a password sign-in still needs (docs/contracts-second-factor.md):
 * 'code' — a code of the user's authenticator app or a recovery code;
 * 'enrol' — the user must enrol a second factor before any session starts.
 * challenge proves the password; it is single use and expires.
 */
export interface SecondStep {
  step: 'code' | 'enrol';
  challenge: string;
  username: string;
  expiresIn: number;
}

/** SignInResult is a signed-in user, or the second step the sign-in needs. */
export type SignInResult = { user: User; secondStep?: undefined } | { user?: undefined; secondStep: SecondStep };

/** TotpEnrolment is a new TOTP key for an authenticator app. */
export type TotpEnrolment = Required<Pick<TotpEnrolmentJson, 'secret' | 'otpauthUrl'>> & TotpEnrolmentJson;

/** Auth holds the session calls of the auth service. */
export interface Auth {
  /**
   * login signs in with a password, stores the tokens and the last username, and returns the user.
   * A user who must give a second factor is refused here: use signIn.
   */
  login(username: string, password: string): Promise<User>;
  /** signIn signs in with a password; it returns the user, or the second step the sign-in needs. */
  signIn(username: string, password: string): Promise<SignInResult>;
  /**
   * completeSecondStep completes a sign-in with a code or a recovery code
   * (exactly one), stores the tokens and returns the user.
   */
  completeSecondStep(second: SecondStep, proof: { code?: string; recoveryCode?: string }): Promise<User>;
  /** beginSignInEnrolment makes the key of the enrolment a sign-in requires. */
  beginSignInEnrolment(second: SecondStep): Promise<TotpEnrolment>;
  /**
   * completeSignInEnrolment confirms that key with its first code, stores the
   * tokens and returns the user and the recovery codes (shown once).
   */
  completeSignInEnrolment(second: SecondStep, code: string): Promise<{ user: User; recoveryCodes: string[] }>;
  /**
   * logout tells the server and clears the local data even when that call
   * fails. It marks this tab as logged out until the next sign-in
   * (loggedOutByUser), so that the login page does not sign straight back in.
   */
  logout(): Promise<void>;
  /** fetchUser asks the server who the token belongs to and stores that user. */
  fetchUser(): Promise<User>;
}

/**
 * loggedOutByUser: the user logged out in this tab (Logout, or ending its own
 * session) and has not signed in since. The login page then waits for the
 * user instead of attempting a passkey sign-in by itself (issue 25).
 */
export function loggedOutByUser(): boolean {
  return readTabStored('loggedOut') === 'true';
}

/** createAuth binds the auth calls to a client and a session. */
export function createAuth(api: ApiClient, session: SessionStore): Auth {
  function signedIn(res: { accessToken?: string; refreshToken?: string } | undefined): User {
    session.signIn(tokensFrom(res));
    const user = session.getState().user;
    if (!user) throw new ApiError(502, 'internal', 'The server answered with an unreadable access token');
    return user;
  }

  async function signIn(username: string, password: string): Promise<SignInResult> {
    const body: LoginRequestJson = { username, password };
    const res = await api.post<LoginResponseJson>('auth', '/api/v1/login', body);
    writeStored('lastUsername', username);
    const sf = res?.secondFactor;
    if (sf?.challenge) {
      const step = sf.step === 'SIGN_IN_STEP_ENROL' ? 'enrol' : 'code';
      return { secondStep: { step, challenge: sf.challenge, username, expiresIn: sf.expiresIn ?? 0 } };
    }
    return { user: signedIn(res) };
  }

  return {
    async login(username, password) {
      const res = await signIn(username, password);
      if (!res.user) throw new ApiError(401, 'unauthenticated', 'This account signs in with a second factor.');
      return res.user;
    },

    signIn,

    async completeSecondStep(second, proof) {
      const body: CompleteSecondFactorLoginRequestJson = { challenge: second.challenge, ...proof };
      const res = await api.post<CompleteSecondFactorLoginResponseJson>('auth', '/api/v1/login/second-factor', body);
      return signedIn(res);
    },

    async beginSignInEnrolment(second) {
      const res = await api.post<BeginSignInEnrolmentResponseJson>('auth', '/api/v1/login/second-factor/enrol/begin', {
        challenge: second.challenge,
      });
      const e = res?.enrolment;
      if (!e?.secret || !e.otpauthUrl) throw new ApiError(502, 'internal', 'The server answered without a key');
      return { ...e, secret: e.secret, otpauthUrl: e.otpauthUrl };
    },

    async completeSignInEnrolment(second, code) {
      const res = await api.post<CompleteSignInEnrolmentResponseJson>('auth', '/api/v1/login/second-factor/enrol/complete', {
        challenge: second.challenge,
        code,
      });
      return { user: signedIn(res), recoveryCodes: res?.recoveryCodes ?? [] };
    },

    async logout() {
      writeTabStored('loggedOut', 'true');
      const token = session.getState().accessToken;
      try {
        if (token) await api.send('auth', '/api/v1/logout', { method: 'POST', body: {} }, token);
      } catch {
        // The local session ends whatever the server says.
      } finally {
        session.clear();
      }
    },

    async fetchUser() {
      const res = await api.get<ValidateTokenResponseJson>('auth', '/api/v1/validate-token');
      if (!res?.user) throw new ApiError(502, 'internal', 'The server answered without a user');
      const user = normalizeUser(res.user);
      session.setUser(user);
      return user;
    },
  };
}
