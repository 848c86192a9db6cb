import { ChakraProvider, defaultSystem } from '@chakra-ui/react';
import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it } from 'vitest';
import { CredentialInput } from './credential-input';

describe('CredentialInput', () => {
  it('draws its show/hide toggle as an icon, not an emoji a machine without an emoji font shows as an empty box', async () => {
    const user = userEvent.setup();
    render(
      <ChakraProvider value={defaultSystem}>
        <CredentialInput field={{ group: '', key: 'apiKey', kind: 'text', value: 'sk_live_1' }} onChange={() => {}} />
      </ChakraProvider>,
    );
    for (const name of ['Show apiKey', 'Hide apiKey']) {
      const toggle = screen.getByRole('button', { name });
      expect(toggle.querySelector('svg'), name).not.toBeNull();
      expect(toggle.textContent, name).not.toMatch(/\p{Extended_Pictographic}/u);
      await user.click(toggle);
    }
  });
});
