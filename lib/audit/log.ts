// No "server-only": scripts/audit.ts and the demo and soak tools append and verify with tsx, outside Next, where that import throws.
/**
 * Writing and reading the audit log on a better-sqlite3 connection. Appends must run inside the
 * caller's BEGIN IMMEDIATE transaction: the write lock makes "the last entry" stable between
 * reading its hash and inserting the next one. Every entry is keyed (lib/audit/chain.ts); the key
 * comes from lib/audit/key.ts and is passed in, never read from the journal.
 */
import type Database from "better-sqlite3";
import type { AuditRow } from "../db/schema";
import { GENESIS, keyedEntryHash, verifyChain, type AuditFields, type AuditHead, type ChainCheck, type ChainEntry } from "./chain";

export interface AuditEntryInput {
  at: string;
  actor: string;
  action: string;
  target: string;
  outcome: "applied" | "refused";
  code?: string | null;
  detail: Record<string, unknown>;
}

/** Detail is bounded: a hostile or mistaken 10 MB form field must not bloat the journal. */
const MAX_DETAIL_CHARS = 16_384;

function boundedDetail(detail: Record<string, unknown>): string {
  const text = JSON.stringify(detail);
  if (text.length <= MAX_DETAIL_CHARS) return text;
  return JSON.stringify({ truncated: true, originalLength: text.length, head: text.slice(0, MAX_DETAIL_CHARS - 200) });
}

/** The fields of the entry after `last` (null: the first entry): one definition for both engines. */
export function nextAuditEntry(last: { id: number; hash: string } | null, input: AuditEntryInput, key: string): ChainEntry {
  const fields: AuditFields = {
    id: (last?.id ?? 0) + 1,
    at: input.at,
    actor: input.actor,
    action: input.action,
    target: input.target.slice(0, 300),
    outcome: input.outcome,
    code: input.code ?? null,
    detail: boundedDetail(input.detail),
  };
  const prevHash = last?.hash ?? GENESIS;
  return { ...fields, prevHash, hash: keyedEntryHash(prevHash, fields, key) };
}

/** Appends one keyed entry; returns the new head of the chain (publish it once the transaction commits). */
export function appendAudit(db: Database.Database, input: AuditEntryInput, key: string): AuditHead {
  if (!db.inTransaction) throw new Error("appendAudit must run inside the action's transaction");
  const last = db.prepare(`SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1`).get() as Pick<AuditRow, "id" | "hash"> | undefined;
  const e = nextAuditEntry(last ?? null, input, key);
  db.prepare(`INSERT INTO audit_log (id, at, actor, action, target, outcome, code, detail, prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(
    e.id,
    e.at,
    e.actor,
    e.action,
    e.target,
    e.outcome,
    e.code,
    e.detail,
    e.prevHash,
    e.hash,
  );
  return { entries: e.id, hash: e.hash };
}

/** key null: no key was found, so only an unkeyed (pre-key) log can verify. */
export function verifyAuditLog(db: Database.Database, key: string | null, expectHead?: AuditHead): ChainCheck {
  const rows = db
    .prepare(`SELECT id, at, actor, action, target, outcome, code, detail, prev_hash AS prevHash, hash FROM audit_log ORDER BY id`)
    .iterate() as Iterable<ChainEntry>;
  return verifyChain(rows, { key, expectHead });
}
