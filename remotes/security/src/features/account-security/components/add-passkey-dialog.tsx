import { Button, Field, Input, Stack, Text } from '@chakra-ui/react';
import { defaultPasskeyName, DialogFrame, notify } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { useRegisterPasskey } from '../api/register-passkey';
import { creationErrorMessage } from '../passkey-texts';

/** AddPasskeyDialog registers a passkey for the signed-in user, with an optional name (spec 02 "Account Security" and its §8 texts). */
export function AddPasskeyDialog({ onClose }: { onClose: () => void }) {
  const [name, setName] = useState('');
  const register = useRegisterPasskey();

  function submit(e: FormEvent) {
    e.preventDefault();
    if (register.isPending) return;
    register.mutate(
      // Without a name, the passkey is named after this browser, its system and the day.
      { displayName: name.trim() || defaultPasskeyName() },
      {
        onSuccess: () => {
          notify.success('Passkey Created', 'Your passkey has been set up successfully!', 3_000);
          onClose();
        },
        onError: (err) => notify.error(creationErrorMessage(err)),
      },
    );
  }

  return (
    <DialogFrame
      title="Add New Passkey"
      size="md"
      onClose={onClose}
      footer={
        <>
          <Button variant="outline" onClick={onClose} disabled={register.isPending}>
            Cancel
          </Button>
          <Button type="submit" form="add-passkey-form" colorPalette="blue" loading={register.isPending}>
            Create Passkey
          </Button>
        </>
      }
    >
      <form id="add-passkey-form" onSubmit={submit} noValidate>
        <Stack gap={4}>
          <Text>Your browser will ask you to confirm with your device (fingerprint, face or screen lock).</Text>
          <Field.Root>
            <Field.Label>Passkey Name (optional)</Field.Label>
            <Input placeholder="e.g., MacBook Pro" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
          </Field.Root>
        </Stack>
      </form>
    </DialogFrame>
  );
}
