import "server-only";
import { and, desc, eq, gte, lt, sql, type SQL } from "drizzle-orm";
import type { JournalDb } from "../db/console";
import { GENESIS } from "../audit/chain";
import { auditLog, type AuditRow } from "../db/schema";

export interface AuditView {
  entries: Pick<AuditRow, "id" | "at" | "actor" | "action" | "target" | "outcome" | "code" | "detail">[];
  actors: string[];
  actions: string[];
  head: { entries: number; hash: string; lastAt: string | null };
  /** Id to pass as `before` for the next page, or null at the end. */
  nextBefore: number | null;
}

export const AUDIT_PAGE = 100;

/**
 * Newest first, a page at a time, filtered by actor and action on their indexes. An actor of
 * `operator` or `viewer` alone matches every account of that role (a range on the actor index).
 */
export function listAudit(params: { db: JournalDb; actor?: string | null; action?: string | null; before?: number | null }): AuditView {
  const { db } = params;
  const where: SQL[] = [];
  if (params.actor === "operator" || params.actor === "viewer") {
    // `;` is the character after `:`: every `<role>:<name>`, and nothing else.
    where.push(gte(auditLog.actor, `${params.actor}:`), lt(auditLog.actor, `${params.actor};`));
  } else if (params.actor) where.push(eq(auditLog.actor, params.actor));
  if (params.action) where.push(eq(auditLog.action, params.action));
  if (params.before) where.push(lt(auditLog.id, params.before));
  const rows = db
    .select({
      id: auditLog.id,
      at: auditLog.at,
      actor: auditLog.actor,
      action: auditLog.action,
      target: auditLog.target,
      outcome: auditLog.outcome,
      code: auditLog.code,
      detail: auditLog.detail,
    })
    .from(auditLog)
    .where(where.length ? and(...where) : undefined)
    .orderBy(desc(auditLog.id))
    .limit(AUDIT_PAGE + 1)
    .all();
  // Distinct values walk their indexes; the list is bounded so a flood of names cannot bloat the page.
  const actors = db.all<{ v: string }>(sql`SELECT DISTINCT actor AS v FROM audit_log ORDER BY actor LIMIT 200`).map((r) => r.v);
  const actions = db.all<{ v: string }>(sql`SELECT DISTINCT action AS v FROM audit_log ORDER BY action LIMIT 50`).map((r) => r.v);
  return {
    entries: rows.slice(0, AUDIT_PAGE),
    actors,
    actions,
    head: getAuditHead({ db }),
    nextBefore: rows.length > AUDIT_PAGE ? rows[AUDIT_PAGE - 1]!.id : null,
  };
}

/** The chain's length and its last hash ("genesis" before the first entry): one seek on the primary key. */
export function getAuditHead({ db }: { db: JournalDb }): AuditView["head"] {
  const head = db.get<Pick<AuditRow, "id" | "hash" | "at"> | undefined>(sql`SELECT id, hash, at FROM audit_log ORDER BY id DESC LIMIT 1`);
  return head ? { entries: head.id, hash: head.hash, lastAt: head.at } : { entries: 0, hash: GENESIS, lastAt: null };
}

/** How many entries each action has per outcome (applied, refused): one walk of the action index. */
export function countAuditActions({ db }: { db: JournalDb }): { action: string; outcome: AuditRow["outcome"]; count: number }[] {
  return db.all<{ action: string; outcome: AuditRow["outcome"]; count: number }>(
    sql`SELECT action, outcome, count(*) AS count FROM audit_log GROUP BY action, outcome ORDER BY action, outcome`,
  );
}
