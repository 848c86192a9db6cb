import { describe, expect, it } from 'vitest';
import {
  changedSettings,
  fromServerSettings,
  fromServerValue,
  NEW_COLLAB_DEFAULTS,
  toServerSettings,
  toServerValue,
  withProviderDirections,
} from './settings';

const SERVER = {
  IsEnabled: 'true',
  IsCashInEnabled: 'false',
  Position: '',
  Mode: '2',
  Weight: '1.5',
  Negative: '-3',
  Label: 'blue',
  Spaced: ' true ',
};

describe('collab settings conversion (spec 01 §3)', () => {
  it('reads numeric strings as numbers, true/false as booleans, "" as none', () => {
    expect(fromServerSettings(SERVER)).toEqual({
      IsEnabled: true,
      IsCashInEnabled: false,
      Position: null,
      Mode: 2,
      Weight: 1.5,
      Negative: -3,
      Label: 'blue',
      Spaced: true,
    });
  });

  it('leaves strings that only look partly numeric alone', () => {
    expect(fromServerValue('12abc')).toBe('12abc');
    expect(fromServerValue('1e3')).toBe('1e3');
  });

  it('writes every value back as a string', () => {
    expect(toServerValue(true)).toBe('true');
    expect(toServerValue(false)).toBe('false');
    expect(toServerValue(null)).toBe('');
    expect(toServerValue(7)).toBe('7');
    expect(toServerValue('blue')).toBe('blue');
  });

  it('round-trips a server map', () => {
    const back = toServerSettings(fromServerSettings(SERVER));
    expect(back).toEqual({ ...SERVER, Spaced: 'true' });
  });

  it('sends only the settings that changed, as strings', () => {
    const initial = fromServerSettings({ IsEnabled: 'true', Position: '', Mode: '1' });
    expect(changedSettings(initial, { ...initial })).toEqual({});
    expect(changedSettings(initial, { ...initial, IsEnabled: false, Position: 4, Mode: 3 })).toEqual({
      IsEnabled: 'false',
      Position: '4',
      Mode: '3',
    });
    expect(changedSettings(initial, { ...initial, Position: null })).toEqual({});
  });
});

describe('new collab defaults (spec 01 §3)', () => {
  it('are the spec’s, in the server’s strings', () => {
    expect(toServerSettings(NEW_COLLAB_DEFAULTS)).toEqual({
      IsEnabled: 'true',
      IsCashInEnabled: 'true',
      IsCashOutEnabled: 'true',
      ValidateCashIn: 'true',
      ValidateCashOut: 'true',
      IsMerchantCallbackEnabled: 'true',
      IsCreditingToClientsEnabled: 'false',
      IsWithdrawFromClientsEnabled: 'false',
      ExpandByPayType: 'true',
      AwailableOnlyOnDirectAccess: 'false',
      Position: '',
      Mode: '1',
    });
  });

  it('take the enabled and validate flags from the provider’s directions', () => {
    const s = withProviderDirections(NEW_COLLAB_DEFAULTS, true, false);
    expect(s).toMatchObject({ IsCashInEnabled: true, ValidateCashIn: true, IsCashOutEnabled: false, ValidateCashOut: false, IsEnabled: true });
    expect(withProviderDirections(s, false, true)).toMatchObject({
      IsCashInEnabled: false,
      ValidateCashIn: false,
      IsCashOutEnabled: true,
      ValidateCashOut: true,
    });
  });
});
