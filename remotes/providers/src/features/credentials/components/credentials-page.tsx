import { Alert, Box, Button, Field, Fieldset, Heading, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { errorMessage, hasPermission, isApiError, mayCall, NoPermission, notify, PageFrame, SCREENS, seesAllMerchants, useCollabChoices, useUser } from '@paygate/sdk';
import { useMemo, useState } from 'react';
import { useCredentialCollabs } from '../api/list-credential-collabs';
import { useLoadCredentials } from '../api/get-credentials';
import { useSaveCredentials } from '../api/save-credentials';
import {
  collabPlaceholder,
  fieldId,
  groupsOf,
  numberError,
  parseNewKey,
  toCredentials,
  toFields,
  type CredentialField,
  type FieldKind,
} from '../utils/credentials';
import { CredentialInput } from './credential-input';

/** The texts of spec 02 §5 and §8. */
export const SELECT_COLLAB = 'Please select a collaboration';
export const SAVED = 'Credentials saved';
export const NO_COLLAB_ACCESS = "You don't have permission to access this collab.";
export const COLLAB_NOT_FOUND = 'Collab not found.';

/** callError is the toast of a failed credentials call (spec 02 §8). */
export function callError(err: unknown, fallback: string): string {
  if (isApiError(err)) {
    if (err.status === 401 || err.status === 403) return NO_COLLAB_ACCESS;
    if (err.status === 404) return COLLAB_NOT_FOUND;
  }
  return errorMessage(err, fallback);
}

/** CredentialsPage edits a collab's provider credentials (spec 02 §2 "Credentials", Credentials Access). */
export function CredentialsPage() {
  const user = useUser();
  // The route guard already sends users without Credentials Access away; the page says so itself too.
  if (!user || !hasPermission(user, 'Credentials Access')) return <NoPermission />;
  return <Credentials admin={seesAllMerchants(user)} canSave={mayCall(user, 'POST /api/v1/credentials')} />;
}

function Credentials({ admin, canSave }: { admin: boolean; canSave: boolean }) {
  const collabs = useCredentialCollabs();
  const load = useLoadCredentials();
  const save = useSaveCredentials();
  const [collabId, setCollabId] = useState<number | null>(null);
  // The collab whose credentials are in the form, and the form's fields.
  const [loadedFor, setLoadedFor] = useState<number | null>(null);
  const [fields, setFields] = useState<CredentialField[] | null>(null);
  const [newKey, setNewKey] = useState('');
  const [newKind, setNewKind] = useState<FieldKind>('text');
  const [newKeyError, setNewKeyError] = useState<string | null>(null);
  const placeholder = collabPlaceholder(admin);
  // The collabs of the sidebar's Current Merchant, each labelled apart from the others (spec 01 §4).
  const named = useMemo(() => collabs.data?.map((c) => ({ ...c, id: c.collabId })), [collabs.data]);
  const choices = useCollabChoices(named, collabId);

  function onLoad() {
    if (collabId === null) {
      notify.error(SELECT_COLLAB);
      return;
    }
    load.mutate(
      { collabId },
      {
        onSuccess: (c) => {
          setFields(toFields(c));
          setLoadedFor(collabId);
        },
        onError: (err) => notify.error(callError(err, 'Failed to load credentials')),
      },
    );
  }

  function onCancel() {
    setFields(null);
    setLoadedFor(null);
    setNewKey('');
    setNewKeyError(null);
  }

  function onSave() {
    if (loadedFor === null || fields === null) return;
    save.mutate(
      { collabId: loadedFor, credentials: toCredentials(fields) },
      {
        onSuccess: (c) => {
          setFields(toFields(c));
          notify.success(SAVED);
        },
        onError: (err) => notify.error(callError(err, 'Failed to save credentials')),
      },
    );
  }

  function setValue(target: CredentialField, value: string) {
    setFields((fs) => fs?.map((f) => (fieldId(f) === fieldId(target) ? { ...f, value } : f)) ?? null);
  }

  function addField() {
    const parsed = parseNewKey(newKey);
    if (!parsed) {
      setNewKeyError('Enter a key, or group.key for a grouped value.');
      return;
    }
    if (fields?.some((f) => fieldId(f) === fieldId(parsed)) || fields?.some((f) => !f.group && f.key === parsed.group)) {
      setNewKeyError(`${fieldId(parsed)} is already a field.`);
      return;
    }
    setFields((fs) => [...(fs ?? []), { ...parsed, kind: newKind, value: newKind === 'boolean' ? 'false' : '' }]);
    setNewKey('');
    setNewKeyError(null);
  }

  const invalid = fields?.some((f) => numberError(f) !== null) ?? false;

  return (
    <PageFrame title={SCREENS.credentials.title}>
      {collabs.isError && (
        <Alert.Root status="error" role="alert">
          <Alert.Indicator />
          <Alert.Title>The collaborations could not be loaded: {errorMessage(collabs.error, 'Unknown error')}</Alert.Title>
        </Alert.Root>
      )}
      <HStack gap="3" align="end" wrap="wrap">
        <Field.Root w="80">
          <Field.Label>Collaboration</Field.Label>
          <NativeSelect.Root size="sm" disabled={collabs.isPending}>
            <NativeSelect.Field
              aria-label={placeholder}
              value={collabId ?? ''}
              onChange={(e) => setCollabId(e.target.value ? Number(e.target.value) : null)}
            >
              <option value="">{placeholder}</option>
              {choices.map((c) => (
                <option key={c.id} value={c.id}>
                  {c.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
        </Field.Root>
        <Button size="sm" variant="outline" onClick={onCancel} disabled={fields === null}>
          Cancel
        </Button>
        <Button size="sm" colorPalette="blue" onClick={onLoad} loading={load.isPending}>
          Load Credentials
        </Button>
      </HStack>

      {fields !== null && (
        <Box as="section" aria-label="Credentials" borderWidth="1px" borderRadius="md" p="4">
          <Stack gap="4">
            {fields.length === 0 && <Text color="fg.muted">This collaboration has no credentials yet. Add a field below.</Text>}
            {groupsOf(fields).map((group) => (
              <Fieldset.Root key={group || '(top)'}>
                {group && (
                  <Fieldset.Legend>
                    <Heading size="sm" as="h3">
                      {group}
                    </Heading>
                  </Fieldset.Legend>
                )}
                <Fieldset.Content>
                  {fields
                    .filter((f) => f.group === group)
                    .map((f) => (
                      <CredentialInput key={fieldId(f)} field={f} onChange={(v) => setValue(f, v)} />
                    ))}
                </Fieldset.Content>
              </Fieldset.Root>
            ))}
            <HStack gap="2" align="end" wrap="wrap">
              <Field.Root w="60" invalid={!!newKeyError}>
                <Field.Label>New field</Field.Label>
                <Input size="sm" placeholder="key or group.key" value={newKey} onChange={(e) => setNewKey(e.target.value)} />
                {newKeyError && <Field.ErrorText>{newKeyError}</Field.ErrorText>}
              </Field.Root>
              <NativeSelect.Root size="sm" w="32">
                <NativeSelect.Field aria-label="New field type" value={newKind} onChange={(e) => setNewKind(e.target.value as FieldKind)}>
                  <option value="text">Text</option>
                  <option value="number">Number</option>
                  <option value="boolean">True/false</option>
                </NativeSelect.Field>
                <NativeSelect.Indicator />
              </NativeSelect.Root>
              <Button size="sm" variant="outline" onClick={addField}>
                Add Field
              </Button>
            </HStack>
            {canSave && (
              <HStack justify="end">
                <Button size="sm" colorPalette="blue" onClick={onSave} loading={save.isPending} disabled={invalid}>
                  Save Changes
                </Button>
              </HStack>
            )}
          </Stack>
        </Box>
      )}
    </PageFrame>
  );
}
