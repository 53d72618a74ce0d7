import { afterEach, describe, expect, it } from "vitest";
import { getBotClearView } from "@/lib/queries/bot-clear";
import { botOnSim } from "../helpers/bot";
import { consoleDb } from "../helpers/console-db";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

const START = new Date("2026-08-10T15:30:00Z");
const LIMITS = { heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000, twoPersonClear: false };

/** bot-a holds 500 AAPL; at cycle 3 someone closes 200 by hand (the breaker trips); from cycle 6 the books agree again. */
async function haltedWithEndedDrift() {
  const bot = botOnSim({ startAt: START });
  cleanup.push(bot.close);
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: START.toISOString() });
  for (let i = 1; i <= 8; i++) {
    bot.sim.advance(1_000);
    if (i === 3) bot.sim.setPositionBehindBot("AAPL", 300);
    if (i === 6) bot.sim.setPositionBehindBot("AAPL", 500);
    await bot.writer.reconcile({ symbols: ["AAPL"] });
    bot.writer.heartbeat();
  }
  const c = consoleDb(bot.file);
  cleanup.push(c.close);
  const acknowledge = (p: { by: string; at: string; note: string; reconciliationId: number }) =>
    bot.db
      .prepare(
        `INSERT INTO drift_acknowledgements (bot_id, symbol, drift, ours, theirs, reconciliation_id, drift_since, note, acknowledged_by, acknowledged_at, expires_at)
         VALUES ('bot-a', 'AAPL', 'size_drift', 500, 300, ?, NULL, ?, ?, ?, ?)`,
      )
      .run(p.reconciliationId, p.note, p.by, p.at, new Date(Date.parse(p.at) + 3_600_000).toISOString());
  const drifting = bot.rows<{ id: number; at: string }>(
    `SELECT r.id, r.at FROM reconciliations r JOIN reconciliation_positions p ON p.reconciliation_id = r.id WHERE p.ours <> p.theirs ORDER BY r.id DESC LIMIT 1`,
  )[0]!;
  return { db: c.db, now: new Date(bot.sim.now().getTime() + 1_000), acknowledge, drifting, bot };
}

describe("the bot page's drifts since the trip", () => {
  it("lists an ended drift nobody acknowledged for its form, and none as acknowledged", async () => {
    const { db, now } = await haltedWithEndedDrift();
    const view = (await getBotClearView({ db, botId: "bot-a", now, ...LIMITS }))!;
    expect(view.drifts.map((d) => d.symbol)).toEqual(["AAPL"]);
    expect(view.acknowledged).toEqual([]);
  });

  it("moves an acknowledged drift to the acknowledged list, with by whom, when and the note", async () => {
    const { db, now, acknowledge, drifting } = await haltedWithEndedDrift();
    acknowledge({ by: "operator:bo", at: now.toISOString(), note: "an earlier look", reconciliationId: drifting.id });
    acknowledge({ by: "operator:ana", at: now.toISOString(), note: "closed by hand on the venue, put back", reconciliationId: drifting.id });
    const view = (await getBotClearView({ db, botId: "bot-a", now, ...LIMITS }))!;
    expect(view.drifts).toEqual([]);
    // The latest acknowledgement of the symbol, once.
    expect(view.acknowledged).toEqual([
      { symbol: "AAPL", drift: "size_drift", ours: 500, theirs: 300, by: "operator:ana", at: now.toISOString(), note: "closed by hand on the venue, put back" },
    ]);
  });
});

describe("the bot page's link to the story of its halt", () => {
  it("names the trip that began the current halt, the incident its story tells", async () => {
    const { db, now, bot } = await haltedWithEndedDrift();
    const trips = bot.rows<{ id: number }>(`SELECT id FROM breaker_events WHERE kind = 'trip' ORDER BY id`);
    expect(trips).toHaveLength(1);
    const view = (await getBotClearView({ db, botId: "bot-a", now, ...LIMITS }))!;
    expect(view.bot.breaker?.halted).toBe(true);
    expect(view.haltTripId).toBe(trips[0]!.id);
  });

  it("names none while the bot runs, nor for a halt whose trip the journal never recorded (its last event is the clear of an earlier one)", async () => {
    const { db, now, bot } = await haltedWithEndedDrift();
    bot.db
      .prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor) VALUES ('bot-a', ?, 'clear', 'books agree', 'operator:ana')`)
      .run(now.toISOString());
    bot.db.prepare(`UPDATE breakers SET halted = 0, version = version + 1 WHERE bot_id = 'bot-a'`).run();
    expect((await getBotClearView({ db, botId: "bot-a", now, ...LIMITS }))!.haltTripId).toBeNull();
    // Halted again by a writer that skipped the trip's event: the latest trip is the earlier, cleared incident's.
    bot.db.prepare(`UPDATE breakers SET halted = 1, reason = 'size drift AAPL', version = version + 1 WHERE bot_id = 'bot-a'`).run();
    const view = (await getBotClearView({ db, botId: "bot-a", now, ...LIMITS }))!;
    expect(view.bot.breaker?.halted).toBe(true);
    expect(view.haltTripId).toBeNull();
  });
});
