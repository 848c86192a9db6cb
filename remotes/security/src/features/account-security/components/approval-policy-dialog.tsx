import { Button, Field, HStack, Input, NativeSelect, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, errorMessage, notify, PERMISSIONS } from '@paygate/sdk';
import { useState, type FormEvent } from 'react';
import type { ApprovalPolicy, SensitiveAction } from '../../../api/get-sensitive-actions';
import { APPROVE_ACTION, policyInput, useApprovalPolicyChanges } from '../api/save-approval-policy';

interface Props {
  /** The policy to edit; absent for a new one. */
  policy?: ApprovalPolicy;
  /** The catalogue of sensitive actions. */
  actions: readonly SensitiveAction[];
  onClose: () => void;
}

/**
 * ApprovalPolicyDialog adds or edits a four-eyes policy: the action, the
 * permission its approver must hold, and the optional thresholds (a minimum
 * amount, in a currency or any; a minimum count of items).
 */
export function ApprovalPolicyDialog({ policy, actions, onClose }: Props) {
  const { create, update } = useApprovalPolicyChanges();
  const saving = policy ? update : create;
  const [action, setAction] = useState(policy?.action ?? '');
  const [approverPermission, setApproverPermission] = useState(policy?.approverPermission ?? '');
  const [minAmount, setMinAmount] = useState(policy?.minAmount ?? '');
  const [currency, setCurrency] = useState(policy?.currency ?? '');
  const [minCount, setMinCount] = useState(policy?.minCount ? String(policy.minCount) : '');
  const [touched, setTouched] = useState(false);
  const [failure, setFailure] = useState<string | null>(null);

  const parsed = policyInput.safeParse({ action, approverPermission, minAmount, currency, minCount: minCount.trim() === '' ? 0 : Number(minCount) });
  const issue = (field: string) => (touched && !parsed.success ? parsed.error.issues.find((i) => i.path[0] === field)?.message : undefined);
  const choices = actions.filter((a) => a.name !== APPROVE_ACTION);

  function submit(e: FormEvent) {
    e.preventDefault();
    setTouched(true);
    if (!parsed.success || saving.isPending) return;
    setFailure(null);
    const done = {
      onSuccess: () => {
        notify.success(policy ? 'Approval policy updated' : 'Approval policy added', 'It applies to changes requested from now on.');
        onClose();
      },
      onError: (err: unknown) => setFailure(errorMessage(err, policy ? 'Failed to update the policy' : 'Failed to add the policy')),
    };
    if (policy) update.mutate({ id: policy.id, ...parsed.data }, done);
    else create.mutate(parsed.data, done);
  }

  return (
    <DialogFrame
      title={policy ? 'Edit Approval Policy' : 'New Approval Policy'}
      size="md"
      onClose={onClose}
      footer={
        <>
          <Button variant="outline" onClick={onClose} disabled={saving.isPending}>
            Cancel
          </Button>
          <Button type="submit" form="approval-policy-form" colorPalette="blue" loading={saving.isPending}>
            Save
          </Button>
        </>
      }
    >
      <form id="approval-policy-form" onSubmit={submit} noValidate>
        <Stack gap={4}>
          <Text fontSize="sm" color="fg.muted">
            A change of this action that meets the thresholds waits until another user holding the permission approves it.
          </Text>
          <Field.Root required invalid={!!issue('action')}>
            <Field.Label>
              Action
              <Field.RequiredIndicator />
            </Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field value={action} onChange={(e) => setAction(e.target.value)}>
                <option value="">Choose an action</option>
                {choices.map((a) => (
                  <option key={a.name} value={a.name}>
                    {a.title || a.name}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
            <Field.ErrorText>{issue('action')}</Field.ErrorText>
          </Field.Root>
          <Field.Root required invalid={!!issue('approverPermission')}>
            <Field.Label>
              Approver permission
              <Field.RequiredIndicator />
            </Field.Label>
            <NativeSelect.Root>
              <NativeSelect.Field value={approverPermission} onChange={(e) => setApproverPermission(e.target.value)}>
                <option value="">Choose a permission</option>
                {PERMISSIONS.map((p) => (
                  <option key={p} value={p}>
                    {p}
                  </option>
                ))}
              </NativeSelect.Field>
              <NativeSelect.Indicator />
            </NativeSelect.Root>
            <Field.HelperText>The approver must also be allowed to make the change itself.</Field.HelperText>
            <Field.ErrorText>{issue('approverPermission')}</Field.ErrorText>
          </Field.Root>
          <HStack align="start" gap={3}>
            <Field.Root invalid={!!issue('minAmount')} flex="2">
              <Field.Label>Minimum amount (optional)</Field.Label>
              <Input inputMode="decimal" autoComplete="off" value={minAmount} onChange={(e) => setMinAmount(e.target.value)} />
              <Field.HelperText>Only for actions that carry an amount.</Field.HelperText>
              <Field.ErrorText>{issue('minAmount')}</Field.ErrorText>
            </Field.Root>
            <Field.Root invalid={!!issue('currency')} flex="1">
              <Field.Label>Currency (optional)</Field.Label>
              <Input autoComplete="off" maxLength={3} textTransform="uppercase" value={currency} onChange={(e) => setCurrency(e.target.value)} />
              <Field.HelperText>Empty for any.</Field.HelperText>
              <Field.ErrorText>{issue('currency')}</Field.ErrorText>
            </Field.Root>
          </HStack>
          <Field.Root invalid={!!issue('minCount')}>
            <Field.Label>Minimum count (optional)</Field.Label>
            <Input type="number" inputMode="numeric" min={0} step={1} value={minCount} onChange={(e) => setMinCount(e.target.value)} />
            <Field.HelperText>Bulk actions: approval when more than this many items change. Empty or 0 for none.</Field.HelperText>
            <Field.ErrorText>{issue('minCount')}</Field.ErrorText>
          </Field.Root>
          {failure && (
            <Text role="alert" color="fg.error">
              {failure}
            </Text>
          )}
        </Stack>
      </form>
    </DialogFrame>
  );
}
