/**
 * A simulated venue spoken as Bybit V5 REST on loopback, so the demo's bots trade on it and the
 * demo's venue gateway asks it through CcxtAdapter and ccxt's own signing and parsing, exactly as a
 * desk's bot and gateway talk to Bybit.
 *
 * Served: market time, instruments-info (linear), tickers, order realtime / history by
 * orderLinkId, position list, order create (with orderLinkId, reduce-only) and cancel-all. Two keys
 * are valid, as on a desk: the bot's trading key and the gateway's read-only key (a create or
 * cancel with it is Bybit's retCode 10005). Every private request must carry a valid X-BAPI-SIGN
 * (HMAC-SHA256 of timestamp + key + recv window + query or body) for one of them, or it gets
 * retCode 10004.
 *
 * The demo's faults (tools/demo/faults.ts) stay in the simulator and come out on the wire as a real
 * venue's would: a lost reply is a create whose connection is cut after the venue took the order,
 * a failing lookup or position read a connection cut on the bot's key (its link, not the venue: the
 * gateway's key still gets the venue's own record), a rate limit retCode 10006, a refusal 110007 or
 * 110017, a reused id 110072.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import {
  DuplicateClientOrderIdError,
  LookupFailedError,
  OrderRejectedError,
  RateLimitError,
  SendTimeoutError,
  type ExchangeOrder,
  type ExchangePosition,
} from "../../lib/exchange/adapter";
import { CcxtAdapter, createCcxtExchange } from "../../lib/exchange/ccxt-adapter";
import type { SimExchange } from "../../lib/exchange/simulator";
import { stepDecimals, type MarketSpec } from "./markets";
import type { DemoWorld } from "./world";

/** Who holds the key a request was signed with: the bot (trading) or the venue gateway (read-only). */
export type VenueCaller = "bot" | "gateway";

/** A private request the venue received: its method, path, query (or body), whose key and whether the signature held. */
export interface VenueRequest {
  method: string;
  path: string;
  /** The query of a GET, the JSON body's fields of a POST. */
  params: URLSearchParams;
  /** null: a key the venue does not know. */
  caller: VenueCaller | null;
  signed: boolean;
}

interface ApiKey {
  apiKey: string;
  secret: string;
}

const BYBIT_STATUS: Record<ExchangeOrder["status"], string> = {
  open: "New",
  partially_filled: "PartiallyFilled",
  filled: "Filled",
  canceled: "Cancelled",
  rejected: "Rejected",
};

/** The bot's link failed (the simulator said so): the connection is cut, no answer comes. */
const CUT = Symbol("cut");

const newKey = (who: string): ApiKey => ({ apiKey: `demo-${who}-${randomBytes(6).toString("hex")}`, secret: randomBytes(24).toString("base64url") });

export class DemoBybitVenue {
  readonly url: string;

  private constructor(
    private readonly server: http.Server,
    private readonly keys: Record<VenueCaller, ApiKey>,
    private readonly listeners: Set<(r: VenueRequest) => void>,
  ) {
    const { address, port } = server.address() as AddressInfo;
    this.url = `http://${address}:${port}`;
  }

  /** Serves one simulated account on `host` (loopback by default), a free port unless one is given. */
  static async serve(opts: {
    sim: SimExchange;
    markets: readonly Pick<MarketSpec, "symbol" | "qtyStep">[];
    host?: string;
    port?: number;
  }): Promise<DemoBybitVenue> {
    const keys = { bot: newKey("bot"), gateway: newKey("gateway") };
    const listeners = new Set<(r: VenueRequest) => void>();
    const server = http.createServer(
      handler({
        ...opts,
        keys,
        heard: (r) => {
          for (const listener of listeners) listener(r);
        },
      }),
    );
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(opts.port ?? 0, opts.host ?? "127.0.0.1", () => resolve());
    });
    return new DemoBybitVenue(server, keys, listeners);
  }

  /** Hears of every private request once its signature is checked; returns how to stop hearing. */
  onRequest(listener: (r: VenueRequest) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * CcxtAdapter on this venue with the caller's key, as a desk builds it for Bybit (createCcxtExchange,
   * its REST roots pointed here). ccxt's client-side throttle is off: it paces requests to Bybit's
   * published limits (100 ms for a position read, 200 ms for a lookup by id), which this venue does
   * not have, and would only stretch the demo's cycles; a rate limit the demo injects still arrives
   * as Bybit's 10006.
   */
  adapter(caller: VenueCaller, opts: { name: string; clock: () => Date }): CcxtAdapter {
    const { apiKey, secret } = this.keys[caller];
    const exchange = createCcxtExchange({ venue: "bybit", accountType: "linear", apiKey, secret, baseUrl: this.url, timeoutMs: 5_000 });
    exchange.enableRateLimit = false;
    return new CcxtAdapter({ venue: "bybit", accountType: "linear", exchange, name: opts.name, clock: opts.clock });
  }

  /** Stops listening and cuts open connections; synchronous in effect (the close callback only confirms). */
  close(): Promise<void> {
    this.listeners.clear();
    return new Promise((resolve) => {
      this.server.closeAllConnections();
      this.server.close(() => resolve());
    });
  }
}

function handler(opts: {
  sim: SimExchange;
  markets: readonly Pick<MarketSpec, "symbol" | "qtyStep">[];
  keys: Record<VenueCaller, ApiKey>;
  heard: (r: VenueRequest) => void;
}): http.RequestListener {
  const { sim, keys } = opts;
  const steps = new Map(opts.markets.map((m) => [m.symbol, m.qtyStep]));
  const fmt = (symbol: string, n: number) => n.toFixed(stepDecimals(steps.get(symbol) ?? 1e-8));
  const envelope = (result: unknown) => ({ retCode: 0, retMsg: "OK", result, retExtInfo: {}, time: sim.now().getTime() });
  const error = (retCode: number, retMsg: string) => ({ retCode, retMsg, result: {}, retExtInfo: {}, time: sim.now().getTime() });

  const order = (o: ExchangeOrder) => {
    const canceledWithFill = o.status === "canceled" && o.filledQty > 0;
    const live = o.status === "open" || o.status === "partially_filled";
    const at = String(sim.now().getTime());
    return {
      orderId: o.exchangeOrderId,
      orderLinkId: o.clientOrderId,
      symbol: o.symbol,
      price: "0",
      qty: fmt(o.symbol, o.qty),
      side: o.side === "buy" ? "Buy" : "Sell",
      positionIdx: 0,
      orderStatus: canceledWithFill ? "PartiallyFilledCanceled" : BYBIT_STATUS[o.status],
      cancelType: o.status === "canceled" ? "CancelByUser" : "UNKNOWN",
      rejectReason: o.status === "rejected" ? "EC_NoImmediateQtyToFill" : "EC_NoError",
      avgPrice: o.avgPrice === null ? "" : String(o.avgPrice),
      leavesQty: live ? fmt(o.symbol, o.qty - o.filledQty) : "0",
      cumExecQty: fmt(o.symbol, o.filledQty),
      cumExecValue: String(o.filledQty * (o.avgPrice ?? 0)),
      cumExecFee: "0",
      timeInForce: "IOC",
      orderType: "Market",
      reduceOnly: false,
      closeOnTrigger: false,
      createdTime: at,
      updatedTime: at,
    };
  };

  const position = (p: ExchangePosition) => ({
    positionIdx: 0,
    symbol: p.symbol,
    side: p.size > 0 ? "Buy" : "Sell",
    size: fmt(p.symbol, Math.abs(p.size)),
    markPrice: String(p.markPrice ?? sim.price(p.symbol)),
    avgPrice: "0",
    leverage: "1",
    positionValue: "0",
    createdTime: "0",
    updatedTime: "0",
  });

  /** Whose key signed the request, and whether the signature holds for that key's secret. */
  const signer = (req: http.IncomingMessage, payload: string): { caller: VenueCaller | null; signed: boolean } => {
    const h = (name: string) => String(req.headers[name] ?? "");
    const caller = (Object.keys(keys) as VenueCaller[]).find((c) => keys[c].apiKey === h("x-bapi-api-key")) ?? null;
    if (!caller) return { caller, signed: false };
    const expected = Buffer.from(
      createHmac("sha256", keys[caller].secret)
        .update(`${h("x-bapi-timestamp")}${keys[caller].apiKey}${h("x-bapi-recv-window")}${payload}`)
        .digest("hex"),
    );
    const got = Buffer.from(h("x-bapi-sign"));
    return { caller, signed: got.length === expected.length && timingSafeEqual(got, expected) };
  };

  /** What the simulator's own errors look like on the wire. */
  const onWire = (e: unknown): unknown => {
    if (e instanceof SendTimeoutError || e instanceof LookupFailedError) return CUT;
    if (e instanceof RateLimitError) return error(10006, "Too many visits!");
    if (e instanceof DuplicateClientOrderIdError) return error(110072, "OrderLinkedID is duplicate");
    if (e instanceof OrderRejectedError)
      return /reduce-only/.test(e.reason) ? error(110017, `Reduce-only rule not satisfied: ${e.reason}`) : error(110007, e.reason);
    throw e;
  };

  async function answer(method: string, path: string, query: URLSearchParams, body: string, caller: VenueCaller | null): Promise<unknown> {
    const q = (k: string) => query.get(k) ?? "";
    if (path === "/v5/market/time") {
      const ms = sim.now().getTime();
      return envelope({ timeSecond: String(Math.floor(ms / 1000)), timeNano: `${ms}000000` });
    }
    if (path === "/v5/market/instruments-info") {
      if (q("category") !== "linear") return envelope({ category: q("category"), list: [], nextPageCursor: "" });
      const list = opts.markets.map((m) => ({
        symbol: m.symbol,
        contractType: "LinearPerpetual",
        status: q("status") === "PreLaunch" ? "PreLaunch" : "Trading",
        baseCoin: m.symbol.replace(/USDT$/, ""),
        quoteCoin: "USDT",
        settleCoin: "USDT",
        launchTime: "1585526400000",
        deliveryTime: "0",
        priceScale: "4",
        leverageFilter: { minLeverage: "1", maxLeverage: "100.00", leverageStep: "0.01" },
        priceFilter: { minPrice: "0.0001", maxPrice: "1999999.80", tickSize: "0.0001" },
        lotSizeFilter: { maxOrderQty: "1000000", minOrderQty: String(m.qtyStep), qtyStep: String(m.qtyStep), maxMktOrderQty: "1000000", minNotionalValue: "5" },
        unifiedMarginTrade: true,
        fundingInterval: 480,
      }));
      return envelope({ category: "linear", list: q("status") === "PreLaunch" ? [] : list, nextPageCursor: "" });
    }
    if (path === "/v5/market/tickers") {
      const symbols = q("symbol") ? [q("symbol")] : opts.markets.map((m) => m.symbol);
      return envelope({ category: "linear", list: symbols.map((s) => ({ symbol: s, lastPrice: String(sim.price(s)), markPrice: String(sim.price(s)) })) });
    }
    if (path === "/v5/order/realtime" || path === "/v5/order/history") {
      let found: ExchangeOrder | null = null;
      if (q("orderLinkId")) {
        const asked = { symbol: q("symbol"), clientOrderId: q("orderLinkId") };
        // The bot's lookups go through its link, which the demo's faults can break; the gateway's
        // read the venue's own record.
        if (caller === "bot") {
          try {
            found = await sim.findOrder(asked);
          } catch (e) {
            return onWire(e);
          }
        } else found = sim.venueRecord(asked);
      }
      const live = found && (found.status === "open" || found.status === "partially_filled");
      // Realtime lists live orders and recent closed ones; history, closed ones.
      const list = found && (path === "/v5/order/realtime" || !live) ? [order(found)] : [];
      return envelope({ category: "linear", list, nextPageCursor: "" });
    }
    if (path === "/v5/position/list") {
      let held: ExchangePosition[];
      if (caller === "bot") {
        try {
          held = await sim.fetchPositions();
        } catch (e) {
          return onWire(e);
        }
      } else {
        held = opts.markets.map((m) => ({ symbol: m.symbol, size: sim.position(m.symbol), markPrice: sim.price(m.symbol) })).filter((p) => p.size !== 0);
      }
      return envelope({ category: "linear", list: held.map(position), nextPageCursor: "" });
    }
    if (method !== "POST" || (path !== "/v5/order/create" && path !== "/v5/order/cancel-all")) return null;
    if (caller !== "bot") return error(10005, "Permission denied, please check your API key permissions.");
    if (path === "/v5/order/create") {
      const o = JSON.parse(body) as { symbol: string; side: "Buy" | "Sell"; qty: string; orderLinkId?: string; reduceOnly?: boolean };
      if (!o.orderLinkId) return error(10001, "orderLinkId is required by this venue");
      try {
        // Every create is one matching-engine call, reduce-only or not, as on Bybit: the flatten
        // close the writer sends after an unknown position meets the same "create" faults.
        const placed = await sim.createOrder({
          clientOrderId: o.orderLinkId,
          symbol: o.symbol,
          side: o.side === "Buy" ? "buy" : "sell",
          qty: Number(o.qty),
          reduceOnly: o.reduceOnly === true,
        });
        // Bybit acknowledges with the ids only; the state is read from realtime.
        return envelope({ orderId: placed.exchangeOrderId, orderLinkId: placed.clientOrderId });
      } catch (e) {
        return onWire(e);
      }
    }
    const o = JSON.parse(body) as { symbol: string };
    try {
      const n = await sim.cancelAllOrders(o.symbol);
      return envelope({ list: Array.from({ length: n }, () => ({ orderId: "", orderLinkId: "" })), success: "1" });
    } catch (e) {
      return onWire(e);
    }
  }

  return (req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://bybit");
      const method = req.method ?? "GET";
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      let caller: VenueCaller | null = null;
      if (!url.pathname.startsWith("/v5/market/")) {
        const signature = signer(req, method === "GET" ? url.searchParams.toString() : body);
        caller = signature.caller;
        let params = url.searchParams;
        if (method !== "GET") {
          try {
            params = new URLSearchParams(Object.entries(JSON.parse(body) as Record<string, unknown>).map(([k, v]) => [k, String(v)]));
          } catch {
            // not JSON: heard without its fields
          }
        }
        opts.heard({ method, path: url.pathname, params, caller, signed: signature.signed });
        if (!signature.signed) return send(200, error(caller ? 10004 : 10003, caller ? "error sign!" : "API key is invalid."));
      }
      answer(method, url.pathname, url.searchParams, body, caller).then(
        (json) => {
          // The answer is lost: the venue did (or did not) act, and no reply comes back.
          if (json === CUT) return res.destroy();
          if (json === null) return send(404, { error: `not served: ${method} ${url.pathname}` });
          send(200, json);
        },
        (e: unknown) => send(500, { error: e instanceof Error ? e.message : String(e) }),
      );
    });
  };
}

/**
 * What the demo's venue gateway serves: each bot's Bybit V5 venue asked through CcxtAdapter with
 * the gateway's read-only key. A world whose bots already trade through such venues (venueLink
 * "bybit-v5", as `npm run demo` runs) lends its own; for a world on direct links, each venue is
 * served here and closed with the gateway. `onPrivateRequest` hears of each private request a
 * venue receives, the bots' too (scripts/demo-bots.ts prints the gateway's order lookups, so a
 * person, or a test, sees "Check on exchange" reach the venue).
 */
export async function demoGatewayAdapters(
  world: DemoWorld,
  opts: { host?: string; onPrivateRequest?: (botId: string, request: VenueRequest) => void } = {},
): Promise<{ adapters: Map<string, CcxtAdapter>; close: () => Promise<void> }> {
  const owned: DemoBybitVenue[] = [];
  const unsubscribe: (() => void)[] = [];
  const adapters = new Map<string, CcxtAdapter>();
  for (const bot of world.bots) {
    let venue = world.bybitVenue(bot.botId);
    if (!venue) {
      venue = await DemoBybitVenue.serve({ sim: world.exchange(bot.botId), markets: bot.spec.markets, host: opts.host });
      owned.push(venue);
    }
    const onPrivateRequest = opts.onPrivateRequest;
    if (onPrivateRequest) unsubscribe.push(venue.onRequest((r) => onPrivateRequest(bot.botId, r)));
    adapters.set(bot.botId, venue.adapter("gateway", { name: bot.spec.venue, clock: () => world.now() }));
  }
  return {
    adapters,
    close: async () => {
      for (const u of unsubscribe) u();
      await Promise.all(owned.map((v) => v.close()));
    },
  };
}
