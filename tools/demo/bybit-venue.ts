/**
 * A simulated venue spoken as Bybit V5 REST, so the demo's venue gateway asks it through
 * CcxtAdapter and ccxt's own signing and parsing, exactly as a desk's gateway asks Bybit.
 *
 * Served: market time, instruments-info (linear), tickers, order realtime / history by
 * orderLinkId, position list, order create and cancel-all. Every private request must carry a
 * valid X-BAPI-SIGN (HMAC-SHA256 of timestamp + key + recv window + query or body), or it gets
 * Bybit's retCode 10004. Reads come from the venue's own record (SimExchange.venueRecord): the
 * demo's failing lookups are the bot's link, not the venue, as on a real desk.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { DuplicateClientOrderIdError, OrderRejectedError, RateLimitError, SendTimeoutError, type ExchangeOrder } from "../../lib/exchange/adapter";
import { CcxtAdapter, createCcxtExchange } from "../../lib/exchange/ccxt-adapter";
import type { SimExchange } from "../../lib/exchange/simulator";
import { stepDecimals, type MarketSpec } from "./markets";
import type { DemoWorld } from "./world";

interface BybitVenueOptions {
  sim: SimExchange;
  markets: readonly Pick<MarketSpec, "symbol" | "qtyStep">[];
  apiKey: string;
  secret: string;
  host: string;
  port: number;
  /** Told of every private request once its signature is checked: what was asked and whether the signature held. */
  onPrivateRequest?: (request: VenueRequest) => void;
}

/** A private request the venue received: its method, path, query (or body) and whether it was validly signed. */
export interface VenueRequest {
  method: string;
  path: string;
  params: URLSearchParams;
  signed: boolean;
}

const BYBIT_STATUS: Record<ExchangeOrder["status"], string> = {
  open: "New",
  partially_filled: "PartiallyFilled",
  filled: "Filled",
  canceled: "Cancelled",
  rejected: "Rejected",
};

function serveSimAsBybit(opts: BybitVenueOptions): Promise<http.Server> {
  const { sim } = opts;
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

  const signedBy = (req: http.IncomingMessage, payload: string): boolean => {
    const h = (name: string) => String(req.headers[name] ?? "");
    const expected = Buffer.from(
      createHmac("sha256", opts.secret)
        .update(`${h("x-bapi-timestamp")}${opts.apiKey}${h("x-bapi-recv-window")}${payload}`)
        .digest("hex"),
    );
    const got = Buffer.from(h("x-bapi-sign"));
    return h("x-bapi-api-key") === opts.apiKey && got.length === expected.length && timingSafeEqual(got, expected);
  };

  async function answer(method: string, path: string, query: URLSearchParams, body: string): Promise<unknown | "hang"> {
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
      const found = q("orderLinkId") ? sim.venueRecord({ symbol: q("symbol"), clientOrderId: q("orderLinkId") }) : null;
      const live = found && (found.status === "open" || found.status === "partially_filled");
      // Realtime lists live orders and recent closed ones; history, closed ones.
      const list = found && (path === "/v5/order/realtime" || !live) ? [order(found)] : [];
      return envelope({ category: "linear", list, nextPageCursor: "" });
    }
    if (path === "/v5/position/list") {
      const list = opts.markets
        .filter((m) => sim.position(m.symbol) !== 0)
        .map((m) => {
          const size = sim.position(m.symbol);
          return {
            positionIdx: 0,
            symbol: m.symbol,
            side: size > 0 ? "Buy" : "Sell",
            size: fmt(m.symbol, Math.abs(size)),
            markPrice: String(sim.price(m.symbol)),
            avgPrice: "0",
            leverage: "1",
            positionValue: "0",
            createdTime: "0",
            updatedTime: "0",
          };
        });
      return envelope({ category: "linear", list, nextPageCursor: "" });
    }
    if (method === "POST" && path === "/v5/order/create") {
      const o = JSON.parse(body) as { symbol: string; side: "Buy" | "Sell"; qty: string; orderLinkId: string; reduceOnly?: boolean };
      const side = o.side === "Buy" ? "buy" : "sell";
      try {
        const placed = o.reduceOnly
          ? await sim.closeReduceOnly({ clientOrderId: o.orderLinkId, symbol: o.symbol, size: side === "sell" ? Number(o.qty) : -Number(o.qty) })
          : await sim.createOrder({ clientOrderId: o.orderLinkId, symbol: o.symbol, side, qty: Number(o.qty) });
        return envelope({ orderId: placed.exchangeOrderId, orderLinkId: placed.clientOrderId });
      } catch (e) {
        if (e instanceof SendTimeoutError) return "hang";
        if (e instanceof DuplicateClientOrderIdError) return error(110072, "OrderLinkedID is duplicate");
        if (e instanceof RateLimitError) return error(10006, "Too many visits!");
        if (e instanceof OrderRejectedError) return error(110007, e.reason);
        throw e;
      }
    }
    if (method === "POST" && path === "/v5/order/cancel-all") {
      const o = JSON.parse(body) as { symbol: string };
      const n = await sim.cancelAllOrders(o.symbol);
      return envelope({ list: Array.from({ length: n }, () => ({ orderId: "", orderLinkId: "" })), success: "1" });
    }
    return null;
  }

  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const url = new URL(req.url ?? "/", "http://bybit");
      const send = (status: number, json: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(json));
      };
      const isPrivate = !url.pathname.startsWith("/v5/market/");
      if (isPrivate) {
        const signed = signedBy(req, req.method === "GET" ? url.searchParams.toString() : body);
        opts.onPrivateRequest?.({ method: req.method ?? "GET", path: url.pathname, params: url.searchParams, signed });
        if (!signed) return send(200, error(10004, "error sign!"));
      }
      answer(req.method ?? "GET", url.pathname, url.searchParams, body).then(
        (json) => {
          // A lost reply: the venue took the order and the answer never comes back.
          if (json === "hang") return res.destroy();
          if (json === null) return send(404, { error: `not served: ${req.method} ${url.pathname}` });
          send(200, json);
        },
        (e: unknown) => send(500, { error: e instanceof Error ? e.message : String(e) }),
      );
    });
  });
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(opts.port, opts.host, () => resolve(server));
  });
}

/**
 * What the demo's venue gateway serves: each bot's simulated venue behind its own Bybit V5 server
 * on loopback, asked through CcxtAdapter with a key made for this run. Close it to stop the servers.
 * `onPrivateRequest` hears of each private request a venue received (scripts/demo-bots.ts prints
 * the order lookups, so a person, or a test, sees "Check on exchange" reach the venue).
 */
export async function demoGatewayAdapters(
  world: DemoWorld,
  opts: { host?: string; onPrivateRequest?: (botId: string, request: VenueRequest) => void } = {},
): Promise<{ adapters: Map<string, CcxtAdapter>; close: () => Promise<void> }> {
  const host = opts.host ?? "127.0.0.1";
  const servers: http.Server[] = [];
  const adapters = new Map<string, CcxtAdapter>();
  for (const bot of world.bots) {
    const apiKey = `demo-${bot.botId}-${randomBytes(6).toString("hex")}`;
    const secret = randomBytes(24).toString("base64url");
    const onPrivateRequest = opts.onPrivateRequest;
    const server = await serveSimAsBybit({
      sim: world.exchange(bot.botId),
      markets: bot.spec.markets,
      apiKey,
      secret,
      host,
      port: 0,
      onPrivateRequest: onPrivateRequest && ((r) => onPrivateRequest(bot.botId, r)),
    });
    servers.push(server);
    const { port } = server.address() as AddressInfo;
    const exchange = createCcxtExchange({ venue: "bybit", accountType: "linear", apiKey, secret, baseUrl: `http://${host}:${port}`, timeoutMs: 5_000 });
    adapters.set(bot.botId, new CcxtAdapter({ venue: "bybit", accountType: "linear", exchange, name: bot.spec.venue, clock: () => world.now() }));
  }
  return {
    adapters,
    close: async () => {
      await Promise.all(
        servers.map(
          (s) =>
            new Promise<void>((resolve) => {
              s.closeAllConnections();
              s.close(() => resolve());
            }),
        ),
      );
    },
  };
}
