import { useQuery } from '@tanstack/react-query';
import { ApiSecretsPanel, mayCall, merchantsQuery, type User } from '@paygate/sdk';

interface Props {
  user: User;
  /** The merchant the page shows (the listed merchant's, or the chosen collab's); null shows nothing. */
  merchantId: number | null;
}

/**
 * ApiSecretsSection is the Callbacks page's "API secrets" section (issue
 * 30): the merchant's secrets that sign its payment requests, managed with
 * the SDK's panel, for users whose grants let them list them (a Merchant
 * Admin its own merchant's, an admin any merchant's).
 */
export function ApiSecretsSection({ user, merchantId }: Props) {
  const allowed = mayCall(user, 'GET /api/v1/merchants/{merchantId}/secrets');
  const merchants = useQuery({ ...merchantsQuery(user.username), enabled: allowed && merchantId !== null });
  if (!allowed || merchantId === null) return null;
  const merchant = merchants.data?.find((m) => m.id === merchantId);
  return <ApiSecretsPanel user={user} merchant={{ id: merchantId, name: merchant?.name || `Merchant ${merchantId}`, hash: merchant?.hash || undefined }} />;
}
