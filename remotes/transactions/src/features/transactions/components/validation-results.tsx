import { Badge, Box, Button, HStack, NativeSelect, Skeleton, Stack, Text } from '@chakra-ui/react';
import { useQueryClient } from '@tanstack/react-query';
import { errorMessage, formatDateTime, mayCall, notify, useTimezone, useUser } from '@paygate/sdk';
import { useEffect } from 'react';
import { useValidationResults, type ValidationResult } from '../api/get-validation-results';
import { useRetryValidation } from '../api/retry-validation';
import { useSetValidationStatus, type SetValidationStatusInput } from '../api/set-validation-status';
import { VALIDATION_STATUSES, validationPalette, validationResultName, validationStatusLabel } from '../../../utils/status';

/**
 * ValidationResults is the Edit transaction dialog's list of validation
 * results (spec 02 §2): each with a settable status and a retry.
 */
export function ValidationResults({ transactionId }: { transactionId: string }) {
  const queryClient = useQueryClient();
  const user = useUser();
  const may = {
    setStatus: mayCall(user, 'POST /api/v1/validation/{id}/status/{status}'),
    retry: mayCall(user, 'POST /api/v1/validation/{id}/retry'),
  };
  const [zone] = useTimezone();
  const results = useValidationResults(transactionId);
  const setStatus = useSetValidationStatus();
  const retry = useRetryValidation();
  const reload = () => queryClient.invalidateQueries({ queryKey: ['transactions', 'validation', transactionId] });

  const failed = results.isError;
  useEffect(() => {
    if (failed) notify.error('Could not load validation results', errorMessage(results.error, ''));
  }, [failed, results.error]);

  function change(r: ValidationResult, status: SetValidationStatusInput['status']) {
    const name = validationResultName(r.validationId, r.isAwaitable);
    setStatus.mutate(
      { validationId: r.validationId, status },
      {
        onSuccess: () => notify.success('Validation status updated', `${name} is now ${validationStatusLabel(status)}`),
        onError: (err) => notify.error('Failed to update validation status', errorMessage(err, '')),
        onSettled: () => void reload(),
      },
    );
  }

  function again(r: ValidationResult) {
    const name = validationResultName(r.validationId, r.isAwaitable);
    retry.mutate(
      { validationId: r.validationId },
      {
        onSuccess: (after) => notify.success('Validation retried', `${name}: ${validationStatusLabel(after.status)}`),
        onError: (err) => notify.error('Failed to retry validation', errorMessage(err, '')),
        onSettled: () => void reload(),
      },
    );
  }

  return (
    <Stack gap="2" as="section" aria-label="Validation results">
      <Text fontWeight="semibold">Validation results</Text>
      {results.isPending && <Skeleton height="10" />}
      {failed && (
        <HStack>
          <Text fontSize="sm" color="red.fg">
            Could not load validation results
          </Text>
          <Button size="xs" variant="outline" onClick={() => void results.refetch()}>
            Reload
          </Button>
        </HStack>
      )}
      {results.isSuccess && results.data.length === 0 && (
        <Text fontSize="sm" color="fg.muted">
          No active validation constraints
        </Text>
      )}
      {results.data?.map((r) => {
        const name = validationResultName(r.validationId, r.isAwaitable);
        const busy = (setStatus.isPending && setStatus.variables?.validationId === r.validationId) || (retry.isPending && retry.variables?.validationId === r.validationId);
        return (
          <Box key={r.validationId} borderWidth="1px" borderRadius="md" p="3" data-testid={`validation-${r.validationId}`}>
            <HStack justify="space-between" align="start" wrap="wrap" gap="3">
              <Stack gap="1" minW="0" flex="1">
                <HStack gap="2">
                  <Text fontWeight="semibold" fontFamily="mono">
                    {name}
                  </Text>
                  <Badge colorPalette={validationPalette(r.status)}>{validationStatusLabel(r.status)}</Badge>
                </HStack>
                <Text fontSize="xs" fontFamily="mono" wordBreak="break-all">
                  {r.validationUrl}
                </Text>
                <Text fontSize="xs" color="fg.muted">
                  {[
                    r.responseCode ? `HTTP ${r.responseCode}` : 'No answer',
                    `${r.attempts} ${r.attempts === 1 ? 'attempt' : 'attempts'}`,
                    r.updatedUtc ? formatDateTime(r.updatedUtc, zone) : '',
                  ]
                    .filter(Boolean)
                    .join(' · ')}
                </Text>
                {r.message && <Text fontSize="xs">{r.message}</Text>}
              </Stack>
              <HStack gap="2">
                <NativeSelect.Root size="xs" w="32" disabled={busy || !may.setStatus}>
                  <NativeSelect.Field
                    aria-label={`Status of ${name}`}
                    value={String(r.status)}
                    onChange={(e) => change(r, Number(e.target.value) as SetValidationStatusInput['status'])}
                  >
                    {VALIDATION_STATUSES.map((s) => (
                      <option key={s.value} value={s.value}>
                        {s.label}
                      </option>
                    ))}
                  </NativeSelect.Field>
                  <NativeSelect.Indicator />
                </NativeSelect.Root>
                {may.retry && (
                  <Button size="xs" variant="outline" aria-label={`Retry ${name}`} loading={retry.isPending && retry.variables?.validationId === r.validationId} disabled={busy} onClick={() => again(r)}>
                    Retry
                  </Button>
                )}
              </HStack>
            </HStack>
          </Box>
        );
      })}
    </Stack>
  );
}
