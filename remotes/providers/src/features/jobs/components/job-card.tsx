import { Alert, Badge, Box, Button, Card, DataList, HStack, Stack, Text } from '@chakra-ui/react';
import { formatDateTime } from '@paygate/sdk';
import { useId } from 'react';
import { READABLE_SOLID } from '../../../contrast';
import type { Job } from '../api/types';
import { formatInterval, jobStatus, STATUS_BADGE } from '../utils/jobs';
import { JobNotifications } from './job-notifications';

/** The warning on a stale job's card (beyond the spec, issue 14). */
export const STALE_WARNING = 'Missed its expected run by more than two intervals';

/** JobStatusBadge says Running, Idle or Disabled (spec 02 §4). */
export function JobStatusBadge({ job }: { job: Pick<Job, 'enabled' | 'running'> }) {
  const status = jobStatus(job);
  const { label, palette } = STATUS_BADGE[status];
  const solid = status !== 'idle';
  return (
    <Badge colorPalette={palette} variant={solid ? 'solid' : 'subtle'} {...(solid ? READABLE_SOLID : {})} data-status={status} size="md" flexShrink={0}>
      {label}
    </Badge>
  );
}

interface Props {
  job: Job;
  /** The selected timezone's zone id. */
  zone: string;
  /** Admins may switch the job on and off; others see no button. */
  canToggle: boolean;
  /** The job's switch is being changed. */
  toggling: boolean;
  onToggle: () => void;
}

/** JobCard is one job of the Jobs page: what it is, its status, its last run and its notifications. */
export function JobCard({ job, zone, canToggle, toggling, onToggle }: Props) {
  const titleId = useId();
  const time = (value: string | null, none: string) => (value ? formatDateTime(value, zone) : none);
  const interval = formatInterval(job.intervalMs);
  return (
    <Card.Root as="article" aria-labelledby={titleId} size="sm" variant="outline" data-job={job.name} data-status={jobStatus(job)}>
      <Card.Header>
        <HStack justify="space-between" align="start" gap={3}>
          <Stack gap={0.5} minW={0}>
            <Text as="h4" id={titleId} fontWeight="semibold" fontSize="md" fontFamily="mono" wordBreak="break-all">
              {job.name}
            </Text>
            <Text fontSize="xs" color="fg.muted">
              Service: {job.service || 'unknown'}
              {interval && ` · every ${interval}`}
            </Text>
          </Stack>
          <JobStatusBadge job={job} />
        </HStack>
        {job.description && (
          <Text fontSize="sm" color="fg.muted" mt={1}>
            {job.description}
          </Text>
        )}
      </Card.Header>
      <Card.Body>
        <Stack gap={3}>
          {job.stale && (
            <Alert.Root status="warning" size="sm" data-stale>
              <Alert.Indicator />
              <Alert.Content>
                <Alert.Title>{STALE_WARNING}</Alert.Title>
                {interval && <Alert.Description>It is expected every {interval}.</Alert.Description>}
              </Alert.Content>
            </Alert.Root>
          )}
          {job.lastRunError && (
            <Alert.Root status="error" size="sm">
              <Alert.Indicator />
              <Alert.Content>
                <Alert.Title>Last run failed</Alert.Title>
                <Alert.Description whiteSpace="pre-wrap" wordBreak="break-word">
                  {job.lastRunError}
                </Alert.Description>
              </Alert.Content>
            </Alert.Root>
          )}
          <DataList.Root orientation="horizontal" size="sm" gap={1.5}>
            <Detail label="Last run started" value={time(job.lastRunStartedUtc, 'Never')} />
            <Detail label="Last run completed" value={time(job.lastRunCompletedUtc, job.running && job.lastRunStartedUtc ? 'In progress' : 'Never')} />
            <Detail label="Next run expected" value={job.enabled ? time(job.nextRunExpectedAtUtc, 'Unknown') : 'Not scheduled (disabled)'} />
            <Detail label="Total runs since startup" value={job.totalRunsSinceStartup.toLocaleString('en-US')} />
          </DataList.Root>
        </Stack>
      </Card.Body>
      <Card.Footer>
        <HStack justify="space-between" align="start" w="full" gap={2}>
          <Box flex="1" minW={0}>
            <JobNotifications jobName={job.name} notifications={job.notifications} zone={zone} />
          </Box>
          {canToggle && (
            <Button
              size="xs"
              variant="outline"
              colorPalette={job.enabled ? 'red' : 'green'}
              loading={toggling}
              aria-label={`${job.enabled ? 'Disable' : 'Enable'} ${job.name}`}
              onClick={onToggle}
            >
              {job.enabled ? 'Disable' : 'Enable'}
            </Button>
          )}
        </HStack>
      </Card.Footer>
    </Card.Root>
  );
}

function Detail({ label, value }: { label: string; value: string }) {
  return (
    <DataList.Item>
      <DataList.ItemLabel minW="44">{label}</DataList.ItemLabel>
      <DataList.ItemValue>{value}</DataList.ItemValue>
    </DataList.Item>
  );
}
