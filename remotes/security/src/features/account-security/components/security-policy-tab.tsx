import { Alert, Button, Field, Input, NativeSelect, Skeleton, Stack, Text } from '@chakra-ui/react';
import { errorMessage, notify } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import { useAuthSettings, type AuthSettings } from '../api/get-auth-settings';
import { authSettingsInput, useUpdateAuthSettings } from '../api/update-auth-settings';

const REQUIREMENTS: { value: AuthSettings['requireSecondFactor']; label: string }[] = [
  { value: 'REQUIRE_SECOND_FACTOR_OFF', label: 'Not required' },
  { value: 'REQUIRE_SECOND_FACTOR_ADMIN_WIDE', label: 'Required for admin-wide roles (Admin, Support)' },
  { value: 'REQUIRE_SECOND_FACTOR_EVERYONE', label: 'Required for everyone' },
];

/**
 * SecurityPolicyTab edits the sign-in and session policy (Settings Access):
 * whose password sign-in needs a second factor, the idle timeout (minutes)
 * and the maximum lifetime (hours) of a session.
 */
export function SecurityPolicyTab() {
  const settings = useAuthSettings();
  if (settings.isPending) {
    return (
      <Stack aria-busy="true" aria-label="Loading the security policy">
        <Skeleton height="10" />
        <Skeleton height="10" />
      </Stack>
    );
  }
  if (settings.isError) {
    return (
      <Alert.Root status="error" role="alert">
        <Alert.Indicator />
        <Alert.Title>Failed to load the security policy.</Alert.Title>
      </Alert.Root>
    );
  }
  return <PolicyForm initial={settings.data} />;
}

function PolicyForm({ initial }: { initial: AuthSettings }) {
  const update = useUpdateAuthSettings();
  const [require, setRequire] = useState(initial.requireSecondFactor);
  const [idleMinutes, setIdleMinutes] = useState(String(Math.round(initial.sessionIdleTimeoutSeconds / 60)));
  const [lifeHours, setLifeHours] = useState(String(Math.round(initial.sessionMaxLifetimeSeconds / 3600)));
  const next = {
    requireSecondFactor: require,
    sessionIdleTimeoutSeconds: Math.round(Number(idleMinutes) * 60),
    sessionMaxLifetimeSeconds: Math.round(Number(lifeHours) * 3600),
  };
  const parsed = authSettingsInput.safeParse(next);
  const issue = (field: string) => (parsed.success ? undefined : parsed.error.issues.find((i) => i.path[0] === field));
  const idleIssue = issue('sessionIdleTimeoutSeconds');
  const lifeIssue = issue('sessionMaxLifetimeSeconds');

  function submit(e: FormEvent) {
    e.preventDefault();
    if (!parsed.success) return;
    update.mutate(next, {
      onSuccess: () => notify.success('Security policy saved', 'Running sessions follow the new limits at their next refresh.'),
      onError: (err) => notify.error(errorMessage(err, 'Failed to save the security policy')),
    });
  }

  return (
    <form onSubmit={submit} noValidate>
      <Stack gap={5} maxW="xl" pt={2}>
        <Field.Root>
          <Field.Label>Require a second factor</Field.Label>
          <NativeSelect.Root>
            <NativeSelect.Field value={require} onChange={(e) => setRequire(e.target.value as AuthSettings['requireSecondFactor'])}>
              {REQUIREMENTS.map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
          <Field.HelperText>A user it applies to who has none is asked to set one up right after the password. Passkey sign-ins need no code.</Field.HelperText>
        </Field.Root>
        <Field.Root invalid={!!idleIssue}>
          <Field.Label>Idle timeout (minutes)</Field.Label>
          <Input type="number" inputMode="numeric" min={5} max={43200} value={idleMinutes} onChange={(e) => setIdleMinutes(e.target.value)} />
          <Field.HelperText>A session not used for this long ends (5 minutes to 30 days).</Field.HelperText>
          {idleIssue && <Field.ErrorText>Enter 5 to 43,200 minutes.</Field.ErrorText>}
        </Field.Root>
        <Field.Root invalid={!!lifeIssue}>
          <Field.Label>Maximum session lifetime (hours)</Field.Label>
          <Input type="number" inputMode="numeric" min={1} max={2160} value={lifeHours} onChange={(e) => setLifeHours(e.target.value)} />
          <Field.HelperText>A session this old ends however active it is (1 hour to 90 days, at least the idle timeout).</Field.HelperText>
          {lifeIssue && <Field.ErrorText>{lifeIssue.message.startsWith('The maximum') ? lifeIssue.message : 'Enter 1 to 2,160 hours.'}</Field.ErrorText>}
        </Field.Root>
        <Text fontSize="sm" color="fg.muted">
          An access token issued before a session ends stays valid until it expires (at most 5 minutes).
        </Text>
        <Button type="submit" colorPalette="blue" alignSelf="start" disabled={!parsed.success} loading={update.isPending}>
          Save
        </Button>
      </Stack>
    </form>
  );
}
