/**
 * A journal with 40 days of history for the prune tests, written through the contract's tables
 * (the migrations' triggers keep latest_positions and the rollups): two bots of three symbols
 * reconciled every 150 s, an order every hour, and the things a prune must keep:
 *
 * - alpha: an incident 36 days ago (trip, 30 min of drift on S1, clear), acknowledged and
 *   corrected by an operator through the keyed audit log; a short drift on S2 33 days ago that no
 *   trip covers (what the rollups alone must still draw once its cycles are gone);
 * - beta: an incident opened 33 days ago and never cleared (kept to now);
 * - a book correction and an acknowledgement naming cycles outside any incident window.
 */
import type Database from "better-sqlite3";
import { appendAudit } from "@/lib/audit/log";
import { migratedJournal } from "./journal";

export const AUDIT_KEY = "prune-test-audit-key-0123456789abcdef";
const DAY = 86_400_000;
const CYCLE_MS = 150_000;
export const SYMBOLS = ["S1", "S2", "S3"] as const;

export interface PruneFixture {
  file: string;
  now: number;
  alphaTrip: number;
  alphaClear: number;
  betaTrip: number;
  /** The untripped drift of alpha S2. */
  quietDrift: { from: number; to: number };
  /** Cycles named by an operator table outside every incident window. */
  pinned: number[];
}

const iso = (t: number) => new Date(t).toISOString();

export function writePruneFixture(db: Database.Database, now: number): Omit<PruneFixture, "file"> {
  const start = Math.floor((now - 40 * DAY) / CYCLE_MS) * CYCLE_MS;
  const alphaTrip = Math.floor((now - 36 * DAY) / CYCLE_MS) * CYCLE_MS;
  const alphaClear = alphaTrip + 30 * 60_000;
  const betaTrip = Math.floor((now - 33 * DAY) / CYCLE_MS) * CYCLE_MS + 7 * 60_000;
  const quietDrift = { from: Math.floor((now - 32.5 * DAY) / CYCLE_MS) * CYCLE_MS, to: 0 };
  quietDrift.to = quietDrift.from + 10 * 60_000;
  const pinned: number[] = [];

  const cycle = db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES (?, ?, ?, 0)`);
  const line = db.prepare(`INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, 1, 100)`);
  const order = db.prepare(
    `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, avg_price, attempts, created_at, updated_at)
     VALUES (?, ?, 'mm', ?, 'buy', 1, ?, 'filled', 1, 100, 1, ?, ?)`,
  );
  const event = db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, 'bot', '{}')`);
  const breakerEvent = db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, ?, ?, ?, ?)`);

  db.transaction(() => {
    for (const bot of ["alpha", "beta"]) {
      db.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES (?, 'sim', ?, ?)`).run(bot, bot, iso(now));
      db.prepare(`INSERT INTO breakers (bot_id, halted, changed_at, changed_by) VALUES (?, 0, ?, 'bot')`).run(bot, iso(start));
    }
    let n = 0;
    for (let t = start; t <= now - 60_000; t += CYCLE_MS) {
      n += 1;
      for (const bot of ["alpha", "beta"]) {
        const alphaDrift = bot === "alpha" && t >= alphaTrip && t < alphaClear;
        const quiet = bot === "alpha" && t >= quietDrift.from && t < quietDrift.to;
        const betaDrift = bot === "beta" && t >= betaTrip;
        const outcome = alphaDrift || quiet || betaDrift ? "drift" : "clean";
        const id = Number(cycle.run(bot, iso(t), outcome).lastInsertRowid);
        SYMBOLS.forEach((s, i) => {
          const ours = (Math.floor(n / 12) + i) % 5;
          const drifts = (alphaDrift && s === "S1") || (quiet && s === "S2") || (betaDrift && s === "S3");
          line.run(id, s, ours, drifts ? ours + 2 : ours);
        });
        if (bot === "alpha" && t === alphaTrip) breakerEvent.run("alpha", iso(t + 1), "trip", "size drift on S1", "bot", id);
        if (bot === "beta" && t === betaTrip) breakerEvent.run("beta", iso(t + 1), "trip", "size drift on S3", "bot", id);
        // Named by an operator table 38 days ago and 31 days ago, outside every incident window.
        if (bot === "alpha" && (t === start + 2 * DAY || t === start + 9 * DAY)) pinned.push(id);
      }
      if (n % 24 === 0) {
        const id = `ord-${n}`;
        order.run(id, n % 2 ? "alpha" : "beta", SYMBOLS[n % 3], iso(t), iso(t), iso(t + 500));
        event.run(id, iso(t), "intent");
        event.run(id, iso(t + 500), "send");
      }
    }
    breakerEvent.run("alpha", iso(alphaClear), "clear", "checked with the venue", "operator:ana", null);
    db.prepare(
      `UPDATE breakers SET halted = 1, reason = 'size drift on S3', changed_at = ?, changed_by = 'bot', version = version + 1 WHERE bot_id = 'beta'`,
    ).run(iso(betaTrip + 1));
    const [first, second] = pinned as [number, number];
    db.prepare(
      `INSERT INTO drift_acknowledgements (bot_id, symbol, drift, ours, theirs, reconciliation_id, drift_since, note, acknowledged_by, acknowledged_at, expires_at)
       VALUES ('alpha', 'S1', 'size_drift', 1, 3, ?, ?, 'looked at it', 'operator:ana', ?, ?)`,
    ).run(first, iso(alphaTrip), iso(alphaTrip + 60_000), iso(alphaTrip + 3_600_000));
    db.prepare(
      `INSERT INTO book_corrections (bot_id, symbol, kind, ours, theirs, reconciliation_id, delta, note, corrected_by, corrected_at)
       VALUES ('alpha', 'S1', 'adopt_exchange', 1, 3, ?, 2, 'venue is right', 'operator:ana', ?)`,
    ).run(second, iso(alphaTrip + 120_000));
    for (const [at, action] of [
      [alphaTrip + 60_000, "acknowledge_drift"],
      [alphaTrip + 120_000, "correct_book"],
      [alphaClear, "clear_breaker"],
    ] as const) {
      appendAudit(db, { at: iso(at), actor: "operator:ana", action, target: "alpha/S1", outcome: "applied", detail: {} }, AUDIT_KEY);
    }
  })();
  return { now, alphaTrip, alphaClear, betaTrip, quietDrift, pinned };
}

export function pruneFixtureJournal(db: (file: string) => Database.Database, now = Date.now()): PruneFixture {
  const file = migratedJournal("prune");
  const handle = db(file);
  try {
    return { file, ...writePruneFixture(handle, now) };
  } finally {
    handle.close();
  }
}
