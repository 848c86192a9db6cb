import { Button, Heading, HStack, Stack, Text } from '@chakra-ui/react';
import { DataTable, mayCall, useUser, type DataColumn } from '@paygate/sdk';
import { useId } from 'react';
import { useVerifyProof } from '../api/verify-proof';
import { proofKindLabel, proofRoleLabel, proofSigner, type ActivityEntry, type ActivityProof } from '../utils/activity';
import { messageOf } from '../../../utils/errors';
import { Detail } from './detail';

/**
 * ProofCheck is a proof's Verify button and the answer of its last check,
 * in a live region so that the result is announced where the button is.
 */
function ProofCheck({ proof }: { proof: ActivityProof }) {
  const verify = useVerifyProof();
  const may = mayCall(useUser(), 'POST /api/v1/confirmations/verify');
  const answer: { state: string; text: string; color?: string } = verify.isPending
    ? { state: 'pending', text: 'Verifying…' }
    : verify.isError
      ? { state: 'error', text: `Could not verify: ${messageOf(verify.error)}`, color: 'fg.error' }
      : !verify.data
        ? { state: 'idle', text: '' }
        : verify.data.valid
          ? { state: 'valid', text: `Valid — signed by ${verify.data.username || proof.username || 'an unknown user'}`, color: 'fg.success' }
          : { state: 'invalid', text: `Not valid: ${verify.data.reason || 'auth gave no reason'}`, color: 'fg.error' };
  return (
    <HStack gap={2} wrap="wrap">
      {may && (
        <Button size="xs" variant="outline" loading={verify.isPending} loadingText="Verify" onClick={() => verify.mutate({ proof: proof.raw })}>
          Verify
        </Button>
      )}
      <Text role="status" aria-live="polite" fontSize="sm" color={answer.color} data-verdict={answer.state}>
        {answer.text}
      </Text>
    </HStack>
  );
}

const COLUMNS: DataColumn<ActivityProof>[] = [
  { key: 'role', header: 'Role', cellProps: { fontWeight: 'medium' }, cell: (p) => proofRoleLabel(p.role) },
  { key: 'signer', header: 'User', cell: (p) => proofSigner(p) },
  { key: 'kind', header: 'Proof', cell: (p) => proofKindLabel(p.kind) },
  { key: 'check', header: 'Check', cell: (p) => <ProofCheck proof={p} /> },
];

/**
 * ConfirmationBlock shows how a confirmed change was signed (issue 28): the
 * reason, the confirmation id and each proof, which the operator can have
 * auth re-verify.
 */
export function ConfirmationBlock({ entry: e }: { entry: ActivityEntry }) {
  const headingId = useId();
  return (
    <Stack as="section" aria-labelledby={headingId} gap={2} borderWidth="1px" borderRadius="md" p={3} mt={1}>
      <Heading as="h3" id={headingId} size="sm">
        Confirmation
      </Heading>
      <Detail label="Reason" value={e.reason || 'None given'} />
      <Detail label="Confirmation id" value={e.confirmationId || 'Not recorded'} />
      {e.proofs.status === 'unreadable' ? (
        <Text fontSize="sm" color="fg.error">
          The proofs could not be read.
        </Text>
      ) : e.proofs.status === 'none' || e.proofs.proofs.length === 0 ? (
        <Text fontSize="sm" color="fg.muted">
          No proofs were recorded.
        </Text>
      ) : (
        <DataTable label="Proofs" columns={COLUMNS} rows={e.proofs.proofs} rowKey={(p) => p.key} empty="No proofs were recorded." />
      )}
    </Stack>
  );
}
