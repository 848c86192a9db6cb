import { screen, waitFor, within } from '@testing-library/react';
import { http, HttpResponse } from 'msw';
import { SCREENS, type RemoteManifest } from '@paygate/sdk';
import { locationOf, renderApp, withRemote } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import { act } from 'react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { file, FILES_URL, filesHandler, listOf, merchantsHandler, MERCHANT, renderFiles, typesHandler } from '../../../testing/fixtures';
import { FilesPage } from './files-page';

const table = () => screen.findByRole('table', { name: 'Files' });
const row = (id: number) => screen.getByTestId(`file-${id}`);

beforeEach(() => {
  server.use(typesHandler());
});

afterEach(() => {
  vi.useRealTimers();
});

describe('Files page (spec 02 "Files")', () => {
  it('loads on open and lists files with names, types, formats, status tags, sizes and dates in the selected timezone', async () => {
    localStorage.setItem('selectedTimezone', 'Etc/GMT-8');
    const seen: URL[] = [];
    server.use(
      filesHandler(
        () =>
          listOf([
            file(1),
            file(2, { name: 'logs-2.xlsx', fileType: 1, exportType: 3, status: -1, errorMessage: 'Export timed out after 300 s', fileSizeBytes: '0' }),
            file(3, { name: 'stats-3.pdf', fileType: 2, exportType: 2, status: -3 }),
            file(4, { name: 'odd-4.csv', fileType: 9, exportType: 8, status: 42 }),
          ]),
        seen,
      ),
    );
    renderFiles();
    const t = await table();
    await waitFor(() => expect(document.title).toBe('Paygate - Files'));
    expect(screen.getByRole('heading', { name: 'Files' })).toBeInTheDocument();
    await screen.findByText('transactions-1.csv');
    expect(within(t).getAllByRole('columnheader').map((h) => h.textContent)).toEqual(['Name', 'Export Type', 'Format', 'Status', 'Records', 'Size', 'Created', 'Actions']);
    expect(seen[0]?.searchParams.get('page')).toBe('1');
    expect(seen[0]?.searchParams.get('take')).toBe('10');

    const one = row(1);
    expect(within(one).getByText('Transactions')).toBeInTheDocument();
    expect(within(one).getByText('CSV')).toBeInTheDocument();
    expect(within(one).getByTestId('file-status')).toHaveTextContent('Success');
    expect(within(one).getByTestId('file-status')).toHaveAttribute('data-status-tone', 'success');
    expect(within(one).getByText('1.50 KB')).toBeInTheDocument();
    expect(within(one).getByText('42')).toBeInTheDocument();
    expect(within(one).getByText('Nov 25, 2026, 14:15:00 (UTC+8)')).toBeInTheDocument();
    expect(within(one).getByRole('button', { name: 'Download transactions-1.csv' })).toBeInTheDocument();
    expect(within(one).getByRole('button', { name: 'Delete transactions-1.csv' })).toBeInTheDocument();
    expect(within(one).getByRole('button', { name: 'Show info for transactions-1.csv' })).toBeInTheDocument();
    expect(within(one).queryByRole('button', { name: /error details/ })).toBeNull();

    // Export type 3 is named from the server's list; a failed file offers its error details, not download or delete.
    const two = row(2);
    await waitFor(() => expect(within(two).getByText('Transaction logs')).toBeInTheDocument());
    expect(within(two).getByText('Excel')).toBeInTheDocument();
    expect(within(two).getByTestId('file-status')).toHaveAttribute('data-status-tone', 'danger');
    expect(within(two).getByTestId('file-status')).toHaveTextContent('Failed');
    expect(within(two).getByRole('button', { name: 'Show error details for logs-2.xlsx' })).toBeInTheDocument();
    expect(within(two).queryByRole('button', { name: 'Download logs-2.xlsx' })).toBeNull();
    expect(within(two).queryByRole('button', { name: 'Delete logs-2.xlsx' })).toBeNull();

    expect(within(row(3)).getByText('Statistics')).toBeInTheDocument();
    expect(within(row(3)).getByText('PDF')).toBeInTheDocument();
    expect(within(row(3)).getByTestId('file-status')).toHaveTextContent('Deleted');
    expect(within(row(4)).getAllByText('Unknown')).toHaveLength(3);
    expect(within(row(4)).getByTestId('file-status')).toHaveAttribute('data-status-tone', 'neutral');
  });

  it('draws its row buttons as icons, not emoji a machine without an emoji font shows as empty boxes', async () => {
    server.use(filesHandler(() => listOf([file(1), file(2, { name: 'logs-2.xlsx', status: -1, errorMessage: 'Export timed out after 300 s' })])));
    renderFiles();
    const t = await table();
    await screen.findByText('transactions-1.csv');
    const buttons = [
      within(row(1)).getByRole('button', { name: 'Download transactions-1.csv' }),
      within(row(1)).getByRole('button', { name: 'Show info for transactions-1.csv' }),
      within(row(1)).getByRole('button', { name: 'Delete transactions-1.csv' }),
      within(row(2)).getByRole('button', { name: 'Show error details for logs-2.xlsx' }),
    ];
    for (const b of buttons) {
      expect(b.querySelector('svg'), b.getAttribute('aria-label') ?? '').not.toBeNull();
      expect(b.textContent, b.getAttribute('aria-label') ?? '').toBe('');
    }
    // No pictographic character anywhere in the table (🗑, ⚠, ℹ are all emoji-capable).
    expect(t.textContent).not.toMatch(/\p{Extended_Pictographic}/u);
  });

  it('shows an empty state, and a loading state while the list is read', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    server.use(
      http.get(FILES_URL, async () => {
        await gate;
        return HttpResponse.json(listOf([]));
      }),
    );
    renderFiles();
    const t = await table();
    expect(t).toHaveAttribute('aria-busy', 'true');
    release();
    expect(await screen.findByText('No files yet')).toBeInTheDocument();
    expect(t).toHaveAttribute('aria-busy', 'false');
  });

  it('says "Failed to load files: " with the server error', async () => {
    server.use(http.get(FILES_URL, () => HttpResponse.json({ code: 'internal', message: 'database down' }, { status: 500 })));
    renderFiles();
    expect(await screen.findByText('Failed to load files: database down')).toBeInTheDocument();
    expect(screen.getByText('Files could not be loaded')).toBeInTheDocument();
  });

  it('refreshes on demand with the info toast Refreshing / Updating file list...', async () => {
    const seen: URL[] = [];
    server.use(filesHandler(() => listOf([file(1)]), seen));
    const { user } = renderFiles();
    await screen.findByText('transactions-1.csv');
    await user.click(screen.getByRole('button', { name: 'Refresh' }));
    expect(await screen.findByText('Refreshing')).toBeInTheDocument();
    expect(screen.getByText('Updating file list...')).toBeInTheDocument();
    await waitFor(() => expect(seen).toHaveLength(2));
  });

  it('pages on the server, 10 per page by default with 5, 10, 20 and 30 to choose from', async () => {
    const seen: URL[] = [];
    server.use(filesHandler((u) => listOf([file(Number(u.searchParams.get('page')) * 100)], { totalCount: '45', totalPages: 5, currentPage: Number(u.searchParams.get('page')) }), seen));
    const { user } = renderFiles();
    await screen.findByText('transactions-100.csv');
    const size = screen.getByRole('combobox', { name: 'Rows per page' });
    expect(within(size).getAllByRole('option').map((o) => o.textContent)).toEqual(['5 / page', '10 / page', '20 / page', '30 / page']);
    await user.click(screen.getByRole('button', { name: 'Next' }));
    expect(await screen.findByText('transactions-200.csv')).toBeInTheDocument();
    expect(screen.getByText('Page 2 of 5')).toBeInTheDocument();
    await user.selectOptions(size, '30');
    await waitFor(() => expect(seen.at(-1)?.searchParams.get('take')).toBe('30'));
    expect(seen.at(-1)?.searchParams.get('page')).toBe('1');
  });

  it('refreshes every 20 s while a file is Scheduled or In Progress, and stops once none is', async () => {
    // Only the interval clock is faked: rendering and requests run in real time.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const seen: URL[] = [];
    let status = 1;
    server.use(filesHandler(() => listOf([file(1, { status, createdUtc: new Date(Date.now() - 65_000).toISOString() })]), seen));
    renderFiles();
    await screen.findByText('transactions-1.csv');
    expect(within(row(1)).getByTestId('file-status')).toHaveTextContent('In Progress');
    expect(within(row(1)).getByTestId('file-status')).toHaveAttribute('data-status-tone', 'warning');
    expect(within(row(1)).getByTestId('processing-time')).toHaveTextContent(/^Processing for 1m 0\ds$/);
    expect(seen).toHaveLength(1);
    await act(async () => {
      vi.advanceTimersByTime(19_000);
    });
    expect(seen).toHaveLength(1);
    status = 2;
    await act(async () => {
      vi.advanceTimersByTime(1_000);
    });
    await waitFor(() => expect(seen).toHaveLength(2));
    await waitFor(() => expect(within(row(1)).getByTestId('file-status')).toHaveTextContent('Success'));
    // Nothing is processing any more: the list stays as it is.
    await act(async () => {
      vi.advanceTimersByTime(60_000);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toHaveLength(2);
  });

  it('does not refresh by itself when no file is processing', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const seen: URL[] = [];
    server.use(filesHandler(() => listOf([file(1), file(2, { status: -1 })]), seen));
    renderFiles();
    await screen.findByText('transactions-1.csv');
    await act(async () => {
      vi.advanceTimersByTime(45_000);
    });
    await new Promise((r) => setTimeout(r, 50));
    expect(seen).toHaveLength(1);
  });

  it('shows a Scheduled file in the info tone with its relative creation time', async () => {
    server.use(filesHandler(() => listOf([file(1, { status: 0, createdUtc: new Date(Date.now() - 3 * 60_000).toISOString() })])));
    renderFiles();
    await screen.findByText('transactions-1.csv');
    expect(within(row(1)).getByTestId('file-status')).toHaveAttribute('data-status-tone', 'info');
    expect(within(row(1)).getByTestId('relative-time')).toHaveTextContent('3 minutes ago');
  });

  describe('download', () => {
    let saved: { name: string; href: string }[];
    beforeEach(() => {
      saved = [];
      URL.createObjectURL = vi.fn(() => 'blob:http://console.test/42');
      URL.revokeObjectURL = vi.fn();
      vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {
        saved.push({ name: this.download, href: this.href });
      });
    });

    it('downloads through the API client with the bearer token and saves the blob: Download Started / Downloading {name}', async () => {
      server.use(filesHandler(() => listOf([file(42, { name: 'transactions-42.csv' })])));
      let auth = '';
      server.use(
        http.get(`${GATEWAY}/api/v1/files/42`, ({ request }) => {
          auth = request.headers.get('Authorization') ?? '';
          return new HttpResponse('id\n1\n', { headers: { 'Content-Type': 'text/csv', 'Content-Disposition': 'attachment; filename="export-42.csv"' } });
        }),
      );
      const { user } = renderFiles();
      await user.click(await screen.findByRole('button', { name: 'Download transactions-42.csv' }));
      expect(await screen.findByText('Download Started')).toBeInTheDocument();
      expect(screen.getByText('Downloading transactions-42.csv')).toBeInTheDocument();
      expect(auth).toMatch(/^Bearer /);
      expect(saved).toEqual([{ name: 'export-42.csv', href: 'blob:http://console.test/42' }]);
      const blob = vi.mocked(URL.createObjectURL).mock.calls[0]?.[0] as Blob;
      expect(blob.type).toBe('text/csv');
      expect(blob.size).toBe(5);
    });

    it('says Download Failed with the server error, and reloads the list after 2 s when the file is not ready', async () => {
      const seen: URL[] = [];
      server.use(
        filesHandler(() => listOf([file(42)]), seen),
        http.get(`${GATEWAY}/api/v1/files/42`, () => HttpResponse.json({ code: 'conflict', message: 'File 42 is not ready yet' }, { status: 409 })),
      );
      const { user } = renderFiles();
      await user.click(await screen.findByRole('button', { name: 'Download transactions-42.csv' }));
      expect(await screen.findByText('Download Failed')).toBeInTheDocument();
      expect(screen.getByText('File 42 is not ready yet')).toBeInTheDocument();
      expect(saved).toEqual([]);
      expect(seen).toHaveLength(1);
      await new Promise((r) => setTimeout(r, 1_500));
      expect(seen).toHaveLength(1);
      await waitFor(() => expect(seen).toHaveLength(2), { timeout: 3_000 });
    });

    it('says Download Failed with the server error and does not reload for other failures', async () => {
      const seen: URL[] = [];
      server.use(
        filesHandler(() => listOf([file(42)]), seen),
        http.get(`${GATEWAY}/api/v1/files/42`, () => HttpResponse.json({ code: 'not_found', message: 'File 42 was not found' }, { status: 404 })),
      );
      const { user } = renderFiles();
      await user.click(await screen.findByRole('button', { name: 'Download transactions-42.csv' }));
      expect(await screen.findByText('Download Failed')).toBeInTheDocument();
      expect(screen.getByText('File 42 was not found')).toBeInTheDocument();
      await new Promise((r) => setTimeout(r, 2_300));
      expect(seen).toHaveLength(1);
    });
  });

  describe('delete', () => {
    it('deletes after a confirmation: File Deleted / {name} has been deleted successfully, and reloads', async () => {
      const seen: URL[] = [];
      let deleted = '';
      server.use(
        filesHandler(() => listOf(deleted ? [file(42, { status: -3 })] : [file(42)]), seen),
        http.delete(`${GATEWAY}/api/v1/files/:id`, ({ params }) => {
          deleted = String(params.id);
          return HttpResponse.json({ file: file(42, { status: -3 }) });
        }),
      );
      const { user } = renderFiles();
      await user.click(await screen.findByRole('button', { name: 'Delete transactions-42.csv' }));
      const dialog = await screen.findByRole('alertdialog', { name: 'Delete File' });
      expect(within(dialog).getByText(/Are you sure you want to delete transactions-42.csv\?/)).toBeInTheDocument();
      await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
      expect(deleted).toBe('');
      await user.click(screen.getByRole('button', { name: 'Delete transactions-42.csv' }));
      await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
      expect(await screen.findByText('File Deleted')).toBeInTheDocument();
      expect(screen.getByText('transactions-42.csv has been deleted successfully')).toBeInTheDocument();
      expect(deleted).toBe('42');
      await waitFor(() => expect(within(row(42)).getByTestId('file-status')).toHaveTextContent('Deleted'));
      expect(seen.length).toBeGreaterThan(1);
    });

    it('says Delete Failed with the server error', async () => {
      server.use(
        filesHandler(() => listOf([file(42)])),
        http.delete(`${GATEWAY}/api/v1/files/42`, () => HttpResponse.json({ code: 'internal', message: 'store unavailable' }, { status: 500 })),
      );
      const { user } = renderFiles();
      await user.click(await screen.findByRole('button', { name: 'Delete transactions-42.csv' }));
      await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete' }));
      expect(await screen.findByText('Delete Failed')).toBeInTheDocument();
      expect(screen.getByText('store unavailable')).toBeInTheDocument();
    });
  });

  it('shows a file with its manifest in the info dialog', async () => {
    server.use(
      filesHandler(() => listOf([file(42)])),
      http.get(`${GATEWAY}/api/v1/files/42/info`, () =>
        HttpResponse.json(
          file(42, {
            manifest: {
              filter: { collabId: 1, statuses: [4, 3], from: '2026-11-24T00:00:00Z' },
              rowCount: '42',
              byteSize: '1536',
              sha256: 'ab'.repeat(32),
              createdUtc: '2026-11-25T06:15:00Z',
              finishedUtc: '2026-11-25T06:15:09Z',
              columns: [
                { field: 'id', name: 'ID' },
                { field: 'amount', name: 'Amount' },
              ],
            },
          }),
        ),
      ),
    );
    const { user } = renderFiles();
    await user.click(await screen.findByRole('button', { name: 'Show info for transactions-42.csv' }));
    const dialog = await screen.findByRole('dialog', { name: 'File Information' });
    const manifest = within(dialog).getByRole('region', { name: 'Manifest' });
    expect(await within(manifest).findByText('ab'.repeat(32))).toBeInTheDocument();
    expect(within(manifest).getByText('1.50 KB (1536 bytes)')).toBeInTheDocument();
    expect(within(manifest).getByText('Nov 25, 2026, 06:15:09 (UTC+0)')).toBeInTheDocument();
    expect(within(manifest).getByText('4, 3')).toBeInTheDocument();
    expect(within(manifest).getByText('ID, Amount')).toBeInTheDocument();
    await user.click(within(dialog).getByRole('button', { name: 'Close' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).toBeNull());
  });

  it('only logs a failure to read the info and shows what the list knows', async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => {});
    server.use(
      filesHandler(() => listOf([file(42)])),
      http.get(`${GATEWAY}/api/v1/files/42/info`, () => HttpResponse.json({ code: 'internal', message: 'boom' }, { status: 500 })),
    );
    const { user } = renderFiles();
    await user.click(await screen.findByRole('button', { name: 'Show info for transactions-42.csv' }));
    const dialog = await screen.findByRole('dialog', { name: 'File Information' });
    expect(await within(dialog).findByText('No manifest yet: it is written when the file is finished.')).toBeInTheDocument();
    await waitFor(() => expect(logged).toHaveBeenCalled());
    expect(screen.queryByText('boom')).toBeNull();
  });

  it.each([
    ['Export timed out after 300 s', 'timeout', 'Narrow the date range'],
    ['permission denied for collab 4', 'permission', 'ask an administrator'],
    ['out of memory while writing the workbook', 'memory', 'Export fewer columns'],
    ['disk quota exceeded', 'generic', 'Try the export again'],
  ])('explains the failed file "%s" as a %s problem with advice and a link to /transactions', async (message, kind, advice) => {
    server.use(filesHandler(() => listOf([file(9, { name: 'failed-9.csv', status: -1, errorMessage: message })])));
    const { user, router } = renderFiles();
    await user.click(await screen.findByRole('button', { name: 'Show error details for failed-9.csv' }));
    const dialog = await screen.findByRole('dialog', { name: 'Error Details' });
    expect(within(dialog).getByText(message)).toBeInTheDocument();
    expect(within(dialog).getByText('Probable causes').closest('[data-failure-kind]')).toHaveAttribute('data-failure-kind', kind);
    expect(within(dialog).getByText(new RegExp(advice))).toBeInTheDocument();
    await user.click(within(dialog).getByRole('link', { name: 'Go to Transactions to export again' }));
    await waitFor(() => expect(locationOf(router)).toBe('/transactions'));
  });

  it('has a button to /transactions', async () => {
    server.use(filesHandler(() => listOf([])));
    const { user, router } = renderFiles();
    await table();
    await user.click(screen.getByRole('button', { name: 'Go to Transactions' }));
    await waitFor(() => expect(locationOf(router)).toBe('/transactions'));
  });

  it("says \"You don't have permission to view this page.\" to a user without Files Access", async () => {
    // The shell's guard sends such a user elsewhere; the page checks too (here mounted where the guard lets the user in).
    server.use(merchantsHandler());
    const elsewhere: RemoteManifest<'transactions'> = { name: 'transactions', routes: [{ path: SCREENS.transactions.path, Component: FilesPage }] };
    renderApp('/transactions', { user: { ...MERCHANT, permissions: ['Get Transactions'] }, loader: withRemote(elsewhere) });
    expect(await screen.findByText("You don't have permission to view this page.")).toBeInTheDocument();
  });
});

describe('Saved views on the Files page (issue 29)', () => {
  it("opens ?view= with the view's page size (the list has no filters)", async () => {
    const seen: URL[] = [];
    const view = { id: '3', list: 'files', name: 'Thirty', pageSize: 30, mine: true };
    server.use(
      filesHandler(() => listOf([file(1)]), seen),
      http.get(`${GATEWAY}/api/v1/views`, () => HttpResponse.json({ views: [view] })),
      http.get(`${GATEWAY}/api/v1/views/3`, () => HttpResponse.json({ view })),
    );
    renderFiles(MERCHANT, undefined, '/files?view=3');
    await waitFor(() => expect(seen.some((u) => u.searchParams.get('take') === '30')).toBe(true), { timeout: 15_000 });
    expect(await screen.findByRole('combobox', { name: 'Saved view' })).toHaveValue('3');
  });
});
