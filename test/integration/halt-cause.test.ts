import { afterEach, describe, expect, it } from "vitest";
import { haltCauseText } from "@/lib/breaker/halt-cause";
import { getBotClearView } from "@/lib/queries/bot-clear";
import { getCauseInSyncSince } from "@/lib/queries/halt-cause";
import { getOverview } from "@/lib/queries/overview";
import { getBreakerBoard } from "@/lib/queries/breakers";
import { resolveManuallySpec } from "@/lib/actions/resolve-order";
import { consoleDb } from "../helpers/console-db";
import { botOnSim } from "../helpers/bot";
import { act, ana, consoleWriter } from "../helpers/actions";

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

describe("the cause of a halt on an order nobody was sure of", () => {
  /** bot-a's buy of 5 AAPL is accepted, its reply lost and every lookup fails: it trips on "order … unknown". */
  async function trippedOnOrder() {
    const bot = botOnSim({ startAt: START });
    cleanup.push(bot.close);
    bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: 3 });
    const out = await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 5, bar: START.toISOString() });
    bot.writer.heartbeat();
    const c = consoleDb(bot.file);
    const writer = consoleWriter(bot.file);
    cleanup.push(c.close, () => writer.close());
    return { bot, db: c.db, writer, order: out.order };
  }

  it("reads as the recorded reason while the order is still unknown", async () => {
    const { bot, db, order } = await trippedOnOrder();
    expect(order.state).toBe("unknown");
    const now = bot.sim.now();
    const card = (await getOverview({ db, now, ...LIMITS })).bots.find((b) => b.botId === "bot-a")!;
    expect(card.breaker).toMatchObject({ halted: true, causeOrdersSettled: null });
    expect(card.breaker!.reason).toMatch(new RegExp(`^order ${order.clientOrderId} unknown: `));
  });

  it("says it was settled at, as what and by whom, once an operator resolved the order: on the bot card, the bot page and the breakers page", async () => {
    const { bot, db, writer, order } = await trippedOnOrder();
    bot.sim.advance(5_000);
    const at = bot.sim.now();
    const r = await act(
      writer,
      resolveManuallySpec({ graceMs: LIMITS.doubtfulGraceMs }),
      ana,
      { clientOrderId: order.clientOrderId, version: String(order.version), status: "filled", note: "venue fills page" },
      at,
    );
    expect(r.ok).toBe(true);
    const now = new Date(at.getTime() + 1_000);
    const settled = [{ clientOrderId: order.clientOrderId, state: "filled", at: at.toISOString(), by: "operator:ana", how: "hand" }];
    const card = (await getOverview({ db, now, ...LIMITS })).bots.find((b) => b.botId === "bot-a")!;
    expect(card.breaker).toMatchObject({ halted: true, causeOrdersSettled: settled });
    expect(
      haltCauseText({ reason: card.breaker!.reason, inSyncSince: card.breaker!.causeInSyncSince, ordersSettled: card.breaker!.causeOrdersSettled, now }),
    ).toBe(`tripped on ${card.breaker!.reason}; settled at ${at.toISOString().slice(11, 19)} UTC: filled (by operator:ana)`);
    const page = await getBotClearView({ db, botId: "bot-a", now, ...LIMITS, twoPersonClear: false });
    expect(page?.bot.breaker?.causeOrdersSettled).toEqual(settled);
    const board = await getBreakerBoard({ db, now, ...LIMITS, bot: "bot-a", before: null });
    expect(board.bots[0]!.breaker).toMatchObject({ halted: true, causeOrdersSettled: settled });
  });
});
