import "server-only";
/**
 * The one step every page and JSON route takes before its screen's loader: open the journal (read
 * connection, checked for this request), run the loader, and turn a journal that cannot be read
 * (before or during the read) into the one-line JournalError the unavailable view shows. Anything
 * else (a bug) is thrown on. app/ reaches the journal only through here (and lib/http for routes).
 *
 * With several journals (DRIFTWATCH_JOURNAL=a.db,b.db) a screen is read one of two ways: a bot's
 * screen from the bot's own journal (readBotScreen), a fleet screen from every journal and merged
 * in lib/queries/fleet.ts (readFleet). Each journal stands alone: one that cannot be read is
 * reported beside the others' data; only when none can be read is the screen unavailable.
 */
import { clashError, consoleSources, type ConsoleSource, type JournalDb, type JournalSource, type SourceSet } from "../db/console";
import { JournalError } from "../db/journal-file";
import type { PgJournalSource } from "../db/pg-source";
import { queryOf, type JournalQuery } from "../db/query";
import { env, type Env } from "../env";

/**
 * What an engine-neutral loader reads from: the query handle (lib/db/query.ts), the validated
 * settings, this request's clock. Such a loader runs on a SQLite and a PostgreSQL source alike.
 */
export interface QueryContext {
  q: JournalQuery;
  config: Env;
  now: Date;
}

/** What a loader that still reads SQLite alone gets besides: the drizzle handle over the file. */
export interface ReadContext extends QueryContext {
  db: JournalDb;
}

/** A loader that reads through `q` only, so it runs on every engine (anyEngine marks it). */
export type AnyEngineLoad<T> = ((ctx: QueryContext) => Promise<T>) & { engines: "any" };

export const anyEngine = <T>(load: (ctx: QueryContext) => Promise<T>): AnyEngineLoad<T> => Object.assign(load, { engines: "any" as const });

/**
 * A screen's loader: engine-neutral (marked by anyEngine), or a SQLite one, whose page then says on
 * a PostgreSQL source that it does not read PostgreSQL sources yet. (One function type, so that an
 * inline loader's `ctx` is typed from it.)
 */
export type ScreenLoad<T> = ((ctx: ReadContext) => T | Promise<T>) & { engines?: "any" };

const neutral = <T>(load: ScreenLoad<T>): load is ScreenLoad<T> & AnyEngineLoad<T> => load.engines === "any";

/**
 * What a read built on a SQLite-only loader shows for a PostgreSQL source: plainly not read, never
 * blank or green. Every page's loader reads both engines now, so this is a guard against one added
 * without anyEngine.
 */
export const notOnPostgres = (file: string) =>
  new JournalError(
    "not_on_postgres",
    file,
    "is a PostgreSQL source, and this read is written for SQLite journals alone",
    "this is a bug in driftwatch (every page reads PostgreSQL sources): report it with the address of the page",
  );

/**
 * `source`: with several journals, the name of the journal a bot's screen was read from (its page
 * names it) or could not read (for its page's title).
 */
export type ScreenRead<T> =
  { ok: true; data: T; journal: { file: string; warnings: string[] }; source?: string } | { ok: false; error: JournalError; source?: string };

/**
 * What a live screen's data carries of its journals' notices (the journal was away, or replaced,
 * lately; not in WAL mode): the page, its JSON route and its live stream all read the screen
 * through one reader, so a page that stays open says what a reloaded one says, and stops when the
 * notice ends.
 */
export type JournalNotices = { notices?: string[] };

/** `read` with its journals' warnings inside its data (a null view, no such bot, stays null). */
export function withNotices<T extends object>(read: ScreenRead<T>): ScreenRead<T & JournalNotices>;
export function withNotices<T extends object>(read: ScreenRead<T | null>): ScreenRead<(T & JournalNotices) | null>;
export function withNotices(read: ScreenRead<object | null>): ScreenRead<object | null> {
  if (!read.ok || read.data === null) return read;
  return { ...read, data: { ...read.data, notices: read.journal.warnings } };
}

type AnyJournal = JournalSource | PgJournalSource;

// Not instanceof: Next bundles route modules apart, so a source (kept on globalThis) may come from another bundle's class.
const isPostgres = (from: AnyJournal): from is PgJournalSource => (from as Partial<PgJournalSource>).engine === "postgres";

/** `from`: the configured (first) journal, or the one a live watcher (lib/live) was made for. */
export async function readScreen<T>(load: ScreenLoad<T>, from: AnyJournal = consoleSources().sources[0]!.journal): Promise<ScreenRead<T>> {
  if (isPostgres(from)) {
    if (!neutral(load)) return { ok: false, error: notOnPostgres(from.file) };
    const read = await from.read((q) => load({ q, config: env(), now: new Date() }));
    if (!read.ok) return read;
    return { ok: true, data: read.data, journal: { file: read.journal.info.file, warnings: read.journal.warnings } };
  }
  const journal = from.get();
  if (!journal.ok) return journal;
  try {
    const data = await load({ db: journal.db, q: queryOf(journal.db), config: env(), now: new Date() });
    return { ok: true, data, journal: { file: journal.info.file, warnings: journal.warnings } };
  } catch (error) {
    const fault = from.classify(error);
    if (fault) return { ok: false, error: fault };
    throw error;
  }
}

/** One source's share of a fleet screen: its data, or why it could not be read. */
export type SourcePart<T> = { source: ConsoleSource; ok: true; data: T } | { source: ConsoleSource; ok: false; error: JournalError };

/**
 * A screen over every journal: `load` per source, all at once (a PostgreSQL source's round trips
 * overlap the others'), then `merge` of the parts (each read or failed). With one journal it is
 * readScreen exactly (its failure is the screen's failure); with several, only the failure of all
 * of them is. Warnings carry the source's name.
 */
export async function readFleet<T, M>(
  load: ScreenLoad<T>,
  merge: (parts: SourcePart<T>[], set: SourceSet) => M,
  set: SourceSet = consoleSources(),
  /** Some of the set's journals only (a screen about one bot reads its journal), merged as several all the same. */
  only: readonly ConsoleSource[] = set.sources,
): Promise<ScreenRead<M>> {
  if (!set.several) {
    const read = await readScreen(load, set.sources[0]!.journal);
    return read.ok ? { ...read, data: merge([{ source: set.sources[0]!, ok: true, data: read.data }], set) } : read;
  }
  const reads = await Promise.all(only.map((source) => readScreen(load, source.journal)));
  const parts: SourcePart<T>[] = [];
  const warnings: string[] = [];
  reads.forEach((read, i) => {
    const source = only[i]!;
    if (read.ok) {
      parts.push({ source, ok: true, data: read.data });
      warnings.push(...read.journal.warnings.map((w) => `${source.name}: ${w}`));
    } else parts.push({ source, ok: false, error: read.error });
  });
  const firstOk = parts.find((p) => p.ok);
  if (!firstOk) return { ok: false, error: (parts[0] as { error: JournalError }).error };
  return { ok: true, data: merge(parts, set), journal: { file: firstOk.source.file, warnings } };
}

/**
 * A bot's screen, from the journal that holds the bot. A bot no readable journal has is read from
 * the first one (whose loader answers "no such bot", as with one journal); a bot whose journal
 * cannot be read now gets that journal's error; a bot two journals hold is refused, naming both.
 */
export async function readBotScreen<T>(botId: string, load: ScreenLoad<T>, set: SourceSet = consoleSources()): Promise<ScreenRead<T>> {
  const place = await set.placeBotRead(botId);
  switch (place.kind) {
    case "found": {
      const read = await readScreen(load, place.source.journal);
      return set.several ? { ...read, source: place.source.name } : read;
    }
    case "unavailable":
      return set.several ? { ok: false, error: place.error, source: place.source.name } : { ok: false, error: place.error };
    case "none":
      return readScreen(load, set.sources[0]!.journal);
    case "clash":
      return { ok: false, error: clashError(botId, place.sources) };
  }
}
