// No "server-only": the tests (and, next, `npm run audit -- verify` on a PostgreSQL source) verify with it outside Next, where that import throws.
/**
 * The audit log on a PostgreSQL journal: the same keyed chain as lib/audit/log.ts, the same entry
 * fields (nextAuditEntry), other statements. PostgreSQL has several writers at once, so an append
 * first takes the transaction-scoped lock the chain trigger also waits on
 * (`pg_advisory_xact_lock(hashtext('driftwatch.audit_log'))`, docs/journal.md "PostgreSQL"): under
 * READ COMMITTED the last entry read after that lock is the last committed one, and stays last
 * until this transaction ends. Taking the lock twice in one transaction is free.
 */
import type { ClientBase } from "pg";
import { verifyChain, type AuditHead, type ChainCheck, type ChainEntry } from "./chain";
import { nextAuditEntry, type AuditEntryInput } from "./log";

export const AUDIT_LOCK_SQL = "SELECT pg_advisory_xact_lock(hashtext('driftwatch.audit_log'))";

/** Appends one keyed entry inside the caller's transaction; returns the new head (publish it after COMMIT). */
export async function appendAuditPg(client: ClientBase, input: AuditEntryInput, key: string): Promise<AuditHead> {
  await client.query(AUDIT_LOCK_SQL);
  const last = await client.query<{ id: string; hash: string }>(`SELECT id, hash FROM audit_log ORDER BY id DESC LIMIT 1`);
  const row = last.rows[0];
  // PostgreSQL text cannot hold NUL: a target typed with one is kept with U+FFFD there, and hashed so.
  const e = nextAuditEntry(row ? { id: Number(row.id), hash: row.hash } : null, { ...input, target: input.target.replaceAll("\u0000", "\uFFFD") }, key);
  await client.query(
    `INSERT INTO audit_log (id, at, actor, action, target, outcome, code, detail, prev_hash, hash) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`,
    [e.id, e.at, e.actor, e.action, e.target, e.outcome, e.code, e.detail, e.prevHash, e.hash],
  );
  return { entries: e.id, hash: e.hash };
}

/** The whole chain checked, as `npm run audit -- verify` does on SQLite. key null: no key was found. */
export async function verifyAuditLogPg(client: ClientBase, key: string | null, expectHead?: AuditHead): Promise<ChainCheck> {
  const rows = await client.query<ChainEntry>(
    `SELECT id, at, actor, action, target, outcome, code, detail, prev_hash AS "prevHash", hash FROM audit_log ORDER BY audit_log.id`,
  );
  return verifyChain(
    rows.rows.map((r) => ({ ...r, id: Number(r.id) })),
    { key, expectHead },
  );
}
