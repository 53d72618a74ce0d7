import "server-only";
/**
 * The console's two connections to the configured journal: a read-only one for every page and
 * poll, and a separate read-write one used only inside short BEGIN IMMEDIATE transactions.
 *
 * Opening never throws at the caller: it returns the journal or the JournalError that explains,
 * in one line, what is wrong and how to fix it. A failed open is retried on the next request, so a
 * journal that appears (or is repaired) later is picked up without a restart.
 */
import type Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import { env } from "../env";
import { JournalError, openJournalReader, openJournalWriter, type JournalInfo } from "./journal-file";
import * as schema from "./schema";

export type JournalDb = BetterSQLite3Database<typeof schema>;

export type JournalHandle =
  | { ok: true; db: JournalDb; sqlite: Database.Database; info: JournalInfo; warnings: string[] }
  | { ok: false; error: JournalError };

interface Cache {
  file: string;
  reader?: { db: JournalDb; sqlite: Database.Database; info: JournalInfo };
  writer?: Database.Database;
}

// One cache per server process; kept on globalThis so dev-mode reloads do not leak connections.
const holder = globalThis as unknown as { __driftwatchJournal?: Cache };

function cache(): Cache {
  const file = env().journalPath;
  if (holder.__driftwatchJournal?.file !== file) holder.__driftwatchJournal = { file };
  return holder.__driftwatchJournal;
}

function warningsFor(info: JournalInfo): string[] {
  return info.journalMode === "wal"
    ? []
    : [`journal is in ${info.journalMode} mode, not WAL: the bot and the console will block each other. Fix: run "PRAGMA journal_mode=WAL" on it once (npm run journal -- migrate does).`];
}

function asJournalError(file: string, error: unknown): JournalError {
  if (error instanceof JournalError) return error;
  return new JournalError("unreadable", file, `cannot be opened (${(error as Error).message})`, "check the file and its folder's permissions");
}

export function getJournal(): JournalHandle {
  const c = cache();
  if (!c.reader) {
    try {
      const { db: sqlite, info } = openJournalReader(c.file);
      c.reader = { sqlite, info, db: drizzle(sqlite, { schema }) };
    } catch (error) {
      return { ok: false, error: asJournalError(c.file, error) };
    }
  }
  return { ok: true, ...c.reader, warnings: warningsFor(c.reader.info) };
}

/**
 * The write connection, for the action guard (which opens its own BEGIN IMMEDIATE transactions).
 * Throws JournalError when the journal cannot be opened for writing.
 */
export function getWriteConnection(): Database.Database {
  const c = cache();
  if (!c.writer) {
    try {
      c.writer = openJournalWriter(c.file).db;
    } catch (error) {
      throw asJournalError(c.file, error);
    }
  }
  return c.writer;
}

/**
 * Runs fn in one BEGIN IMMEDIATE transaction on the write connection: the write lock is taken up
 * front, so the checks fn makes still hold when it writes.
 */
export function withWriteTransaction<T>(fn: (db: JournalDb, sqlite: Database.Database) => T): T {
  const sqlite = getWriteConnection();
  const db = drizzle(sqlite, { schema });
  return sqlite.transaction(() => fn(db, sqlite)).immediate();
}

/** Drops both connections; the next call reopens. Used when the file was replaced under us. */
export function closeJournal(): void {
  const c = holder.__driftwatchJournal;
  c?.reader?.sqlite.close();
  c?.writer?.close();
  holder.__driftwatchJournal = undefined;
}
