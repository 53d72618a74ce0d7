/**
 * Opening, checking, creating and upgrading a journal file. Shared by the console, the CLI and the
 * TypeScript bot library, so it stays free of Next (no "server-only"): every caller runs on a server
 * or in a bot process anyway.
 *
 * The schema version is SQLite's own `PRAGMA user_version`: readable with plain SQL from any
 * language, and set by the last statement of every migration file in drizzle/.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { isDamaged, sqliteErrorKind } from "./sqlite-error";

export const BUSY_TIMEOUT_MS = 5000;
/**
 * The console's read-only connection waits this long, not BUSY_TIMEOUT_MS: better-sqlite3 is
 * synchronous, so a read waiting out 5 s would freeze the whole server for every client. A WAL
 * reader never waits for a writer; it only meets a lock when another process holds the file
 * exclusively, and then the console says so at once instead of hanging (docs/journal.md).
 */
export const READ_BUSY_TIMEOUT_MS = 500;

export type JournalProblemCode =
  | "missing"
  | "not_a_file"
  | "not_sqlite"
  | "no_schema"
  | "older_schema"
  | "future_schema"
  | "unreadable"
  /** It was there and went away (deleted or moved) while the console was running. */
  | "gone"
  /** Another process holds a lock that keeps even readers out. */
  | "locked"
  /** SQLite found damaged pages. */
  | "corrupt"
  /** With several journals: the bot id is in two of them, so the console cannot tell which is meant. */
  | "bot_clash"
  /** A PostgreSQL source whose server cannot be reached (refused, timed out, no such host). */
  | "unreachable"
  /** A PostgreSQL source whose server refused the console's user or password. */
  | "authentication"
  /** A page that reads SQLite journals only, asked about a bot on a PostgreSQL source. */
  | "not_on_postgres";

/** One line that names the file, what is wrong and the fix. Shown as is, on a terminal or a page. */
export class JournalError extends Error {
  override name = "JournalError";
  constructor(
    readonly code: JournalProblemCode,
    readonly file: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`journal ${file}: ${problem}. Fix: ${fix}`);
  }
}

export interface Migration {
  /** 1-based: the schema version the journal has once this file is applied. */
  version: number;
  file: string;
  sql: string;
}

export function defaultMigrationsDir(): string {
  return path.join(process.cwd(), "drizzle");
}

/** The SQL files of drizzle/, in order. Their number is their position: 0000 gives version 1. */
export function loadMigrations(dir: string = defaultMigrationsDir()): Migration[] {
  // The folder is read at run time from the project, not bundled: tell Turbopack not to trace it.
  const files = fs
    .readdirSync(/*turbopackIgnore: true*/ dir)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort();
  return files.map((file, i) => {
    const number = Number(file.slice(0, 4));
    if (number !== i) throw new Error(`migration ${file} is out of sequence: expected number ${String(i).padStart(4, "0")}`);
    return { version: i + 1, file, sql: fs.readFileSync(path.join(/*turbopackIgnore: true*/ dir, file), "utf8") };
  });
}

export function latestSchemaVersion(dir?: string): number {
  return loadMigrations(dir).length;
}

const migrateCommand = (file: string) => `run "npm run journal -- migrate ${file}"`;

export const lockedError = (file: string, since: Date) =>
  new JournalError(
    "locked",
    file,
    `is locked by another process (since ${since.toISOString()}), so nothing can be read from it`,
    `find the process holding it ("fuser ${file}" or "lsof ${file}") and let it finish or stop it; a bot must never hold the journal for long. The console checks again on every load`,
  );

export const corruptError = (file: string, detail: string) =>
  new JournalError(
    "corrupt",
    file,
    `is damaged: SQLite found corrupt pages (${detail})`,
    `stop the bot, keep a copy of the file, run "npm run journal -- check ${file}" and restore the journal from the last good backup`,
  );

/**
 * A driver error met while reading, as the one-line JournalError the pages and routes show; null
 * when it is not about the file (a bug in a query, say).
 */
export function journalFault(file: string, error: unknown): JournalError | null {
  if (error instanceof JournalError) return error;
  const kind = sqliteErrorKind(error);
  if (kind === null) return null;
  const code = (error as { code: string }).code;
  const message = (error as Error).message ?? String(error);
  if (kind === "locked") return lockedError(file, new Date());
  if (isDamaged(kind)) return corruptError(file, `${code}: ${message}`);
  if (kind === "io" || kind === "cantopen") {
    return new JournalError(
      "unreadable",
      file,
      `cannot be read (${code}: ${message})`,
      "check that the file is still there, its permissions, and that the disk is healthy",
    );
  }
  return null;
}

function sqliteError(file: string, error: unknown): JournalError {
  const code = (error as { code?: string }).code;
  const message = (error as Error).message ?? String(error);
  if (sqliteErrorKind(error) === "not_sqlite") {
    return new JournalError("not_sqlite", file, `is not a SQLite database (${message})`, "set DRIFTWATCH_JOURNAL to the bot's journal file");
  }
  const fault = journalFault(file, error);
  if (fault) return fault;
  return new JournalError("unreadable", file, `cannot be read (${code ?? "error"}: ${message})`, "check the file's permissions and that the disk is healthy");
}

function assertIsFile(file: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(file);
  } catch {
    throw new JournalError("missing", file, "not found", `${migrateCommand(file)} to create it, or set DRIFTWATCH_JOURNAL to the bot's journal`);
  }
  if (!stat.isFile()) throw new JournalError("not_a_file", file, "is not a file", "set DRIFTWATCH_JOURNAL to the journal file itself, not a folder");
}

function checkVersion(file: string, version: number, latest: number, migrationsDir: string = defaultMigrationsDir(), tables = 0): void {
  if (version > latest) {
    // The folder is named: a journal migrated by one checkout and read by another (an older clone,
    // another worktree) is the usual cause, and the count alone does not say which copy was run.
    throw new JournalError(
      "future_schema",
      file,
      `has schema version ${version}, newer than this driftwatch knows (${latest}, the migrations in ${migrationsDir})`,
      "upgrade driftwatch to the release that wrote this journal, or run the copy of driftwatch that migrated it",
    );
  }
  if (version === 0 && tables > 0) {
    // Someone else's database (another program's, a copy of something): migrate would write the
    // journal's tables into it, so that is not the fix to offer.
    throw new JournalError(
      "no_schema",
      file,
      `is a SQLite database but not a driftwatch journal (it has ${tables} table${tables === 1 ? "" : "s"} of its own and PRAGMA user_version 0)`,
      "give the bot's journal file; do not run migrate on this one, which would add the journal's tables to it",
    );
  }
  if (version === 0) {
    throw new JournalError("no_schema", file, "has no journal schema (PRAGMA user_version is 0)", migrateCommand(file));
  }
  if (version < latest) {
    throw new JournalError("older_schema", file, `has schema version ${version}; this driftwatch needs ${latest}`, migrateCommand(file));
  }
}

export interface JournalInfo {
  file: string;
  schemaVersion: number;
  journalMode: string;
}

/** Runs a probe query so that "not a database" surfaces here, with the file named, not later. */
function probe(db: Database.Database, file: string): { version: number; journalMode: string; tables: number } {
  try {
    const version = db.pragma("user_version", { simple: true }) as number;
    const journalMode = String(db.pragma("journal_mode", { simple: true }));
    const tables = db.prepare(`SELECT count(*) FROM sqlite_master WHERE type = 'table'`).pluck().get() as number;
    return { version, journalMode, tables };
  } catch (error) {
    throw sqliteError(file, error);
  }
}

/**
 * A read-only connection to an existing journal of exactly the schema version this code knows.
 * Throws JournalError, never a bare driver error.
 */
export function openJournalReader(file: string, opts: { migrationsDir?: string; busyTimeoutMs?: number } = {}): { db: Database.Database; info: JournalInfo } {
  const abs = path.resolve(file);
  assertIsFile(abs);
  let db: Database.Database;
  try {
    db = new Database(abs, { readonly: true, fileMustExist: true, timeout: opts.busyTimeoutMs ?? BUSY_TIMEOUT_MS });
  } catch (error) {
    throw sqliteError(abs, error);
  }
  try {
    const { version, journalMode, tables } = probe(db, abs);
    checkVersion(abs, version, latestSchemaVersion(opts.migrationsDir), opts.migrationsDir, tables);
    return { db, info: { file: abs, schemaVersion: version, journalMode } };
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * A read-write connection for short BEGIN IMMEDIATE transactions, with `synchronous = FULL`: a
 * commit is on disk before it returns, so an intent the bot wrote before a send, or an operator's
 * audit entry, survives a power cut (better-sqlite3 is built with NORMAL as the WAL default, which
 * may lose the last commits then; docs/journal.md asks every writer for FULL).
 */
export function openJournalWriter(file: string, opts: { migrationsDir?: string } = {}): { db: Database.Database; info: JournalInfo } {
  const abs = path.resolve(file);
  assertIsFile(abs);
  let db: Database.Database;
  try {
    db = new Database(abs, { fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw sqliteError(abs, error);
  }
  try {
    const { version, journalMode, tables } = probe(db, abs);
    checkVersion(abs, version, latestSchemaVersion(opts.migrationsDir), opts.migrationsDir, tables);
    db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    db.pragma("synchronous = FULL");
    return { db, info: { file: abs, schemaVersion: version, journalMode } };
  } catch (error) {
    db.close();
    throw error;
  }
}

export interface MigrateResult {
  file: string;
  created: boolean;
  from: number;
  to: number;
  applied: string[];
}

/**
 * Creates the journal (and its folder) if needed, puts it in WAL mode and applies every migration
 * newer than its user_version, each in its own BEGIN IMMEDIATE transaction. Safe to run twice, and
 * safe against a second migrator at the same moment: the version is re-read under the write lock.
 */
export function migrateJournal(file: string, opts: { migrationsDir?: string } = {}): MigrateResult {
  // Two processes creating the same new journal at once (two bots starting together) can meet a
  // lock the busy handler does not wait on while one of them switches the file to WAL. Each step
  // re-reads the version under its own write lock, so running the whole sequence again is safe.
  const deadline = Date.now() + BUSY_TIMEOUT_MS;
  for (let attempt = 1; ; attempt++) {
    try {
      return migrateOnce(file, opts);
    } catch (error) {
      const cause = (error as { cause?: unknown }).cause;
      const lock = sqliteErrorKind(error) === "locked" || sqliteErrorKind(cause) === "locked" || (error instanceof JournalError && error.code === "locked");
      if (!lock || Date.now() > deadline) throw error;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20 * attempt);
    }
  }
}

function migrateOnce(file: string, opts: { migrationsDir?: string }): MigrateResult {
  const abs = path.resolve(file);
  const existed = fs.existsSync(abs);
  if (existed) assertIsFile(abs);
  else fs.mkdirSync(path.dirname(abs), { recursive: true });
  const migrations = loadMigrations(opts.migrationsDir);
  const latest = migrations.length;
  let db: Database.Database;
  try {
    db = new Database(abs, { timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    throw sqliteError(abs, error);
  }
  try {
    const { version: from, journalMode } = probe(db, abs);
    if (from > latest) checkVersion(abs, from, latest, opts.migrationsDir);
    if (journalMode !== "wal") db.pragma("journal_mode = WAL");
    const applied: string[] = [];
    for (const migration of migrations) {
      db.exec("BEGIN IMMEDIATE");
      try {
        const current = db.pragma("user_version", { simple: true }) as number;
        if (current >= migration.version) {
          db.exec("COMMIT");
          continue;
        }
        db.exec(migration.sql);
        // The file sets it too (for bots that apply the SQL by hand); setting it here keeps the
        // runner correct even if a file lost that line.
        db.pragma(`user_version = ${migration.version}`);
        db.exec("COMMIT");
        applied.push(migration.file);
      } catch (error) {
        if (db.inTransaction) db.exec("ROLLBACK");
        throw new Error(`migration ${migration.file} failed on ${abs}: ${(error as Error).message}`, { cause: error });
      }
    }
    const to = db.pragma("user_version", { simple: true }) as number;
    return { file: abs, created: !existed, from, to, applied };
  } finally {
    db.close();
  }
}
