/**
 * A small journal with three incidents of one bot, pruned as a new user would (--keep 2d,
 * --keep-incidents 2d, --keep-orders 2d, --keep-rollups 3d): a lost order's trip and a drift's
 * trip three days old, whose windows lost their cycles, and a recent one after every horizon.
 * Cycles every five minutes for four days: built and pruned in well under a second.
 */
import Database from "better-sqlite3";
import { NO_BOT_PACE, pruneJournal, type PruneReport } from "@/lib/db/journal-prune";
import { migratedJournal } from "./journal";

const DAY = 86_400_000;
const MIN = 60_000;
const iso = (t: number) => new Date(t).toISOString();

export const CAUSE_ORDER = "alpha-4f979874d69871438130";
export const NEARBY_ORDER = "alpha-0a1b2c3d4e5f60718293";

export interface PrunedIncidents {
  file: string;
  now: number;
  /** Trip ids: the lost order's (named in its reason), the drift's (names no order), the recent one's. */
  lostOrder: number;
  drift: number;
  recent: number;
  report: PruneReport;
  /** journal_prunes.started_at: the date the console says the detail was pruned on. */
  prunedOn: string;
}

export async function prunedIncidentJournal(): Promise<PrunedIncidents> {
  const file = migratedJournal("pruned-incident");
  const now = Date.parse("2026-12-02T03:00:00.000Z");
  const db = new Database(file, { timeout: 5000 });
  const trip1 = now - 3 * DAY + 1500;
  const trip2 = now - 3 * DAY + 4 * 3_600_000;
  const trip3 = now - 2 * 3_600_000;
  const ids: number[] = [];
  db.transaction(() => {
    db.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES ('alpha', 'sim', 'alpha', ?)`).run(iso(now));
    db.prepare(`INSERT INTO breakers (bot_id, halted, changed_at, changed_by) VALUES ('alpha', 0, ?, 'operator:oncall')`).run(iso(trip3 + 3_600_000));
    const cycle = db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES ('alpha', ?, 'clean', 0)`);
    const line = db.prepare(
      `INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, 'ETHUSDT', 1, 1, 1, 100)`,
    );
    for (let t = now - 4 * DAY; t < now; t += 5 * MIN) line.run(cycle.run(iso(t)).lastInsertRowid);
    const order = db.prepare(
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, avg_price, attempts, created_at, updated_at)
       VALUES (?, 'alpha', 'mm', 'ETHUSDT', 'buy', 1, ?, ?, ?, 100, 1, ?, ?)`,
    );
    const event = db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, 'bot', '{}')`);
    // The lost order: its reply never came, the trip names it, it proved absent before the clear.
    order.run(CAUSE_ORDER, iso(trip1 - MIN), "absent", 0, iso(trip1 - MIN), iso(trip1 + 50 * MIN));
    for (const [t, kind] of [
      [trip1 - MIN, "intent"],
      [trip1 - MIN + 100, "send"],
      [trip1 - 1000, "timeout"],
      [trip1 + 50 * MIN, "lookup_absent"],
    ] as const)
      event.run(CAUSE_ORDER, iso(t), kind);
    // A filled order of the same minutes that nothing names: it goes with the pruned window.
    order.run(NEARBY_ORDER, iso(trip1 - 30_000), "filled", 1, iso(trip1 - 30_000), iso(trip1 - 29_000));
    event.run(NEARBY_ORDER, iso(trip1 - 30_000), "intent");
    const breaker = db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('alpha', ?, ?, ?, ?, NULL)`);
    const incident = (trip: number, clear: number, reason: string) => {
      ids.push(Number(breaker.run(iso(trip), "trip", reason, "bot").lastInsertRowid));
      breaker.run(iso(clear), "clear", `reviewed: ${reason}`, "operator:oncall");
    };
    incident(trip1, trip1 + 51 * MIN, `order ${CAUSE_ORDER} unknown: lookup failed: no answer from the venue about ${CAUSE_ORDER}: connection reset`);
    incident(trip2, trip2 + 20 * MIN, "size drift ETHUSDT: book +1 vs exchange +2");
    incident(trip3, trip3 + 30 * MIN, "size drift ETHUSDT: book +2 vs exchange +3");
  })();
  const report = await pruneJournal({
    db,
    keepMs: 2 * DAY,
    keepIncidentsMs: 2 * DAY,
    keepOrdersMs: 2 * DAY,
    keepRollupsMs: 3 * DAY,
    now: new Date(now),
    actor: "cli:test",
    ...NO_BOT_PACE,
  });
  const prunedOn = db.prepare(`SELECT started_at FROM journal_prunes`).pluck().get() as string;
  db.close();
  return { file, now, lostOrder: ids[0]!, drift: ids[1]!, recent: ids[2]!, report, prunedOn };
}
