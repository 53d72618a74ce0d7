/**
 * The demo's bots on their Bybit V5 venues (venueLink "bybit-v5", as `npm run demo` runs them): the
 * writer sends, looks up and reads positions through CcxtAdapter and ccxt's signing, over loopback
 * HTTP to the simulated venue, with the demo's faults coming out on the wire. What the venue heard
 * is checked against the journal.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { VenueRequest } from "@/tools/demo/bybit-venue";
import { applyFault } from "@/tools/demo/faults";
import { SCENARIOS } from "@/tools/demo/scenarios";
import { auditRows } from "../helpers/actions";
import { JournalView } from "../helpers/demo-journal";
import { demoCheckOnExchange, openScriptedAlpha } from "../helpers/demo-world";
import { migratedJournal } from "../helpers/journal";

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** Alpha alone, every symbol scripted, on its Bybit V5 venue; every private request the venue hears is kept. */
async function alphaOnBybit() {
  const { world, script } = await openScriptedAlpha({ file: migratedJournal("demo-bybit"), venueLink: "bybit-v5" });
  cleanups.push(() => world.close());
  const venue = world.bybitVenue("alpha")!;
  const heard: VenueRequest[] = [];
  venue.onRequest((r) => heard.push(r));
  const view = new JournalView(world.file);
  cleanups.push(() => view.close());
  world.exchange("alpha").setPrice("BTCUSDT", 60_000);
  const creates = () => heard.filter((r) => r.method === "POST" && r.path === "/v5/order/create");
  const lookupsOf = (id: string, caller: "bot" | "gateway") =>
    heard.filter((r) => r.method === "GET" && r.path.startsWith("/v5/order/") && r.caller === caller && r.params.get("orderLinkId") === id);
  return { world, script, heard, creates, lookupsOf, view };
}

describe("the demo bot on its Bybit V5 venue", () => {
  it("sends every order as a signed Bybit V5 create whose orderLinkId is the journal's client order id, and reads its positions there", async () => {
    const { world, script, heard, creates, view } = await alphaOnBybit();
    script.set("BTCUSDT", 1);
    await world.cycle();
    // A bar later the stance flips to flat: the exit goes out reduce-only.
    script.set("BTCUSDT", 0);
    world.advance(world.barMs);
    await world.cycle();

    const orders = view.orders("alpha", "symbol = 'BTCUSDT'");
    expect(orders).toEqual([
      expect.objectContaining({ side: "buy", state: "filled", filled_qty: 0.5 }),
      expect.objectContaining({ side: "sell", state: "filled", filled_qty: 0.5 }),
    ]);
    // One create per journal order, in order, each carrying its id and signed with the bot's key.
    expect(creates().map((r) => r.params.get("orderLinkId"))).toEqual(orders.map((o) => o.client_order_id));
    for (const [i, r] of creates().entries()) {
      expect(r).toMatchObject({ signed: true, caller: "bot" });
      expect(Object.fromEntries(r.params)).toMatchObject({
        category: "linear",
        symbol: "BTCUSDT",
        orderType: "Market",
        qty: "0.5",
        side: i === 0 ? "Buy" : "Sell",
      });
    }
    expect(creates()[0]!.params.get("reduceOnly")).toBeNull();
    expect(creates()[1]!.params.get("reduceOnly")).toBe("true");
    // The fills in the journal are the venue's: its order ids and prices, read back by ccxt.
    const venueOrders = world.exchange("alpha").orders();
    expect(orders.map((o) => world.bot("alpha").writer.order(o.client_order_id)?.exchangeOrderId)).toEqual(venueOrders.map((o) => o.exchangeOrderId));
    expect(orders.map((o) => o.avg_price)).toEqual(venueOrders.map((o) => o.avgPrice));
    // The reconciliations compared the book with positions the venue listed to the bot's key.
    expect(heard.filter((r) => r.path === "/v5/position/list").length).toBeGreaterThanOrEqual(2);
    expect(heard.every((r) => r.signed && r.caller === "bot")).toBe(true);
    expect(world.bot("alpha").writer.breaker().halted).toBe(false);
  });

  it("keeps the gateway's key read-only: an order sent with it is refused and never reaches the book", async () => {
    const { world, heard } = await alphaOnBybit();
    const gatewayKey = world.bybitVenue("alpha")!.adapter("gateway", { name: "gateway", clock: () => world.now() });
    await expect(gatewayKey.createOrder({ clientOrderId: "gateway-never", symbol: "BTCUSDT", side: "buy", qty: 0.5 })).rejects.toThrow(/refused the key/);
    expect(heard.at(-1)).toMatchObject({ path: "/v5/order/create", caller: "gateway", signed: true });
    expect(world.exchange("alpha").orders()).toEqual([]);
  });

  it("settles the demo's lost reply through the venue: one create, the bot's lookups cut, the gateway's Check on exchange finds it filled, never resent", async () => {
    const { world, script, creates, lookupsOf, view } = await alphaOnBybit();
    script.set("BTCUSDT", 1);
    for (const f of SCENARIOS["lost-reply-unknown"].demoIncident) expect(applyFault(world, "alpha", f)).not.toBeNull();
    await world.cycle();
    for (let i = 0; i < 3; i++) {
      world.advance(world.cycleMs);
      await world.cycle();
    }
    const [order] = view.orders("alpha", "symbol = 'BTCUSDT'");
    expect(order).toMatchObject({ state: "unknown" });
    const id = order!.client_order_id;
    expect(world.bot("alpha").writer.breaker().halted).toBe(true);
    // The venue took it (filled), the connection was cut before the answer, and every lookup the
    // bot made of it since was cut too: it asked, it never sent it again.
    expect(world.exchange("alpha").orders()).toEqual([expect.objectContaining({ clientOrderId: id, status: "filled" })]);
    expect(creates().map((r) => r.params.get("orderLinkId"))).toEqual([id]);
    expect(lookupsOf(id, "bot").length).toBeGreaterThanOrEqual(3);
    expect(world.bot("alpha").writer.order(id)?.lastError).toMatch(/^lookup failed: bybit could not be asked about .*: network error/);

    // The console's Check on exchange, through the demo's gateway on the same venue.
    const checkOnExchange = await demoCheckOnExchange(world, cleanups);
    expect(await checkOnExchange(id)).toEqual({ ok: true, data: { state: "filled", avgPrice: expect.any(Number) } });
    expect(view.orders("alpha", "symbol = 'BTCUSDT'")).toEqual([expect.objectContaining({ state: "filled", filled_qty: 0.5 })]);
    expect(auditRows(world.file).at(-1)).toMatchObject({ action: "resolve_order_lookup", outcome: "applied" });
    expect(lookupsOf(id, "gateway").length).toBeGreaterThan(0);
    expect(creates()).toHaveLength(1);
  });
});
