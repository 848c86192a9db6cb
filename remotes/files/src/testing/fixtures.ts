import '@paygate/devkit/testing/pointer-event';
import { http, HttpResponse } from 'msw';
import type { ExportTypeJson, FileJson, ListFilesResponseJson } from '@paygate/gen/gateway/v1/files_pb';
import { renderApp, withRemote, type LocalModules } from '@paygate/devkit/testing';
import { GATEWAY, server } from '@paygate/devkit/testing/msw';
import type { TestUser } from '@paygate/devkit/testing/tokens';
import filesRoutes from '../routes';

/** A merchant user of merchant 1: the role grants Files Access. */
export const MERCHANT: TestUser = { username: 'merchant', roles: ['Merchant'], merchantIds: [1] };

export const FILES_URL = `${GATEWAY}/api/v1/files`;

/** file builds an export file on the wire: a finished CSV of transactions unless told otherwise. */
export function file(id: number, over: Partial<FileJson> = {}): FileJson {
  return {
    id: String(id),
    name: `transactions-${id}.csv`,
    status: 2,
    fileType: 0,
    exportType: 1,
    createdUtc: '2026-11-25T06:15:00Z',
    updatedUtc: '2026-11-25T06:15:09Z',
    fileSizeBytes: '1536',
    statusMessage: 'Completed',
    recordCount: '42',
    filters: { collabId: 1, from: '2026-11-24T00:00:00Z' },
    errorMessage: '',
    collabId: 1,
    createdBy: 'merchant',
    ...over,
  };
}

/** listOf wraps files in a list answer. */
export function listOf(files: FileJson[], over: Partial<ListFilesResponseJson> = {}): ListFilesResponseJson {
  return { files, totalCount: String(files.length), currentPage: 1, totalPages: files.length ? 1 : 0, ...over };
}

/** The export types the server offers (ids 1, 3, 4). */
export const EXPORT_TYPES: ExportTypeJson[] = [
  {
    type: 1,
    name: 'Transactions',
    description: 'One row per transaction.',
    availableColumns: { id: 'ID', transactionReferenceId: 'Reference ID', amount: 'Amount', currency: 'Currency', transactionStatus: 'Status', createdUtc: 'Created', merchantName: 'Merchant' },
    columns: [
      { field: 'id', name: 'ID' },
      { field: 'transactionReferenceId', name: 'Reference ID' },
      { field: 'amount', name: 'Amount' },
      { field: 'currency', name: 'Currency' },
      { field: 'transactionStatus', name: 'Status' },
      { field: 'createdUtc', name: 'Created' },
      { field: 'merchantName', name: 'Merchant' },
    ],
  },
  {
    type: 3,
    name: 'Transaction logs',
    description: 'One row per log entry of the selected transactions.',
    availableColumns: { transactionId: 'Transaction ID', stage: 'Stage', message: 'Message' },
    columns: [
      { field: 'transactionId', name: 'Transaction ID' },
      { field: 'stage', name: 'Stage' },
      { field: 'message', name: 'Message' },
    ],
  },
  {
    type: 4,
    name: 'Callback attempts',
    description: 'One row per callback delivery attempt.',
    availableColumns: { transactionId: 'Transaction ID', responseCode: 'Response Code' },
    columns: [
      { field: 'transactionId', name: 'Transaction ID' },
      { field: 'responseCode', name: 'Response Code' },
    ],
  },
];

/** typesHandler answers the export types (a bare array) and counts the calls. */
export function typesHandler(seen: { n: number } = { n: 0 }) {
  return http.get(`${GATEWAY}/api/v1/files/export/types`, () => {
    seen.n++;
    return HttpResponse.json(EXPORT_TYPES);
  });
}

/** columnsHandler answers each type's columns from EXPORT_TYPES. */
export function columnsHandler() {
  return http.get(`${GATEWAY}/api/v1/files/export/columns/:type`, ({ params }) => {
    const t = EXPORT_TYPES.find((x) => String(x.type) === params.type);
    if (!t) return HttpResponse.json({ code: 'not_found', message: 'Unknown export type' }, { status: 404 });
    return HttpResponse.json({ type: t.type, availableColumns: t.availableColumns, columns: t.columns });
  });
}

/** filesHandler answers the list (from a function of the call's URL) and records the calls. */
export function filesHandler(answer: (url: URL) => ListFilesResponseJson, seen: URL[] = []) {
  return http.get(FILES_URL, ({ request }) => {
    const url = new URL(request.url);
    seen.push(url);
    return HttpResponse.json(answer(url));
  });
}

/** The shell's merchant filter reads the merchants. */
export const merchantsHandler = () => http.get(`${GATEWAY}/api/v1/merchants`, () => HttpResponse.json([{ id: 1, name: 'Acme Games', hash: 'h1' }]));

/** renderFiles opens /files with the real files remote. */
export function renderFiles(user: TestUser = MERCHANT, modules?: LocalModules, path = '/files') {
  server.use(merchantsHandler());
  return renderApp(path, { user, loader: withRemote(filesRoutes), modules });
}
