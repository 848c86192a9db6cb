import { Button, Card, Center, Field, Heading, Input, Stack } from '@chakra-ui/react';
import {
  auth,
  DEFAULT_LANDING,
  errorMessage,
  hasPasskeyHint,
  isApiError,
  loggedOutByUser,
  loginErrorMessage,
  notePasswordSignIn,
  notify,
  passkeysSupported,
  readStored,
  session,
  signInWithPasskey,
  usePageTitle,
  type SecondStep,
  type User,
} from '@paygate/sdk';
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { useNavigate } from 'react-router';
import { passwordFormOf } from '../../app/access-rules';
import { SecondStepForm } from './second-step';

/**
 * landingOf is where a user goes after signing in: a temporary password's
 * form first (/change-password, or /temporary-password without Edit User),
 * else the stored redirect, else /transactions.
 */
function landingOf(user: User): string {
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
 */
export function LoginPage() {
  usePageTitle('Login');
  const navigate = useNavigate();
  const [lastUsername] = useState(() => readStored('lastUsername') ?? '');
  const [username, setUsername] = useState(lastUsername);
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [second, setSecond] = useState<SecondStep | null>(null);
  const [supported] = useState(passkeysSupported);
  const { busy: passkeyBusy, run: runPasskey, cancel: cancelPasskey } = usePasskeyAttempt();

  // Right after an explicit Logout the user chose to leave: no automatic
  // attempt until the next sign-in (the 'Sign in with Passkey' button stays).
  const [afterLogout] = useState(loggedOutByUser);

  useEffect(() => {
    if (supported && !afterLogout && hasPasskeyHint(lastUsername)) {
      runPasskey(lastUsername).then(
        (user) => user && navigate(landingOf(user), { replace: true }),
        () => {
          // A failed automatic attempt is silent (spec 01 §8); the form is there.
        },
      );
    }
    return cancelPasskey;
  }, [supported, afterLogout, lastUsername, navigate, runPasskey, cancelPasskey]);

  async function signInWithPasskeyButton() {
    try {
      const user = await runPasskey(username);
      if (user) navigate(landingOf(user), { replace: true });
    } catch (err) {
      notify.error(loginErrorMessage(err));
    }
  }

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!username || !password) {
      notify.error('Please enter username and password');
      return;
    }
    // The password wins: a passkey attempt under way is cancelled, calls included.
    cancelPasskey();
    setBusy(true);
    try {
      const res = await auth.signIn(username, password);
      if (res.secondStep) {
        setSecond(res.secondStep);
        setBusy(false);
        return;
      }
      signedIn(res.user);
    } catch (err) {
      if (isApiError(err) && err.status === 401) notify.error('Invalid username or password');
      else notify.error(errorMessage(err, 'Failed to login'));
      setBusy(false);
    }
  }

  function signedIn(user: User) {
    notePasswordSignIn(user.username);
    navigate(landingOf(user), { replace: true });
  }

  const restart = useCallback((message?: string) => {
    setSecond(null);
    setPassword('');
    if (message) notify.error(message);
  }, []);

  const showPasskey = supported && hasPasskeyHint(username);

  if (second) {
    return (
      <Center minH="100vh" bg="bg.subtle" p={4}>
        <Card.Root w="full" maxW="md" as="main">
          <Card.Body>
            <SecondStepForm second={second} onSignedIn={signedIn} onRestart={restart} />
          </Card.Body>
        </Card.Root>
      </Center>
    );
  }

  return (
    <Center minH="100vh" bg="bg.subtle" p={4}>
      <Card.Root w="full" maxW="sm" as="main">
        <Card.Body>
          <form onSubmit={submit} noValidate>
            <Stack gap={5}>
              <Heading as="h1" size="xl" textAlign="center">
                Paygate
              </Heading>
              <Field.Root>
                <Field.Label>Username</Field.Label>
                <Input
                  name="username"
                  autoComplete="username"
                  value={username}
                  onChange={(e) => setUsername(e.target.value)}
                  autoFocus={!username}
                />
              </Field.Root>
              <Field.Root>
                <Field.Label>Password</Field.Label>
                <Input
                  name="password"
                  type="password"
                  autoComplete="current-password"
                  value={password}
                  onChange={(e) => setPassword(e.target.value)}
                  autoFocus={!!username}
                />
              </Field.Root>
              <Button type="submit" colorPalette="blue" loading={busy} w="full">
                Login
              </Button>
              {showPasskey && (
                <Button type="button" variant="outline" w="full" loading={passkeyBusy} disabled={busy} onClick={signInWithPasskeyButton}>
                  Sign in with Passkey
                </Button>
              )}
            </Stack>
          </form>
        </Card.Body>
      </Card.Root>
    </Center>
  );
}
