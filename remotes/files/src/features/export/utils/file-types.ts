/** The file formats an export can be written in (spec 02 §3, §9). */
export const EXPORT_FILE_TYPES = [
  { value: 0, label: 'CSV' },
  { value: 1, label: 'Excel' },
  { value: 2, label: 'PDF' },
] as const;

/** ExportFileType is 0 CSV, 1 Excel or 2 PDF. */
export type ExportFileType = (typeof EXPORT_FILE_TYPES)[number]['value'];

/** PDF_MAX_COLUMNS: a PDF with more columns may not fit an A4 page (spec 02 §5). */
export const PDF_MAX_COLUMNS = 5;

/** pdfTooWide tells whether the PDF warning applies. */
export function pdfTooWide(fileType: ExportFileType, selectedColumns: number): boolean {
  return fileType === 2 && selectedColumns > PDF_MAX_COLUMNS;
}
