import { useQueryClient } from '@tanstack/react-query';
import { useTransactionStream as useGatewayStream } from '@paygate/sdk';
import { useCallback } from 'react';

/** How long events are gathered before one reload. */
const COALESCE_MS = 300;

/**
 * useTransactionStream keeps the transaction queries fresh from the gateway's
 * live stream (the SDK's useTransactionStream): a changed transaction, or a
 * dropped stream, reloads them. It tells whether the stream is connected, so
 * the page can poll instead while it is not.
 */
export function useTransactionStream(enabled: boolean): boolean {
  const queryClient = useQueryClient();
  const reload = useCallback(() => void queryClient.invalidateQueries({ queryKey: ['transactions'] }), [queryClient]);
  return useGatewayStream(enabled, reload, { coalesceMs: COALESCE_MS });
}
