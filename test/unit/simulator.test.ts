import { describe, it, expect } from "vitest";
import {
  DuplicateClientOrderIdError,
  LookupFailedError,
  OrderRejectedError,
  RateLimitError,
  SendTimeoutError,
  type NewOrder,
} from "../../lib/exchange/adapter";
import { SimExchange, type SimExchangeOptions } from "../../lib/exchange/simulator";

const START = new Date("2026-08-10T15:30:00.000Z");

function makeSim(overrides: Partial<SimExchangeOptions> = {}): SimExchange {
  return new SimExchange({
    seed: 42,
    startAt: START,
    symbols: [
      { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 },
      { symbol: "ETHUSDT", qtyStep: 0.01, price: 3_000 },
    ],
    ...overrides,
  });
}

function buy(id: string, qty: number, extra: Partial<NewOrder> = {}): NewOrder {
  return { clientOrderId: id, symbol: "BTCUSDT", side: "buy", qty, ...extra };
}

function sell(id: string, qty: number, extra: Partial<NewOrder> = {}): NewOrder {
  return { clientOrderId: id, symbol: "BTCUSDT", side: "sell", qty, ...extra };
}

async function caught(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to throw");
}

function pricePath(sim: SimExchange, symbol: string, steps: number): number[] {
  const path: number[] = [];
  for (let i = 0; i < steps; i++) {
    sim.tick();
    path.push(sim.price(symbol));
  }
  return path;
}

describe("SimExchange: clock and prices", () => {
  it("the same seed gives the same prices", () => {
    const a = pricePath(makeSim(), "BTCUSDT", 50);
    const b = pricePath(makeSim(), "BTCUSDT", 50);
    expect(a).toEqual(b);
    expect(new Set(a).size).toBeGreaterThan(1);
  });

  it("a different seed gives a different price path", () => {
    const a = pricePath(makeSim({ seed: 1 }), "BTCUSDT", 20);
    const b = pricePath(makeSim({ seed: 2 }), "BTCUSDT", 20);
    expect(a).not.toEqual(b);
  });

  it("adding a symbol does not change another symbol's price path", () => {
    const alone = new SimExchange({ seed: 7, symbols: [{ symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 }] });
    const withOthers = new SimExchange({
      seed: 7,
      symbols: [
        { symbol: "SOLUSDT", qtyStep: 0.1, price: 150 },
        { symbol: "BTCUSDT", qtyStep: 0.001, price: 60_000 },
      ],
    });
    expect(pricePath(alone, "BTCUSDT", 20)).toEqual(pricePath(withOthers, "BTCUSDT", 20));
  });

  it("two symbols under one seed do not move in lockstep", () => {
    const sim = makeSim();
    const ups = (path: number[], start: number) => path.map((p, i) => p > (path[i - 1] ?? start));
    const btc: number[] = [];
    const eth: number[] = [];
    for (let i = 0; i < 20; i++) {
      sim.tick();
      btc.push(sim.price("BTCUSDT"));
      eth.push(sim.price("ETHUSDT"));
    }
    expect(ups(btc, 60_000)).not.toEqual(ups(eth, 3_000));
  });

  it("each step moves a price by at most the volatility", () => {
    const sim = makeSim({ volatility: 0.01 });
    let previous = sim.price("BTCUSDT");
    for (const price of pricePath(sim, "BTCUSDT", 200)) {
      expect(Math.abs(price / previous - 1)).toBeLessThanOrEqual(0.01 + 1e-9);
      previous = price;
    }
  });

  it("the clock starts at startAt and moves only when advanced", async () => {
    const sim = makeSim();
    expect(sim.now().toISOString()).toBe(START.toISOString());
    await sim.createOrder(buy("a", 0.001));
    expect(sim.now().toISOString()).toBe(START.toISOString());
    sim.advance(2_500);
    expect(sim.now().toISOString()).toBe("2026-08-10T15:30:02.500Z");
    sim.tick();
    expect(sim.now().toISOString()).toBe("2026-08-10T15:30:03.500Z");
  });

  it("advance steps the walk once per tick crossed, the same as ticking", () => {
    const ticked = makeSim();
    for (let i = 0; i < 5; i++) ticked.tick();
    const advanced = makeSim();
    advanced.advance(5_000);
    expect(advanced.price("ETHUSDT")).toBe(ticked.price("ETHUSDT"));
    const partial = makeSim();
    partial.advance(999);
    expect(partial.price("ETHUSDT")).toBe(3_000);
  });

  it("refuses to move the clock backwards", () => {
    expect(() => makeSim().advance(-1)).toThrow(RangeError);
  });

  it("reports the current price as the mark of a position", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("a", 0.002));
    sim.advance(10_000);
    expect(await sim.fetchPositions()).toEqual([{ symbol: "BTCUSDT", size: 0.002, markPrice: sim.price("BTCUSDT") }]);
    expect(sim.price("BTCUSDT")).not.toBe(60_000);
  });
});

describe("SimExchange: orders and positions", () => {
  it("a market order fills at once at the current price", async () => {
    const sim = makeSim();
    sim.setPrice("BTCUSDT", 61_000);
    const order = await sim.createOrder(buy("a", 0.5));
    expect(order).toMatchObject({ clientOrderId: "a", status: "filled", filledQty: 0.5, avgPrice: 61_000, qty: 0.5 });
    expect(order.exchangeOrderId).toBeTruthy();
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("positions are signed: a sell opens a short", async () => {
    const sim = makeSim();
    await sim.createOrder(sell("s", 0.25));
    expect(sim.position("BTCUSDT")).toBe(-0.25);
    expect(await sim.fetchPositions()).toEqual([{ symbol: "BTCUSDT", size: -0.25, markPrice: 60_000 }]);
  });

  it("sums of fills carry no float dust", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("a", 0.1));
    await sim.createOrder(buy("b", 0.2));
    expect(sim.position("BTCUSDT")).toBe(0.3);
  });

  it("flat symbols are not listed in the positions", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("a", 0.1));
    await sim.createOrder(sell("b", 0.1));
    expect(await sim.fetchPositions()).toEqual([]);
  });

  it("a duplicate client order id is refused and the position does not double", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("dup", 0.5));
    const error = await caught(sim.createOrder(buy("dup", 0.5)));
    expect(error).toBeInstanceOf(DuplicateClientOrderIdError);
    expect(sim.position("BTCUSDT")).toBe(0.5);
    expect(sim.orders()).toHaveLength(1);
  });

  it("findOrder returns the order by client order id", async () => {
    const sim = makeSim();
    const sent = await sim.createOrder(buy("a", 0.001));
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" })).toEqual(sent);
  });

  it("findOrder returns null for an id the exchange never got, or under another symbol", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("a", 0.001));
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "nope" })).toBeNull();
    expect(await sim.findOrder({ symbol: "ETHUSDT", clientOrderId: "a" })).toBeNull();
  });

  it("orders returned to callers are copies that cannot change the exchange", async () => {
    const sim = makeSim();
    const order = await sim.createOrder(buy("a", 0.001));
    order.status = "canceled";
    sim.orders()[0]!.filledQty = 99;
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" })).toMatchObject({ status: "filled", filledQty: 0.001 });
  });

  it("rejects a quantity that is not a multiple of the qty step, or not above zero", async () => {
    const sim = makeSim();
    expect(await caught(sim.createOrder(buy("odd", 0.0015)))).toBeInstanceOf(OrderRejectedError);
    expect(await caught(sim.createOrder(buy("zero", 0)))).toBeInstanceOf(OrderRejectedError);
    expect(sim.position("BTCUSDT")).toBe(0);
  });

  it("rejects an unknown symbol", async () => {
    const sim = makeSim();
    const error = await caught(sim.createOrder(buy("x", 1, { symbol: "DOGEUSDT" })));
    expect(error).toBeInstanceOf(OrderRejectedError);
  });

  it("a refused order stays on record as rejected, so its id cannot be reused", async () => {
    const sim = makeSim();
    await caught(sim.createOrder(buy("odd", 0.0015)));
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "odd" })).toMatchObject({ status: "rejected", filledQty: 0 });
    expect(await caught(sim.createOrder(buy("odd", 0.001)))).toBeInstanceOf(DuplicateClientOrderIdError);
  });

  it("cancelAllOrders cancels the live orders of one symbol and returns how many", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.5, times: 2 });
    await sim.createOrder(buy("p1", 0.01));
    await sim.createOrder(buy("e1", 1, { symbol: "ETHUSDT" }));
    await sim.createOrder(buy("f1", 0.01));
    expect(await sim.cancelAllOrders("BTCUSDT")).toBe(1);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "p1" })).toMatchObject({ status: "canceled", filledQty: 0.005 });
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "f1" })).toMatchObject({ status: "filled" });
    expect(await sim.findOrder({ symbol: "ETHUSDT", clientOrderId: "e1" })).toMatchObject({ status: "partially_filled" });
    // The part that filled before the cancel stays in the position.
    expect(sim.position("BTCUSDT")).toBe(0.015);
    expect(await sim.cancelAllOrders("BTCUSDT")).toBe(0);
  });

  it("the exchange order ids are deterministic", async () => {
    const ids = async () => {
      const sim = makeSim();
      await sim.createOrder(buy("a", 0.001));
      await sim.createOrder(buy("b", 0.001));
      return sim.orders().map((o) => o.exchangeOrderId);
    };
    const first = await ids();
    expect(first).toEqual(await ids());
    expect(new Set(first).size).toBe(2);
  });
});

describe("SimExchange: reduce-only", () => {
  it("reduce-only never grows a position", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("open", 0.5));
    const error = await caught(sim.createOrder(buy("more", 0.1, { reduceOnly: true })));
    expect(error).toBeInstanceOf(OrderRejectedError);
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("reduce-only on a flat position is rejected and opens nothing", async () => {
    const sim = makeSim();
    const error = await caught(sim.createOrder(sell("ro", 0.1, { reduceOnly: true })));
    expect(error).toBeInstanceOf(OrderRejectedError);
    expect(sim.position("BTCUSDT")).toBe(0);
  });

  it("reduce-only larger than the position is cut to the position and does not flip it", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("open", 0.5));
    const order = await sim.createOrder(sell("ro", 2, { reduceOnly: true }));
    expect(order).toMatchObject({ status: "filled", qty: 0.5, filledQty: 0.5 });
    expect(sim.position("BTCUSDT")).toBe(0);
  });

  it("closeReduceOnly flattens a long and a short", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("long", 0.5));
    await sim.createOrder({ clientOrderId: "short", symbol: "ETHUSDT", side: "sell", qty: 2 });
    const closeLong = await sim.closeReduceOnly({ clientOrderId: "c1", symbol: "BTCUSDT", size: 0.5 });
    const closeShort = await sim.closeReduceOnly({ clientOrderId: "c2", symbol: "ETHUSDT", size: -2 });
    expect(closeLong).toMatchObject({ side: "sell", status: "filled", filledQty: 0.5 });
    expect(closeShort).toMatchObject({ side: "buy", status: "filled", filledQty: 2 });
    expect(await sim.fetchPositions()).toEqual([]);
  });

  it("closeReduceOnly with the wrong sign is rejected instead of doubling the position", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("long", 0.5));
    const error = await caught(sim.closeReduceOnly({ clientOrderId: "c", symbol: "BTCUSDT", size: -0.5 }));
    expect(error).toBeInstanceOf(OrderRejectedError);
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("closeReduceOnly of a stale, larger size closes only what is left after a manual partial close", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("long", 0.5));
    sim.setPositionBehindBot("BTCUSDT", 0.2);
    const order = await sim.closeReduceOnly({ clientOrderId: "c", symbol: "BTCUSDT", size: 0.5 });
    expect(order).toMatchObject({ qty: 0.2, filledQty: 0.2, status: "filled" });
    expect(sim.position("BTCUSDT")).toBe(0);
  });

  it("a reduce-only remainder is canceled, not filled, once the position is gone", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("long", 0.4));
    sim.inject({ on: "close", fault: "partial_fill", fillRatio: 0.5 });
    await sim.closeReduceOnly({ clientOrderId: "c", symbol: "BTCUSDT", size: 0.4 });
    expect(sim.position("BTCUSDT")).toBe(0.2);
    sim.setPositionBehindBot("BTCUSDT", 0);
    expect(sim.fillRemaining("c")).toMatchObject({ status: "canceled", filledQty: 0.2 });
    expect(sim.position("BTCUSDT")).toBe(0);
  });
});

describe("SimExchange: positions behind the bot", () => {
  it("a position the bot never opened shows in fetchPositions with a mark", async () => {
    const sim = makeSim();
    sim.setPositionBehindBot("ETHUSDT", -1.5);
    expect(sim.position("ETHUSDT")).toBe(-1.5);
    expect(await sim.fetchPositions()).toEqual([{ symbol: "ETHUSDT", size: -1.5, markPrice: 3_000 }]);
    expect(sim.orders()).toEqual([]);
  });

  it("refuses a symbol it does not list", () => {
    expect(() => makeSim().setPositionBehindBot("DOGEUSDT", 1)).toThrow(RangeError);
  });
});

describe("SimExchange: send faults", () => {
  it("timeout_not_received: SendTimeoutError, nothing on the exchange, a resend with the same id works", async () => {
    const sim = makeSim({ timeoutMs: 7_000 });
    sim.inject({ on: "create", fault: "timeout_not_received" });
    const error = await caught(sim.createOrder(buy("a", 0.5)));
    expect(error).toBeInstanceOf(SendTimeoutError);
    expect((error as SendTimeoutError).afterMs).toBe(7_000);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" })).toBeNull();
    expect(sim.position("BTCUSDT")).toBe(0);
    expect(await sim.createOrder(buy("a", 0.5))).toMatchObject({ status: "filled" });
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("a lost reply after accept leaves a filled order that a lookup finds", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "timeout_after_accept" });
    expect(await caught(sim.createOrder(buy("a", 0.5)))).toBeInstanceOf(SendTimeoutError);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" })).toMatchObject({ status: "filled", filledQty: 0.5 });
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("a blind resend after a lost reply is refused as a duplicate and the position does not double", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "timeout_after_accept" });
    await caught(sim.createOrder(buy("a", 0.5)));
    expect(await caught(sim.createOrder(buy("a", 0.5)))).toBeInstanceOf(DuplicateClientOrderIdError);
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("a lost reply with lookupsFailForMs fails the bot's lookups of that order only, for that long, while the venue's own record answers", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "timeout_after_accept", lookupsFailForMs: 300_000 });
    expect(await caught(sim.createOrder(buy("lost", 0.5)))).toBeInstanceOf(SendTimeoutError);
    await sim.createOrder(buy("other", 0.1));
    expect(await caught(sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "lost" }))).toBeInstanceOf(LookupFailedError);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "other" })).toMatchObject({ status: "filled" });
    expect(sim.venueRecord({ symbol: "BTCUSDT", clientOrderId: "lost" })).toMatchObject({ status: "filled", filledQty: 0.5 });
    sim.advance(299_999);
    expect(await caught(sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "lost" }))).toBeInstanceOf(LookupFailedError);
    expect(sim.pendingFaults()).toHaveLength(1);
    sim.advance(1);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "lost" })).toMatchObject({ status: "filled", filledQty: 0.5 });
    expect(sim.pendingFaults()).toEqual([]);
  });

  it("timeout_after_accept can leave the order open instead of filled", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "timeout_after_accept", fillRatio: 0 });
    await caught(sim.createOrder(buy("a", 0.5)));
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" })).toMatchObject({ status: "open", filledQty: 0, avgPrice: null });
    expect(sim.position("BTCUSDT")).toBe(0);
  });

  it("delayed_appearance: lookups miss the order until the delay has passed, then it fills", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "delayed_appearance", delayMs: 1_500 });
    expect(await caught(sim.createOrder(buy("late", 0.5)))).toBeInstanceOf(SendTimeoutError);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "late" })).toBeNull();
    sim.advance(1_499);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "late" })).toBeNull();
    expect(sim.position("BTCUSDT")).toBe(0);
    const priceAtArrival = sim.price("BTCUSDT");
    sim.advance(1);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "late" })).toMatchObject({
      status: "filled",
      filledQty: 0.5,
      avgPrice: priceAtArrival,
    });
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("a late order that arrives after a resend with the same id is refused: one position, not two", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "delayed_appearance", delayMs: 5_000 });
    await caught(sim.createOrder(buy("late", 0.5)));
    await sim.createOrder(buy("late", 0.5));
    sim.advance(10_000);
    expect(sim.position("BTCUSDT")).toBe(0.5);
    expect(sim.orders()).toHaveLength(1);
  });

  it("a late order lands after cancelAllOrders has run, because the exchange did not have it yet", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "delayed_appearance", delayMs: 2_000, fillRatio: 0 });
    await caught(sim.createOrder(buy("late", 0.5)));
    expect(await sim.cancelAllOrders("BTCUSDT")).toBe(0);
    sim.advance(2_000);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "late" })).toMatchObject({ status: "open" });
  });

  it("partial_fill: accepted partly filled, and fillRemaining completes it at a weighted price", async () => {
    const sim = makeSim();
    sim.setPrice("BTCUSDT", 60_000);
    sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.25 });
    const order = await sim.createOrder(buy("p", 1));
    expect(order).toMatchObject({ status: "partially_filled", filledQty: 0.25, avgPrice: 60_000 });
    expect(sim.position("BTCUSDT")).toBe(0.25);
    sim.setPrice("BTCUSDT", 64_000);
    expect(sim.fillRemaining("p")).toMatchObject({ status: "filled", filledQty: 1, avgPrice: 63_000 });
    expect(sim.position("BTCUSDT")).toBe(1);
  });

  it("partial_fill rounds the filled part down to the qty step", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.5 });
    expect(await sim.createOrder(buy("p", 0.003))).toMatchObject({ filledQty: 0.001, status: "partially_filled" });
  });

  it("partial_fill with completeAfterMs completes when simulated time reaches it", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.5, completeAfterMs: 3_000 });
    await sim.createOrder(buy("p", 1));
    sim.advance(2_999);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "p" })).toMatchObject({ status: "partially_filled" });
    sim.advance(1);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "p" })).toMatchObject({ status: "filled", filledQty: 1 });
    expect(sim.position("BTCUSDT")).toBe(1);
  });

  it("a partial fill canceled before its scheduled completion stays canceled", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.5, completeAfterMs: 3_000 });
    await sim.createOrder(buy("p", 1));
    await sim.cancelAllOrders("BTCUSDT");
    sim.advance(5_000);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "p" })).toMatchObject({ status: "canceled", filledQty: 0.5 });
    expect(sim.position("BTCUSDT")).toBe(0.5);
  });

  it("fillRemaining refuses an order that is not live", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("a", 0.001));
    expect(() => sim.fillRemaining("a")).toThrow(/not live/);
    expect(() => sim.fillRemaining("missing")).toThrow(/no order/);
  });

  it("reject: OrderRejectedError with the reason, the order on record as rejected, no position", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "reject", reason: "insufficient margin" });
    const error = await caught(sim.createOrder(buy("r", 0.5)));
    expect(error).toBeInstanceOf(OrderRejectedError);
    expect((error as OrderRejectedError).reason).toBe("insufficient margin");
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "r" })).toMatchObject({ status: "rejected" });
    expect(sim.position("BTCUSDT")).toBe(0);
  });

  it("rate_limit: RateLimitError and the exchange has nothing", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "rate_limit", retryAfterMs: 250 });
    const error = await caught(sim.createOrder(buy("a", 0.5)));
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(250);
    expect(sim.orders()).toEqual([]);
    expect(await sim.createOrder(buy("a", 0.5))).toMatchObject({ status: "filled" });
  });

  it("close faults hit closeReduceOnly and not createOrder", async () => {
    const sim = makeSim();
    sim.inject({ on: "close", fault: "timeout_after_accept" });
    await sim.createOrder(buy("open", 0.5));
    expect(await caught(sim.closeReduceOnly({ clientOrderId: "c", symbol: "BTCUSDT", size: 0.5 }))).toBeInstanceOf(SendTimeoutError);
    expect(sim.position("BTCUSDT")).toBe(0);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "c" })).toMatchObject({ status: "filled" });
  });
});

describe("SimExchange: lookup and position faults", () => {
  it("lookup_fail: LookupFailedError even though the order exists", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("a", 0.5));
    sim.inject({ on: "find", fault: "lookup_fail" });
    expect(await caught(sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" }))).toBeInstanceOf(LookupFailedError);
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" })).not.toBeNull();
  });

  it("lookup_timeout: LookupFailedError caused by a SendTimeoutError, never a null", async () => {
    const sim = makeSim();
    sim.inject({ on: "find", fault: "lookup_timeout", afterMs: 3_000 });
    const error = await caught(sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" }));
    expect(error).toBeInstanceOf(LookupFailedError);
    const cause = (error as Error).cause;
    expect(cause).toBeInstanceOf(SendTimeoutError);
    expect((cause as SendTimeoutError).afterMs).toBe(3_000);
  });

  it("fetch_fail: fetchPositions throws, then works again", async () => {
    const sim = makeSim();
    sim.setPositionBehindBot("BTCUSDT", 1);
    sim.inject({ on: "positions", fault: "fetch_fail" });
    expect(await caught(sim.fetchPositions())).toBeInstanceOf(LookupFailedError);
    expect(await sim.fetchPositions()).toHaveLength(1);
  });

  it("rate_limit can hit lookups, position fetches and cancels too", async () => {
    const sim = makeSim();
    await sim.createOrder(buy("a", 0.5));
    sim.inject({ on: "find", fault: "rate_limit" });
    sim.inject({ on: "positions", fault: "rate_limit" });
    sim.inject({ on: "cancel", fault: "rate_limit" });
    expect(await caught(sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" }))).toBeInstanceOf(RateLimitError);
    expect(await caught(sim.fetchPositions())).toBeInstanceOf(RateLimitError);
    expect(await caught(sim.cancelAllOrders("BTCUSDT"))).toBeInstanceOf(RateLimitError);
    expect(sim.pendingFaults()).toEqual([]);
  });
});

describe("SimExchange: the fault script", () => {
  it("a fault hits `times` matching calls, then calls succeed", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "timeout_not_received", times: 2 });
    await caught(sim.createOrder(buy("a", 0.001)));
    await caught(sim.createOrder(buy("a", 0.001)));
    expect(await sim.createOrder(buy("a", 0.001))).toMatchObject({ status: "filled" });
  });

  it("faults are used in the order they were injected", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "rate_limit" });
    sim.inject({ on: "create", fault: "timeout_not_received" });
    expect(await caught(sim.createOrder(buy("a", 0.001)))).toBeInstanceOf(RateLimitError);
    expect(await caught(sim.createOrder(buy("a", 0.001)))).toBeInstanceOf(SendTimeoutError);
  });

  it("a fault filtered by symbol or client order id leaves other calls alone", async () => {
    const sim = makeSim();
    sim.inject({ on: "create", fault: "reject", symbol: "ETHUSDT" });
    sim.inject({ on: "create", fault: "rate_limit", clientOrderId: "target" });
    expect(await sim.createOrder(buy("other", 0.001))).toMatchObject({ status: "filled" });
    expect(await caught(sim.createOrder(buy("target", 0.001)))).toBeInstanceOf(RateLimitError);
    expect(await caught(sim.createOrder(buy("e", 1, { symbol: "ETHUSDT" })))).toBeInstanceOf(OrderRejectedError);
    expect(sim.pendingFaults()).toEqual([]);
  });

  it("pendingFaults lists what the script has not used, and clearFaults drops it", async () => {
    const sim = makeSim();
    sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
    await caught(sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" }));
    await caught(sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" }));
    expect(sim.pendingFaults()).toEqual([{ on: "find", fault: "lookup_fail", times: Infinity }]);
    sim.clearFaults();
    expect(await sim.findOrder({ symbol: "BTCUSDT", clientOrderId: "a" })).toBeNull();
  });

  it("refuses a malformed fault at injection rather than misbehaving later", () => {
    const sim = makeSim();
    expect(() => sim.inject({ on: "create", fault: "partial_fill", fillRatio: 1 })).toThrow(RangeError);
    expect(() => sim.inject({ on: "create", fault: "delayed_appearance", delayMs: 0 })).toThrow(RangeError);
    expect(() => sim.inject({ on: "create", fault: "reject", times: 0 })).toThrow(RangeError);
  });
});
