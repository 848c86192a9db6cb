import { Box, Button, Code, Field, HStack, Input, List, Stack, Text } from '@chakra-ui/react';
import { QRCodeSVG } from 'qrcode.react';

/**
 * The pieces of the second factor's screens that the sign-in (shell) and the
 * Two-Factor tab (security remote) share: the new key as a QR code and as
 * text, the code field, and the recovery codes shown once.
 */

/** groupKey shows a base32 key in groups of four, as authenticator apps accept it. */
export function groupKey(secret: string): string {
  return secret.replace(/(.{4})/g, '$1 ').trim();
}

/** TotpKeyProps: the key's otpauth:// URL and its base32 secret. */
export interface TotpKeyProps {
  otpauthUrl: string;
  secret: string;
}

/**
 * TotpKey shows a new key: a QR code for an authenticator app to scan, and
 * the key to type in by hand for one that cannot scan.
 */
export function TotpKey({ otpauthUrl, secret }: TotpKeyProps) {
  return (
    <Stack gap={3} align="center">
      <Box bg="white" p={3} borderRadius="md" borderWidth="1px">
        <QRCodeSVG value={otpauthUrl} size={176} level="M" role="img" aria-label="QR code of the new key for your authenticator app" />
      </Box>
      <Stack gap={1} align="center">
        <Text fontSize="sm" color="fg.muted">
          Can&apos;t scan? Enter this key in the app:
        </Text>
        <Code fontSize="md" px={2} py={1} data-testid="totp-secret" aria-label="Key to enter by hand">
          {groupKey(secret)}
        </Code>
      </Stack>
    </Stack>
  );
}

/** CodeInputProps: a controlled six-digit code field. */
export interface CodeInputProps {
  value: string;
  onChange: (value: string) => void;
  label?: string;
  autoFocus?: boolean;
  invalid?: boolean;
}

/**
 * CodeInput is the field of a six-digit code: numeric keyboard, one-time-code
 * autofill, labelled for screen readers.
 */
export function CodeInput({ value, onChange, label = 'Authentication code', autoFocus, invalid }: CodeInputProps) {
  return (
    <Field.Root invalid={invalid}>
      <Field.Label>{label}</Field.Label>
      <Input
        name="code"
        inputMode="numeric"
        autoComplete="one-time-code"
        pattern="[0-9 ]*"
        maxLength={7}
        placeholder="123456"
        value={value}
        onChange={(e) => onChange(e.target.value.replace(/[^0-9 ]/g, ''))}
        autoFocus={autoFocus}
        letterSpacing="0.2em"
      />
    </Field.Root>
  );
}

/** isSixDigits reports whether a typed code holds six digits (spaces ignored). */
export function isSixDigits(code: string): boolean {
  return /^\d{6}$/.test(code.replace(/\s/g, ''));
}

/** RecoveryCodesProps: the codes, shown once. */
export interface RecoveryCodesProps {
  codes: string[];
}

/**
 * RecoveryCodes lists the recovery codes with a way to copy and to download
 * them, and says they are shown only this once.
 */
export function RecoveryCodes({ codes }: RecoveryCodesProps) {
  const text = codes.join('\n') + '\n';
  function download() {
    const url = URL.createObjectURL(new Blob([text], { type: 'text/plain' }));
    const a = document.createElement('a');
    a.href = url;
    a.download = 'paygate-recovery-codes.txt';
    a.click();
    URL.revokeObjectURL(url);
  }
  return (
    <Stack gap={3}>
      <Text fontSize="sm">
        Keep these recovery codes somewhere safe. Each one signs you in once if you lose your authenticator app.{' '}
        <strong>They are shown only now.</strong>
      </Text>
      <List.Root aria-label="Recovery codes" listStyle="none" ms={0} fontFamily="mono" display="grid" gridTemplateColumns="repeat(2, max-content)" columnGap={6} rowGap={1} data-testid="recovery-codes">
        {codes.map((c) => (
          <List.Item key={c}>{c}</List.Item>
        ))}
      </List.Root>
      <HStack>
        <Button size="sm" variant="outline" onClick={() => void navigator.clipboard?.writeText(text)}>
          Copy
        </Button>
        <Button size="sm" variant="outline" onClick={download}>
          Download
        </Button>
      </HStack>
    </Stack>
  );
}
