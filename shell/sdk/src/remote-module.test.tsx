import { act, render, renderHook, screen, waitFor } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { EXPOSED_MODULES, loadRemoteModule, setRemoteModuleLoader, useRemoteModule, type ExportWizardProps } from './remote-module';

function Wizard({ collabId }: ExportWizardProps) {
  return <p>Wizard for collab {collabId}</p>;
}

afterEach(() => setRemoteModuleLoader(null));

describe('loadRemoteModule (a module one remote exposes to another)', () => {
  it('lists the modules of the contract', () => {
    expect(Object.keys(EXPOSED_MODULES)).toEqual(['files']);
    expect(Object.keys(EXPOSED_MODULES.files)).toEqual(['./export-wizard']);
  });

  it('fails without an installed loader', async () => {
    await expect(loadRemoteModule('files', './export-wizard')).rejects.toThrow('No remote module loader is installed');
  });

  it('loads through the installed loader once and answers the typed module', async () => {
    const loader = vi.fn(async () => ({ default: Wizard }));
    setRemoteModuleLoader(loader);
    const [a, b] = await Promise.all([loadRemoteModule('files', './export-wizard'), loadRemoteModule('files', './export-wizard')]);
    expect(a).toBe(b);
    expect(loader).toHaveBeenCalledTimes(1);
    expect(loader).toHaveBeenCalledWith('files', './export-wizard');
    const { default: Component } = a;
    render(<Component collabId={3} filter={{}} onClose={() => {}} />);
    expect(screen.getByText('Wizard for collab 3')).toBeInTheDocument();
  });

  it('refuses a module without the contract shape, and forgets a failure so that a retry loads again', async () => {
    const loader = vi.fn<(remote: string, path: string) => Promise<unknown>>().mockResolvedValueOnce({ default: 'not a component' }).mockRejectedValueOnce(new Error('Could not load /remotes/files/remoteEntry.js')).mockResolvedValueOnce({ default: Wizard });
    setRemoteModuleLoader(loader);
    await expect(loadRemoteModule('files', './export-wizard')).rejects.toThrow("The files remote's ./export-wizard module does not have the expected shape");
    await expect(loadRemoteModule('files', './export-wizard')).rejects.toThrow('Could not load /remotes/files/remoteEntry.js');
    await expect(loadRemoteModule('files', './export-wizard')).resolves.toEqual({ default: Wizard });
    expect(loader).toHaveBeenCalledTimes(3);
  });

  it('refuses a path the contract does not list', async () => {
    setRemoteModuleLoader(async () => ({ default: Wizard }));
    // @ts-expect-error -- not in the ExposedModules contract
    await expect(loadRemoteModule('files', './routes-of-someone-else')).rejects.toThrow('The files remote exposes no module ./routes-of-someone-else');
  });
});

describe('useRemoteModule', () => {
  it('stays idle until enabled, then loads', async () => {
    setRemoteModuleLoader(async () => ({ default: Wizard }));
    const { result, rerender } = renderHook(({ on }) => useRemoteModule('files', './export-wizard', on), { initialProps: { on: false } });
    expect(result.current.status).toBe('idle');
    rerender({ on: true });
    expect(result.current.status).toBe('loading');
    await waitFor(() => expect(result.current.status).toBe('ready'));
    expect(result.current.status === 'ready' && result.current.module.default).toBe(Wizard);
  });

  it('reports an error and loads again on retry', async () => {
    let fail = true;
    setRemoteModuleLoader(async () => {
      if (fail) throw new Error('offline');
      return { default: Wizard };
    });
    const { result } = renderHook(() => useRemoteModule('files', './export-wizard'));
    await waitFor(() => expect(result.current.status).toBe('error'));
    const state = result.current;
    if (state.status !== 'error') throw new Error('expected an error');
    expect(state.error.message).toBe('offline');
    fail = false;
    act(() => state.retry());
    await waitFor(() => expect(result.current.status).toBe('ready'));
  });

  it('loads afresh when enabled again after a failure', async () => {
    let fail = true;
    setRemoteModuleLoader(async () => {
      if (fail) throw new Error('offline');
      return { default: Wizard };
    });
    const { result, rerender } = renderHook(({ on }) => useRemoteModule('files', './export-wizard', on), { initialProps: { on: true } });
    await waitFor(() => expect(result.current.status).toBe('error'));
    rerender({ on: false });
    expect(result.current.status).toBe('idle');
    fail = false;
    rerender({ on: true });
    expect(result.current.status).toBe('loading');
    await waitFor(() => expect(result.current.status).toBe('ready'));
  });
});
