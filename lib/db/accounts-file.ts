/**
 * Opening the accounts file: created (folder too, mode 0700 for a new folder) and migrated on first
 * use, WAL, busy_timeout 5000. Shared by the console, the accounts command and the demo, so it stays
 * free of Next (no "server-only"), like journal-file.ts.
 *
 * The schema version is PRAGMA user_version, set by the last line of every drizzle/accounts file.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { drizzle, type BetterSQLite3Database } from "drizzle-orm/better-sqlite3";
import * as schema from "./accounts-schema";
import { BUSY_TIMEOUT_MS, loadMigrations } from "./journal-file";
import { isDamaged, sqliteErrorKind } from "./sqlite-error";

export type AccountsDb = BetterSQLite3Database<typeof schema>;

export function defaultAccountsMigrationsDir(): string {
  return path.join(process.cwd(), "drizzle", "accounts");
}

/** One line naming the file, the problem and the fix, as JournalError does for the journal. */
export class AccountsFileError extends Error {
  override name = "AccountsFileError";
  constructor(
    readonly file: string,
    problem: string,
    fix: string,
  ) {
    super(`accounts file ${file}: ${problem}. Fix: ${fix}`);
  }
}

function migrate(db: Database.Database, file: string, migrationsDir: string): void {
  const migrations = loadMigrations(migrationsDir);
  const current = db.pragma("user_version", { simple: true }) as number;
  if (current > migrations.length) {
    throw new AccountsFileError(file, `has schema version ${current}, newer than this driftwatch knows (${migrations.length})`, "upgrade driftwatch");
  }
  for (const migration of migrations) {
    // The version is re-read under the write lock: two processes opening a new file at once apply
    // each migration once.
    db.transaction(() => {
      if ((db.pragma("user_version", { simple: true }) as number) >= migration.version) return;
      db.exec(migration.sql);
      db.pragma(`user_version = ${migration.version}`);
    }).immediate();
  }
}

/**
 * A read-write connection to the accounts file, created and migrated if needed. Throws
 * AccountsFileError, never a bare driver error.
 */
export function openAccountsDb(file: string, opts: { migrationsDir?: string } = {}): { db: AccountsDb; sqlite: Database.Database } {
  const abs = path.resolve(file);
  let sqlite: Database.Database;
  try {
    if (fs.existsSync(abs) && !fs.statSync(abs).isFile()) throw new AccountsFileError(abs, "is not a file", "set DRIFTWATCH_ACCOUNTS_DB to a file path");
    fs.mkdirSync(path.dirname(abs), { recursive: true, mode: 0o700 });
    sqlite = new Database(abs, { timeout: BUSY_TIMEOUT_MS });
  } catch (error) {
    if (error instanceof AccountsFileError) throw error;
    throw new AccountsFileError(abs, `cannot be opened (${(error as Error).message})`, "check the file and its folder's permissions");
  }
  try {
    sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
    if (String(sqlite.pragma("journal_mode", { simple: true })) !== "wal") sqlite.pragma("journal_mode = WAL");
    migrate(sqlite, abs, opts.migrationsDir ?? defaultAccountsMigrationsDir());
    // Password hashes: readable by the console's user only (the WAL holds pages of them too).
    for (const f of [abs, `${abs}-wal`, `${abs}-shm`]) {
      try {
        fs.chmodSync(f, 0o600);
      } catch {
        // missing, or not ours to change: leave it to its owner
      }
    }
    return { db: drizzle(sqlite, { schema }), sqlite };
  } catch (error) {
    sqlite.close();
    if (error instanceof AccountsFileError) throw error;
    if (isDamaged(sqliteErrorKind(error))) {
      throw new AccountsFileError(abs, "is not a SQLite database", "set DRIFTWATCH_ACCOUNTS_DB to the accounts file, or move this file away");
    }
    throw new AccountsFileError(abs, `cannot be used (${(error as Error).message})`, "check the file and its folder's permissions");
  }
}
