/**
 * Each named scenario, run on a real journal file migrated from drizzle/, then read back: the order
 * rows and their events, the reconciliations and their books, the breaker events, and the final
 * positions on both sides (the bot's book and the venue).
 */
import { afterEach, describe, expect, it } from "vitest";
import type { ExchangeOrder } from "@/lib/exchange/adapter";
import { classifyOrder } from "@/lib/journal/order-state";
import { SCENARIOS, type ScenarioName, type ScenarioResult } from "@/tools/demo/scenarios";
import { migratedJournal, migrationsDir } from "../helpers/journal";
import { expectBooksAgree, expectUntouched, JournalView, outcomeOf } from "../helpers/demo-journal";

let view: JournalView | undefined;
afterEach(() => view?.close());

async function run(name: ScenarioName): Promise<{ result: ScenarioResult; view: JournalView }> {
  const result = await SCENARIOS[name].run({ file: migratedJournal(name), migrationsDir });
  view = new JournalView(result.file);
  return { result, view };
}

const kinds = (v: JournalView, id: string) => v.events(id).map((e) => e.kind);

describe("scenario double-buy-avoided", () => {
  it("ends at 500 AAPL, not 1,000: the lost reply is settled by a lookup and no second order exists", async () => {
    const { result, view } = await run("double-buy-avoided");
    const id = result.facts.clientOrderId as string;

    const aapl = view.orders("beta", "symbol = 'AAPL'");
    expect(aapl).toHaveLength(1);
    expect(aapl[0]).toMatchObject({
      client_order_id: id,
      strategy: "media_movil",
      side: "buy",
      qty: 500,
      state: "filled",
      filled_qty: 500,
      avg_price: 92,
      attempts: 1,
    });
    // Looked up before any retry: one send attempt, the timeout, and the lookup that found it.
    expect(kinds(view, id)).toEqual(["intent", "timeout", "lookup_found"]);
    expect(view.events(id)[2]!.detail).toMatchObject({ status: "filled", filledQty: 500, avgPrice: 92 });

    // On the venue: one AAPL order, and the blind retry of seed 004 refused by the id guard.
    expect(result.facts.blindRetry).toBe("refused as a duplicate");
    expect((result.facts.exchangeOrders as ExchangeOrder[]).map((o) => [o.clientOrderId, o.status, o.filledQty])).toEqual([[id, "filled", 500]]);

    const recs = view.reconciliations("beta");
    expect(recs.every((r) => r.outcome === "clean")).toBe(true);
    expect(view.positions(recs.at(-1)!.id).find((p) => p.symbol === "AAPL")).toMatchObject({ ours: 500, theirs: 500 });
    expect(view.breakerEvents()).toEqual([]);

    const beta = outcomeOf(result, "beta");
    expect(beta).toMatchObject({ halted: false, book: { AAPL: 500 }, exchange: { AAPL: 500 } });
    expectBooksAgree(beta);
    expectUntouched(view, result, "alpha");
  });
});

describe("scenario lost-reply-unknown", () => {
  it("leaves the order unknown with the breaker tripped, sends nothing on top of the doubt, and waits for a person", async () => {
    const { result, view } = await run("lost-reply-unknown");
    const orders = view.orders("alpha");
    // The one order, and nothing else: no retry, no reduce-only close, no new entry while halted.
    expect(orders).toHaveLength(1);
    const order = orders[0]!;
    expect(order).toMatchObject({ symbol: "BTCUSDT", side: "buy", qty: 0.5, state: "unknown", filled_qty: 0, attempts: 1 });
    const events = kinds(view, order.client_order_id);
    expect(events.slice(0, 2)).toEqual(["intent", "timeout"]);
    expect(events).toContain("status");
    expect(events).not.toContain("send");
    expect(events).not.toContain("lookup_found");
    expect(events.filter((k) => k !== "intent" && k !== "timeout" && k !== "status").every((k) => k === "error")).toBe(true);
    expect(view.events(order.client_order_id).find((e) => e.kind === "status")!.detail).toMatchObject({ status: "unknown" });
    expect(classifyOrder({ state: "unknown", updatedAt: order.updated_at }, { now: new Date(result.to), graceMs: 30_000 })).toBe("doubtful");

    const trips = view.breakerEvents("alpha");
    expect(trips).toHaveLength(1);
    expect(trips[0]).toMatchObject({
      kind: "trip",
      actor: "bot",
      reconciliation_id: null,
      // The send's timeout first, then the lookups' failure: the lookups' alone hid the timeout.
      reason: expect.stringMatching(`^order ${order.client_order_id} unknown: send failed: timeout after \\d+ ms; then lookup failed`),
    });

    // Before the order: clean. After: the exchange shows the 0.5 the journal cannot vouch for.
    const recs = view.reconciliations("alpha");
    expect(recs[0]!.outcome).toBe("clean");
    for (const r of recs.slice(1)) {
      expect(r.outcome).toBe("drift");
      expect(view.positions(r.id).filter((p) => p.ours !== p.theirs)).toEqual([{ symbol: "BTCUSDT", ours: 0, theirs: 0.5, qty_step: 0.001 }]);
    }

    // The venue filled it once; the journal's book holds nothing until a person or a lookup settles it.
    const venue = result.facts.exchangeOrders as ExchangeOrder[];
    expect(venue.map((o) => [o.clientOrderId, o.status, o.filledQty])).toEqual([[order.client_order_id, "filled", 0.5]]);
    const alpha = outcomeOf(result, "alpha");
    expect(alpha).toMatchObject({ halted: true, book: { BTCUSDT: 0, ETHUSDT: 0 }, exchange: { BTCUSDT: 0.5, ETHUSDT: 0 } });
    expect(alpha.reason).toBe(trips[0]!.reason);
    expectUntouched(view, result, "beta");
  });
});

describe("scenario unknown-position", () => {
  it("cancels the foreign order, closes the position reduce-only, trips with the cycle as cause, and still exits while halted", async () => {
    const { result, view } = await run("unknown-position");
    const recs = view.reconciliations("alpha");
    const drifts = recs.filter((r) => r.outcome === "drift");
    expect(drifts).toHaveLength(1);
    const cause = drifts[0]!;
    expect(view.positions(cause.id).find((p) => p.symbol === "SOLUSDT")).toEqual({ symbol: "SOLUSDT", ours: 0, theirs: -12.5, qty_step: 0.1 });
    // Every other cycle, before and after, is clean: the close is not counted as the bot's position.
    expect(recs.filter((r) => r.id !== cause.id).every((r) => r.outcome === "clean")).toBe(true);

    expect(view.breakerEvents("alpha")).toEqual([
      expect.objectContaining({ kind: "trip", actor: "bot", reason: "unknown position SOLUSDT -12.5", reconciliation_id: cause.id }),
    ]);
    const close = view.orders("alpha", "strategy = 'reconcile'");
    expect(close).toEqual([expect.objectContaining({ symbol: "SOLUSDT", side: "buy", qty: 12.5, state: "filled", filled_qty: 12.5 })]);
    expect(result.facts.foreignOrder).toMatchObject({ clientOrderId: "web-7f3a9c", status: "canceled", filledQty: 12.5 });

    // Halted: the BTCUSDT exit (a reduction) went out, the ETHUSDT entry did not.
    const btc = view.orders("alpha", "symbol = 'BTCUSDT'");
    expect(btc.map((o) => [o.side, o.state])).toEqual([
      ["buy", "filled"],
      ["sell", "filled"],
    ]);
    expect(btc[1]!.created_at > view.breakerEvents("alpha")[0]!.at).toBe(true);
    expect(btc[1]!.filled_qty).toBe(btc[0]!.filled_qty);
    expect(view.orders("alpha", "symbol = 'ETHUSDT'")).toEqual([]);

    const alpha = outcomeOf(result, "alpha");
    expect(alpha).toMatchObject({ halted: true, injected: { SOLUSDT: -12.5 } });
    expect(Object.values(alpha.exchange).every((size) => size === 0)).toBe(true);
    expectBooksAgree(alpha);
    expectUntouched(view, result, "beta");
  });
});

describe("scenario size-drift", () => {
  it("records book +100 against exchange +60, trips once, and leaves AAPL to a person while exiting MSFT and opening nothing", async () => {
    const { result, view } = await run("size-drift");
    const recs = view.reconciliations("beta");
    const firstDrift = recs.findIndex((r) => r.outcome === "drift");
    expect(firstDrift).toBeGreaterThan(0);
    expect(recs.slice(0, firstDrift).every((r) => r.outcome === "clean")).toBe(true);
    // The drift persists on every later cycle, and it is the only one.
    for (const r of recs.slice(firstDrift)) {
      expect(r.outcome).toBe("drift");
      expect(view.positions(r.id).filter((p) => p.ours !== p.theirs)).toEqual([{ symbol: "AAPL", ours: 100, theirs: 60, qty_step: 1 }]);
    }
    expect(view.breakerEvents("beta")).toEqual([
      expect.objectContaining({ kind: "trip", reason: "size drift AAPL: book +100 vs exchange +60", reconciliation_id: recs[firstDrift]!.id }),
    ]);

    const orders = view.orders("beta");
    expect(orders.map((o) => [o.symbol, o.side, o.qty, o.state])).toEqual([
      ["AAPL", "buy", 100, "filled"],
      ["MSFT", "buy", 50, "filled"],
      ["MSFT", "sell", 50, "filled"],
    ]);
    expect(orders[2]!.created_at > view.breakerEvents("beta")[0]!.at).toBe(true);

    const beta = outcomeOf(result, "beta");
    expect(beta).toMatchObject({ halted: true, book: { AAPL: 100, MSFT: 0, NVDA: 0 }, exchange: { AAPL: 60, MSFT: 0, NVDA: 0 }, injected: { AAPL: -40 } });
    expectUntouched(view, result, "alpha");
  });
});

describe("scenario in-flight", () => {
  it("skips reconciliation while the fill settles and records no false drift, though the books differed meanwhile", async () => {
    const { result, view } = await run("in-flight");
    expect(result.facts.naive).toEqual({ ours: 4, theirs: 10 });

    const recs = view.reconciliations("alpha");
    expect(recs.map((r) => r.outcome)).toEqual(["clean", "skipped", "skipped", "clean", "clean", "clean", "clean"]);
    for (const r of recs.filter((x) => x.outcome === "skipped")) {
      expect(r.orders_in_flight).toBe(1);
      expect(view.positions(r.id)).toEqual([]);
    }
    expect(view.positions(recs[3]!.id).find((p) => p.symbol === "ETHUSDT")).toMatchObject({ ours: 10, theirs: 10 });
    expect(view.breakerEvents()).toEqual([]);

    const [order, ...others] = view.orders("alpha");
    expect(others).toEqual([]);
    expect(order).toMatchObject({ symbol: "ETHUSDT", side: "buy", qty: 10, state: "filled", filled_qty: 10, attempts: 1 });
    expect(view.events(order!.client_order_id).map((e) => [e.kind, e.detail.status, e.detail.filledQty])).toEqual([
      ["intent", undefined, undefined],
      ["send", "partially_filled", 4],
      ["lookup_found", "partially_filled", 4],
      ["lookup_found", "filled", 10],
    ]);

    const alpha = outcomeOf(result, "alpha");
    expect(alpha).toMatchObject({ halted: false, book: { ETHUSDT: 10 }, exchange: { ETHUSDT: 10 } });
    expectBooksAgree(alpha);
    expectUntouched(view, result, "beta");
  });
});

describe("scenario quiet-day", () => {
  it("runs a whole day of one-minute cycles for both bots: every order filled, every reconciliation clean, no trip", async () => {
    const { result, view } = await run("quiet-day");
    expect(result.cycles).toBe(1440);
    for (const botId of ["alpha", "beta"]) {
      expect(view.reconciliations(botId)).toHaveLength(1440);
      expectUntouched(view, result, botId);
      const orders = view.orders(botId);
      expect(orders.length).toBeGreaterThan(100);
      expect(orders.every((o) => o.attempts === 1 && o.filled_qty === o.qty)).toBe(true);
      expect(new Set(orders.map((o) => o.strategy))).toEqual(new Set(["sma_cross", "breakout", "mean_revert"]));
      expect(view.all<{ heartbeat_at: string }>(`SELECT heartbeat_at FROM bots WHERE bot_id = ?`, botId)).toEqual([{ heartbeat_at: result.to }]);
    }
    expect(view.breakerEvents()).toEqual([]);
  });
});
