import { Alert, Badge, Button, Checkbox, Code, Field, Heading, HStack, NativeSelect, Skeleton, Stack, Text } from '@chakra-ui/react';
import { ConfirmDialog, DataTable, errorMessage, mayCall, notify, useUser, type DataColumn } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import {
  STEP_UP_SCOPES,
  useSensitiveActions,
  type ApprovalPolicy,
  type SensitiveAction,
  type SensitiveActions,
  type StepUpScope,
} from '../../../api/get-sensitive-actions';
import { useApprovalPolicies } from '../api/get-approval-policies';
import { useApprovalPolicyChanges } from '../api/save-approval-policy';
import { useUpdateStepUp } from '../api/update-step-up';
import { ApprovalPolicyDialog } from './approval-policy-dialog';

/**
 * SensitiveActionsTab holds the settings of action-bound confirmation and
 * four-eyes approval (issue 28, docs/contracts-approvals.md "Settings"):
 * which sensitive actions need step-up and for whom, and the approval
 * policies. Offered to users the server lets change the step-up setting
 * (requirement securityPolicy); each policy control shows only when the
 * server's rule for its call lets the user in.
 */
export function SensitiveActionsTab() {
  const catalogue = useSensitiveActions();
  if (catalogue.isPending) {
    return (
      <Stack aria-busy="true" aria-label="Loading the sensitive actions">
        <Skeleton height="10" />
        <Skeleton height="10" />
      </Stack>
    );
  }
  if (catalogue.isError) {
    return (
      <Alert.Root status="error" role="alert">
        <Alert.Indicator />
        <Alert.Content>
          <Alert.Title>Failed to load the sensitive actions.</Alert.Title>
          <Alert.Description>{errorMessage(catalogue.error, 'Unknown error')}</Alert.Description>
        </Alert.Content>
      </Alert.Root>
    );
  }
  return (
    <Stack gap={10} pt={2}>
      {/* A new answer (after a save) starts the form again from what the server stored. */}
      <StepUpForm key={catalogue.dataUpdatedAt} initial={catalogue.data} />
      <ApprovalPolicies actions={catalogue.data.actions} />
    </Stack>
  );
}

function StepUpForm({ initial }: { initial: SensitiveActions }) {
  const user = useUser();
  const update = useUpdateStepUp();
  const mayChange = mayCall(user, 'PUT /api/v1/sensitive-actions/step-up');
  const [scope, setScope] = useState<StepUpScope>(initial.stepUpScope);
  const [chosen, setChosen] = useState<ReadonlySet<string>>(() => new Set(initial.actions.filter((a) => a.stepUp && !a.alwaysStepUp).map((a) => a.name)));
  const optional = initial.actions.filter((a) => !a.alwaysStepUp);

  function toggle(name: string, on: boolean) {
    setChosen((cur) => {
      const next = new Set(cur);
      if (on) next.add(name);
      else next.delete(name);
      return next;
    });
  }

  function submit(e: FormEvent) {
    e.preventDefault();
    const actions = optional.filter((a) => chosen.has(a.name)).map((a) => a.name);
    update.mutate(
      { actions, scope },
      {
        onSuccess: () => notify.success('Step-up settings saved', "They apply from each user's next sign-in or token refresh (within 15 minutes)."),
        onError: (err) => notify.error(errorMessage(err, 'Failed to save the step-up settings')),
      },
    );
  }

  const columns: DataColumn<SensitiveAction>[] = [
    {
      key: 'action',
      header: 'Action',
      cell: (a) => (
        <Stack gap={0}>
          <Text>{a.title || a.name}</Text>
          <Code fontSize="xs" alignSelf="start">
            {a.name}
          </Code>
        </Stack>
      ),
    },
    {
      key: 'step-up',
      header: 'Step-up',
      cell: (a) => (
        <HStack gap={2}>
          <Checkbox.Root
            size="sm"
            checked={a.alwaysStepUp || chosen.has(a.name)}
            disabled={a.alwaysStepUp || !mayChange}
            onCheckedChange={(e) => toggle(a.name, e.checked === true)}
          >
            <Checkbox.HiddenInput aria-label={`Step-up for ${a.title || a.name}`} />
            <Checkbox.Control />
          </Checkbox.Root>
          {a.alwaysStepUp && (
            <Text fontSize="xs" color="fg.muted">
              Always
            </Text>
          )}
        </HStack>
      ),
    },
    {
      key: 'reason',
      header: 'Reason',
      cell: (a) =>
        a.reasonRequired ? (
          <Badge colorPalette="orange" variant="subtle">
            Required
          </Badge>
        ) : (
          <Text as="span" color="fg.muted">
            Optional
          </Text>
        ),
    },
  ];

  return (
    <form onSubmit={submit} noValidate aria-labelledby="step-up-heading">
      <Stack gap={4}>
        <Heading as="h3" size="md" id="step-up-heading">
          Step-up confirmation
        </Heading>
        <Text fontSize="sm" color="fg.muted">
          A change of a checked action must be confirmed with a passkey or an authenticator code, bound to that exact change. Approving a request always
          needs it.
        </Text>
        <Field.Root maxW="sm">
          <Field.Label>Step-up applies to</Field.Label>
          <NativeSelect.Root disabled={!mayChange}>
            <NativeSelect.Field value={scope} onChange={(e) => setScope(e.target.value as StepUpScope)}>
              {STEP_UP_SCOPES.map((s) => (
                <option key={s.value} value={s.value}>
                  {s.label}
                </option>
              ))}
            </NativeSelect.Field>
            <NativeSelect.Indicator />
          </NativeSelect.Root>
          <Field.HelperText>
            {scope === 'none'
              ? 'Nobody is asked, whatever is checked; approving a request always is.'
              : scope === 'everyone'
                ? 'Every user is asked for the checked actions.'
                : 'Users who see every merchant are asked for the checked actions.'}
          </Field.HelperText>
        </Field.Root>
        {mayChange && (
          <HStack gap={2}>
            <Button size="xs" variant="outline" onClick={() => setChosen(new Set(optional.map((a) => a.name)))}>
              Check all
            </Button>
            <Button size="xs" variant="outline" onClick={() => setChosen(new Set())}>
              Uncheck all
            </Button>
          </HStack>
        )}
        <DataTable label="Sensitive actions" columns={columns} rows={initial.actions} rowKey={(a) => a.name} empty="No sensitive actions." />
        {mayChange && (
          <Button type="submit" colorPalette="blue" alignSelf="start" loading={update.isPending}>
            Save
          </Button>
        )}
      </Stack>
    </form>
  );
}

/** threshold says when a policy applies, in words. */
export function threshold(p: ApprovalPolicy): string {
  const parts: string[] = [];
  if (p.minAmount) parts.push(`amount at least ${p.minAmount}${p.currency ? ` ${p.currency}` : ' (any currency)'}`);
  if (p.minCount > 0) parts.push(`more than ${p.minCount} items`);
  return parts.length ? parts.join(' or ') : 'Every change';
}

function ApprovalPolicies({ actions }: { actions: readonly SensitiveAction[] }) {
  const user = useUser();
  const may = {
    create: mayCall(user, 'POST /api/v1/approval-policies'),
    edit: mayCall(user, 'PUT /api/v1/approval-policies/{id}'),
    remove: mayCall(user, 'DELETE /api/v1/approval-policies/{id}'),
  };
  const policies = useApprovalPolicies();
  const { remove } = useApprovalPolicyChanges();
  const [editing, setEditing] = useState<ApprovalPolicy | 'new' | null>(null);
  const [deleting, setDeleting] = useState<ApprovalPolicy | null>(null);
  const titleOf = (name: string) => actions.find((a) => a.name === name)?.title || name;

  function confirmDelete(p: ApprovalPolicy) {
    remove.mutate(p.id, {
      onSuccess: () => {
        notify.success('Approval policy deleted');
        setDeleting(null);
      },
      onError: (err) => {
        setDeleting(null);
        notify.error(errorMessage(err, 'Failed to delete the policy'));
      },
    });
  }

  const columns: DataColumn<ApprovalPolicy>[] = [
    { key: 'action', header: 'Action', cell: (p) => titleOf(p.action) },
    { key: 'permission', header: 'Approver permission', cell: (p) => p.approverPermission },
    { key: 'threshold', header: 'Applies to', cell: threshold },
  ];
  if (may.edit || may.remove) {
    columns.push({
      key: 'actions',
      header: 'Actions',
      cell: (p) => (
        <HStack gap={1}>
          {may.edit && (
            <Button size="2xs" variant="outline" aria-label={`Edit the policy of ${titleOf(p.action)}`} onClick={() => setEditing(p)}>
              Edit
            </Button>
          )}
          {may.remove && (
            <Button size="2xs" variant="outline" colorPalette="red" aria-label={`Delete the policy of ${titleOf(p.action)}`} onClick={() => setDeleting(p)}>
              Delete
            </Button>
          )}
        </HStack>
      ),
    });
  }

  return (
    <Stack gap={4} as="section" aria-labelledby="approval-policies-heading">
      <HStack justify="space-between" wrap="wrap" gap={3}>
        <Heading as="h3" size="md" id="approval-policies-heading">
          Four-eyes approval policies
        </Heading>
        {may.create && (
          <Button size="sm" colorPalette="blue" onClick={() => setEditing('new')}>
            New Policy
          </Button>
        )}
      </HStack>
      <Text fontSize="sm" color="fg.muted">
        A change a policy covers is not applied until another user holding the approver permission approves it on the Approvals page.
      </Text>
      <DataTable
        label="Approval policies"
        columns={columns}
        rows={policies.data ?? []}
        rowKey={(p) => String(p.id)}
        loading={policies.isPending}
        empty="No approval policies: every change applies once its requester confirms it."
        error={policies.isError ? 'The approval policies could not be loaded.' : undefined}
        errorDetail={policies.isError ? errorMessage(policies.error, 'Unknown error') : undefined}
        onRetry={() => void policies.refetch()}
        retrying={policies.isFetching}
      />
      {editing && <ApprovalPolicyDialog policy={editing === 'new' ? undefined : editing} actions={actions} onClose={() => setEditing(null)} />}
      {deleting && (
        <ConfirmDialog
          title="Delete Approval Policy"
          message={`Delete the policy of ${titleOf(deleting.action)} (approver: ${deleting.approverPermission})? Changes it covers will apply without a second person.`}
          confirmLabel="Delete"
          destructive
          pending={remove.isPending}
          onCancel={() => setDeleting(null)}
          onConfirm={() => confirmDelete(deleting)}
        />
      )}
    </Stack>
  );
}
