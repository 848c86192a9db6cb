import { Alert, Box, Button, CloseButton, EmptyState, Heading, HStack, SimpleGrid, Skeleton, Stack, Text } from '@chakra-ui/react';
import { ConfirmDialog, errorMessage, hasPermission, mayCall, NoPermission, notify, PageFrame, SCREENS, useTimezone, useUser } from '@paygate/sdk';
import { useId, useMemo, useState, type ReactNode } from 'react';
import { useJobStats } from '../api/get-job-stats';
import { useSetJobEnabled } from '../api/set-job-enabled';
import type { Job } from '../api/types';
import { groupByService, summarize, type JobSummary } from '../utils/jobs';
import { BulkRuns } from './bulk-runs';
import { JobCard } from './job-card';

/** The success toast of a refresh (spec 02 §8). */
export const REFRESHED = 'Job statistics refreshed successfully';

/** The in-page error's title; the server's message follows it. */
export const LOAD_FAILED = 'Failed to load job statistics';

/** JobsPage watches every background job of every service (spec 02 §2 "Jobs", Jobs Access). */
export function JobsPage() {
  const user = useUser();
  // The route guard already sends users without Jobs Access away; the page says so itself too.
  if (!user || !hasPermission(user, 'Jobs Access')) return <NoPermission />;
  return <Jobs canToggle={mayCall(user, 'POST /api/v1/jobs/{name}/enabled')} />;
}

/** Jobs is the page; canToggle: the server lets the user switch a job on and off. */
function Jobs({ canToggle }: { canToggle: boolean }) {
  const [zone] = useTimezone();
  const stats = useJobStats();
  const toggle = useSetJobEnabled();
  const [confirming, setConfirming] = useState<Job | null>(null);
  // The error the operator dismissed, by when it happened: a new failure shows again.
  const [dismissedAt, setDismissedAt] = useState<number | null>(null);

  const jobs = useMemo(() => stats.data ?? [], [stats.data]);
  const groups = useMemo(() => groupByService(jobs), [jobs]);
  const summary = useMemo(() => summarize(jobs), [jobs]);
  const showError = stats.isError && stats.errorUpdatedAt !== dismissedAt;

  async function refresh() {
    const result = await stats.refetch();
    if (result.isSuccess) notify.success(REFRESHED);
  }

  function setEnabled(job: Job, enabled: boolean) {
    const verb = enabled ? 'enable' : 'disable';
    toggle.mutate(
      { name: job.name, enabled },
      {
        onSuccess: () => {
          notify.success(`${job.name} is now ${enabled ? 'enabled' : 'disabled'}`);
          setConfirming(null);
        },
        onError: (err) => {
          notify.error(`Failed to ${verb} ${job.name}`, errorMessage(err, 'Unknown error'));
          setConfirming(null);
        },
      },
    );
  }

  return (
    <PageFrame
      title={SCREENS.jobs.title}
      actions={
        <Button size="sm" variant="outline" loading={stats.isFetching} loadingText="Refreshing" onClick={() => void refresh()}>
          <span aria-hidden>⟳</span>
          Refresh
        </Button>
      }
    >
      {showError && (
        <Alert.Root status="error" role="alert">
          <Alert.Indicator />
          <Alert.Content>
            <Alert.Title>{LOAD_FAILED}</Alert.Title>
            <Alert.Description>{errorMessage(stats.error, 'Unknown error')}</Alert.Description>
          </Alert.Content>
          <CloseButton size="sm" aria-label="Dismiss error" onClick={() => setDismissedAt(stats.errorUpdatedAt)} />
        </Alert.Root>
      )}

      {stats.isPending ? (
        <Stack gap={4} aria-busy="true" aria-label="Loading jobs">
          <Skeleton height="20" borderRadius="md" />
          <SimpleGrid columns={{ base: 1, lg: 2, '2xl': 3 }} gap={4}>
            {[0, 1, 2].map((i) => (
              <Skeleton key={i} height="56" borderRadius="md" />
            ))}
          </SimpleGrid>
        </Stack>
      ) : stats.isSuccess || jobs.length > 0 ? (
        <>
          <Summary summary={summary} />
          {jobs.length === 0 ? (
            <EmptyState.Root size="sm">
              <EmptyState.Content>
                <EmptyState.Title>No jobs have reported yet</EmptyState.Title>
                <EmptyState.Description>A job appears here once its service reports its first run.</EmptyState.Description>
              </EmptyState.Content>
            </EmptyState.Root>
          ) : (
            groups.map((g) => (
              <ServiceSection key={g.service} service={g.service} count={g.jobs.length}>
                {g.jobs.map((job) => (
                  <JobCard
                    key={job.name}
                    job={job}
                    zone={zone}
                    canToggle={canToggle}
                    toggling={toggle.isPending && toggle.variables?.name === job.name}
                    onToggle={() => setConfirming(job)}
                  />
                ))}
              </ServiceSection>
            ))
          )}
        </>
      ) : (
        !showError && <Text color="fg.muted">The job statistics could not be loaded. Use Refresh to try again.</Text>
      )}

      <BulkRuns />

      {confirming && (
        <ConfirmDialog
          title={confirming.enabled ? 'Disable Job' : 'Enable Job'}
          message={
            confirming.enabled
              ? `Disable ${confirming.name}? It will not run on any replica until enabled again.`
              : `Enable ${confirming.name}? It will run again on its schedule.`
          }
          confirmLabel={confirming.enabled ? 'Disable' : 'Enable'}
          destructive={confirming.enabled}
          pending={toggle.isPending}
          onCancel={() => setConfirming(null)}
          onConfirm={() => setEnabled(confirming, !confirming.enabled)}
        />
      )}
    </PageFrame>
  );
}

/** Summary shows the total, enabled and running figures, each under its own heading. */
function Summary({ summary }: { summary: JobSummary }) {
  const headingId = useId();
  const figures: [string, number][] = [
    ['Total jobs', summary.total],
    ['Enabled', summary.enabled],
    ['Running', summary.running],
  ];
  return (
    <Box as="section" aria-labelledby={headingId}>
      <Heading as="h3" id={headingId} size="sm" color="fg.muted" mb={2}>
        Summary
      </Heading>
      <SimpleGrid columns={{ base: 1, sm: 3 }} gap={3} maxW="3xl">
        {figures.map(([label, value]) => (
          <Box key={label} as="section" aria-label={label} borderWidth="1px" borderRadius="md" px={4} py={3}>
            <Heading as="h4" size="xs" color="fg.muted" fontWeight="medium">
              {label}
            </Heading>
            <Text fontSize="2xl" fontWeight="semibold">
              {value}
            </Text>
          </Box>
        ))}
      </SimpleGrid>
    </Box>
  );
}

/** ServiceSection groups one service's job cards under the service's name. */
function ServiceSection({ service, count, children }: { service: string; count: number; children: ReactNode }) {
  const headingId = useId();
  return (
    <Box as="section" aria-labelledby={headingId}>
      <HStack mb={2} gap={2} align="baseline">
        <Heading as="h3" id={headingId} size="md">
          {service || 'Other'}
        </Heading>
        <Text fontSize="sm" color="fg.muted" aria-hidden>
          {count} job{count === 1 ? '' : 's'}
        </Text>
      </HStack>
      <SimpleGrid columns={{ base: 1, lg: 2, '2xl': 3 }} gap={4}>
        {children}
      </SimpleGrid>
    </Box>
  );
}
