import { afterEach, describe, expect, it } from "vitest";
import { haltCauseText } from "@/lib/breaker/halt-cause";
import { getBotClearView } from "@/lib/queries/bot-clear";
import { getCauseInSyncSince } from "@/lib/queries/halt-cause";
import { getOverview } from "@/lib/queries/overview";
import { consoleDb } from "../helpers/console-db";
import { botOnSim } from "../helpers/bot";

let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

const START = new Date("2026-08-10T15:30:00Z");
const LIMITS = { heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000 };

/**
 * bot-a holds 500 AAPL; at cycle 3 someone closes 200 by hand (size drift, the breaker trips), at
 * cycle `backAt` the 200 are put back; it runs `cycles` cycles, a second apart. `cycleAt[i]` is cycle i's time.
 */
async function haltedAfter(opts: { cycles: number; backAt?: number; clearAt?: number }) {
  const bot = botOnSim({ startAt: START });
  cleanup.push(bot.close);
  await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 500, bar: START.toISOString() });
  const cycleAt: string[] = [""];
  for (let i = 1; i <= opts.cycles; i++) {
    bot.sim.advance(1_000);
    if (i === 3) bot.sim.setPositionBehindBot("AAPL", 300);
    if (i === opts.backAt) bot.sim.setPositionBehindBot("AAPL", 500);
    cycleAt.push(bot.sim.now().toISOString());
    await bot.writer.reconcile({ symbols: ["AAPL"] });
    bot.writer.heartbeat();
    if (i === opts.clearAt) {
      bot.db
        .prepare(`UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = 'operator:ana', version = version + 1 WHERE bot_id = 'bot-a'`)
        .run(cycleAt[i]);
    }
  }
  const c = consoleDb(bot.file);
  cleanup.push(c.close);
  return { cycleAt, db: c.db, now: new Date(Date.parse(bot.sim.now().toISOString()) + 1_000) };
}

describe("the cause of a halt, gone or not", () => {
  it("is current while the symbol that tripped the breaker still drifts", async () => {
    const { db, now } = await haltedAfter({ cycles: 8 });
    expect(await getCauseInSyncSince({ db, botId: "bot-a" })).toBeNull();
    const bot = (await getOverview({ db, now, ...LIMITS })).bots.find((b) => b.botId === "bot-a")!;
    expect(bot.breaker).toMatchObject({ halted: true, causeInSyncSince: null });
    expect(haltCauseText({ reason: bot.breaker!.reason, inSyncSince: bot.breaker!.causeInSyncSince })).toBe(bot.breaker!.reason);
  });

  it("is gone since the first cycle that saw the symbol in sync, on the overview and on the bot page", async () => {
    const { cycleAt, db, now } = await haltedAfter({ cycles: 8, backAt: 6 });
    const since = cycleAt[6]!;
    expect(await getCauseInSyncSince({ db, botId: "bot-a" })).toBe(since);
    const bot = (await getOverview({ db, now, ...LIMITS })).bots.find((b) => b.botId === "bot-a")!;
    expect(bot.breaker).toMatchObject({ halted: true, causeInSyncSince: since });
    expect(haltCauseText({ reason: bot.breaker!.reason, inSyncSince: since, now: Date.parse(since) })).toBe(
      `tripped on ${bot.breaker!.reason}; in sync since ${since.slice(11, 19)} UTC`,
    );
    const page = await getBotClearView({ db, botId: "bot-a", now, ...LIMITS, twoPersonClear: false });
    expect(page?.bot.breaker?.causeInSyncSince).toBe(since);
  });

  it("is not reported for a bot that is not halted", async () => {
    const { db, now } = await haltedAfter({ cycles: 8, backAt: 6, clearAt: 7 });
    const bot = (await getOverview({ db, now, ...LIMITS })).bots.find((b) => b.botId === "bot-a")!;
    expect(bot.breaker).toMatchObject({ halted: false, causeInSyncSince: null });
  });
});
