import { Badge } from '@chakra-ui/react';
import { parseTimestamp } from '@paygate/sdk';

const HOUR = 3_600_000;

/** Expiry is how the Expires column reads a refresh token's end, and its colour. */
export interface Expiry {
  text: string;
  palette: 'red' | 'orange' | 'green';
}

/**
 * expiryOf reads an expiry time against now (spec 02 "Account Security"):
 * "Expired" when no time is left, "Nh left" within 24 hours (warning), else
 * "Nd left" (success).
 */
export function expiryOf(expiresAt: string | undefined, now: number): Expiry {
  const at = expiresAt ? parseTimestamp(expiresAt).getTime() : NaN;
  const left = at - now;
  if (!Number.isFinite(left) || left <= 0) return { text: 'Expired', palette: 'red' };
  if (left <= 24 * HOUR) return { text: `${Math.ceil(left / HOUR)}h left`, palette: 'orange' };
  return { text: `${Math.floor(left / (24 * HOUR))}d left`, palette: 'green' };
}

/** SessionExpiry badges a session's remaining time. */
export function SessionExpiry({ expiresAt, now }: { expiresAt: string | undefined; now: number }) {
  const { text, palette } = expiryOf(expiresAt, now);
  return (
    <Badge colorPalette={palette} variant="subtle" data-palette={palette}>
      {text}
    </Badge>
  );
}
