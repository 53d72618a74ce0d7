/**
 * CSV as RFC 4180 writes it: CRLF between records, a field quoted when it holds a comma, a double
 * quote, CR or LF, and a double quote inside a quoted field written twice. Spreadsheets and every
 * CSV reader agree on this much, and JSON details (full of commas and quotes) survive the trip.
 * A spreadsheet shows a right-to-left override or a control character as the pages would not, so
 * each is written as its visible marker (lib/text/visible-text.ts); the JSON exports keep them.
 */

import { visibleText } from "./visible-text";

export type CsvCell = string | number | boolean | null | undefined;

const NEEDS_QUOTES = /[",\r\n]/;
/** What a spreadsheet reads as the start of a formula (OWASP's list for CSV injection). */
const FORMULA_START = /^[=+\-@\t\r]/;
const PLAIN_NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/**
 * Text that a spreadsheet would run as a formula (`=HYPERLINK(…)` typed into a reason, say) gets
 * a leading apostrophe, which spreadsheets show as text and do not run. Numbers, and text that is
 * only a number such as "-0.5", stay exact. The JSON export keeps every text as written.
 */
export function spreadsheetSafe(text: string): string {
  return FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text;
}

export function csvField(value: CsvCell): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "number" ? (Number.isFinite(value) ? String(value) : "") : spreadsheetSafe(visibleText(String(value)));
  return NEEDS_QUOTES.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The header row, then one record per row; every record ends with CRLF, as the RFC allows. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  return [...csvRecords(header, rows)].join("");
}

/** One record with its CRLF. */
export const csvLine = (cells: readonly CsvCell[]) => `${cells.map(csvField).join(",")}\r\n`;

/** toCsv one record at a time, each with its CRLF: for a download streamed as it is written. */
export function* csvRecords(header: readonly string[], rows: Iterable<readonly CsvCell[]>): Generator<string> {
  yield csvLine(header);
  for (const row of rows) {
    if (row.length !== header.length) throw new RangeError(`a CSV row has ${row.length} fields, the header ${header.length}`);
    yield csvLine(row);
  }
}
