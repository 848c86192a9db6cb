import { hasPasskeyHint, loggedOutByUser, passkeysSupported, readStored, rememberPasskey, writeTabStored } from '@paygate/sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { canUsePasskeys, lastUsername, loggedOutInThisTab, passkeyHint } from './signed-out';

// The sign-in page reads these before the SDK loads: they must answer as the SDK does.
describe('the sign-in page agrees with the SDK on', () => {
  afterEach(() => {
    localStorage.clear();
    sessionStorage.clear();
  });

  it('the last username', () => {
    expect(lastUsername()).toBe('');
    localStorage.setItem('lastUsername', 'merchant');
    expect(lastUsername()).toBe(readStored('lastUsername'));
  });

  it('the passkey hint, without case', () => {
    for (const name of ['Admin', 'admin', ' ADMIN ', 'merchant', '']) expect(passkeyHint(name)).toBe(hasPasskeyHint(name));
    rememberPasskey('Admin');
    for (const name of ['Admin', 'admin', ' ADMIN ', 'merchant', '']) expect(passkeyHint(name)).toBe(hasPasskeyHint(name));
    expect(passkeyHint('admin')).toBe(true);
    localStorage.setItem('passkeyUsers', 'not json');
    expect(passkeyHint('admin')).toBe(hasPasskeyHint('admin'));
  });

  it('passkey support', () => {
    expect(canUsePasskeys()).toBe(passkeysSupported());
  });

  it('an explicit logout in this tab', () => {
    expect(loggedOutInThisTab()).toBe(loggedOutByUser());
    writeTabStored('loggedOut', 'true');
    expect(loggedOutInThisTab()).toBe(true);
    expect(loggedOutInThisTab()).toBe(loggedOutByUser());
  });
});
