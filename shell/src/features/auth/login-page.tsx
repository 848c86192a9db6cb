import type { SecondStep, User } from '@paygate/sdk';
import { lazy, Suspense, useCallback, useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useNavigate } from 'react-router';
import { SIGN_IN_CSS } from './login-style';
import { canUsePasskeys, lastUsername as storedUsername, loadSdk, loggedOutInThisTab, passkeyHint } from './signed-out';

// The second step needs Chakra UI and the SDK's code input: loaded when a sign-in gets there.
const SecondStepScreen = lazy(() => import('./second-step-screen'));

/**
 * landingOf is where a user goes after signing in: a temporary password's
 * form first (/change-password, or /temporary-password without Edit User),
 * else the stored redirect, else /transactions.
 */
async function landingOf(user: User): Promise<string> {
  const [{ session, DEFAULT_LANDING }, { passwordFormOf }] = await Promise.all([loadSdk(), import('../../app/access-rules')]);
  const redirect = session.takeRedirect();
  return user.isTemporaryPassword ? passwordFormOf(user) : (redirect ?? DEFAULT_LANDING);
}

/**
 * usePasskeyAttempt runs one passkey sign-in at a time: run cancels the
 * attempt under way (its calls and the browser's prompt) and starts a new
 * one, resolving to the user or to null when it was cancelled in turn; cancel
 * ends the attempt under way; busy is true while one runs.
 */
function usePasskeyAttempt() {
  const [busy, setBusy] = useState(false);
  const current = useRef<AbortController | null>(null);

  const cancel = useCallback(() => {
    current.current?.abort();
    current.current = null;
    setBusy(false);
  }, []);

  const run = useCallback(async (username: string): Promise<User | null> => {
    current.current?.abort();
    const controller = new AbortController();
    current.current = controller;
    setBusy(true);
    try {
      const { signInWithPasskey } = await loadSdk();
      if (controller.signal.aborted) return null;
      return await signInWithPasskey(username, controller.signal);
    } catch (err) {
      if (controller.signal.aborted) return null;
      throw err;
    } finally {
      if (current.current === controller) {
        current.current = null;
        setBusy(false);
      }
    }
  }, []);

  return { busy, run, cancel };
}

/** configError says that the console could not load what signing in needs (its config, the SDK). */
function configError(err: unknown): string {
  return `The console could not load what signing in needs: ${err instanceof Error ? err.message : String(err)}`;
}

/**
 * LoginPage signs in with username and password, or with a passkey (spec 01
 * §2 "Login page"). The 'Sign in with Passkey' button shows while the entered
 * username is known to have a passkey on this device; for a prefilled username
 * with one, a passkey sign-in starts by itself on arrival, except right after
 * an explicit Logout in this tab (until the next sign-in). That attempt fails
 * silently, and the password form stays usable meanwhile: signing in with the
 * password cancels it. When the password is right and the account has a
 * second factor, or must enrol one, the second step follows
 * (docs/contracts-second-factor.md); a passkey sign-in needs none.
 *
 * The page renders without Chakra UI, the SDK or the query client (issue 31:
 * /login downloads at most 170 KB of JavaScript): plain elements styled by
 * login-style.ts after the Chakra theme's tokens. The SDK (and Chakra with
 * it) loads when the user starts typing, and signing in goes through it; an
 * error shows under the form as an alert.
 */
export function LoginPage() {
  const navigate = useNavigate();
  const [lastUsername] = useState(storedUsername);
  const [username, setUsername] = useState(lastUsername);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [second, setSecond] = useState<SecondStep | null>(null);
  const [supported] = useState(canUsePasskeys);
  const { busy: passkeyBusy, run: runPasskey, cancel: cancelPasskey } = usePasskeyAttempt();

  // Right after an explicit Logout the user chose to leave: no automatic
  // attempt until the next sign-in (the 'Sign in with Passkey' button stays).
  const [afterLogout] = useState(loggedOutInThisTab);

  useEffect(() => {
    document.title = 'Paygate - Login';
  }, []);

  useEffect(() => {
    if (supported && !afterLogout && passkeyHint(lastUsername)) {
      runPasskey(lastUsername)
        .then(async (user) => user && navigate(await landingOf(user), { replace: true }))
        .catch(() => {
          // A failed automatic attempt is silent (spec 01 §8); the form is there.
        });
    }
    return cancelPasskey;
  }, [supported, afterLogout, lastUsername, navigate, runPasskey, cancelPasskey]);

  // Typing starts the SDK's download, which signing in needs.
  const warm = () => void loadSdk().catch(() => undefined);

  async function signInWithPasskeyButton() {
    setError('');
    try {
      const user = await runPasskey(username);
      if (user) navigate(await landingOf(user), { replace: true });
    } catch (err) {
      try {
        const { loginErrorMessage } = await loadSdk();
        setError(loginErrorMessage(err));
      } catch (loadErr) {
        setError(configError(loadErr));
      }
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!username || !password) {
      setError('Please enter username and password');
      return;
    }
    // The password wins: a passkey attempt under way is cancelled, calls included.
    cancelPasskey();
    setBusy(true);
    setError('');
    let sdk;
    try {
      sdk = await loadSdk();
    } catch (err) {
      setError(configError(err));
      setBusy(false);
      return;
    }
    try {
      const res = await sdk.auth.signIn(username, password);
      if (res.secondStep) {
        setSecond(res.secondStep);
        setBusy(false);
        return;
      }
      await signedIn(res.user);
    } catch (err) {
      if (sdk.isApiError(err) && err.status === 401) setError('Invalid username or password');
      else setError(sdk.errorMessage(err, 'Failed to login'));
      setBusy(false);
    }
  }

  async function signedIn(user: User) {
    const { notePasswordSignIn } = await loadSdk();
    notePasswordSignIn(user.username);
    navigate(await landingOf(user), { replace: true });
  }

  const restart = useCallback((message?: string) => {
    setSecond(null);
    setPassword('');
    setError(message ?? '');
  }, []);

  if (second) {
    return (
      <Suspense fallback={<SignInFrame busy />}>
        <SecondStepScreen second={second} onSignedIn={(user) => void signedIn(user)} onRestart={restart} />
      </Suspense>
    );
  }

  const showPasskey = supported && passkeyHint(username);

  return (
    <SignInFrame>
      <form onSubmit={submit} noValidate>
        <h1 className="pg-signin-title">Paygate</h1>
        <div className="pg-signin-field">
          <label htmlFor="pg-signin-username">Username</label>
          <input
            id="pg-signin-username"
            name="username"
            autoComplete="username"
            value={username}
            onChange={(e) => {
              warm();
              setUsername(e.target.value);
            }}
            autoFocus={!username}
          />
        </div>
        <div className="pg-signin-field">
          <label htmlFor="pg-signin-password">Password</label>
          <input
            id="pg-signin-password"
            name="password"
            type="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => {
              warm();
              setPassword(e.target.value);
            }}
            autoFocus={!!username}
          />
        </div>
        {error && (
          <div className="pg-signin-error" role="alert">
            {error}
          </div>
        )}
        <button type="submit" className="pg-signin-button pg-signin-solid" disabled={busy} aria-busy={busy || undefined}>
          Login
        </button>
        {showPasskey && (
          <button
            type="button"
            className="pg-signin-button pg-signin-outline"
            disabled={busy || passkeyBusy}
            aria-busy={passkeyBusy || undefined}
            onClick={() => void signInWithPasskeyButton()}
          >
            Sign in with Passkey
          </button>
        )}
      </form>
    </SignInFrame>
  );
}

/** SignInFrame is the sign-in page's centred card, and its style sheet. */
function SignInFrame({ children, busy }: { children?: ReactNode; busy?: boolean }) {
  return (
    <div className="pg-signin">
      <style href="paygate-sign-in" precedence="default">
        {SIGN_IN_CSS}
      </style>
      <main className="pg-signin-card" aria-busy={busy || undefined}>
        {busy ? <p role="status" aria-label="Loading" className="pg-signin-loading" /> : children}
      </main>
    </div>
  );
}
