import "server-only";
/**
 * The console's two connections to the configured journal: a read-only one for every page and
 * poll, and a separate read-write one used only inside short BEGIN IMMEDIATE transactions.
 *
 * Opening never throws at the caller: it returns the journal or the JournalError that explains,
 * in one line, what is wrong and how to fix it. A failed open is retried on the next request, so a
 * journal that appears (or is repaired) later is picked up without a restart.
 *
 * Every request also checks, cheaply, that the file is still the one the connections opened (a
 * stat of the path against the opened file's device and inode) and that it can be read (one
 * pragma). On Linux a deleted file stays readable through an open descriptor: without the first
 * check the console would keep showing the last data as if it were live, and an operator's action
 * would land in a file nobody will ever read again.
 */
import fs from "node:fs";
import type Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { env } from "../env";
import { JournalError, READ_BUSY_TIMEOUT_MS, journalFault, lockedError, openJournalReader, openJournalWriter, type JournalInfo } from "./journal-file";
import * as schema from "./schema";
import { PgJournalSource } from "./pg-source";
import { queryOf, type JournalQuery } from "./query";
import { statement } from "./statements";
import { formatUtc } from "../text/format";

/**
 * The one handle every read takes: drizzle over the journal, with the better-sqlite3 connection
 * under it as `db.$client` (drizzle's own accessor) for the statements drizzle does not stream,
 * that run on every poll, or whose plan a test checks. Never pass the two apart.
 */
export type JournalDb = BetterSQLite3Database<typeof schema> & { $client: Database.Database };

export interface OpenJournal {
  db: JournalDb;
  info: JournalInfo;
  warnings: string[];
}

export type JournalHandle = ({ ok: true } & OpenJournal) | { ok: false; error: JournalError };

export interface JournalSourceOptions {
  migrationsDir?: string;
  readBusyTimeoutMs?: number;
  now?: () => Date;
  /** Where the source says what it noticed (a file replaced, a lock); the server log by default. */
  log?: (line: string) => void;
}

interface FileId {
  dev: number;
  ino: number;
}

/** How long after the file came back or was swapped the pages keep saying so. */
const NOTICE_MS = 10 * 60_000;

function statOrNull(file: string): fs.Stats | null {
  try {
    return fs.statSync(file);
  } catch {
    return null;
  }
}

// The journal's notices say a time with its date (they stay up to 10 minutes, perhaps past
// midnight) but not the year of now: "Dec 3 15:29:28 UTC", not "Dec 3 2026 15:29:28 UTC".
export const goneError = (file: string, since: Date) =>
  new JournalError(
    "gone",
    file,
    `was deleted or moved away while the console was reading it, noticed at ${formatUtc(since.toISOString(), since, true)}; nothing shown is current`,
    "put the journal back at this path: move it back (a bot that kept running still writes to it), or restore the last backup and then restart the bot so it writes to the restored file. Do not create a new empty journal while a bot may still hold the old one. The console reconnects by itself",
  );

function asJournalError(file: string, error: unknown): JournalError {
  return (
    journalFault(file, error) ??
    new JournalError("unreadable", file, `cannot be opened (${(error as Error).message})`, "check the file and its folder's permissions")
  );
}

/** The connections to one journal file, and what the console has noticed about that file. */
export class JournalSource {
  private reader?: { db: JournalDb; info: JournalInfo };
  private writer?: Database.Database;
  /** The file the connections opened; kept after they are dropped, to tell "gone" from "never there". */
  private opened: FileId | null = null;
  private goneSince: Date | null = null;
  private lockedSince: Date | null = null;
  /** The last time the file went and came back, or was swapped: shown for a while after. */
  private lastNotice: { text: string; at: Date } | null = null;
  private readonly now: () => Date;
  private readonly log: (line: string) => void;
  private readonly readTimeoutMs: number;

  constructor(
    readonly file: string,
    private readonly opts: JournalSourceOptions = {},
  ) {
    this.now = opts.now ?? (() => new Date());
    this.log = opts.log ?? ((line) => console.error(line));
    this.readTimeoutMs = opts.readBusyTimeoutMs ?? READ_BUSY_TIMEOUT_MS;
  }

  /** The read connection, checked for this request; or why there is none. */
  get(): JournalHandle {
    const moved = this.checkFile();
    if (moved) return { ok: false, error: moved };
    if (!this.reader) {
      const before = statOrNull(this.file);
      try {
        // While another process holds the lock, do not wait for it on every request: fail at once.
        const { db: sqlite, info } = openJournalReader(this.file, {
          migrationsDir: this.opts.migrationsDir,
          busyTimeoutMs: this.lockedSince ? 0 : this.readTimeoutMs,
        });
        this.reader = { info, db: drizzle(sqlite, { schema }) };
      } catch (error) {
        return { ok: false, error: this.fault(error) };
      }
      if (this.goneSince) {
        // Moved back or restored from a backup: a freed inode number can come back with the copy, so
        // the two cannot be told apart here. Say so either way. Its end says its date only when that
        // is not its start's (a phone gave the two dates of one afternoon three lines).
        this.notice(
          `the journal was away from ${formatUtc(this.goneSince.toISOString(), this.now(), true)} to ${formatUtc(this.now().toISOString(), this.goneSince)}; it was deleted or moved, then put back, and the console reads it again. If it was restored from a backup, restart the bot so it writes to this file, and expect what was written while it was away to be missing.`,
        );
      } else if (before && this.opened && (this.opened.dev !== before.dev || this.opened.ino !== before.ino)) {
        this.notice(
          `the journal file was replaced at ${formatUtc(this.now().toISOString(), this.now(), true)} (restored or copied over); the console now reads the new file. Check that the bot writes to it too: restart the bot if it was running during the swap. A -wal file left from the old journal is replayed onto the new one: swap only with the bot stopped and the old -wal and -shm removed.`,
        );
      }
      if (before) this.opened = { dev: before.dev, ino: before.ino };
      this.goneSince = null;
    }
    try {
      // One cheap read per request: it takes SQLite's shared lock, so a lock or a damaged header shows here.
      this.reader.db.$client.pragma("user_version", { simple: true });
    } catch (error) {
      return { ok: false, error: this.fault(error) };
    }
    if (this.lockedSince) {
      this.log(`driftwatch: journal ${this.file} is no longer locked (it was since ${this.lockedSince.toISOString()})`);
      this.lockedSince = null;
      this.reader.db.$client.pragma(`busy_timeout = ${this.readTimeoutMs}`);
    }
    return { ok: true, ...this.reader, warnings: this.warnings(this.reader.info) };
  }

  /**
   * A driver error met while reading, as the JournalError to show; null when it is not about the
   * file. Remembers a lock (so later requests do not wait for it) and drops the connections on
   * damage (so a restored file is opened afresh).
   */
  classify(error: unknown): JournalError | null {
    const fault = journalFault(this.file, error);
    if (!fault) return null;
    if (fault.code === "locked") {
      if (!this.lockedSince) {
        this.lockedSince = this.now();
        this.log(`driftwatch: ${lockedError(this.file, this.lockedSince).message}`);
      }
      // Later requests fail at once while the lock lasts, instead of each freezing the server.
      try {
        this.reader?.db.$client.pragma("busy_timeout = 0");
      } catch {
        // closed or unusable: the next request reopens
      }
      return lockedError(this.file, this.lockedSince);
    }
    if (fault.code === "corrupt" || fault.code === "unreadable") this.close();
    return fault;
  }

  private fault(error: unknown): JournalError {
    return this.classify(error) ?? asJournalError(this.file, error);
  }

  /**
   * Runs a read against the journal; a lock, damage or lost file met halfway becomes the same
   * one-line JournalError as a failed open. Anything else (a bug) is thrown on.
   */
  read<T>(read: (journal: OpenJournal) => T): { ok: true; data: T; journal: OpenJournal } | { ok: false; error: JournalError } {
    const journal = this.get();
    if (!journal.ok) return journal;
    try {
      return { ok: true, data: read(journal), journal };
    } catch (error) {
      const fault = this.classify(error);
      if (fault) return { ok: false, error: fault };
      throw error;
    }
  }

  /** The write connection, for the action guard. Throws JournalError. */
  writeConnection(): Database.Database {
    const moved = this.checkFile();
    if (moved) throw moved;
    if (this.lockedSince) throw lockedError(this.file, this.lockedSince);
    if (!this.writer) {
      const before = statOrNull(this.file);
      try {
        this.writer = openJournalWriter(this.file, { migrationsDir: this.opts.migrationsDir }).db;
      } catch (error) {
        throw this.fault(error);
      }
      if (before && !this.opened) this.opened = { dev: before.dev, ino: before.ino };
    }
    return this.writer;
  }

  /**
   * Throws when the path no longer leads to the file the connections opened. The guard calls it
   * inside the action's transaction, so an action never commits into a deleted file.
   */
  assertSameFile(): void {
    if (!this.opened) return;
    const st = statOrNull(this.file);
    if (!st) throw goneError(this.file, this.goneSince ?? this.now());
    if (st.dev !== this.opened.dev || st.ino !== this.opened.ino) {
      throw new JournalError(
        "gone",
        this.file,
        "was replaced by another file during the action",
        "look at the journal again and repeat the action if it is still needed",
      );
    }
  }

  /** Drops both connections; the next call reopens. */
  close(): void {
    try {
      this.reader?.db.$client.close();
    } catch {
      // already unusable
    }
    try {
      this.writer?.close();
    } catch {
      // already unusable
    }
    this.reader = undefined;
    this.writer = undefined;
  }

  /** Null when the file is still the one opened (or none was opened yet); else the reason to show. */
  private checkFile(): JournalError | null {
    if (!this.opened) return null;
    const st = statOrNull(this.file);
    if (st && st.dev === this.opened.dev && st.ino === this.opened.ino) return null;
    if (this.reader || this.writer) this.close();
    if (!st) {
      if (!this.goneSince) {
        this.goneSince = this.now();
        this.log(`driftwatch: ${goneError(this.file, this.goneSince).message}`);
      }
      return goneError(this.file, this.goneSince);
    }
    // Another file sits at the path (a restored backup, a copy): read that one from now on.
    return null;
  }

  /**
   * A notice shows for NOTICE_MS after. Its first "; " ends the line a page shows at once (what
   * happened, and when); what to check follows it, and opens under that line
   * (components/journal/journal-warnings.tsx).
   */
  private notice(text: string): void {
    this.lastNotice = { text, at: this.now() };
    this.log(`driftwatch: journal ${this.file}: ${text}`);
  }

  private warnings(info: JournalInfo): string[] {
    const out: string[] = [];
    if (info.journalMode !== "wal") {
      out.push(
        `journal is in ${info.journalMode} mode, not WAL: the bot and the console will block each other. Fix: run "PRAGMA journal_mode=WAL" on it once (npm run journal -- migrate does).`,
      );
    }
    if (this.lastNotice && this.now().getTime() - this.lastNotice.at.getTime() < NOTICE_MS) out.push(this.lastNotice.text);
    return out;
  }
}

/** One configured journal as the console holds it: its name, where it is, and its connections. */
export type ConsoleSource =
  | { name: string; kind: "sqlite"; file: string; journal: JournalSource }
  /** `file`: the URL without its password. */
  | { name: string; kind: "postgres"; file: string; journal: PgJournalSource };

/** Where a bot (or an order's bot) lives, as far as the readable sources tell. */
export type BotPlace =
  | { kind: "found"; source: ConsoleSource }
  /** No readable source has it, and this one, which cannot be read now, had it when last read. */
  | { kind: "unavailable"; source: ConsoleSource; error: JournalError }
  /** Two sources have it: the console cannot tell which one an action is for. */
  | { kind: "clash"; sources: [ConsoleSource, ConsoleSource] }
  | { kind: "none" };

/** Which bot two journals hold, and where; clashMessage adds what to do about it. */
export const clashFact = (botId: string, a: Pick<ConsoleSource, "name" | "file">, b: Pick<ConsoleSource, "name" | "file">) =>
  `bot ${botId} is in two journals: source ${a.name} (${a.file}) and source ${b.name} (${b.file})`;

export const CLASH_ADVICE = "Bot ids must be unique across the console's journals: rename one bot, or read its journal from another console";

export const clashMessage = (botId: string, a: Pick<ConsoleSource, "name" | "file">, b: Pick<ConsoleSource, "name" | "file">) =>
  `${clashFact(botId, a, b)}. ${CLASH_ADVICE}`;

/** A bot id two journals hold, as the unavailable view shows it. */
export function clashError(botId: string, [a, b]: [ConsoleSource, ConsoleSource]): JournalError {
  return new JournalError(
    "bot_clash",
    b.file,
    clashMessage(botId, a, b),
    `rename the bot in one of them (${a.name} or ${b.name}), or read one journal from another console`,
  );
}

const BOT_IN_JOURNAL_SQL = `SELECT 1 FROM bots WHERE bot_id = ? UNION ALL SELECT 1 FROM breakers WHERE bot_id = ? LIMIT 1`;
const ORDER_BOT_SQL = `SELECT bot_id FROM orders WHERE client_order_id = ?`;

/**
 * The journals of one console, in the configured order, each standing alone: one that cannot be
 * read leaves the others served. Remembers the bots each source last showed, so that a source
 * that goes away can still name the bots it takes with it (as UNKNOWN), and a bot page or an
 * action can say which journal it waits for.
 */
export class SourceSet {
  private readonly lastBots = new Map<string, string[]>();
  private readonly lastHalts = new Map<string, { readAt: string; halts: Map<string, { since: string; reason: string | null }> }>();

  constructor(readonly sources: ConsoleSource[]) {
    if (sources.length === 0) throw new Error("a console reads at least one journal");
  }

  /** A set of the one source given (a test's journal, a watcher made for one file). */
  static of(journal: JournalSource, name = "journal"): SourceSet {
    return new SourceSet([{ name, kind: "sqlite", file: journal.file, journal }]);
  }

  get several(): boolean {
    return this.sources.length > 1;
  }

  /** What the source showed last: its bot ids. Called by every read that lists them. */
  rememberBots(source: string, botIds: string[]): void {
    this.lastBots.set(source, botIds);
  }

  knownBots(source: string): string[] {
    return this.lastBots.get(source) ?? [];
  }

  /**
   * What the source showed last of its halted bots, and when it was read: a journal that cannot be
   * read now must not make a halted bot look like any other unknown one (lib/queries/fleet.ts).
   */
  rememberHalts(source: string, readAt: string, halts: { botId: string; since: string; reason: string | null }[]): void {
    this.lastHalts.set(source, { readAt, halts: new Map(halts.map((h) => [h.botId, { since: h.since, reason: h.reason }])) });
  }

  /** When the source was last read, or null when it has not been since the console started. */
  lastReadAt(source: string): string | null {
    return this.lastHalts.get(source)?.readAt ?? null;
  }

  /** The bot's halt as its source last showed it, or null (not halted then, or never read). */
  lastHalt(source: string, botId: string): { since: string; reason: string | null; readAt: string } | null {
    const last = this.lastHalts.get(source);
    const halt = last?.halts.get(botId);
    return last && halt ? { ...halt, readAt: last.readAt } : null;
  }

  /** The source of a bot id, for the reads and the actions: every source asked (one small indexed query each), the PostgreSQL ones too, all at once. */
  placeBotRead(botId: string): Promise<BotPlace> {
    return this.placeRead(BOT_IN_JOURNAL_SQL, [botId, botId], (s) => this.knownBots(s.name).includes(botId));
  }

  /** placeOrder, every source asked, the PostgreSQL ones too: where an action on an order goes. */
  placeOrderRead(clientOrderId: string): Promise<BotPlace> {
    return this.placeRead(ORDER_BOT_SQL, [clientOrderId], () => false);
  }

  private async placeRead(sql: string, params: unknown[], hadIt: (s: ConsoleSource) => boolean): Promise<BotPlace> {
    if (!this.several) return { kind: "found", source: this.sources[0]! };
    const answers = await Promise.all(
      this.sources.map(async (source) => {
        const has = async (q: JournalQuery) => (await q.get(sql, params)) !== undefined;
        if (source.kind === "postgres") return { source, read: await source.journal.read(has) };
        const j = source.journal.get();
        if (!j.ok) return { source, read: j };
        try {
          return { source, read: { ok: true as const, data: await has(queryOf(j.db)) } };
        } catch (error) {
          const fault = source.journal.classify(error);
          if (fault) return { source, read: { ok: false as const, error: fault } };
          throw error;
        }
      }),
    );
    return this.decide(answers, hadIt);
  }

  /** The source of an order, by its client order id (unique in a journal). */
  placeOrder(clientOrderId: string): BotPlace {
    return this.place(
      (s, db) => statement(db, ORDER_BOT_SQL).get(clientOrderId) !== undefined,
      () => false,
    );
  }

  private place(has: (s: ConsoleSource, db: JournalDb) => boolean, hadIt: (s: ConsoleSource) => boolean): BotPlace {
    if (!this.several) return { kind: "found", source: this.sources[0]! };
    return this.decide(
      this.sources.map((source) => {
        if (source.kind === "postgres") return { source, read: { ok: true as const, data: hadIt(source) } };
        return { source, read: source.journal.read((j) => has(source, j.db)) };
      }),
      hadIt,
    );
  }

  private decide(
    answers: { source: ConsoleSource; read: { ok: true; data: boolean } | { ok: false; error: JournalError } }[],
    hadIt: (s: ConsoleSource) => boolean,
  ): BotPlace {
    const found: ConsoleSource[] = [];
    const failed: { source: ConsoleSource; error: JournalError }[] = [];
    for (const { source, read } of answers) {
      if (!read.ok) failed.push({ source, error: read.error });
      else if (read.data) found.push(source);
    }
    if (found.length >= 2) return { kind: "clash", sources: [found[0]!, found[1]!] };
    if (found.length === 1) return { kind: "found", source: found[0]! };
    const away = failed.find((f) => hadIt(f.source)) ?? (failed.length === this.sources.length ? failed[0] : undefined);
    return away ? { kind: "unavailable", ...away } : { kind: "none" };
  }

  /** Bot ids two sources both have, from what each showed last (the startup check and the merged screens). */
  clashes(): string[] {
    const seen = new Map<string, ConsoleSource>();
    const out: string[] = [];
    for (const source of this.sources) {
      for (const botId of this.knownBots(source.name)) {
        const other = seen.get(botId);
        if (other) out.push(clashMessage(botId, other, source));
        else seen.set(botId, source);
      }
    }
    return out;
  }

  close(): void {
    for (const s of this.sources) s.journal.close();
  }
}

// One set of sources per server process; kept on globalThis so dev-mode reloads do not leak connections.
const holder = globalThis as unknown as { __driftwatchSources?: { key: string; set: SourceSet } };

/** The configured journals, shared by every page, route, action and the live watcher (lib/live). */
export function consoleSources(): SourceSet {
  const journals = env().journals;
  const key = JSON.stringify(journals);
  if (holder.__driftwatchSources?.key !== key) {
    holder.__driftwatchSources?.set.close();
    holder.__driftwatchSources = {
      key,
      set: new SourceSet(
        journals.map((j): ConsoleSource =>
          j.kind === "postgres"
            ? { name: j.name, kind: "postgres", file: j.file, journal: new PgJournalSource(j) }
            : { ...j, journal: new JournalSource(j.file) },
        ),
      ),
    };
  }
  return holder.__driftwatchSources.set;
}
