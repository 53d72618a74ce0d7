import "server-only";
import type { JournalDb } from "../db/console";
import { byteOrder } from "../db/dialect";
import { queryOf, type JournalQuery } from "../db/query";
import { GENESIS } from "../audit/chain";
import type { AuditRow } from "../db/schema";

export interface AuditView {
  entries: Pick<AuditRow, "id" | "at" | "actor" | "action" | "target" | "outcome" | "code" | "detail">[];
  actors: string[];
  actions: string[];
  head: { entries: number; hash: string; lastAt: string | null };
  /** Id to pass as `before` for the next page, or null at the end. */
  nextBefore: number | null;
}

export const AUDIT_PAGE = 100;

const AUDIT_COLUMNS = "id, at, actor, action, target, outcome, code, detail";
const HEAD_SQL = "SELECT id, hash, at FROM audit_log ORDER BY id DESC LIMIT 1";

/**
 * Newest first, a page at a time, filtered by actor and action on their indexes. An actor of
 * `operator` or `viewer` alone matches every account of that role (a range on the actor index).
 * Reads through the engine-neutral handle (lib/db/query.ts): a SQLite or a PostgreSQL journal.
 */
export async function listAudit(params: {
  db: JournalDb | JournalQuery;
  actor?: string | null;
  action?: string | null;
  before?: number | null;
}): Promise<AuditView> {
  const q = queryOf(params.db);
  const where: string[] = [];
  const binds: unknown[] = [];
  if (params.actor === "operator" || params.actor === "viewer") {
    // `;` is the character after `:`: every `<role>:<name>`, and nothing else.
    where.push("actor >= ?", "actor < ?");
    binds.push(`${params.actor}:`, `${params.actor};`);
  } else if (params.actor) {
    where.push("actor = ?");
    binds.push(params.actor);
  }
  if (params.action) {
    where.push("action = ?");
    binds.push(params.action);
  }
  if (params.before) {
    where.push("id < ?");
    binds.push(params.before);
  }
  const page = `SELECT ${AUDIT_COLUMNS} FROM audit_log${where.length ? ` WHERE ${where.join(" AND ")}` : ""} ORDER BY id DESC LIMIT ${AUDIT_PAGE + 1}`;
  // Distinct values walk their indexes; the list is bounded so a flood of names cannot bloat the page.
  const [rows, actors, actions, head] = await Promise.all([
    q.all<AuditView["entries"][number]>(page, binds),
    q.all<{ v: string }>("SELECT DISTINCT actor AS v FROM audit_log ORDER BY actor LIMIT 200"),
    q.all<{ v: string }>("SELECT DISTINCT action AS v FROM audit_log ORDER BY action LIMIT 50"),
    q.get<Pick<AuditRow, "id" | "hash" | "at">>(HEAD_SQL),
  ]);
  return {
    entries: rows.slice(0, AUDIT_PAGE),
    actors: actors.map((r) => r.v),
    actions: actions.map((r) => r.v),
    head: headOf(head),
    nextBefore: rows.length > AUDIT_PAGE ? rows[AUDIT_PAGE - 1]!.id : null,
  };
}

const headOf = (head: Pick<AuditRow, "id" | "hash" | "at"> | undefined): AuditView["head"] =>
  head ? { entries: head.id, hash: head.hash, lastAt: head.at } : { entries: 0, hash: GENESIS, lastAt: null };

/** The chain's length and its last hash ("genesis" before the first entry): one seek on the primary key. */
export async function getAuditHead({ db }: { db: JournalDb | JournalQuery }): Promise<AuditView["head"]> {
  return headOf(await queryOf(db).get<Pick<AuditRow, "id" | "hash" | "at">>(HEAD_SQL));
}

/** How many entries each action has per outcome (applied, refused): one walk of the action index. */
export function countAuditActions({ db }: { db: JournalDb | JournalQuery }): Promise<{ action: string; outcome: AuditRow["outcome"]; count: number }[]> {
  const q = queryOf(db);
  return q.all<{ action: string; outcome: AuditRow["outcome"]; count: number }>(
    `SELECT action, outcome, count(*) AS count FROM audit_log GROUP BY action, outcome ORDER BY ${byteOrder(q.dialect, "action")}, ${byteOrder(q.dialect, "outcome")}`,
  );
}
