import { Alert, Badge, Button, Field, HStack, Input, Skeleton, Stack, Text } from '@chakra-ui/react';
import {
  assertPasskey,
  CodeInput,
  DialogFrame,
  errorMessage,
  isSixDigits,
  loginErrorMessage,
  notify,
  passkeysSupported,
  RecoveryCodes,
  TotpKey,
  useUser,
  type TotpEnrolment,
} from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { useBeginTotpEnrolment } from '../api/begin-totp-enrolment';
import { useConfirmTotpEnrolment } from '../api/confirm-totp-enrolment';
import { useDisableSecondFactor } from '../api/disable-second-factor';
import { useSecondFactor } from '../api/get-second-factor';
import { useRegenerateRecoveryCodes } from '../api/regenerate-recovery-codes';
import type { ProofInput } from '../api/second-factor-proof';

/** Below this many recovery codes the tab suggests new ones. */
const FEW_CODES = 3;

/**
 * TwoFactorTab shows and manages the signed-in user's second factor (TOTP
 * with recovery codes, docs/contracts-second-factor.md): set it up with a QR
 * code or the manual key, regenerate the recovery codes, disable it with a
 * code, a recovery code or a passkey.
 */
export function TwoFactorTab() {
  const status = useSecondFactor();
  const [dialog, setDialog] = useState<'setup' | 'regenerate' | 'disable' | null>(null);

  if (status.isPending) {
    return (
      <Stack aria-busy="true" aria-label="Loading two-factor authentication">
        <Skeleton height="6" />
        <Skeleton height="10" />
      </Stack>
    );
  }
  if (status.isError) {
    return (
      <Alert.Root status="error" role="alert">
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>Failed to load two-factor authentication.</Alert.Title>
        </Alert.Content>
        <Button size="sm" variant="outline" onClick={() => void status.refetch()}>
          Retry
        </Button>
      </Alert.Root>
    );
  }
  const st = status.data;

  return (
    <Stack gap={4} maxW="2xl" pt={2}>
      <HStack>
        <Text fontWeight="semibold">Authenticator app</Text>
        {st.enrolled ? <Badge colorPalette="green">On</Badge> : <Badge>Off</Badge>}
      </HStack>
      {st.enrolled ? (
        <>
          <Text>
            Signing in with your password also asks for a code from your authenticator app.
            {st.enrolledAt && ` Set up on ${new Date(st.enrolledAt).toLocaleDateString()}.`}
          </Text>
          <Text color={st.recoveryCodesLeft <= FEW_CODES ? 'fg.error' : undefined}>
            {st.recoveryCodesLeft} unused recovery code{st.recoveryCodesLeft === 1 ? '' : 's'} left.
            {st.recoveryCodesLeft <= FEW_CODES && ' Make new ones before you run out.'}
          </Text>
          <HStack>
            <Button variant="outline" onClick={() => setDialog('regenerate')}>
              Regenerate recovery codes
            </Button>
            <Button variant="outline" colorPalette="red" onClick={() => setDialog('disable')}>
              Disable
            </Button>
          </HStack>
        </>
      ) : (
        <>
          <Text>
            Add a second step to your password sign-in: a 6-digit code from an authenticator app on your phone. A passkey
            sign-in needs no code.
          </Text>
          {st.required && (
            <Alert.Root status="warning">
              <Alert.Indicator />
              <Alert.Title>Your organisation requires two-factor authentication: you will be asked to set it up at your next sign-in.</Alert.Title>
            </Alert.Root>
          )}
          <Button colorPalette="blue" alignSelf="start" onClick={() => setDialog('setup')}>
            Set up two-factor authentication
          </Button>
        </>
      )}
      {dialog === 'setup' && <SetupDialog onClose={() => setDialog(null)} />}
      {dialog === 'regenerate' && <RegenerateDialog onClose={() => setDialog(null)} />}
      {dialog === 'disable' && <DisableDialog onClose={() => setDialog(null)} />}
    </Stack>
  );
}

/** SetupDialog enrols a key: QR code and manual key, first code, then the recovery codes once. */
function SetupDialog({ onClose }: { onClose: () => void }) {
  const begin = useBeginTotpEnrolment();
  const confirm = useConfirmTotpEnrolment();
  const [key, setKey] = useState<TotpEnrolment | null>(null);
  const [code, setCode] = useState('');
  const [error, setError] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);

  function start() {
    setError('');
    begin.mutate(undefined, { onSuccess: setKey, onError: (err) => setError(errorMessage(err, 'The key could not be made.')) });
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!isSixDigits(code)) {
      setError('Enter the 6 digits your authenticator app shows.');
      return;
    }
    setError('');
    confirm.mutate(
      { code: code.replace(/\s/g, '') },
      {
        onSuccess: (c) => {
          setCodes(c);
          notify.success('Two-factor authentication is on');
        },
        onError: (err) => {
          setError(errorMessage(err, 'The code could not be checked.'));
          setCode('');
        },
      },
    );
  }

  if (codes) {
    return (
      <DialogFrame title="Save your recovery codes" onClose={onClose} footer={<Button colorPalette="blue" onClick={onClose}>I have saved them</Button>}>
        <RecoveryCodes codes={codes} />
      </DialogFrame>
    );
  }

  return (
    <DialogFrame title="Set up two-factor authentication" onClose={onClose}>
      {!key ? (
        <Stack gap={4}>
          <Text>
            You need an authenticator app on your phone, such as Google Authenticator, Microsoft Authenticator or 1Password.
          </Text>
          {error && (
            <Alert.Root status="error" role="alert">
              <Alert.Indicator />
              <Alert.Title>{error}</Alert.Title>
            </Alert.Root>
          )}
          <Button colorPalette="blue" alignSelf="start" loading={begin.isPending} onClick={start}>
            Show the key
          </Button>
        </Stack>
      ) : (
        <form onSubmit={submit} noValidate>
          <Stack gap={4}>
            <Text>Scan the QR code with the app (or enter the key by hand), then enter the 6-digit code it shows.</Text>
            <TotpKey otpauthUrl={key.otpauthUrl} secret={key.secret} />
            <CodeInput value={code} onChange={setCode} autoFocus invalid={error !== ''} />
            {error && (
              <Alert.Root status="error" role="alert">
                <Alert.Indicator />
                <Alert.Title>{error}</Alert.Title>
              </Alert.Root>
            )}
            <Button type="submit" colorPalette="blue" loading={confirm.isPending}>
              Verify and turn on
            </Button>
          </Stack>
        </form>
      )}
    </DialogFrame>
  );
}

/** ProofFields asks for a code of the app or, by a switch, a recovery code. */
function ProofFields({ recovery, setRecovery, value, setValue }: { recovery: boolean; setRecovery: (r: boolean) => void; value: string; setValue: (v: string) => void }) {
  return (
    <Stack gap={2}>
      {recovery ? (
        <Field.Root>
          <Field.Label>Recovery code</Field.Label>
          <Input autoComplete="off" spellCheck={false} placeholder="xxxx-xxxx-xxxx-xxxx" value={value} onChange={(e) => setValue(e.target.value)} autoFocus />
        </Field.Root>
      ) : (
        <CodeInput value={value} onChange={setValue} autoFocus />
      )}
      <Button
        type="button"
        variant="ghost"
        size="sm"
        alignSelf="start"
        onClick={() => {
          setRecovery(!recovery);
          setValue('');
        }}
      >
        {recovery ? 'Use a code from the app instead' : 'Use a recovery code instead'}
      </Button>
    </Stack>
  );
}

/** proofOf turns the typed proof into the call's input, or a sentence saying what is missing. */
function proofOf(recovery: boolean, value: string): ProofInput | string {
  if (recovery) return value.trim() ? { recoveryCode: value.trim() } : 'Enter one of your recovery codes.';
  return isSixDigits(value) ? { code: value.replace(/\s/g, '') } : 'Enter the 6 digits your authenticator app shows.';
}

/** RegenerateDialog replaces the recovery codes, given a code, and shows the new ones once. */
function RegenerateDialog({ onClose }: { onClose: () => void }) {
  const regenerate = useRegenerateRecoveryCodes();
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [codes, setCodes] = useState<string[] | null>(null);

  function submit(e: FormEvent) {
    e.preventDefault();
    const proof = proofOf(recovery, value);
    if (typeof proof === 'string') {
      setError(proof);
      return;
    }
    setError('');
    regenerate.mutate(proof, {
      onSuccess: setCodes,
      onError: (err) => {
        setError(errorMessage(err, 'The recovery codes could not be made.'));
        setValue('');
      },
    });
  }

  if (codes) {
    return (
      <DialogFrame title="Your new recovery codes" onClose={onClose} footer={<Button colorPalette="blue" onClick={onClose}>I have saved them</Button>}>
        <RecoveryCodes codes={codes} />
      </DialogFrame>
    );
  }
  return (
    <DialogFrame title="Regenerate recovery codes" onClose={onClose}>
      <form onSubmit={submit} noValidate>
        <Stack gap={4}>
          <Text>New codes replace all the old ones, used or not. Confirm with a code from your authenticator app.</Text>
          <ProofFields recovery={recovery} setRecovery={setRecovery} value={value} setValue={setValue} />
          {error && (
            <Alert.Root status="error" role="alert">
              <Alert.Indicator />
              <Alert.Title>{error}</Alert.Title>
            </Alert.Root>
          )}
          <Button type="submit" colorPalette="blue" loading={regenerate.isPending}>
            Make new codes
          </Button>
        </Stack>
      </form>
    </DialogFrame>
  );
}

/**
 * DisableDialog turns the second factor off (the dialog is the confirmation),
 * given a code, a recovery code or one of the user's passkeys; the user's
 * other sessions end.
 */
function DisableDialog({ onClose }: { onClose: () => void }) {
  const user = useUser();
  const disable = useDisableSecondFactor();
  const [recovery, setRecovery] = useState(false);
  const [value, setValue] = useState('');
  const [error, setError] = useState('');
  const [asking, setAsking] = useState(false);

  const done = {
    onSuccess: () => {
      notify.success('Two-factor authentication is off');
      onClose();
    },
    onError: (err: unknown) => {
      setError(errorMessage(err, 'Two-factor authentication could not be turned off.'));
      setValue('');
    },
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    const proof = proofOf(recovery, value);
    if (typeof proof === 'string') {
      setError(proof);
      return;
    }
    setError('');
    disable.mutate(proof, done);
  }

  async function withPasskey() {
    setError('');
    setAsking(true);
    try {
      const passkeyCredential = await assertPasskey(user?.username ?? '');
      disable.mutate({ passkeyCredential }, done);
    } catch (err) {
      setError(loginErrorMessage(err));
    } finally {
      setAsking(false);
    }
  }

  return (
    <DialogFrame title="Disable two-factor authentication" onClose={onClose} role="alertdialog">
      <form onSubmit={submit} noValidate>
        <Stack gap={4}>
          <Alert.Root status="warning">
            <Alert.Indicator />
            <Alert.Title>Your password alone will sign you in, and your other sessions end.</Alert.Title>
          </Alert.Root>
          <ProofFields recovery={recovery} setRecovery={setRecovery} value={value} setValue={setValue} />
          {error && (
            <Alert.Root status="error" role="alert">
              <Alert.Indicator />
              <Alert.Title>{error}</Alert.Title>
            </Alert.Root>
          )}
          <HStack>
            <Button type="submit" colorPalette="red" loading={disable.isPending && !asking}>
              Disable
            </Button>
            {passkeysSupported() && (
              <Button type="button" variant="outline" loading={asking} onClick={() => void withPasskey()}>
                Confirm with a passkey
              </Button>
            )}
          </HStack>
        </Stack>
      </form>
    </DialogFrame>
  );
}
