import "server-only";
/**
 * The one step every page and JSON route takes before its screen's loader: open the journal (read
 * connection, checked for this request), run the loader, and turn a journal that cannot be read
 * (before or during the read) into the one-line JournalError the unavailable view shows. Anything
 * else (a bug) is thrown on. app/ reaches the journal only through here (and lib/http for routes).
 */
import { consoleJournal, type JournalDb, type JournalSource } from "../db/console";
import type { JournalError } from "../db/journal-file";
import { env, type Env } from "../env";

/** What every screen loader reads from: the journal handle, the validated settings, this request's clock. */
export interface ReadContext {
  db: JournalDb;
  config: Env;
  now: Date;
}

export type ScreenRead<T> = { ok: true; data: T; journal: { file: string; warnings: string[] } } | { ok: false; error: JournalError };

/** `from`: the configured journal, or the one a live watcher (lib/live) was made for. */
export function readScreen<T>(load: (ctx: ReadContext) => T, from: JournalSource = consoleJournal()): ScreenRead<T> {
  const read = from.read((j) => load({ db: j.db, config: env(), now: new Date() }));
  if (!read.ok) return read;
  return { ok: true, data: read.data, journal: { file: read.journal.info.file, warnings: read.journal.warnings } };
}
