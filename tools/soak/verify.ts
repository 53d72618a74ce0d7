/**
 * The soak's checks, run on the journal after the bot and the console have stopped: every row the
 * bot was told was committed is there, every order at least at the version the bot last saw, every
 * operator action that got an answer has its audit entry and its effect (and a refused one none),
 * and the audit chain verifies.
 */
import type Database from "better-sqlite3";
import { verifyAuditLog } from "../../lib/audit/log";
import type { SoakBotReport } from "./bot";
import { LEDGER_TABLES } from "./write-ledger";

export interface RowCheck {
  expected: number;
  found: number;
  missing: number;
  /** Orders found at an older version than the bot confirmed: a lost update. */
  staleOrders: number;
  heartbeatKept: boolean;
  samples: string[];
}

export function verifyBotRows(db: Database.Database, report: SoakBotReport): RowCheck {
  const check: RowCheck = { expected: 0, found: 0, missing: 0, staleOrders: 0, heartbeatKept: true, samples: [] };
  const note = (s: string) => check.samples.length < 5 && check.samples.push(s);
  for (const table of LEDGER_TABLES) {
    const present = new Set(db.prepare(`SELECT rowid FROM ${table}`).pluck().all() as number[]);
    for (const rowid of report.rows[table]) {
      check.expected++;
      if (present.has(rowid)) check.found++;
      else {
        check.missing++;
        note(`${table} rowid ${rowid} confirmed by the bot, not in the journal`);
      }
    }
  }
  const versions = new Map(
    (db.prepare(`SELECT client_order_id AS id, version FROM orders WHERE bot_id = ?`).all(report.botId) as { id: string; version: number }[]).map((r) => [
      r.id,
      r.version,
    ]),
  );
  for (const [id, version] of Object.entries(report.orders)) {
    const found = versions.get(id);
    if (found === undefined || found < version) {
      check.staleOrders++;
      note(`order ${id} confirmed at version ${version}, journal has ${found ?? "no row"}`);
    }
  }
  if (report.heartbeatAt !== null) {
    const at = db.prepare(`SELECT heartbeat_at FROM bots WHERE bot_id = ?`).pluck().get(report.botId) as string | undefined;
    check.heartbeatKept = at !== undefined && at >= report.heartbeatAt;
    if (!check.heartbeatKept) note(`heartbeat ${report.heartbeatAt} confirmed, journal has ${at ?? "no bot"}`);
  }
  return check;
}

export type SoakActionName = "acknowledge_drift" | "resolve_order_manual" | "clear_halt";

/** An action the operator got an answer for, as the console showed it. */
export interface ConfirmedAction {
  action: SoakActionName;
  target: string;
  outcome: "applied" | "refused";
  /** The refusal's code, as the page showed it. */
  code?: string;
}

export interface ActionCheck {
  applied: number;
  refused: number;
  /** Confirmed actions with no matching audit entry, in order. */
  lost: number;
  /** Audit entries of the actor that no confirmation matched (an attempt whose answer never arrived). */
  unmatchedEntries: number;
  /** Those entries, as "action target: outcome", for the figures. */
  unmatched: string[];
  /** Applied audit entries whose effect is missing, or effects without an applied entry. */
  effectMismatches: number;
  chain: { ok: boolean; entries: number; problem?: string };
  samples: string[];
}

interface AuditRow {
  id: number;
  action: string;
  target: string;
  outcome: "applied" | "refused";
}

/** auditKey: the key the console signed its entries with (lib/audit/key.ts), null when none is kept. */
export function verifyActions(db: Database.Database, actor: string, confirmed: ConfirmedAction[], auditKey: string | null): ActionCheck {
  const check: ActionCheck = {
    applied: confirmed.filter((a) => a.outcome === "applied").length,
    refused: confirmed.filter((a) => a.outcome === "refused").length,
    lost: 0,
    unmatchedEntries: 0,
    unmatched: [],
    effectMismatches: 0,
    chain: { ok: false, entries: 0 },
    samples: [],
  };
  const note = (s: string) => check.samples.length < 5 && check.samples.push(s);
  const entries = db.prepare(`SELECT id, action, target, outcome FROM audit_log WHERE actor = ? ORDER BY id`).all(actor) as AuditRow[];
  // In order: each confirmation takes the next entry that matches it; entries skipped on the way
  // belong to attempts whose answer never came back.
  let cursor = 0;
  const matched = new Set<number>();
  for (const a of confirmed) {
    let i = cursor;
    while (i < entries.length && !(entries[i]!.action === a.action && entries[i]!.target === a.target && entries[i]!.outcome === a.outcome)) i++;
    if (i === entries.length) {
      check.lost++;
      note(`${a.action} on ${a.target} (${a.outcome}) was confirmed but has no audit entry`);
      continue;
    }
    matched.add(entries[i]!.id);
    cursor = i + 1;
  }
  check.unmatchedEntries = entries.length - matched.size;
  check.unmatched = entries.filter((e) => !matched.has(e.id)).map((e) => `${e.action} ${e.target}: ${e.outcome}`);

  // Effects: each applied entry has exactly its write, and a refused one none.
  const appliedEntries = (action: SoakActionName) => entries.filter((e) => e.action === action && e.outcome === "applied").length;
  const effects: [SoakActionName, number][] = [
    ["acknowledge_drift", db.prepare(`SELECT count(*) FROM drift_acknowledgements WHERE acknowledged_by = ?`).pluck().get(actor) as number],
    ["resolve_order_manual", db.prepare(`SELECT count(*) FROM order_events WHERE kind = 'operator' AND actor = ?`).pluck().get(actor) as number],
    ["clear_halt", db.prepare(`SELECT count(*) FROM breaker_events WHERE kind = 'clear' AND actor = ?`).pluck().get(actor) as number],
  ];
  for (const [action, found] of effects) {
    const expected = appliedEntries(action);
    if (found !== expected) {
      check.effectMismatches += Math.abs(found - expected);
      note(`${action}: ${expected} applied in the audit log, ${found} in the journal`);
    }
  }
  for (const e of entries.filter((x) => x.action === "resolve_order_manual" && x.outcome === "applied")) {
    const state = db.prepare(`SELECT state FROM orders WHERE client_order_id = ?`).pluck().get(e.target) as string | undefined;
    if (state === undefined || state === "unknown") {
      check.effectMismatches++;
      note(`order ${e.target} resolved (audit #${e.id}) but the journal has it ${state ?? "missing"}`);
    }
  }
  const chain = verifyAuditLog(db, auditKey);
  check.chain = chain.ok ? { ok: true, entries: chain.entries } : { ok: false, entries: chain.entries, problem: `entry #${chain.badId}: ${chain.problem}` };
  return check;
}
