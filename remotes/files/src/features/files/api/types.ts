import type { FileJson, FileManifestJson } from '@paygate/gen/gateway/v1/files_pb';

/** FileManifest is what the export worker wrote beside a finished file. */
export interface FileManifest {
  filter: Record<string, unknown>;
  rowCount: number;
  byteSize: number;
  sha256: string;
  createdUtc: string;
  finishedUtc: string;
  columns: { field: string; name: string }[];
}

/** ExportFile is an export file (spec 02 §3 File) with every field present. */
export interface ExportFile {
  id: string;
  name: string;
  /** 0 Scheduled, 1 In Progress, 2 Success, -1 Failed, -2 Cancelled, -3 Deleted. */
  status: number;
  /** 0 CSV, 1 Excel, 2 PDF. */
  fileType: number;
  exportType: number;
  createdUtc: string;
  fileSizeBytes: number;
  updatedUtc: string;
  statusMessage: string;
  recordCount: number;
  filters: Record<string, unknown>;
  errorMessage: string;
  manifest: FileManifest | null;
  collabId: number;
  createdBy: string;
}

const num = (v: string | number | undefined | null): number => {
  const n = Number(v ?? 0);
  return Number.isFinite(n) ? n : 0;
};

const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});

/** toManifest fills a manifest's missing fields. */
export function toManifest(m: FileManifestJson): FileManifest {
  return {
    filter: obj(m.filter),
    rowCount: num(m.rowCount),
    byteSize: num(m.byteSize),
    sha256: m.sha256 ?? '',
    createdUtc: m.createdUtc ?? '',
    finishedUtc: m.finishedUtc ?? '',
    columns: (m.columns ?? []).map((c) => ({ field: c.field ?? '', name: c.name ?? '' })),
  };
}

/**
 * toExportFile fills the fields proto3 JSON leaves out; 64-bit figures come as
 * strings (or numbers from a lenient server).
 */
export function toExportFile(f: FileJson): ExportFile {
  return {
    id: String(f.id ?? ''),
    name: f.name ?? '',
    status: f.status ?? 0,
    fileType: f.fileType ?? 0,
    exportType: f.exportType ?? 0,
    createdUtc: f.createdUtc ?? '',
    fileSizeBytes: num(f.fileSizeBytes),
    updatedUtc: f.updatedUtc ?? '',
    statusMessage: f.statusMessage ?? '',
    recordCount: num(f.recordCount),
    filters: obj(f.filters),
    errorMessage: f.errorMessage ?? '',
    manifest: f.manifest ? toManifest(f.manifest) : null,
    collabId: f.collabId ?? 0,
    createdBy: f.createdBy ?? '',
  };
}
