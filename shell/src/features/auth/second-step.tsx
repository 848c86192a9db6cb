import { Alert, Button, Field, Heading, Input, Stack, Text } from '@chakra-ui/react';
import {
  auth,
  CodeInput,
  errorMessage,
  isApiError,
  isSixDigits,
  RecoveryCodes,
  TotpKey,
  type SecondStep,
  type TotpEnrolment,
  type User,
} from '@paygate/sdk';
import { useEffect, useState, type FormEvent } from 'react';

/** The refusal of a spent or expired challenge: the sign-in starts over. */
const EXPIRED = 'The sign-in has expired or was already completed. Please sign in again.';

/** SecondStepProps: the step of the sign-in, where it goes when done, and how to start over. */
export interface SecondStepProps {
  second: SecondStep;
  onSignedIn: (user: User) => void;
  onRestart: (message?: string) => void;
}

/** SecondStepForm is the second step of a password sign-in: a code, or the enrolment it requires. */
export function SecondStepForm(props: SecondStepProps) {
  return props.second.step === 'enrol' ? <EnrolStep {...props} /> : <CodeStep {...props} />;
}

/** failure turns a refused step into its message, starting over when the challenge is gone. */
function failure(err: unknown, onRestart: (message?: string) => void): string {
  const message = errorMessage(err, 'The code could not be checked.');
  if (isApiError(err) && err.status === 401 && message === EXPIRED) {
    onRestart(message);
  }
  return message;
}

/**
 * CodeStep asks for the code of the user's authenticator app, or (by the
 * "Use a recovery code instead" switch) for one of its recovery codes.
 */
function CodeStep({ second, onSignedIn, onRestart }: SecondStepProps) {
  const [recovery, setRecovery] = useState(false);
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!recovery && !isSixDigits(code)) {
      setError('Enter the 6 digits your authenticator app shows.');
      return;
    }
    if (recovery && code.trim() === '') {
      setError('Enter one of your recovery codes.');
      return;
    }
    setBusy(true);
    setError('');
    try {
      const user = await auth.completeSecondStep(second, recovery ? { recoveryCode: code.trim() } : { code: code.replace(/\s/g, '') });
      onSignedIn(user);
    } catch (err) {
      setError(failure(err, onRestart));
      setCode('');
      setBusy(false);
    }
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap={4}>
        <Heading as="h1" size="lg" textAlign="center">
          Two-factor authentication
        </Heading>
        <Text fontSize="sm" color="fg.muted">
          {recovery
            ? 'Enter one of the recovery codes you saved when you set up two-factor authentication. Each code works once.'
            : 'Enter the 6-digit code from your authenticator app.'}
        </Text>
        {recovery ? (
          <Field.Root invalid={error !== ''}>
            <Field.Label>Recovery code</Field.Label>
            <Input
              name="recoveryCode"
              autoComplete="off"
              spellCheck={false}
              placeholder="xxxx-xxxx-xxxx-xxxx"
              value={code}
              onChange={(e) => setCode(e.target.value)}
              autoFocus
            />
          </Field.Root>
        ) : (
          <CodeInput value={code} onChange={setCode} autoFocus invalid={error !== ''} />
        )}
        {error && (
          <Alert.Root status="error" role="alert">
            <Alert.Indicator />
            <Alert.Title>{error}</Alert.Title>
          </Alert.Root>
        )}
        <Button type="submit" colorPalette="blue" loading={busy} w="full">
          Verify
        </Button>
        <Button
          type="button"
          variant="ghost"
          size="sm"
          onClick={() => {
            setRecovery(!recovery);
            setCode('');
            setError('');
          }}
        >
          {recovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
        </Button>
        <Button type="button" variant="plain" size="sm" onClick={() => onRestart()}>
          Back to sign in
        </Button>
      </Stack>
    </form>
  );
}

/**
 * EnrolStep sets up the second factor a sign-in requires: the new key as a QR
 * code and as text, its first code, then the recovery codes once.
 */
function EnrolStep({ second, onSignedIn, onRestart }: SecondStepProps) {
  const [key, setKey] = useState<TotpEnrolment | null>(null);
  const [loadError, setLoadError] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [done, setDone] = useState<{ user: User; recoveryCodes: string[] } | null>(null);

  useEffect(() => {
    let live = true;
    auth.beginSignInEnrolment(second).then(
      (k) => live && setKey(k),
      (err: unknown) => live && setLoadError(failure(err, onRestart)),
    );
    return () => {
      live = false;
    };
  }, [second, onRestart]);

  async function submit(e: FormEvent) {
    e.preventDefault();
    if (!isSixDigits(code)) {
      setError('Enter the 6 digits your authenticator app shows.');
      return;
    }
    setBusy(true);
    setError('');
    try {
      setDone(await auth.completeSignInEnrolment(second, code.replace(/\s/g, '')));
    } catch (err) {
      setError(failure(err, onRestart));
      setCode('');
    } finally {
      setBusy(false);
    }
  }

  if (done) {
    return (
      <Stack gap={4}>
        <Heading as="h1" size="lg" textAlign="center">
          Save your recovery codes
        </Heading>
        <RecoveryCodes codes={done.recoveryCodes} />
        <Button colorPalette="blue" onClick={() => onSignedIn(done.user)}>
          I have saved them — continue
        </Button>
      </Stack>
    );
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap={4}>
        <Heading as="h1" size="lg" textAlign="center">
          Set up two-factor authentication
        </Heading>
        <Text fontSize="sm" color="fg.muted">
          Your organisation requires a second factor. Scan the QR code with an authenticator app (such as Google
          Authenticator, Microsoft Authenticator or 1Password), then enter the 6-digit code it shows.
        </Text>
        {loadError && (
          <Alert.Root status="error" role="alert">
            <Alert.Indicator />
            <Alert.Title>{loadError}</Alert.Title>
          </Alert.Root>
        )}
        {!key && !loadError && <Text aria-busy="true">Making your key…</Text>}
        {key && (
          <>
            <TotpKey otpauthUrl={key.otpauthUrl} secret={key.secret} />
            <CodeInput value={code} onChange={setCode} invalid={error !== ''} />
            {error && (
              <Alert.Root status="error" role="alert">
                <Alert.Indicator />
                <Alert.Title>{error}</Alert.Title>
              </Alert.Root>
            )}
            <Button type="submit" colorPalette="blue" loading={busy} w="full">
              Verify and continue
            </Button>
          </>
        )}
        <Button type="button" variant="plain" size="sm" onClick={() => onRestart()}>
          Back to sign in
        </Button>
      </Stack>
    </form>
  );
}
