/**
 * A strict RFC 4180 reader for tests, written apart from lib/text/csv.ts so a round trip checks the
 * writer against the RFC, not against itself. Records end in CRLF; a quoted field may hold commas,
 * CR, LF and doubled quotes; anything else after a closing quote is an error.
 */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  const n = text.length;
  if (n === 0) return rows;
  for (;;) {
    let field = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= n) throw new SyntaxError("CSV: unterminated quoted field");
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += c;
        i++;
      }
      if (i < n && text[i] !== "," && !text.startsWith("\r\n", i)) throw new SyntaxError(`CSV: text after a closing quote at ${i}`);
    } else {
      while (i < n && text[i] !== "," && !text.startsWith("\r\n", i)) {
        if (text[i] === '"' || text[i] === "\n" || text[i] === "\r") throw new SyntaxError(`CSV: ${JSON.stringify(text[i])} in an unquoted field at ${i}`);
        field += text[i];
        i++;
      }
    }
    row.push(field);
    if (i >= n) {
      rows.push(row);
      return rows;
    }
    if (text[i] === ",") {
      i++;
      continue;
    }
    // CRLF: end of record; a final CRLF ends the file.
    i += 2;
    rows.push(row);
    row = [];
    if (i >= n) return rows;
  }
}

/** Header row to objects, one per record. */
export function csvRecords(text: string): Record<string, string>[] {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((r) => {
    if (r.length !== header.length) throw new SyntaxError(`CSV: a record has ${r.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((h, k) => [h, r[k]!]));
  });
}
