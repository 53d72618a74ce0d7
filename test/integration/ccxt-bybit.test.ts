/**
 * CcxtAdapter on Bybit V5, against recorded responses served on loopback: ccxt signs each request
 * (HMAC-SHA256 in X-BAPI-SIGN, checked here as Bybit checks it) and parses each reply.
 */
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { LookupFailedError, SendTimeoutError } from "@/lib/exchange/adapter";
import { CcxtAdapter, createCcxtExchange, type AccountType } from "@/lib/exchange/ccxt-adapter";
import { serveVenueReplay, type ReceivedRequest, type Reply, type Route, type VenueReplay } from "../helpers/venue-replay";
import { BYBIT_NOW, bybitBase, bybitError, bybitOrder, bybitOrderList, bybitPosition } from "../helpers/venues/bybit";

const KEY = "bybit-test-key-7Hq2";
const SECRET = "bybit-test-secret-Zp81xQ";
const ID = "alpha-3f9c2a71b0d4e58c6a12";
const PLACED = new Date(BYBIT_NOW - 5 * 60_000).toISOString();

/** Bybit's own check: HMAC of timestamp + key + recv window + (query string | JSON body). */
function signedByUs(req: ReceivedRequest): boolean {
  const ts = String(req.headers["x-bapi-timestamp"] ?? "");
  const recv = String(req.headers["x-bapi-recv-window"] ?? "");
  const payload = req.method === "GET" ? req.query.toString() : req.body;
  const expected = createHmac("sha256", SECRET).update(`${ts}${KEY}${recv}${payload}`).digest("hex");
  return req.headers["x-bapi-api-key"] === KEY && req.headers["x-bapi-sign"] === expected;
}

/** A private route: "error sign!" (retCode 10004) unless the request carries our signature. */
const signed =
  (reply: Reply | ((req: ReceivedRequest) => Reply)): Route =>
  (req) => {
    if (!signedByUs(req)) return { json: bybitError(10004, "error sign! origin_string[...]") };
    return typeof reply === "function" ? reply(req) : reply;
  };

const servers: VenueReplay[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function bybit(routes: Record<string, Route>, opts: { accountType?: AccountType; secret?: string; timeoutMs?: number; now?: number } = {}) {
  const venue = await serveVenueReplay({ ...bybitBase(), ...routes });
  servers.push(venue);
  const accountType = opts.accountType ?? "linear";
  const exchange = createCcxtExchange({
    venue: "bybit",
    accountType,
    apiKey: KEY,
    secret: opts.secret ?? SECRET,
    baseUrl: venue.url,
    timeoutMs: opts.timeoutMs,
  });
  const adapter = new CcxtAdapter({
    venue: "bybit",
    accountType,
    exchange,
    symbols: accountType === "spot" ? ["BTCUSDT"] : undefined,
    clock: () => new Date(opts.now ?? BYBIT_NOW),
  });
  return { venue, adapter };
}

const realtime = (list: unknown[]) => ({ "GET /v5/order/realtime": signed({ json: bybitOrderList(list) }) });
const history = (list: unknown[]) => ({ "GET /v5/order/history": signed({ json: bybitOrderList(list) }) });
const find = (adapter: CcxtAdapter, placedAt: string | null = PLACED) =>
  adapter.findOrder({ symbol: "BTCUSDT", clientOrderId: ID, placedAt: placedAt ?? undefined });
const failure = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupFailedError);
  return (error as Error).message;
};

describe("CcxtAdapter on Bybit V5: looking an order up by its client id", () => {
  it("finds an open order in /v5/order/realtime, asked by orderLinkId in the signed query", async () => {
    const { venue, adapter } = await bybit({
      ...realtime([bybitOrder({ orderLinkId: ID, orderStatus: "New", qty: "0.500", cumExecQty: "0.000", avgPrice: "" })]),
    });
    expect(await find(adapter)).toEqual({
      clientOrderId: ID,
      exchangeOrderId: "1a1e9c21-9d60-4c6e-b9a7-0f0d5cf3a7c1",
      symbol: "BTCUSDT",
      side: "buy",
      qty: 0.5,
      status: "open",
      filledQty: 0,
      avgPrice: null,
    });
    const [asked] = venue.to("/v5/order/realtime");
    expect(asked!.query.get("orderLinkId")).toBe(ID);
    expect(asked!.query.get("category")).toBe("linear");
    expect(asked!.query.get("symbol")).toBe("BTCUSDT");
    expect(asked!.headers["x-bapi-sign"]).toMatch(/^[0-9a-f]{64}$/);
    expect(signedByUs(asked!)).toBe(true);
    // Found live: history is not asked.
    expect(venue.to("/v5/order/history")).toHaveLength(0);
  });

  it("finds a partially filled order as partially filled", async () => {
    const { adapter } = await bybit(
      realtime([bybitOrder({ orderLinkId: ID, orderStatus: "PartiallyFilled", qty: "0.500", cumExecQty: "0.200", avgPrice: "60010.5" })]),
    );
    expect(await find(adapter)).toMatchObject({ status: "partially_filled", qty: 0.5, filledQty: 0.2, avgPrice: 60010.5 });
  });

  it("finds a filled order that realtime still lists", async () => {
    const { adapter } = await bybit(realtime([bybitOrder({ orderLinkId: ID, orderStatus: "Filled", qty: "0.500", cumExecQty: "0.500", avgPrice: "60002" })]));
    expect(await find(adapter)).toMatchObject({ status: "filled", filledQty: 0.5, avgPrice: 60002 });
  });

  it("finds in /v5/order/history a filled order realtime no longer lists, searching from just before it was made", async () => {
    const { venue, adapter } = await bybit({
      ...realtime([]),
      ...history([bybitOrder({ orderLinkId: ID, orderStatus: "Filled", qty: "0.500", cumExecQty: "0.500", avgPrice: "60002" })]),
    });
    expect(await find(adapter)).toMatchObject({ status: "filled", filledQty: 0.5 });
    const [asked] = venue.to("/v5/order/history");
    expect(asked!.query.get("orderLinkId")).toBe(ID);
    expect(asked!.query.get("startTime")).toBe(String(Date.parse(PLACED) - 60_000));
    expect(signedByUs(asked!)).toBe(true);
  });

  it("finds a canceled order, and a partially filled one canceled with its fill", async () => {
    const canceled = await bybit({
      ...realtime([]),
      ...history([bybitOrder({ orderLinkId: ID, orderStatus: "Cancelled", qty: "0.500", cumExecQty: "0.000", avgPrice: "" })]),
    });
    expect(await find(canceled.adapter)).toMatchObject({ status: "canceled", filledQty: 0 });
    const partly = await bybit({
      ...realtime([]),
      ...history([bybitOrder({ orderLinkId: ID, orderStatus: "PartiallyFilledCanceled", qty: "0.500", cumExecQty: "0.300", avgPrice: "60001" })]),
    });
    expect(await find(partly.adapter)).toMatchObject({ status: "canceled", filledQty: 0.3, avgPrice: 60001 });
  });

  it("answers absent only when open orders and history are both empty for an order young enough to be kept", async () => {
    const { venue, adapter } = await bybit({ ...realtime([]), ...history([]) });
    expect(await find(adapter)).toBeNull();
    expect(venue.to("/v5/order/realtime")).toHaveLength(1);
    expect(venue.to("/v5/order/history")).toHaveLength(1);
  });

  it("fails, never absent, when the order is older than the history Bybit keeps", async () => {
    const { adapter } = await bybit({ ...realtime([]), ...history([]) });
    const twoDaysAgo = new Date(BYBIT_NOW - 48 * 3_600_000).toISOString();
    expect(await failure(find(adapter, twoDaysAgo))).toMatch(/made 2 days ago, past the 24 h bybit keeps every order for/);
  });

  it("fails, never absent, when it does not know when the order was made", async () => {
    const { adapter } = await bybit({ ...realtime([]), ...history([]) });
    expect(await failure(find(adapter, null))).toMatch(/without the time it was made that proves nothing/);
  });

  it("fails on HTTP 429", async () => {
    const { adapter } = await bybit({ "GET /v5/order/realtime": { status: 429, text: "<html><body>Too Many Requests</body></html>" } });
    expect(await failure(find(adapter))).toMatch(/rate limited/);
  });

  it("fails on Bybit's own rate limit code (retCode 10006) inside a 200", async () => {
    const { adapter } = await bybit({ ...realtime([]), "GET /v5/order/history": signed({ json: bybitError(10006, "Too many visits!") }) });
    expect(await failure(find(adapter))).toMatch(/rate limited/);
  });

  it("fails on a 502 page", async () => {
    const { adapter } = await bybit({ "GET /v5/order/realtime": { status: 502, text: "<html><head><title>502 Bad Gateway</title></head></html>" } });
    expect(await failure(find(adapter))).toMatch(/unavailable/);
  });

  it("fails on maintenance (503)", async () => {
    const { adapter } = await bybit({
      ...realtime([]),
      "GET /v5/order/history": { status: 503, text: "<html><body>The system is under maintenance</body></html>" },
    });
    expect(await failure(find(adapter))).toMatch(/unavailable|maintenance/);
  });

  it("fails when the venue never answers", async () => {
    const { adapter } = await bybit({ "GET /v5/order/realtime": "hang" }, { timeoutMs: 300 });
    expect(await failure(find(adapter))).toMatch(/no answer in 0.3 s/);
  });

  it("fails when Bybit refuses the signature, and says so without the key or the signature", async () => {
    const { venue, adapter } = await bybit({ ...realtime([]), ...history([]) }, { secret: "not-the-secret-0000" });
    const message = await failure(find(adapter));
    expect(message).toMatch(/refused the key or its signature/);
    const sent = venue.to("/v5/order/realtime")[0]!;
    expect(message).not.toContain(KEY);
    expect(message).not.toContain(String(sent.headers["x-bapi-sign"]));
  });
});

describe("CcxtAdapter on Bybit V5: orders and positions", () => {
  it("sends a market order with its client id as orderLinkId, then reads its state", async () => {
    const { venue, adapter } = await bybit({
      "POST /v5/order/create": signed((req) => ({
        json: {
          retCode: 0,
          retMsg: "OK",
          result: { orderId: "1a1e9c21-9d60-4c6e-b9a7-0f0d5cf3a7c1", orderLinkId: (JSON.parse(req.body) as { orderLinkId: string }).orderLinkId },
          retExtInfo: {},
          time: BYBIT_NOW,
        },
      })),
      ...realtime([bybitOrder({ orderLinkId: ID, orderStatus: "Filled", qty: "0.500", cumExecQty: "0.500", avgPrice: "60002" })]),
    });
    const placed = await adapter.createOrder({ clientOrderId: ID, symbol: "BTCUSDT", side: "buy", qty: 0.5 });
    expect(placed).toMatchObject({ clientOrderId: ID, status: "filled", filledQty: 0.5 });
    const [sent] = venue.to("/v5/order/create");
    expect(JSON.parse(sent!.body)).toMatchObject({ category: "linear", symbol: "BTCUSDT", side: "Buy", orderType: "Market", qty: "0.5", orderLinkId: ID });
    expect(signedByUs(sent!)).toBe(true);
  });

  it("closes reduce-only: the opposite side, |size|, reduceOnly true", async () => {
    const { venue, adapter } = await bybit({
      "POST /v5/order/create": signed({ json: { retCode: 0, retMsg: "OK", result: { orderId: "9", orderLinkId: ID }, retExtInfo: {}, time: BYBIT_NOW } }),
      ...realtime([bybitOrder({ orderLinkId: ID, orderStatus: "Filled", side: "Sell", qty: "0.250", cumExecQty: "0.250", avgPrice: "59990" })]),
    });
    expect(await adapter.closeReduceOnly({ clientOrderId: ID, symbol: "BTCUSDT", size: 0.25 })).toMatchObject({ side: "sell", status: "filled" });
    expect(JSON.parse(venue.to("/v5/order/create")[0]!.body)).toMatchObject({ side: "Sell", qty: "0.25", reduceOnly: true, orderLinkId: ID });
  });

  it("turns a lost reply to an order into SendTimeoutError", async () => {
    const { adapter } = await bybit({ "POST /v5/order/create": "hang" }, { timeoutMs: 300 });
    await expect(adapter.createOrder({ clientOrderId: ID, symbol: "BTCUSDT", side: "buy", qty: 0.5 })).rejects.toBeInstanceOf(SendTimeoutError);
  });

  it("reads positions signed: a Sell side is short", async () => {
    const { adapter } = await bybit({
      "GET /v5/position/list": signed({
        json: {
          retCode: 0,
          retMsg: "OK",
          result: { list: [bybitPosition({ side: "Sell", size: "0.75", markPrice: "60100.5" })], nextPageCursor: "", category: "linear" },
          retExtInfo: {},
          time: BYBIT_NOW,
        },
      }),
    });
    expect(await adapter.fetchPositions()).toEqual([{ symbol: "BTCUSDT", size: -0.75, markPrice: 60100.5 }]);
  });

  it("on a spot account asks with category=spot and reads the base coin's wallet balance as the position", async () => {
    const { venue, adapter } = await bybit(
      {
        ...realtime([bybitOrder({ orderLinkId: ID, orderStatus: "New", qty: "0.010000", cumExecQty: "0", avgPrice: "", category: "spot" })]),
        "GET /v5/account/wallet-balance": signed({
          json: {
            retCode: 0,
            retMsg: "OK",
            result: {
              list: [
                {
                  accountType: "UNIFIED",
                  accountIMRate: "0",
                  accountMMRate: "0",
                  totalEquity: "16500",
                  totalWalletBalance: "16500",
                  totalMarginBalance: "16500",
                  totalAvailableBalance: "16500",
                  totalPerpUPL: "0",
                  totalInitialMargin: "0",
                  totalMaintenanceMargin: "0",
                  accountLTV: "0",
                  coin: [
                    {
                      coin: "BTC",
                      equity: "0.25",
                      usdValue: "15000",
                      walletBalance: "0.25",
                      locked: "0",
                      spotHedgingQty: "0",
                      borrowAmount: "0",
                      accruedInterest: "0",
                      totalOrderIM: "0",
                      totalPositionIM: "0",
                      totalPositionMM: "0",
                      unrealisedPnl: "0",
                      cumRealisedPnl: "0",
                      bonus: "0",
                      marginCollateral: true,
                      collateralSwitch: true,
                    },
                    {
                      coin: "USDT",
                      equity: "1500",
                      usdValue: "1500",
                      walletBalance: "1500",
                      locked: "0",
                      spotHedgingQty: "0",
                      borrowAmount: "0",
                      accruedInterest: "0",
                      totalOrderIM: "0",
                      totalPositionIM: "0",
                      totalPositionMM: "0",
                      unrealisedPnl: "0",
                      cumRealisedPnl: "0",
                      bonus: "0",
                      marginCollateral: true,
                      collateralSwitch: true,
                    },
                  ],
                },
              ],
            },
            retExtInfo: {},
            time: BYBIT_NOW,
          },
        }),
      },
      { accountType: "spot" },
    );
    expect(await find(adapter)).toMatchObject({ status: "open", qty: 0.01 });
    expect(venue.to("/v5/order/realtime")[0]!.query.get("category")).toBe("spot");
    expect(await adapter.fetchPositions()).toEqual([{ symbol: "BTCUSDT", size: 0.25, markPrice: null }]);
  });
});
