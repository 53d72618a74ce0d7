/**
 * The demo bot's own habits, on real journal files: honouring the breaker it reads from the journal,
 * resending what a lookup proved absent with the same id, settling a restart, taking a late arrival
 * into its book before reconciling, sharing one file with another bot, and writing the same journal
 * for the same seed.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import Database from "better-sqlite3";
import { verifyAuditLog } from "@/lib/audit/log";
import { openJournalWriter } from "@/lib/db/journal-file";
import { DemoBot, type Activity } from "@/tools/demo/bot";
import { applyFault } from "@/tools/demo/faults";
import { ALPHA, BETA, withOverrides, type BotSpec } from "@/tools/demo/markets";
import { clearHalt } from "@/tools/demo/operator";
import { ScriptedStrategy } from "@/tools/demo/strategies";
import { DemoWorld } from "@/tools/demo/world";
import { clientOrderId } from "@/lib/journal/client-order-id";
import { SimExchange } from "@/lib/exchange/simulator";
import { migratedJournal, migrationsDir } from "../helpers/journal";
import { JournalView } from "../helpers/demo-journal";
import { consoleAuditKey } from "@/lib/audit/key";

const START = new Date("2026-08-10T12:00:00.000Z");

let world: DemoWorld | undefined;
let view: JournalView | undefined;
const cleanups: (() => void)[] = [];
afterEach(() => {
  world?.close();
  view?.close();
  world = view = undefined;
  for (const c of cleanups.splice(0)) c();
  vi.useRealTimers();
});

function scriptedAlpha(): { spec: BotSpec; script: ScriptedStrategy } {
  const script = new ScriptedStrategy("sma_cross");
  return { spec: withOverrides(ALPHA, { strategies: Object.fromEntries(ALPHA.markets.map((m) => [m.symbol, script])) }), script };
}

async function open(specs: BotSpec[], activity: Activity[] = [], seed = 3): Promise<DemoWorld> {
  world = await DemoWorld.open({
    file: migratedJournal("demo-bot"),
    seed,
    start: START,
    specs,
    barMs: 60_000,
    cycleMs: 10_000,
    migrationsDir,
    onActivity: (a) => activity.push(a),
  });
  return world;
}

async function cycles(w: DemoWorld, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    w.advance(w.cycleMs);
    await w.cycle();
  }
}

async function untilNextBar(w: DemoWorld): Promise<void> {
  const next = Math.floor(w.now().getTime() / w.barMs) * w.barMs + w.barMs;
  while (w.now().getTime() < next) await cycles(w, 1);
}

const kinds = (v: JournalView, id: string) => v.events(id).map((e) => e.kind);

describe("the demo bot and its breaker", () => {
  it("opens nothing new while halted and resumes new entries on the first bar after an operator clears the halt", async () => {
    const activity: Activity[] = [];
    const { spec, script } = scriptedAlpha();
    const w = await open([spec], activity);
    w.exchange("alpha").setPrice("BTCUSDT", 60_000);
    script.set("BTCUSDT", 1);
    applyFault(w, "alpha", { kind: "lost_reply", fillRatio: 1, symbol: "BTCUSDT" });
    applyFault(w, "alpha", { kind: "lookups_fail", times: 3, symbol: "BTCUSDT" });
    await w.cycle(); // the buy goes unknown: trip
    await cycles(w, 2); // a later lookup settles it; the books agree again
    script.set("ETHUSDT", 1);
    await untilNextBar(w);
    expect(activity.filter((a) => a.kind === "blocked").map((a) => a.message)).toEqual([
      expect.stringMatching(/^no new buy of [\d.]+ ETHUSDT \(sma_cross\): halted/),
    ]);

    const clearedAt = w.now().toISOString();
    expect(clearHalt(w.connection(), { botId: "alpha", actor: "operator:ana", at: clearedAt, reason: "BTCUSDT order found filled; books agree" })).toBe(true);
    await untilNextBar(w);

    view = new JournalView(w.file);
    expect(view.breakerEvents("alpha").map((e) => [e.kind, e.actor])).toEqual([
      ["trip", "bot"],
      ["clear", "operator:ana"],
    ]);
    const eth = view.orders("alpha", "symbol = 'ETHUSDT'");
    expect(eth).toHaveLength(1);
    expect(eth[0]).toMatchObject({ side: "buy", state: "filled" });
    expect(eth[0]!.created_at > clearedAt).toBe(true);
    expect(view.orders("alpha", "symbol = 'BTCUSDT'")).toEqual([expect.objectContaining({ state: "filled", filled_qty: 0.5 })]);
    expect(w.bot("alpha").writer.breaker().halted).toBe(false);
    // The clear is audited the way the console's own clear is.
    expect(view.all(`SELECT actor, action, target, outcome FROM audit_log`)).toEqual([
      { actor: "operator:ana", action: "clear_halt", target: "alpha", outcome: "applied" },
    ]);
    const db = new Database(w.file, { readonly: true });
    expect(verifyAuditLog(db, consoleAuditKey())).toMatchObject({ ok: true, entries: 1 });
    db.close();
  });

  it("resends, reduce-only and with the same client order id, an exit a lookup proved absent, while halted", async () => {
    const { spec, script } = scriptedAlpha();
    const w = await open([spec]);
    script.set("BTCUSDT", 1);
    await w.cycle();
    script.set("BTCUSDT", 0);
    applyFault(w, "alpha", { kind: "never_arrived", symbol: "BTCUSDT" });
    applyFault(w, "alpha", { kind: "lookups_fail", times: 3, symbol: "BTCUSDT" });
    await untilNextBar(w); // the exit times out and its lookups fail: unknown, trip
    await cycles(w, 2); // the lookup now proves it absent: resent with the same id

    view = new JournalView(w.file);
    const [entry, exit, ...rest] = view.orders("alpha");
    expect(rest).toEqual([]);
    expect(entry).toMatchObject({ side: "buy", state: "filled" });
    expect(exit).toMatchObject({ side: "sell", qty: entry!.filled_qty, state: "filled", filled_qty: entry!.filled_qty, attempts: 2 });
    expect(kinds(view, exit!.client_order_id)).toEqual(["intent", "timeout", "error", "error", "error", "status", "lookup_absent", "send"]);
    const onVenue = w
      .exchange("alpha")
      .orders()
      .filter((o) => o.clientOrderId === exit!.client_order_id);
    expect(onVenue.map((o) => o.status)).toEqual(["filled"]);
    expect(w.exchange("alpha").position("BTCUSDT")).toBe(0);
    // The exit went out while halted: only a person clears the halt the unknown exit caused.
    expect(w.bot("alpha").writer.breaker().halted).toBe(true);
  });

  it("takes an order that appears after a lookup found it absent into its book before reconciling: no false unknown position", async () => {
    const { spec, script } = scriptedAlpha();
    const w = await open([spec]);
    w.exchange("alpha").setPrice("BTCUSDT", 60_000);
    script.set("BTCUSDT", 1);
    applyFault(w, "alpha", { kind: "late_arrival", delayMs: 25_000, symbol: "BTCUSDT" });
    applyFault(w, "alpha", { kind: "lookups_fail", times: 3, symbol: "BTCUSDT" });
    await w.cycle(); // unknown, trip; the entry may not be resent while halted
    await cycles(w, 4); // absent at +10 s, arrives at +25 s, found at +30 s

    view = new JournalView(w.file);
    const [order, ...rest] = view.orders("alpha");
    expect(rest).toEqual([]); // no reconcile close of a position the bot did open
    expect(order).toMatchObject({ symbol: "BTCUSDT", state: "filled", filled_qty: 0.5, attempts: 1 });
    const k = kinds(view, order!.client_order_id);
    expect(k.indexOf("lookup_found")).toBeGreaterThan(k.indexOf("lookup_absent"));
    expect(view.reconciliations("alpha").map((r) => r.outcome)).not.toContain("drift");
    expect(w.exchange("alpha").position("BTCUSDT")).toBe(0.5);
    expect(w.bot("alpha").writer.book().get("BTCUSDT")).toBe(0.5);
  });
});

describe("the demo bot across a restart", () => {
  it("settles an intent a dead run left behind by lookup, then resends it with the same id: one order on the venue", async () => {
    const file = migratedJournal("restart");
    const sim = new SimExchange({ seed: 5, startAt: START, symbols: ALPHA.markets.map((m) => ({ symbol: m.symbol, qtyStep: m.qtyStep, price: m.price })) });
    const script = new ScriptedStrategy("sma_cross").set("BTCUSDT", 1);
    const spec = withOverrides(ALPHA, { strategies: { BTCUSDT: script } });
    const run = () => {
      const { db } = openJournalWriter(file, { migrationsDir });
      cleanups.push(() => db.open && db.close());
      const bot = new DemoBot({ spec, db, exchange: sim, market: sim, clock: () => sim.now(), sleep: async (ms) => sim.advance(ms), barMs: 60_000 });
      return { db, bot };
    };

    const first = run();
    await first.bot.start();
    const decision = { strategy: "sma_cross", symbol: "BTCUSDT", side: "buy" as const, qty: 0.5, bar: START.toISOString() };
    first.bot.writer.recordIntent(decision); // ...and the process dies before the send
    first.db.close();

    sim.advance(5_000);
    const second = run();
    await second.bot.start(); // recovery: the lookup proves it absent
    // Same bar: looked up once more before reconciling (a late copy must reach the book first), then
    // resent with the same id; the strategy then sees the position held and sends nothing.
    await second.bot.cycle();

    view = new JournalView(file);
    const id = clientOrderId("alpha", decision);
    expect(view.orders("alpha")).toEqual([expect.objectContaining({ client_order_id: id, state: "filled", filled_qty: 0.5, attempts: 1 })]);
    expect(kinds(view, id)).toEqual(["intent", "lookup_absent", "lookup_absent", "send"]);
    expect(sim.orders().map((o) => o.clientOrderId)).toEqual([id]);
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });
});

describe("two bots in one journal file", () => {
  it("keep apart: every row names its bot, every client order id carries that bot's prefix, each has its own breaker", async () => {
    const w = await open([ALPHA, BETA]);
    await w.cycle();
    await cycles(w, 60);
    view = new JournalView(w.file);
    expect(view.all(`SELECT bot_id, exchange, client_id_prefix FROM bots ORDER BY bot_id`)).toEqual([
      { bot_id: "alpha", exchange: "sim-perp", client_id_prefix: "alpha" },
      { bot_id: "beta", exchange: "sim-stocks", client_id_prefix: "beta" },
    ]);
    expect(view.all(`SELECT bot_id, halted FROM breakers ORDER BY bot_id`)).toEqual([
      { bot_id: "alpha", halted: 0 },
      { bot_id: "beta", halted: 0 },
    ]);
    for (const bot of w.bots) {
      const orders = view.orders(bot.botId);
      expect(orders.length).toBeGreaterThan(0);
      expect(orders.every((o) => o.client_order_id.startsWith(`${bot.spec.prefix}-`))).toBe(true);
      expect(orders.every((o) => bot.symbols.includes(o.symbol))).toBe(true);
      expect(view.reconciliations(bot.botId)).toHaveLength(61);
    }
  });

  it("write the same journal for the same seed: decisions, ids and times come from the simulated clock alone", async () => {
    const rows = async () => {
      const w = await open([ALPHA, BETA], [], 11);
      await w.cycle();
      await cycles(w, 90);
      const v = new JournalView(w.file);
      const out = {
        orders: v.all(
          `SELECT client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, avg_price, created_at FROM orders ORDER BY client_order_id`,
        ),
        reconciliations: v.all(`SELECT bot_id, at, outcome FROM reconciliations ORDER BY id`),
      };
      v.close();
      w.close();
      return out;
    };
    const a = await rows();
    const b = await rows();
    expect(a.orders.length).toBeGreaterThan(0);
    expect(b).toEqual(a);
  });
});

describe("the live demo's clock", () => {
  it("moves simulated time with the wall clock times the speed factor", async () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(new Date("2026-08-10T12:00:00.000Z"));
    world = await DemoWorld.open({
      file: migratedJournal("speed"),
      seed: 1,
      start: new Date(),
      timing: { mode: "realtime", speed: 30 },
      migrationsDir,
      warmupBars: 0,
    });
    const start = world.now().getTime();
    vi.setSystemTime(new Date("2026-08-10T12:00:02.000Z"));
    expect(world.targetTime() - start).toBe(60_000);
    world.advanceTo(world.targetTime());
    expect(world.exchange("alpha").now().getTime() - start).toBe(60_000);
  });
});
