import { Button, Field, Input, NativeSelect, Stack } from '@chakra-ui/react';
import { ConfirmDialog, DialogFrame, errorMessage, notify } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { fieldErrors, type FieldErrors } from '../../../utils/field-errors';
import { createAllowedIpInput, useCreateAllowedIp, type CreateAllowedIpInput } from '../api/create-allowed-ip';
import type { UserOption } from '../hooks/use-user-options';

type Fields = keyof CreateAllowedIpInput;

interface Props {
  users: readonly UserOption[];
  /** The user picked on the tab, chosen here at first. */
  initialUserId: string | null;
  onClose: () => void;
}

/** AddAllowedIpDialog adds an allowed IP range for a user, after a confirmation (spec 02 §5). */
export function AddAllowedIpDialog({ users, initialUserId, onClose }: Props) {
  const [draft, setDraft] = useState<CreateAllowedIpInput>({ userId: initialUserId ?? '', name: '', fromIP: '', toIP: '' });
  const [errors, setErrors] = useState<FieldErrors<Fields>>({});
  const [confirming, setConfirming] = useState<CreateAllowedIpInput | null>(null);
  const create = useCreateAllowedIp();

  const set = (patch: Partial<CreateAllowedIpInput>) => {
    setDraft((d) => ({ ...d, ...patch }));
    setErrors((e) => {
      const next = { ...e };
      for (const k of Object.keys(patch) as Fields[]) delete next[k];
      return next;
    });
  };

  function submit(e: FormEvent) {
    e.preventDefault();
    const parsed = createAllowedIpInput.safeParse(draft);
    if (!parsed.success) {
      setErrors(fieldErrors<Fields>(parsed.error));
      return;
    }
    setConfirming(parsed.data);
  }

  function save(input: CreateAllowedIpInput) {
    create.mutate(input, {
      onSuccess: () => {
        notify.success('IP restriction created');
        setConfirming(null);
        onClose();
      },
      onError: (err) => {
        setConfirming(null);
        notify.error(`Failed to create IP restriction: ${errorMessage(err, 'Unknown error')}`);
      },
    });
  }

  const text = (field: Exclude<Fields, 'userId'>, label: string, placeholder: string) => (
    <Field.Root required invalid={!!errors[field]}>
      <Field.Label>{label}</Field.Label>
      <Input placeholder={placeholder} value={draft[field]} onChange={(e) => set({ [field]: e.target.value })} />
      <Field.ErrorText>{errors[field]}</Field.ErrorText>
    </Field.Root>
  );

  return (
    <>
      <DialogFrame
        title="Add IP Restriction"
        size="md"
        onClose={onClose}
        footer={
          <>
            <Button variant="outline" onClick={onClose}>
              Cancel
            </Button>
            <Button type="submit" form="add-allowed-ip-form" colorPalette="blue" loading={create.isPending}>
              Save
            </Button>
          </>
        }
      >
        <form id="add-allowed-ip-form" onSubmit={submit} noValidate>
          <Stack gap={4}>
            <Field.Root required invalid={!!errors.userId}>
              <Field.Label>User</Field.Label>
              <NativeSelect.Root>
                <NativeSelect.Field value={draft.userId} onChange={(e) => set({ userId: e.target.value })}>
                  <option value="">Select a user</option>
                  {users.map((u) => (
                    <option key={u.id} value={u.id}>
                      {u.username}
                    </option>
                  ))}
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
              <Field.ErrorText>{errors.userId}</Field.ErrorText>
            </Field.Root>
            {text('name', 'Name', 'e.g., Office')}
            {text('fromIP', 'From IP', 'e.g., 192.168.1.1')}
            {text('toIP', 'To IP', 'e.g., 192.168.1.255')}
          </Stack>
        </form>
      </DialogFrame>
      {confirming && (
        <ConfirmDialog
          title="Create IP Restriction"
          message={`Allow ${confirming.name} (${confirming.fromIP} – ${confirming.toIP}) for this user?`}
          confirmLabel="Create"
          pending={create.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() => save(confirming)}
        />
      )}
    </>
  );
}
