import Database from "better-sqlite3";
import { afterEach, describe, expect, it } from "vitest";
import { listDoubtfulOrders } from "@/lib/queries/doubtful";
import { getOverview } from "@/lib/queries/overview";
import { botOnSim, SYMBOLS } from "../helpers/bot";
import { consoleDb } from "../helpers/console-db";

const symbols = SYMBOLS.map((s) => s.symbol);
const thresholds = { heartbeatStaleMs: 60_000, reconciliationStaleMs: 120_000, doubtfulGraceMs: 30_000 };
let cleanup: (() => void)[] = [];
afterEach(() => {
  cleanup.forEach((f) => f());
  cleanup = [];
});

function open(bot: ReturnType<typeof botOnSim>) {
  const c = consoleDb(bot.file);
  cleanup.push(c.close, bot.close);
  return c.db;
}

describe("getOverview", () => {
  it("after an unknown position: the bot is halted and the symbol is an emergency with its notional", async () => {
    const bot = botOnSim();
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: "2026-08-10T15:30:00Z" });
    await bot.writer.reconcile({ symbols });
    bot.sim.advance(15_000);
    bot.sim.setPositionBehindBot("ETHUSDT", 3);
    await bot.writer.reconcile({ symbols });
    bot.writer.heartbeat();
    const o = await getOverview({ db: open(bot), now: bot.sim.now(), ...thresholds });

    expect(o.bots).toHaveLength(1);
    expect(o.bots[0]).toMatchObject({ botId: "bot-a", status: "halted", symbolsInDrift: 1, unknownPositions: 1, doubtfulOrders: 0 });
    expect(o.bots[0]!.breaker?.reason).toBe("unknown position ETHUSDT +3");
    const eth = o.lines.find((l) => l.symbol === "ETHUSDT")!;
    expect(eth).toMatchObject({ ours: 0, theirs: 3, difference: 3, drift: "unknown_position", driftForMs: 0 });
    expect(eth.steps).toBeCloseTo(300, 6);
    expect(eth.driftNotional).toBeCloseTo(3 * eth.markPrice!, 6);
    expect(o.lines.find((l) => l.symbol === "AAPL")).toMatchObject({ ours: 10, theirs: 10, drift: "none", driftSince: null });
    expect(o.alarms).toEqual([]);
  });

  it("values a drift whose exchange side is flat at the mark the bot wrote for it", async () => {
    const bot = botOnSim();
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: "2026-08-10T15:30:00Z" });
    bot.sim.setPositionBehindBot("AAPL", 0);
    await bot.writer.reconcile({ symbols });
    const o = await getOverview({ db: open(bot), now: bot.sim.now(), ...thresholds });
    expect(o.lines.find((l) => l.symbol === "AAPL")).toMatchObject({
      theirs: 0,
      drift: "size_drift",
      markPrice: bot.sim.price("AAPL"),
      markAt: null,
      driftNotional: 10 * bot.sim.price("AAPL"),
    });
  });

  it("falls back to the latest mark of an earlier cycle, and says when, for a bot that writes no mark for a flat symbol", async () => {
    const bot = botOnSim();
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: "2026-08-10T15:30:00Z" });
    await bot.writer.sendOnce({ strategy: "trend", symbol: "ETHUSDT", side: "buy", qty: 2, bar: "2026-08-10T15:30:00Z" });
    bot.sim.setPositionBehindBot("ETHUSDT", 0);
    // A writer that takes marks only from the exchange's positions, as this one did before.
    bot.sim.fetchMarkPrices = async () => new Map();
    await bot.writer.reconcile({ symbols });
    const priced = bot.rows<{ at: string; mark: number }>(
      `SELECT r.at, p.mark_price AS mark FROM reconciliation_positions p JOIN reconciliations r ON r.id = p.reconciliation_id WHERE p.symbol = 'AAPL'`,
    )[0]!;
    bot.sim.advance(60_000);
    bot.sim.setPositionBehindBot("AAPL", 0);
    await bot.writer.reconcile({ symbols });
    const o = await getOverview({ db: open(bot), now: bot.sim.now(), ...thresholds });
    expect(o.lines.find((l) => l.symbol === "AAPL")).toMatchObject({
      theirs: 0,
      drift: "size_drift",
      markPrice: priced.mark,
      markAt: priced.at,
      driftNotional: 10 * priced.mark,
    });
    expect(o.lines.find((l) => l.symbol === "ETHUSDT")).toMatchObject({ drift: "size_drift", markPrice: null, markAt: null, driftNotional: null });
  });

  it("counts how long a drift has lasted from its first cycle", async () => {
    const bot = botOnSim();
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: "2026-08-10T15:30:00Z" });
    bot.sim.setPositionBehindBot("AAPL", 7);
    await bot.writer.reconcile({ symbols });
    const first = bot.sim.now().getTime();
    bot.sim.advance(45_000);
    await bot.writer.reconcile({ symbols });
    bot.writer.heartbeat();
    const o = await getOverview({ db: open(bot), now: bot.sim.now(), ...thresholds });
    expect(o.lines.find((l) => l.symbol === "AAPL")).toMatchObject({ drift: "size_drift", driftForMs: bot.sim.now().getTime() - first });
  });

  it("raises an alarm, and never says running, when the heartbeat stops", async () => {
    const bot = botOnSim();
    await bot.writer.reconcile({ symbols });
    bot.sim.advance(5 * 60_000);
    const o = await getOverview({ db: open(bot), now: bot.sim.now(), ...thresholds });
    expect(o.bots[0]!.status).toBe("stale");
    expect(o.alarms).toEqual(expect.arrayContaining([expect.stringMatching(/^bot-a: heartbeat is stale/)]));
    // One alarm per bot, its causes together.
    expect(o.alarms.filter((a) => a.startsWith("bot-a: "))).toEqual(["bot-a: heartbeat is stale, and so is its last reconciliation"]);
  });

  it("keeps a bot's word through cycles skipped while a fill settles, and says UNKNOWN once no cycle has compared the books within the limit", async () => {
    // Every partial fill made the card flicker UNKNOWN and every symbol row grow a dated line (a try-out).
    const bot = botOnSim();
    await bot.writer.sendOnce({ strategy: "trend", symbol: "AAPL", side: "buy", qty: 10, bar: "2026-08-10T15:30:00Z" });
    expect((await bot.writer.reconcile({ symbols })).outcome).toBe("clean");
    // Filled in part; the rest settles after ten minutes, long past the staleness limit.
    bot.sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.4, completeAfterMs: 600_000 });
    await bot.writer.sendOnce({ strategy: "trend", symbol: "BTCUSDT", side: "buy", qty: 0.01, bar: "2026-08-10T15:31:00Z" });
    const db = open(bot);
    const cycle = async (advanceMs: number) => {
      bot.sim.advance(advanceMs);
      expect((await bot.writer.reconcile({ symbols })).outcome).toBe("skipped");
      bot.writer.heartbeat();
      return getOverview({ db, now: bot.sim.now(), ...thresholds });
    };
    let o = await cycle(15_000);
    expect(o.bots[0]).toMatchObject({ status: "running", reasons: [], alarms: [], lastReconciliation: { outcome: "skipped", ordersInFlight: 1 } });
    expect(o.alarms).toEqual([]);
    o = await cycle(100_000);
    expect(o.bots[0]!.status).toBe("running");
    // The clean cycle is now older than the 120 s a cycle may be: nothing vouches for the books.
    o = await cycle(10_000);
    expect(o.bots[0]!.status).toBe("unknown");
    expect(o.alarms).toEqual([
      expect.stringMatching(/^bot-a: books not compared for 12\d s: last reconciliation skipped: 1 order in flight, so the books were not compared/),
    ]);
  });

  it("shows a symbol the latest cycle left out as flat on both sides, not as its old drift", async () => {
    const bot = botOnSim();
    bot.sim.setPositionBehindBot("ETHUSDT", 3);
    await bot.writer.reconcile(); // trips, and flattens ETHUSDT reduce-only
    bot.sim.advance(15_000);
    await bot.writer.reconcile(); // neither side holds ETHUSDT any more: not written
    bot.writer.heartbeat();
    const o = await getOverview({ db: open(bot), now: bot.sim.now(), ...thresholds });
    expect(o.lines.find((l) => l.symbol === "ETHUSDT")).toMatchObject({ ours: 0, theirs: 0, drift: "none" });
    expect(o.bots[0]!.status).toBe("halted"); // the halt stays until a person clears it
  });
});

describe("listDoubtfulOrders", () => {
  it("lists an unknown order with its history, and the bot's count agrees", async () => {
    const bot = botOnSim();
    bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
    bot.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
    const sent = await bot.writer.sendOnce({ strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" });
    const db = open(bot);
    const { orders, total } = await listDoubtfulOrders({ db, now: bot.sim.now(), graceMs: 30_000 });
    expect(total).toBe(1);
    expect(orders[0]).toMatchObject({ clientOrderId: sent.order.clientOrderId, state: "unknown", attempts: 1, idCheck: { kind: "ok" } });
    expect(orders[0]!.events.map((e) => e.kind)).toEqual(["intent", "timeout", "error", "error", "error", "status"]);
    expect((await getOverview({ db, now: bot.sim.now(), ...thresholds })).bots[0]!.doubtfulOrders).toBe(1);
  });

  it("names the newest doubtful orders of each bot in the overview, for the desktop notification of a new one", async () => {
    const bot = botOnSim();
    // Intents the bot never followed up: doubtful once the grace period (30 s) has passed.
    const first = bot.writer.recordIntent({ strategy: "s", symbol: "AAPL", side: "buy", qty: 5, bar: "b1" });
    bot.sim.advance(1_000);
    const second = bot.writer.recordIntent({ strategy: "s", symbol: "ETHUSDT", side: "sell", qty: 1, bar: "b2" });
    bot.sim.advance(40_000);
    bot.writer.recordIntent({ strategy: "s", symbol: "AAPL", side: "buy", qty: 1, bar: "b3" }); // within its grace: not doubtful
    const o = await getOverview({ db: open(bot), now: bot.sim.now(), ...thresholds });
    expect(o.bots[0]!.newestDoubtful).toEqual([
      { clientOrderId: second.order.clientOrderId, symbol: "ETHUSDT" },
      { clientOrderId: first.order.clientOrderId, symbol: "AAPL" },
    ]);
  });

  it("counts a created order as doubtful only once the grace period has passed", async () => {
    const bot = botOnSim();
    bot.writer.recordIntent({ strategy: "s", symbol: "AAPL", side: "buy", qty: 1, bar: "b1" });
    const db = open(bot);
    expect((await listDoubtfulOrders({ db, now: bot.sim.now(), graceMs: 30_000 })).total).toBe(0);
    expect((await listDoubtfulOrders({ db, now: new Date(bot.sim.now().getTime() + 31_000), graceMs: 30_000 })).orders[0]).toMatchObject({ state: "created" });
  });

  it("flags an id without the bot's prefix as foreign and one that does not recompute as corrupt", async () => {
    const bot = botOnSim();
    const raw = new Database(bot.file);
    raw.exec(`INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, created_at, updated_at) VALUES
      ('manual-123', 'bot-a', 'hand', 'AAPL', 'buy', 1, 'b', 'unknown', '2026-08-10T15:30:00.000Z', '2026-08-10T15:30:00.000Z'),
      ('q500-00000000000000000000', 'bot-a', 'trend', 'AAPL', 'buy', 1, 'b', 'unknown', '2026-08-10T15:30:00.000Z', '2026-08-10T15:30:00.000Z')`);
    raw.close();
    const { orders } = await listDoubtfulOrders({ db: open(bot), now: bot.sim.now(), graceMs: 30_000 });
    const kinds = Object.fromEntries(orders.map((o) => [o.clientOrderId, o.idCheck.kind]));
    expect(kinds).toEqual({ "manual-123": "foreign", "q500-00000000000000000000": "corrupt" });
  });

  it("filters by bot", async () => {
    const a = botOnSim({ botId: "bot-a" });
    const b = botOnSim({ botId: "bot-b", prefix: "bb", file: a.file });
    cleanup.push(b.close);
    for (const bot of [a, b]) {
      bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
      bot.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
      await bot.writer.sendOnce({ strategy: "s", symbol: "AAPL", side: "buy", qty: 1, bar: "b1" });
    }
    const db = open(a);
    expect((await listDoubtfulOrders({ db, now: a.sim.now(), graceMs: 30_000, botId: "bot-b" })).orders.map((o) => o.botId)).toEqual(["bot-b"]);
    expect((await listDoubtfulOrders({ db, now: a.sim.now(), graceMs: 30_000 })).total).toBe(2);
  });
});
