import { Alert, Box, Button, Code, DataList, Heading, List, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, formatDateTime, useTimezone } from '@paygate/sdk';
import type { ReactNode } from 'react';
import type { ApprovalRequest } from '../api/get-approvals';
import { parseDescription, parseProofs, pretty, proofKindLabel } from '../utils/description';
import { ApprovalStatus } from './approval-status';

interface Props {
  request: ApprovalRequest;
  /** The signed-in user's id (the token's subject). */
  meId: string;
  /** The approval is being sent (its confirmation may be open). */
  approving: boolean;
  /** Why the last decision failed, in the server's words. */
  error: string | null;
  onApprove: () => void;
  onReject: () => void;
  onClose: () => void;
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <Stack gap={2} as="section">
      <Heading as="h3" size="sm">
        {title}
      </Heading>
      {children}
    </Stack>
  );
}

function JsonBlock({ label, value }: { label: string; value: unknown }) {
  return (
    <Code as="pre" display="block" whiteSpace="pre-wrap" wordBreak="break-word" p={3} fontSize="xs" aria-label={label} tabIndex={0}>
      {pretty(value)}
    </Code>
  );
}

/**
 * ApprovalDetailDialog shows one approval request: what it changes in plain
 * words and exactly (the values the requester signed), why, who asked and
 * when it expires, who decided and the outcome, the proofs; and, while it is
 * pending and the server says the caller may decide it (`canDecide`),
 * Approve and Reject.
 */
export function ApprovalDetailDialog({ request: r, meId, approving, error, onApprove, onReject, onClose }: Props) {
  const [zone] = useTimezone();
  const described = parseDescription(r.description);
  const proofs = parseProofs(r.proofs);
  const pending = r.status === 'pending';
  const mayDecide = pending && r.canDecide;
  const own = r.requestedBy === meId;
  const when = (t: string) => (t ? formatDateTime(t, zone) : '—');

  return (
    <DialogFrame
      title={`${r.title || r.action} (request #${r.id})`}
      size="xl"
      onClose={onClose}
      footer={
        <>
          <Button variant="outline" onClick={onClose}>
            Close
          </Button>
          {mayDecide && (
            <>
              <Button variant="outline" colorPalette="red" onClick={onReject} disabled={approving}>
                Reject
              </Button>
              <Button colorPalette="blue" onClick={onApprove} loading={approving}>
                Approve
              </Button>
            </>
          )}
        </>
      }
    >
      <Stack gap={5}>
        {error && (
          <Alert.Root status="error" role="alert">
            <Alert.Indicator />
            <Alert.Title>{error}</Alert.Title>
          </Alert.Root>
        )}
        <DataList.Root orientation="horizontal" size="sm">
          <DataList.Item>
            <DataList.ItemLabel>Status</DataList.ItemLabel>
            <DataList.ItemValue>
              <ApprovalStatus status={r.status} />
            </DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Action</DataList.ItemLabel>
            <DataList.ItemValue>
              {r.title} <Code ms={1}>{r.action}</Code>
            </DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Requested by</DataList.ItemLabel>
            <DataList.ItemValue>
              {r.requestedByUsername || `User ${r.requestedBy}`}
              {own && ' (you)'}
            </DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Requested at</DataList.ItemLabel>
            <DataList.ItemValue>{when(r.requestedAt)}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>{pending ? 'Expires at' : 'Expiry'}</DataList.ItemLabel>
            <DataList.ItemValue>{when(r.expiresAt)}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Approver needs</DataList.ItemLabel>
            <DataList.ItemValue>{r.approverPermission || '—'}</DataList.ItemValue>
          </DataList.Item>
          <DataList.Item>
            <DataList.ItemLabel>Reason</DataList.ItemLabel>
            <DataList.ItemValue>{r.reason || '—'}</DataList.ItemValue>
          </DataList.Item>
          {!pending && r.decidedByUsername && (
            <DataList.Item>
              <DataList.ItemLabel>Decided by</DataList.ItemLabel>
              <DataList.ItemValue>
                {r.decidedByUsername}
                {r.decidedAt && `, ${when(r.decidedAt)}`}
              </DataList.ItemValue>
            </DataList.Item>
          )}
          {r.outcome && (
            <DataList.Item>
              <DataList.ItemLabel>{r.status === 'rejected' ? 'Rejection reason' : r.status === 'failed' ? 'Failure reason' : 'Outcome'}</DataList.ItemLabel>
              <DataList.ItemValue>{r.outcome}</DataList.ItemValue>
            </DataList.Item>
          )}
        </DataList.Root>

        {pending && !r.canDecide && (
          <Text color="fg.muted">
            {own
              ? `This is your request: another user holding ${r.approverPermission || 'the approver permission'} must approve it.`
              : `Waiting for a user holding ${r.approverPermission || 'the approver permission'}.`}
          </Text>
        )}

        {r.summary.length > 0 && (
          <Section title="What it changes">
            <List.Root aria-label="Summary of the change" ps={4}>
              {r.summary.map((line, i) => (
                <List.Item key={`${i}-${line}`}>{line}</List.Item>
              ))}
            </List.Root>
          </Section>
        )}

        {described ? (
          <Section title="Exact change">
            {Object.keys(described.targets).length > 0 && (
              <Box>
                <Text fontSize="sm" fontWeight="medium" mb={1}>
                  Target
                </Text>
                <JsonBlock label="Target" value={described.targets} />
              </Box>
            )}
            <Box>
              <Text fontSize="sm" fontWeight="medium" mb={1}>
                New values
              </Text>
              <JsonBlock label="New values" value={described.values} />
            </Box>
            {Object.keys(described.observed).length > 0 && (
              <Box>
                <Text fontSize="sm" fontWeight="medium" mb={1}>
                  Values when requested
                </Text>
                <Text fontSize="xs" color="fg.muted" mb={1}>
                  The change is applied only while the target still has these values.
                </Text>
                <JsonBlock label="Values when requested" value={described.observed} />
              </Box>
            )}
          </Section>
        ) : (
          r.description && (
            <Section title="Exact change">
              <Code as="pre" display="block" whiteSpace="pre-wrap" wordBreak="break-all" p={3} fontSize="xs">
                {r.description}
              </Code>
            </Section>
          )
        )}

        {(proofs.length > 0 || r.digest) && (
          <Section title="Proofs">
            {proofs.length > 0 && (
              <List.Root ps={4}>
                {proofs.map((p, i) => (
                  <List.Item key={`${i}-${p.role}`}>
                    {p.role === 'approver' ? 'Approver' : p.role === 'requester' ? 'Requester' : p.role || 'Signer'} {p.username}: {proofKindLabel(p.kind)}
                  </List.Item>
                ))}
              </List.Root>
            )}
            {r.digest && (
              <Text fontSize="xs" color="fg.muted" wordBreak="break-all">
                Digest (SHA-256 of what was signed): <Code fontSize="xs">{r.digest}</Code>
              </Text>
            )}
          </Section>
        )}
      </Stack>
    </DialogFrame>
  );
}
