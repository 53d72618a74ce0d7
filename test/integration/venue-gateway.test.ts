/**
 * The bots' venue gateway (lib/exchange/venue-gateway.ts) on a real loopback port, asked by the
 * console's client and by raw requests a client would never send; and the demo's gateway settling
 * the opening act's lost reply through "Check on exchange" while the bot's own lookups still fail.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { SimExchange } from "@/lib/exchange/simulator";
import { serveVenueGateway, VenueGatewayClient } from "@/lib/exchange/venue-gateway";
import { applyFault, type DemoFault } from "@/tools/demo/faults";
import { LOST_REPLY_DOUBT_MS, SCENARIOS } from "@/tools/demo/scenarios";
import type { VenueLink } from "@/tools/demo/world";
import { auditRows } from "../helpers/actions";
import { SYMBOLS } from "../helpers/bot";
import { JournalView } from "../helpers/demo-journal";
import { migratedJournal } from "../helpers/journal";
import { demoCheckOnExchange, openScriptedAlpha } from "../helpers/demo-world";

describe("the venue gateway", () => {
  let server: http.Server;
  let base: string;

  beforeAll(async () => {
    const sim = new SimExchange({ seed: 7, symbols: SYMBOLS, startAt: new Date("2026-08-10T15:30:00.000Z") });
    server = await serveVenueGateway({ adapters: new Map([["alpha", sim]]), host: "127.0.0.1", port: 0, token: null });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("answers an order the venue never saw as absent", async () => {
    const answer = await new VenueGatewayClient(base, null).lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "dw-never-placed" });
    expect(answer).toEqual({ kind: "absent" });
  });

  it("answers a path with a malformed escape with an error, and keeps serving", async () => {
    // decodeURIComponent throws on "%E0%A4%A"; the handler used to leave that as an unhandled
    // rejection and the request without an answer.
    const res = await fetch(`${base}/v1/bots/%E0%A4%A/orders/x?symbol=BTCUSDT`, { signal: AbortSignal.timeout(10_000) });
    expect(res.status).toBe(500);
    const body = (await res.json()) as { error?: string };
    expect(body.error).toMatch(/^the venue gateway failed: URI malformed/);

    const after = await new VenueGatewayClient(base, null).lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "dw-never-placed" });
    expect(after).toEqual({ kind: "absent" });
  });
});

const listen = (server: http.Server) =>
  new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
const closeServer = (server: http.Server) => new Promise<void>((resolve) => server.close(() => resolve()));

describe("the venue gateway's failures, as the console's client words them", () => {
  const servers: http.Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await closeServer(s);
    }
  });

  it("says in seconds how long it waited for a gateway that never answers", async () => {
    const silent = http.createServer(() => undefined);
    servers.push(silent);
    const answer = await new VenueGatewayClient(await listen(silent), null, 300).lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "dw-x" });
    expect(answer).toEqual({ kind: "failed", error: "the venue gateway did not answer in 0.3 s" });
  });

  it("says what to change when the gateway refuses the console's token or does not serve the bot", async () => {
    const sim = new SimExchange({ seed: 7, symbols: SYMBOLS, startAt: new Date("2026-08-10T15:30:00.000Z") });
    const server = await serveVenueGateway({ adapters: new Map([["alpha", sim]]), host: "127.0.0.1", port: 0, token: "gateway-token-5Jr2wQ8x" });
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    for (const token of [null, "console-token-other-1"]) {
      expect(await new VenueGatewayClient(base, token).lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "dw-x" })).toEqual({
        kind: "failed",
        error: "the venue gateway refused the console's token (401): DRIFTWATCH_VENUE_TOKEN must be the gateway's own",
      });
    }
    expect(await new VenueGatewayClient(base, "gateway-token-5Jr2wQ8x").lookup({ botId: "gamma", symbol: "BTCUSDT", clientOrderId: "dw-x" })).toEqual({
      kind: "failed",
      error: "the venue gateway does not serve bot gamma (404): add it to the gateway's config under its journal bot_id",
    });
  });

  it("says the exchange could not be reached when the gateway's own lookup failed", async () => {
    const sim = new SimExchange({ seed: 7, symbols: SYMBOLS, startAt: new Date("2026-08-10T15:30:00.000Z") });
    sim.inject({ on: "find", fault: "lookup_fail", times: 1 });
    const server = await serveVenueGateway({ adapters: new Map([["alpha", sim]]), host: "127.0.0.1", port: 0, token: null });
    servers.push(server);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const answer = await new VenueGatewayClient(base, null).lookup({ botId: "alpha", symbol: "BTCUSDT", clientOrderId: "dw-x" });
    expect(answer).toEqual({
      kind: "failed",
      error: "the venue gateway says: lookup failed: no answer from the venue about dw-x: connection reset",
    });
  });
});

describe("the demo's lost reply, settled through its venue gateway", () => {
  const cleanups: (() => void | Promise<void>)[] = [];
  afterEach(async () => {
    for (const c of cleanups.splice(0).reverse()) await c();
  });

  /**
   * Alpha buys BTCUSDT with the demo's own "lost-reply-unknown" incident (the reply lost, then 120
   * of the bot's lookups failing): the order goes unknown and the breaker trips. The demo's gateway
   * serves the same world on a loopback port, as scripts/demo-bots.ts serves it.
   */
  async function demoLostReply(first: "lost_reply" | "never_arrived", venueLink: VenueLink = "direct") {
    const { world, script } = await openScriptedAlpha({ file: migratedJournal("demo-gateway"), venueLink });
    cleanups.push(() => world.close());
    world.exchange("alpha").setPrice("BTCUSDT", 60_000);
    script.set("BTCUSDT", 1);
    // The demo's own incident for a lost reply; for one that never arrived, the same failing link.
    const incident: DemoFault[] =
      first === "lost_reply" ? SCENARIOS["lost-reply-unknown"].demoIncident : [{ kind: "never_arrived" }, { kind: "lookups_fail", times: 120 }];
    for (const f of incident) expect(applyFault(world, "alpha", f)).not.toBeNull();
    await world.cycle();
    for (let i = 0; i < 3; i++) {
      world.advance(world.cycleMs);
      await world.cycle();
    }
    // As scripts/demo-bots.ts serves it: each venue spoken as Bybit V5, asked through CcxtAdapter.
    const checkOnExchange = await demoCheckOnExchange(world, cleanups);
    const view = new JournalView(world.file);
    cleanups.push(() => view.close());
    const [order] = view.orders("alpha", "symbol = 'BTCUSDT'");
    return { world, view, order: order!, check: () => checkOnExchange(order!.client_order_id) };
  }

  it("copies the fill the exchange has while the bot's own lookups keep failing", async () => {
    const { world, view, order, check } = await demoLostReply("lost_reply");
    // The bot is still in the dark: its order unknown, its breaker tripped, its last lookup failed.
    expect(order).toMatchObject({ state: "unknown" });
    expect(world.bot("alpha").writer.breaker().halted).toBe(true);
    expect(world.bot("alpha").writer.order(order.client_order_id)?.lastError).toMatch(/no answer from the venue about .*: connection reset/);

    expect(await check()).toEqual({ ok: true, data: { state: "filled", avgPrice: expect.any(Number) } });
    expect(view.orders("alpha", "symbol = 'BTCUSDT'")).toEqual([expect.objectContaining({ state: "filled", filled_qty: 0.5 })]);
    expect(auditRows(world.file).at(-1)).toMatchObject({ action: "resolve_order_lookup", outcome: "applied" });
    // The console's check did not use up the bot's failing lookups: its link is still down.
    await expect(world.exchange("alpha").findOrder({ symbol: "BTCUSDT", clientOrderId: order.client_order_id })).rejects.toThrow(/no answer from the venue/);
    expect(
      world
        .exchange("alpha")
        .orders()
        .filter((o) => o.symbol === "BTCUSDT"),
    ).toHaveLength(1); // asked, never resent
  });

  // bybit-v5: the bot's lookups go to its Bybit V5 venue through ccxt, as in `npm run demo`.
  it.each(["direct", "bybit-v5"] as const)(
    "stays beyond the bot's own lookups for the five minutes the README promises, then the bot settles it by itself (%s link)",
    async (venueLink) => {
      const { world, view, order } = await demoLostReply("lost_reply", venueLink);
      const lostAt = Date.parse(order.created_at);
      // Until five minutes after the lost reply, every cycle's lookup of it fails.
      while (world.now().getTime() + world.cycleMs < lostAt + LOST_REPLY_DOUBT_MS) {
        world.advance(world.cycleMs);
        await world.cycle();
      }
      expect(view.orders("alpha", "symbol = 'BTCUSDT'")).toEqual([expect.objectContaining({ state: "unknown" })]);
      world.advance(2 * world.cycleMs);
      await world.cycle();
      expect(view.orders("alpha", "symbol = 'BTCUSDT'")).toEqual([expect.objectContaining({ state: "filled", filled_qty: 0.5 })]);
      expect(world.exchange("alpha").orders()).toHaveLength(1); // looked up, never resent
    },
  );

  it("marks absent an order the exchange never got, while the bot's own lookups keep failing", async () => {
    const { view, order, check } = await demoLostReply("never_arrived");
    expect(order).toMatchObject({ state: "unknown" });
    expect(await check()).toEqual({ ok: true, data: { state: "absent", avgPrice: null } });
    expect(view.orders("alpha", "symbol = 'BTCUSDT'")).toEqual([expect.objectContaining({ state: "absent", filled_qty: 0 })]);
  });
});
