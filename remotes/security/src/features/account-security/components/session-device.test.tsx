import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { deviceLabel, SessionDevice } from './session-device';

describe('session device (spec 02 "Account Security")', () => {
  it('names known browsers and systems', () => {
    expect(deviceLabel('Mozilla/5.0 (Macintosh; Intel Mac OS X 14_5) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.5 Safari/605.1.15')).toBe('Safari on macOS');
    expect(deviceLabel('Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0')).toBe('Firefox on Linux');
    expect(deviceLabel('Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36 Edg/126.0')).toBe('Edge on Windows');
    expect(deviceLabel('Mozilla/5.0 (iPhone; CPU iPhone OS 17_5 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/126.0 Mobile/15E148 Safari/604.1')).toBe('Chrome on iOS');
  });

  it('cuts an unknown user agent at 30 characters', () => {
    expect(deviceLabel('PaygateBot/1.0 (+integration; batch settlement)')).toBe('PaygateBot/1.0 (+integration; ...');
    expect(deviceLabel('short-agent/1')).toBe('short-agent/1');
    expect(deviceLabel('x'.repeat(30))).toBe('x'.repeat(30));
    expect(deviceLabel('')).toBe('Unknown device');
  });

  it('keeps the whole user agent as the title', () => {
    const ua = 'PaygateBot/1.0 (+integration; batch settlement)';
    render(
      <ChakraProvider value={defaultSystem}>
        <SessionDevice userAgent={ua} />
      </ChakraProvider>,
    );
    expect(screen.getByText('PaygateBot/1.0 (+integration; ...')).toHaveAttribute('title', ua);
  });
});
