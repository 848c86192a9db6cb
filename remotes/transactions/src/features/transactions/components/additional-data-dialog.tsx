import { Box, Heading, HStack, IconButton, Stack, Text } from '@chakra-ui/react';
import { DialogFrame, notify, PRODUCT_NAME } from '@paygate/sdk';
import type { Transaction } from '../api/types';

const show = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v));

async function copy(text: string) {
  try {
    await navigator.clipboard.writeText(text);
    notify.success('Copied to clipboard');
  } catch {
    notify.error('Failed to copy to clipboard');
  }
}

function Section({ title, data, empty }: { title: string; data: Record<string, unknown>; empty: string }) {
  const rows = Object.entries(data);
  return (
    <Box as="section" aria-label={title}>
      <Heading size="sm" mb="2">
        {title}
      </Heading>
      {rows.length === 0 ? (
        <Text color="fg.muted">{empty}</Text>
      ) : (
        <Stack gap="1">
          {rows.map(([k, v]) => (
            <HStack key={k} justify="space-between" borderBottomWidth="1px" py="1">
              <Text fontSize="sm">
                <strong>{k}</strong>: {show(v)}
              </Text>
              <IconButton size="xs" variant="ghost" aria-label={`Copy ${k}`} onClick={() => void copy(show(v))}>
                ⧉
              </IconButton>
            </HStack>
          ))}
        </Stack>
      )}
    </Box>
  );
}

/** AdditionalDataDialog shows the merchant's and the provider side's data of a transaction (spec 02 §2). */
export function AdditionalDataDialog({ transaction, onClose }: { transaction: Transaction; onClose: () => void }) {
  return (
    <DialogFrame title="Additional Transaction Data" onClose={onClose}>
      <Stack gap="5">
        <Section title="Data from Merchant" data={transaction.accountData} empty="No merchant data available" />
        <Section title={`${PRODUCT_NAME} Data`} data={transaction.providerData} empty={`No ${PRODUCT_NAME} data available`} />
      </Stack>
    </DialogFrame>
  );
}
