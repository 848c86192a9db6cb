import { Text } from '@chakra-ui/react';
import { deviceOfUserAgent } from '@paygate/sdk';

/** An unknown device's user agent is cut at this many characters (spec 02 "Account Security"). */
export const DEVICE_TEXT_LIMIT = 30;

/**
 * deviceLabel names the device of a user agent ('Chrome on Windows'); a user
 * agent it does not recognise is shown as is, cut at 30 characters.
 */
export function deviceLabel(userAgent: string | undefined): string {
  const ua = (userAgent ?? '').trim();
  if (!ua) return 'Unknown device';
  const { browser, system } = deviceOfUserAgent(ua);
  if (browser && system) return `${browser} on ${system}`;
  if (browser || system) return (browser ?? system) as string;
  return ua.length > DEVICE_TEXT_LIMIT ? `${ua.slice(0, DEVICE_TEXT_LIMIT)}...` : ua;
}

/** SessionDevice shows a session's device; the full user agent is its title. */
export function SessionDevice({ userAgent }: { userAgent: string | undefined }) {
  return (
    <Text as="span" title={userAgent || undefined}>
      {deviceLabel(userAgent)}
    </Text>
  );
}
