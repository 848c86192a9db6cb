import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { expiryOf, SessionExpiry } from './session-expiry';

const NOW = Date.parse('2026-01-10T12:00:00Z');
const HOUR = 3_600_000;
const at = (ms: number) => new Date(NOW + ms).toISOString();

describe('session expiry (spec 02 "Account Security")', () => {
  it('reads Expired when no time is left', () => {
    expect(expiryOf(at(0), NOW)).toEqual({ text: 'Expired', palette: 'red' });
    expect(expiryOf(at(-HOUR), NOW).text).toBe('Expired');
    expect(expiryOf(undefined, NOW).text).toBe('Expired');
  });

  it('reads "Nh left" in the warning colour for 24 hours or less', () => {
    expect(expiryOf(at(24 * HOUR), NOW)).toEqual({ text: '24h left', palette: 'orange' });
    expect(expiryOf(at(90 * 60_000), NOW)).toEqual({ text: '2h left', palette: 'orange' });
    expect(expiryOf(at(60_000), NOW).text).toBe('1h left');
  });

  it('reads "Nd left" in the success colour beyond 24 hours', () => {
    expect(expiryOf(at(24 * HOUR + 60_000), NOW)).toEqual({ text: '1d left', palette: 'green' });
    expect(expiryOf(at(7 * 24 * HOUR + HOUR), NOW)).toEqual({ text: '7d left', palette: 'green' });
  });

  it('treats a timestamp without a zone as UTC', () => {
    expect(expiryOf('2026-01-10T15:00:00', NOW).text).toBe('3h left');
  });

  it('renders a badge with the text', () => {
    render(
      <ChakraProvider value={defaultSystem}>
        <SessionExpiry expiresAt={at(3 * HOUR)} now={NOW} />
      </ChakraProvider>,
    );
    expect(screen.getByText('3h left')).toHaveAttribute('data-palette', 'orange');
  });
});
