/**
 * One journal with an incident in it, written by the real JournalWriter trading on the simulator:
 *
 * - bot-a buys 500 AAPL and reconciles cleanly; 30 s in, a position it never opened appears
 *   (ETHUSDT +3): the cycle drifts, the bot closes it reduce-only and trips with that cycle as
 *   cause. Two minutes later operator:ana clears it by raw SQL, the way the console will, with a
 *   reason full of commas, quotes and a newline. Then a clean cycle.
 * - bot-b, a minute in, loses the reply to a buy of 2 ETHUSDT and cannot look it up: the order is
 *   unknown and the breaker trips, and stays tripped.
 * - With `longLostOrder`, bot-b's story goes on as in the demo run of issue 16: its lookups keep
 *   failing every 20 s for 39 minutes (117 identical rows) while it reconciles every minute and
 *   finds ETHUSDT +2 it does not hold (the lost buy, filled); operator:ana acknowledges that drift
 *   after 5 minutes, resolves the order by hand later, and operator:ben clears the halt: each
 *   written as the console writes it (its table, the audit entry), with a note.
 */
import { appendAudit } from "@/lib/audit/log";
import { botOnSim, SYMBOLS } from "./bot";

/** The audit key of the entries the helper writes: the chain is not what these journals test. */
const HELPER_AUDIT_KEY = "incident-journal-helper-audit-key-0123456789";
export const ACK_NOTE = "ETHUSDT +2 is very likely the lost buy itself; checking the venue";
export const RESOLVE_NOTE = "venue order screen shows it filled: 2 at the ask\nticket OPS-41";
export const CLEAR_NOTE = "order settled by hand, books agree; resuming";
/** bot-b's story with `longLostOrder`: seconds after its trip. */
export const LONG_STORY = { ackAfterS: 300, lookups: 117, lookupEveryS: 20, resolveAfterS: 117 * 20 + 30, clearAfterS: 117 * 20 + 90 } as const;

export const OPERATOR_REASON = 'checked with the desk, "ETH +3" was a manual test;\nclosed by the bot, fine to resume';

export interface IncidentScenario {
  file: string;
  startAt: Date;
  botA: { tripAt: string; tripId: number; clearAt: string; clearId: number; reconciliationId: number; endAt: string };
  botB: { tripAt: string; tripId: number; clientOrderId: string };
  /** Every event the scenario wrote, by table. */
  counts: { orderEvents: number; reconciliations: number; breakerEvents: number };
  close: () => void;
}

export async function writeIncidentScenario(opts: { startAt?: Date; file?: string; longLostOrder?: boolean } = {}): Promise<IncidentScenario> {
  const startAt = opts.startAt ?? new Date("2026-08-10T15:30:00.000Z");
  const a = botOnSim({ botId: "bot-a", prefix: "q500", seed: 7, startAt, file: opts.file });
  const b = botOnSim({ botId: "bot-b", prefix: "b700", seed: 8, startAt, file: a.file });
  const symbols = SYMBOLS.map((s) => s.symbol);
  try {
    await a.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: startAt.toISOString() });
    await a.writer.reconcile({ symbols });
    a.sim.advance(15_000);
    await a.writer.reconcile({ symbols });
    a.sim.advance(15_000);
    a.sim.setPositionBehindBot("ETHUSDT", 3);
    const drift = await a.writer.reconcile({ symbols });
    if (drift.outcome !== "drift" || !drift.tripped) throw new Error(`scenario: expected a tripping drift, got ${JSON.stringify(drift)}`);

    b.sim.advance(60_000);
    b.sim.inject({ on: "create", fault: "timeout_after_accept" });
    b.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
    const lost = await b.writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 2, bar: b.sim.now().toISOString() });
    if (lost.kind !== "unknown") throw new Error(`scenario: expected an unknown order, got ${lost.kind}`);

    a.sim.advance(120_000);
    const clearAt = a.sim.now().toISOString();
    const clearId = a.db
      .transaction(() => {
        a.db
          .prepare(
            `UPDATE breakers SET halted = 0, reason = ?, changed_at = ?, changed_by = 'operator:ana', version = version + 1
             WHERE bot_id = 'bot-a' AND halted = 1`,
          )
          .run(OPERATOR_REASON, clearAt);
        return Number(
          a.db
            .prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-a', ?, 'clear', ?, 'operator:ana', NULL)`)
            .run(clearAt, OPERATOR_REASON).lastInsertRowid,
        );
      })
      .immediate();
    a.sim.advance(15_000);
    await a.writer.reconcile({ symbols });
    const endAt = a.sim.now().toISOString();

    if (opts.longLostOrder) {
      const id = lost.order.clientOrderId;
      const tripAt = Date.parse(a.rows<{ at: string }>(`SELECT at FROM breaker_events WHERE bot_id = 'bot-b' AND kind = 'trip'`)[0]!.at);
      for (let i = 1; i <= LONG_STORY.lookups; i++) {
        b.sim.advance(LONG_STORY.lookupEveryS * 1000);
        await b.writer.refresh(id);
        if (i % 3 === 0) await b.writer.reconcile({ symbols });
      }
      const at = (s: number) => new Date(tripAt + s * 1000).toISOString();
      const w = a.db;
      w.transaction(() => {
        const ackAt = at(LONG_STORY.ackAfterS);
        const cycle = w
          .prepare(
            `SELECT r.id, p.ours, p.theirs FROM reconciliations r JOIN reconciliation_positions p ON p.reconciliation_id = r.id AND p.symbol = 'ETHUSDT'
             WHERE r.bot_id = 'bot-b' AND r.at <= ? AND r.outcome = 'drift' ORDER BY r.at DESC LIMIT 1`,
          )
          .get(ackAt) as { id: number; ours: number; theirs: number };
        w.prepare(
          `INSERT INTO drift_acknowledgements (bot_id, symbol, drift, ours, theirs, reconciliation_id, drift_since, note, acknowledged_by, acknowledged_at, expires_at)
           VALUES ('bot-b', 'ETHUSDT', 'unknown_position', ?, ?, ?, NULL, ?, 'operator:ana', ?, ?)`,
        ).run(cycle.ours, cycle.theirs, cycle.id, ACK_NOTE, ackAt, at(LONG_STORY.ackAfterS + 3600));
        appendAudit(
          w,
          {
            at: ackAt,
            actor: "operator:ana",
            action: "acknowledge_drift",
            target: "bot-b/ETHUSDT",
            outcome: "applied",
            detail: { drift: "unknown_position", ours: cycle.ours, theirs: cycle.theirs, reconciliationId: cycle.id, note: ACK_NOTE },
          },
          HELPER_AUDIT_KEY,
        );
      }).immediate();
      w.transaction(() => {
        const order = w.prepare(`SELECT state, version, qty FROM orders WHERE client_order_id = ?`).get(id) as { state: string; version: number; qty: number };
        w.prepare(`UPDATE orders SET state = 'filled', filled_qty = qty, updated_at = ?, version = version + 1 WHERE client_order_id = ?`).run(
          at(LONG_STORY.resolveAfterS),
          id,
        );
        w.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, 'operator', 'operator:ana', ?)`).run(
          id,
          at(LONG_STORY.resolveAfterS),
          JSON.stringify({ resolvedBy: "hand", status: "filled", filledQty: order.qty, avgPrice: null, note: RESOLVE_NOTE }),
        );
        appendAudit(
          w,
          {
            at: at(LONG_STORY.resolveAfterS),
            actor: "operator:ana",
            action: "resolve_order_manual",
            target: id,
            outcome: "applied",
            detail: { before: { state: order.state, version: order.version }, after: { state: "filled", filledQty: order.qty }, note: RESOLVE_NOTE },
          },
          HELPER_AUDIT_KEY,
        );
      }).immediate();
      w.transaction(() => {
        const clearAt = at(LONG_STORY.clearAfterS);
        w.prepare(
          `UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = 'operator:ben', version = version + 1 WHERE bot_id = 'bot-b'`,
        ).run(clearAt);
        w.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ('bot-b', ?, 'clear', ?, 'operator:ben', NULL)`).run(
          clearAt,
          CLEAR_NOTE,
        );
        appendAudit(
          w,
          { at: clearAt, actor: "operator:ben", action: "clear_halt", target: "bot-b", outcome: "applied", detail: { reason: CLEAR_NOTE } },
          HELPER_AUDIT_KEY,
        );
      }).immediate();
    }

    const trip = (bot: string) =>
      a.rows<{ id: number; at: string; reconciliation_id: number | null }>(
        `SELECT id, at, reconciliation_id FROM breaker_events WHERE bot_id = ? AND kind = 'trip'`,
        bot,
      )[0]!;
    const tripA = trip("bot-a");
    const tripB = trip("bot-b");
    const count = (table: string) => a.rows<{ n: number }>(`SELECT count(*) AS n FROM ${table}`)[0]!.n;
    return {
      file: a.file,
      startAt,
      botA: { tripAt: tripA.at, tripId: tripA.id, clearAt, clearId, reconciliationId: tripA.reconciliation_id!, endAt },
      botB: { tripAt: tripB.at, tripId: tripB.id, clientOrderId: lost.order.clientOrderId },
      counts: { orderEvents: count("order_events"), reconciliations: count("reconciliations"), breakerEvents: count("breaker_events") },
      close: () => {
        a.close();
        b.close();
      },
    };
  } catch (error) {
    a.close();
    b.close();
    throw error;
  }
}
