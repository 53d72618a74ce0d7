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
import { clashError, consoleJournal, consoleSources, type ConsoleSource, type JournalDb, type JournalSource, type SourceSet } from "../db/console";
import type { JournalError } from "../db/journal-file";
import { env, type Env } from "../env";

/** What every screen loader reads from: the journal handle, the validated settings, this request's clock. */
export interface ReadContext {
  db: JournalDb;
  config: Env;
  now: Date;
}

/** `source`: with several journals, the name of the one a bot's screen could not read (for its page's title). */
export type ScreenRead<T> = { ok: true; data: T; journal: { file: string; warnings: string[] } } | { ok: false; error: JournalError; source?: string };

/** `from`: the configured (first) journal, or the one a live watcher (lib/live) was made for. */
export function readScreen<T>(load: (ctx: ReadContext) => T, from: JournalSource = consoleJournal()): ScreenRead<T> {
  const read = from.read((j) => load({ db: j.db, config: env(), now: new Date() }));
  if (!read.ok) return read;
  return { ok: true, data: read.data, journal: { file: read.journal.info.file, warnings: read.journal.warnings } };
}

/** One source's share of a fleet screen: its data, or why it could not be read. */
export type SourcePart<T> = { source: ConsoleSource; ok: true; data: T } | { source: ConsoleSource; ok: false; error: JournalError };

/**
 * A screen over every journal: `load` per source, then `merge` of the parts (each read or failed).
 * With one journal it is readScreen exactly (its failure is the screen's failure); with several,
 * only the failure of all of them is. Warnings carry the source's name.
 */
export function readFleet<T, M>(
  load: (ctx: ReadContext) => T,
  merge: (parts: SourcePart<T>[], set: SourceSet) => M,
  set: SourceSet = consoleSources(),
): ScreenRead<M> {
  if (!set.several) {
    const read = readScreen(load, set.sources[0]!.journal);
    return read.ok ? { ...read, data: merge([{ source: set.sources[0]!, ok: true, data: read.data }], set) } : read;
  }
  const parts: SourcePart<T>[] = [];
  const warnings: string[] = [];
  for (const source of set.sources) {
    const read = readScreen(load, source.journal);
    if (read.ok) {
      parts.push({ source, ok: true, data: read.data });
      warnings.push(...read.journal.warnings.map((w) => `${source.name}: ${w}`));
    } else parts.push({ source, ok: false, error: read.error });
  }
  const firstOk = parts.find((p) => p.ok);
  if (!firstOk) return { ok: false, error: (parts[0] as { error: JournalError }).error };
  return { ok: true, data: merge(parts, set), journal: { file: firstOk.source.file, warnings } };
}

/**
 * A bot's screen, from the journal that holds the bot. A bot no readable journal has is read from
 * the first one (whose loader answers "no such bot", as with one journal); a bot whose journal
 * cannot be read now gets that journal's error; a bot two journals hold is refused, naming both.
 */
export function readBotScreen<T>(botId: string, load: (ctx: ReadContext) => T, set: SourceSet = consoleSources()): ScreenRead<T> {
  const place = set.placeBot(botId);
  switch (place.kind) {
    case "found": {
      const read = readScreen(load, place.source.journal);
      return read.ok || !set.several ? read : { ...read, source: place.source.name };
    }
    case "unavailable":
      return set.several ? { ok: false, error: place.error, source: place.source.name } : { ok: false, error: place.error };
    case "none":
      return readScreen(load, set.sources[0]!.journal);
    case "clash":
      return { ok: false, error: clashError(botId, place.sources) };
  }
}

/**
 * A screen not yet merged over several journals (the incidents): the first journal's, saying so
 * on the page when there are others, so nobody takes it for the whole fleet.
 */
export function readFirstJournal<T>(load: (ctx: ReadContext) => T, set: SourceSet = consoleSources()): ScreenRead<T> {
  const first = set.sources[0]!;
  const read = readScreen(load, first.journal);
  if (!read.ok || !set.several) return read;
  const others = set.sources.slice(1).map((s) => s.name);
  const note = `This page reads journal ${first.name} only, the first of ${set.sources.length}: what happened in ${others.join(", ")} is not shown here yet.`;
  return { ...read, journal: { ...read.journal, warnings: [note, ...read.journal.warnings] } };
}
