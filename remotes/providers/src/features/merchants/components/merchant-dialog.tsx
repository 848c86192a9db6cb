import { Button, Checkbox, Field, Input, Stack } from '@chakra-ui/react';
import { DialogFrame, notify } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { messageOf } from '../../../utils/errors';
import { useSaveMerchant, type MerchantDetail } from '../api/merchants';

interface Props {
  /** The merchant to edit; undefined adds one. */
  merchant?: MerchantDetail;
  /** Whether the user may create collabs, to offer the first one after adding. */
  canAddCollab: boolean;
  /** Called after a save with the merchant stored, and whether its first collab is to be created next. */
  onSaved: (m: MerchantDetail, addCollab: boolean) => void;
  onClose: () => void;
}

/** MerchantDialog adds a merchant or edits its name and contact (docs/contracts-merchants.md). */
export function MerchantDialog({ merchant, canAddCollab, onSaved, onClose }: Props) {
  const [name, setName] = useState(merchant?.name ?? '');
  const [contactName, setContactName] = useState(merchant?.contactName ?? '');
  const [contactEmail, setContactEmail] = useState(merchant?.contactEmail ?? '');
  const [addCollab, setAddCollab] = useState(canAddCollab);
  const save = useSaveMerchant();
  const adding = merchant === undefined;

  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) return;
    save.mutate(
      { id: merchant?.id, fields: { name: name.trim(), contactName: contactName.trim(), contactEmail: contactEmail.trim() } },
      {
        onSuccess: (m) => {
          notify.success(adding ? 'Merchant added' : 'Merchant saved', `${m.name} (${m.id})`);
          onSaved(m, adding && canAddCollab && addCollab);
        },
        onError: (err) => notify.error(`Failed to save the merchant: ${messageOf(err)}`),
      },
    );
  };

  return (
    <DialogFrame
      title={adding ? 'Add Merchant' : `Edit Merchant - ${merchant.name}`}
      size="md"
      onClose={onClose}
      footer={
        <>
          <Button variant="outline" onClick={onClose} disabled={save.isPending}>
            Cancel
          </Button>
          <Button type="submit" form="merchant-form" colorPalette="blue" loading={save.isPending} disabled={!name.trim()}>
            {adding ? 'Add' : 'Save'}
          </Button>
        </>
      }
    >
      <form id="merchant-form" onSubmit={submit}>
        <Stack gap={4}>
          <Field.Root required>
            <Field.Label>
              Name <Field.RequiredIndicator />
            </Field.Label>
            <Input value={name} maxLength={100} onChange={(e) => setName(e.target.value)} />
          </Field.Root>
          <Field.Root>
            <Field.Label>Contact name</Field.Label>
            <Input value={contactName} maxLength={100} onChange={(e) => setContactName(e.target.value)} />
          </Field.Root>
          <Field.Root>
            <Field.Label>Contact email</Field.Label>
            <Input type="email" value={contactEmail} maxLength={254} onChange={(e) => setContactEmail(e.target.value)} />
          </Field.Root>
          {adding && canAddCollab && (
            <Checkbox.Root checked={addCollab} onCheckedChange={(e) => setAddCollab(e.checked === true)}>
              <Checkbox.HiddenInput />
              <Checkbox.Control />
              <Checkbox.Label>Then create its first collaboration</Checkbox.Label>
            </Checkbox.Root>
          )}
        </Stack>
      </form>
    </DialogFrame>
  );
}
