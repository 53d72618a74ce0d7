/** Driving operator actions through the real guard against a real journal. */
import Database from "better-sqlite3";
import { runGuarded, type ActingUser, type ActionSpec } from "@/lib/actions/guard";
import { openJournalWriter } from "@/lib/db/journal-file";
import { LimitedLog } from "@/lib/http/rate-window";
import { migrationsDir } from "./journal";
import type { z } from "zod";
import { consoleAuditKey } from "@/lib/audit/key";

export const ana: ActingUser = { name: "ana", role: "operator" };
export const ben: ActingUser = { name: "ben", role: "operator" };
export const vic: ActingUser = { name: "vic", role: "viewer" };

export function consoleWriter(file: string) {
  return openJournalWriter(file, { migrationsDir }).db;
}

/**
 * What the guard wrote to the server log for posts without an operator, in the order written. The
 * same LimitedLog as the server's, with a budget a test never reaches.
 */
export const refusalLines: string[] = [];
const refusalLog = new LimitedLog({ linesPerWindow: Number.MAX_SAFE_INTEGER, windowMs: 60_000, maxLineChars: 400, write: (line) => refusalLines.push(line) });

export function act<S extends z.ZodType, P, T>(
  db: Database.Database,
  spec: ActionSpec<S, P, T>,
  user: ActingUser | null,
  input: Record<string, unknown>,
  now: Date,
) {
  return runGuarded(spec, { db, user, now: () => now, client: "192.0.2.7", refusalLog, auditKey: consoleAuditKey() }, input);
}

export function auditCount(file: string): number {
  const db = new Database(file, { readonly: true });
  const n = db.prepare(`SELECT count(*) FROM audit_log`).pluck().get() as number;
  db.close();
  return n;
}

export function auditRows(file: string) {
  const db = new Database(file, { readonly: true });
  const rows = db.prepare(`SELECT id, actor, action, target, outcome, code, detail FROM audit_log ORDER BY id`).all() as {
    id: number;
    actor: string;
    action: string;
    target: string;
    outcome: string;
    code: string | null;
    detail: string;
  }[];
  db.close();
  return rows;
}

/** Every table but the audit log, as data: what "changes nothing else" compares. */
export function snapshotExceptAudit(file: string): Record<string, unknown[]> {
  const db = new Database(file, { readonly: true });
  const tables = db
    .prepare(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name <> 'audit_log' ORDER BY name`)
    .pluck()
    .all() as string[];
  const out: Record<string, unknown[]> = {};
  // Sorted as data: the rollup tables are WITHOUT ROWID, so there is no rowid to order by.
  for (const t of tables)
    out[t] = db
      .prepare(`SELECT * FROM "${t}"`)
      .all()
      .map((r) => JSON.stringify(r))
      .sort();
  db.close();
  return out;
}
