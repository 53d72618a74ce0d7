/**
 * The head of the audit chain, published outside the journal after every audited action: one
 * server log line and one JSON line appended to a file beside the accounts (mode 0600). Whoever can
 * write the journal can cut its tail or rewrite its chain; they cannot reach these, so
 * `npm run audit -- verify --expect-head` compares the journal with the last head published for it.
 * Publishing never undoes an action: a failure is logged and the action stands.
 */
import fs from "node:fs";
import path from "node:path";
import type { AuditHead } from "./chain";

export interface PublishedHead {
  journal: string;
  entries: number;
  head: string;
  at: string;
}

/** A PostgreSQL source is named by its URL (without its password), which is no path to resolve. */
const isUrl = (name: string) => /^[a-z][a-z0-9+.-]*:\/\//i.test(name);

export function publishAuditHead(opts: {
  journalPath: string;
  headFile: string;
  head: AuditHead;
  at?: Date;
  log?: (line: string) => void;
  error?: (line: string) => void;
}): void {
  const log = opts.log ?? ((line: string) => console.log(line));
  const error = opts.error ?? ((line: string) => console.error(line));
  const journal = isUrl(opts.journalPath) ? opts.journalPath : path.resolve(opts.journalPath);
  log(`driftwatch: audit head #${opts.head.entries} ${opts.head.hash} of ${journal}`);
  const line: PublishedHead = { journal, entries: opts.head.entries, head: opts.head.hash, at: (opts.at ?? new Date()).toISOString() };
  try {
    fs.mkdirSync(path.dirname(opts.headFile), { recursive: true, mode: 0o700 });
    // "a" is O_APPEND: concurrent console processes each add whole lines, none overwrites.
    const fd = fs.openSync(opts.headFile, "a", 0o600);
    try {
      fs.writeSync(fd, `${JSON.stringify(line)}\n`);
    } finally {
      fs.closeSync(fd);
    }
  } catch (e) {
    error(
      `driftwatch: could not append audit head #${opts.head.entries} to ${opts.headFile} (${(e as Error).message}); the action stands. Fix: make the file writable, or set DRIFTWATCH_AUDIT_HEAD_FILE`,
    );
  }
}

/** The names a journal may have been published under: as given, and through its symlinks. */
function namesOf(journalPath: string): Set<string> {
  if (isUrl(journalPath)) return new Set([journalPath]);
  const names = new Set([path.resolve(journalPath)]);
  try {
    names.add(fs.realpathSync(journalPath));
  } catch {
    // gone: only its name can match
  }
  return names;
}

/**
 * The last head published for this journal, or null when none was. A torn or foreign line is
 * skipped: the file is append-only, so a later line for the journal is always newer.
 */
export function lastPublishedHead(headFile: string, journalPath: string): PublishedHead | null {
  if (!fs.existsSync(headFile)) return null;
  const names = namesOf(journalPath);
  let found: PublishedHead | null = null;
  for (const text of fs.readFileSync(headFile, "utf8").split("\n")) {
    if (!text.trim()) continue;
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      continue;
    }
    const h = v as Partial<PublishedHead>;
    if (typeof h.journal !== "string" || typeof h.entries !== "number" || typeof h.head !== "string" || typeof h.at !== "string") continue;
    if (names.has(h.journal)) found = h as PublishedHead;
  }
  return found;
}
