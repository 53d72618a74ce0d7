/**
 * A journal with a story, written by the project's JournalWriter trading on the simulator, one
 * reconciliation a second of simulated time from `startAt`. What a symbol page must show:
 *
 *  cycle   1      bot-a buys 500 AAPL; clean cycles follow
 *  cycle  61      someone closes 200 AAPL by hand: size drift, trip            (10 cycles)
 *  cycle  71      the 200 is put back by hand: clean
 *  after  75      an operator clears the breaker
 *  cycle  90      0.5 BTCUSDT appears that the bot never opened: unknown position, the bot
 *                 closes it reduce-only and trips                              (1 cycle)
 *  after  95      an operator clears the breaker
 *  cycle 120      the exchange shows 499 AAPL for one cycle: size drift, trip  (1 cycle)
 *  after 125      an operator clears the breaker
 *  cycle 150      bot-a sells 100 AAPL; the reply is lost, a lookup finds it filled
 *  cycle 180      last cycle; then an ETHUSDT buy whose lookups all fail: unknown, trip (left halted)
 */
import { JournalWriter } from "@/lib/bot/journal-writer";
import type { Decision } from "@/lib/journal/client-order-id";
import { openJournalWriter } from "@/lib/db/journal-file";
import { SimExchange } from "@/lib/exchange/simulator";
import { SYMBOLS } from "./bot";
import { migratedJournal, migrationsDir } from "./journal";

export const BUY_500: Decision = { strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" };
/** The contract's test vector: this decision's id with prefix q500. */
export const BUY_500_ID = "q500-d802a55a0df8ed0d3231";
export const SELL_100: Decision = { ...BUY_500, side: "sell", qty: 100, bar: "2026-08-10T15:32:30Z" };
export const BUY_ETH: Decision = { strategy: "media_movil", symbol: "ETHUSDT", side: "buy", qty: 2, bar: "2026-08-10T15:33:00Z" };

export interface DriftScenario {
  file: string;
  /** `at` of each cycle, 1-based (cycleAt[0] is unused). */
  cycleAt: string[];
  clears: string[];
  /** Simulated time after the last write (the latest heartbeat). */
  endAt: string;
}

export async function writeDriftScenario(opts: { startAt: Date; file?: string; cycles?: number }): Promise<DriftScenario> {
  const file = opts.file ?? migratedJournal("drift-scenario");
  const sim = new SimExchange({ seed: 11, symbols: SYMBOLS, startAt: opts.startAt });
  const { db } = openJournalWriter(file, { migrationsDir });
  const steps = new Map(SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
  const writer = new JournalWriter({
    db,
    botId: "bot-a",
    prefix: "q500",
    exchange: sim,
    qtyStepFor: (s) => steps.get(s),
    clock: () => sim.now(),
    sleep: async (ms) => sim.advance(ms),
    retry: { attempts: 2, backoffMs: 200 },
  });
  /** What the console does when an operator clears a halt: one short transaction, with its history row. */
  const clear = (who: string) => {
    const at = sim.now().toISOString();
    db.transaction(() => {
      db.prepare(
        `UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = ?, version = version + 1 WHERE bot_id = 'bot-a' AND halted = 1`,
      ).run(at, who);
      db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor) VALUES ('bot-a', ?, 'clear', 'checked the books by hand', ?)`).run(at, who);
    }).immediate();
    clears.push(at);
  };

  const cycleAt: string[] = [""];
  const clears: string[] = [];
  try {
    writer.register();
    await writer.sendOnce(BUY_500);
    const total = opts.cycles ?? 180;
    for (let i = 1; i <= total; i++) {
      sim.advance(1_000);
      if (i === 61) sim.setPositionBehindBot("AAPL", 300);
      if (i === 71) sim.setPositionBehindBot("AAPL", 500);
      if (i === 90) sim.setPositionBehindBot("BTCUSDT", 0.5);
      if (i === 120) sim.setPositionBehindBot("AAPL", 499);
      if (i === 121) sim.setPositionBehindBot("AAPL", 500);
      if (i === 150) {
        sim.inject({ on: "create", fault: "timeout_after_accept" });
        await writer.sendOnce(SELL_100);
      }
      writer.heartbeat();
      cycleAt.push(sim.now().toISOString());
      await writer.reconcile({ symbols: ["AAPL"] });
      if (i === 75 || i === 95 || i === 125) {
        sim.advance(200);
        clear("operator:alice");
      }
    }
    sim.advance(500);
    sim.inject({ on: "create", fault: "timeout_after_accept" });
    sim.inject({ on: "find", fault: "lookup_fail", times: Infinity, symbol: "ETHUSDT" });
    await writer.sendOnce(BUY_ETH);
    sim.advance(300);
    writer.heartbeat();
    return { file, cycleAt, clears, endAt: sim.now().toISOString() };
  } finally {
    db.close();
  }
}
