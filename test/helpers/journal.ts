/**
 * Real journal files for tests: fresh temporary folders, schemas applied from drizzle/ exactly as a
 * bot would apply them. Nothing here is mocked.
 */
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import Database from "better-sqlite3";
import { migrateJournal } from "@/lib/db/journal-file";

export const repoRoot = path.resolve(import.meta.dirname, "../..");
export const migrationsDir = path.join(repoRoot, "drizzle");

export function tempDir(label = "journal"): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `driftwatch-${label}-`));
}

/** A journal created by the project's own migrate command (lib/db/journal-file). */
export function migratedJournal(label?: string): string {
  const file = path.join(tempDir(label), "journal.db");
  migrateJournal(file, { migrationsDir });
  return file;
}

export function migrationFiles(): string[] {
  return fs
    .readdirSync(migrationsDir)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort()
    .map((f) => path.join(migrationsDir, f));
}

/** What a Python bot does: WAL on, then every .sql file through its driver's executescript. */
export function plainSqlJournal(label?: string): string {
  const file = path.join(tempDir(label), "journal.db");
  const db = new Database(file);
  db.exec("PRAGMA journal_mode=WAL");
  for (const f of migrationFiles()) db.exec(fs.readFileSync(f, "utf8"));
  db.close();
  return file;
}

/** What a shell script does: the sqlite3 command-line tool, each .sql file on its standard input. */
export function sqliteCliJournal(label?: string): string {
  const file = path.join(tempDir(label), "journal.db");
  execFileSync("sqlite3", [file, "PRAGMA journal_mode=WAL;"], { stdio: "pipe" });
  for (const f of migrationFiles()) execFileSync("sqlite3", [file], { input: fs.readFileSync(f), stdio: ["pipe", "pipe", "pipe"] });
  return file;
}

export function sqliteCli(file: string, sql: string): string {
  return execFileSync("sqlite3", [file], { input: sql, encoding: "utf8" });
}

export function isoAgo(ms: number, now = Date.now()): string {
  return new Date(now - ms).toISOString();
}
