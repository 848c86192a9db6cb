import { Button, Stack, Text } from '@chakra-ui/react';
import {
  defaultPasskeyName,
  DialogFrame,
  hasPasskeyHint,
  justSignedInWithPassword,
  notify,
  passkeySetupSkipped,
  passkeysSupported,
  platformAuthenticatorAvailable,
  registerPasskey,
  registrationErrorMessage,
  skipPasskeySetup,
  takePasswordSignIn,
  TOAST_DURATION,
  type User,
} from '@paygate/sdk';
import { useEffect, useState } from 'react';

/** The setup prompt appears this long after a password sign-in (spec 01 §9). */
export const PASSKEY_SETUP_DELAY_MS = 2_000;

/**
 * PasskeySetupPrompt offers a passkey to a user who has just signed in with a
 * password (spec 01 §2 "Passkey setup dialog", §4 "Passkey prompt"). The
 * console layout mounts it, so it works on every protected page and never on
 * the login page.
 *
 * "Just signed in with a password" is the SDK's in-memory marker that the
 * login page sets (notePasswordSignIn): a passkey sign-in clears it, and a
 * page reload forgets it, so a reload of the same session shows nothing. The
 * marker is taken when the 2 seconds are up, whatever the outcome: the prompt
 * comes at most once per sign-in.
 *
 * It then opens only if the device supports passkeys, has a platform
 * authenticator, the user has no passkey hint, 'Not Now' was not chosen in the
 * last day, and the password is not temporary (that user is sent to
 * /change-password first).
 */
export function PasskeySetupPrompt({ user }: { user: User }) {
  const [open, setOpen] = useState(false);
  const { username, isTemporaryPassword } = user;

  useEffect(() => {
    if (!justSignedInWithPassword(username)) return;
    if (isTemporaryPassword) {
      takePasswordSignIn(username);
      return;
    }
    let live = true;
    // Asked now, so that the answer is in when the delay is up.
    const platform = platformAuthenticatorAvailable();
    const timer = setTimeout(async () => {
      if (!takePasswordSignIn(username)) return;
      if (!passkeysSupported() || hasPasskeyHint(username) || passkeySetupSkipped()) return;
      if ((await platform) && live) setOpen(true);
    }, PASSKEY_SETUP_DELAY_MS);
    return () => {
      live = false;
      clearTimeout(timer);
    };
  }, [username, isTemporaryPassword]);

  return open ? <PasskeySetupDialog onClose={() => setOpen(false)} /> : null;
}

/** PasskeySetupDialog is the open prompt: 'Set Up Passkey' registers one, 'Not Now' skips for a day. */
function PasskeySetupDialog({ onClose }: { onClose: () => void }) {
  const [busy, setBusy] = useState(false);

  async function setUp() {
    setBusy(true);
    try {
      // Named after this browser, its system and the day ("Chrome on Linux · 28 Nov 2026"), so that
      // passkeys made here tell apart in Account Security.
      await registerPasskey(defaultPasskeyName());
      notify.success('Passkey Created', 'Your passkey has been set up successfully!', TOAST_DURATION.success);
      onClose();
    } catch (err) {
      notify.error(registrationErrorMessage(err));
      setBusy(false);
    }
  }

  function notNow() {
    skipPasskeySetup();
    onClose();
  }

  return (
    <DialogFrame
      title="Set Up Passkey"
      size="sm"
      // While the browser asks for the passkey, the dialog stays.
      onClose={() => !busy && onClose()}
      footer={
        <>
          <Button variant="outline" onClick={notNow} disabled={busy}>
            Not Now
          </Button>
          <Button colorPalette="blue" onClick={setUp} loading={busy}>
            Set Up Passkey
          </Button>
        </>
      }
    >
      <Stack gap={3}>
        <Text>Sign in faster and more securely with a passkey: use your fingerprint, face or device PIN instead of typing your password.</Text>
        <Text color="fg.muted" textStyle="sm">
          You can manage your passkeys under Account Security.
        </Text>
      </Stack>
    </DialogFrame>
  );
}
