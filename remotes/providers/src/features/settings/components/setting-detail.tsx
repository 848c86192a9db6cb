import { Alert, Box, Button, Code, Heading, HStack, Skeleton, Stack, Text } from '@chakra-ui/react';
import { errorMessage, notify } from '@paygate/sdk';
import { useCallback, useEffect, useState } from 'react';
import { useSetting } from '../api/get-setting';
import type { SettingKey } from '../api/types';
import { useUpdateSetting } from '../api/update-setting';
import { jsonEqual, type JsonValue } from '../utils/json-value';
import { ValueEditor } from './value-editor';

/** The in-page error of a setting that could not be read (spec 02 §8). */
export const LOAD_SETTING_FAILED = 'Failed to load setting data';

interface Props {
  setting: SettingKey;
  /** Whether the user may save (admins; the server checks too). */
  canEdit: boolean;
}

/**
 * SettingDetail is the form of one setting: its description and default, a
 * generic value editor, and Save Changes, enabled only when the value
 * differs from the loaded one (spec 02 §4) and every input is valid.
 */
export function SettingDetail({ setting, canEdit }: Props) {
  const name = setting.key;
  const loaded = useSetting(name);
  const save = useUpdateSetting();
  const [draft, setDraft] = useState<JsonValue | undefined>(undefined);
  const [invalid, setInvalid] = useState<ReadonlySet<string>>(new Set());

  // A (re)loaded value replaces the draft.
  useEffect(() => {
    if (loaded.data !== undefined) setDraft(loaded.data);
  }, [loaded.data]);

  useEffect(() => {
    if (loaded.isError) notify.error(`Failed to load ${name} settings`, errorMessage(loaded.error, 'Unknown error'));
  }, [loaded.isError, loaded.errorUpdatedAt, loaded.error, name]);

  const onValidity = useCallback((path: string, valid: boolean) => {
    setInvalid((prev) => {
      if (valid === !prev.has(path)) return prev;
      const next = new Set(prev);
      if (valid) next.delete(path);
      else next.add(path);
      return next;
    });
  }, []);

  const changed = loaded.data !== undefined && draft !== undefined && !jsonEqual(draft, loaded.data);

  function submit() {
    if (draft === undefined) return;
    save.mutate(
      { key: name, value: draft },
      {
        onSuccess: () => notify.success(`${name} updated`),
        onError: (err) => notify.error(`Failed to update ${name}`, errorMessage(err, 'Unknown error')),
      },
    );
  }

  return (
    <Stack as="section" aria-labelledby="setting-detail-heading" gap={4} flex="1" minW={0}>
      <Stack gap={1}>
        <Heading as="h3" size="lg" id="setting-detail-heading">
          {name}
        </Heading>
        {setting.description && <Text color="fg.muted">{setting.description}</Text>}
        <Text fontSize="sm" color="fg.muted">
          Default: <Code>{JSON.stringify(setting.defaultValue)}</Code>
          {setting.version > 0 && setting.updatedBy && ` · last changed by ${setting.updatedBy}`}
        </Text>
      </Stack>

      {loaded.isError ? (
        <Alert.Root status="error" role="alert">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>{LOAD_SETTING_FAILED}</Alert.Title>
            <Alert.Description>{errorMessage(loaded.error, 'Unknown error')}</Alert.Description>
          </Alert.Content>
          <Button size="sm" variant="outline" loading={loaded.isFetching} onClick={() => void loaded.refetch()}>
            Try Again
          </Button>
        </Alert.Root>
      ) : loaded.isPending || draft === undefined ? (
        <Stack gap={3} aria-busy="true" aria-label={`Loading ${name}`}>
          <Skeleton height="10" />
          <Skeleton height="10" />
        </Stack>
      ) : (
        <form
          aria-label={`${name} value`}
          onSubmit={(e) => {
            e.preventDefault();
            submit();
          }}
        >
          <Stack gap={5}>
            <ValueEditor
              path={name}
              label={name}
              value={draft}
              schema={setting.schema ?? undefined}
              disabled={!canEdit || save.isPending}
              onChange={setDraft}
              onValidity={onValidity}
            />
            {!canEdit && (
              <Text fontSize="sm" color="fg.muted">
                Only administrators can change settings.
              </Text>
            )}
            <HStack>
              <Button type="submit" size="sm" disabled={!canEdit || !changed || invalid.size > 0} loading={save.isPending} loadingText="Saving">
                Save Changes
              </Button>
              <Box>
                <Button size="sm" variant="ghost" disabled={!changed || save.isPending} onClick={() => setDraft(loaded.data)}>
                  Discard Changes
                </Button>
              </Box>
            </HStack>
          </Stack>
        </form>
      )}
    </Stack>
  );
}
