/**
 * CcxtAdapter's positions and spot accounts on every venue, against recorded responses on loopback
 * (ccxt signs and parses; the signature is checked here as each venue checks it):
 *  - a contract account's position is fetchPositions' signed contracts × contract size (Binance
 *    USDⓈ-M: positionAmt in BTC, signed; OKX and Bybit are in ccxt-okx / ccxt-bybit);
 *  - a spot account's position is its base-currency balance (Binance /api/v3/account, OKX
 *    /api/v5/account/balance; Bybit's wallet balance is in ccxt-bybit);
 *  - a spot order carries the client id in the venue's own parameter, its size in the base
 *    currency (Bybit's UTA spot market buy counts in quote coin unless marketUnit=baseCoin; OKX's
 *    unless tgtCcy=base_ccy), and a spot close is a plain sell: spot has no reduce-only flag.
 */
import { createHmac } from "node:crypto";
import { afterEach, describe, expect, it } from "vitest";
import { CcxtAdapter, createCcxtExchange, type AccountType, type CcxtVenue } from "@/lib/exchange/ccxt-adapter";
import { serveVenueReplay, type ReceivedRequest, type Reply, type Route, type VenueReplay } from "../helpers/venue-replay";
import { BINANCE_NOW, binanceBase, binanceError, binanceSigned } from "../helpers/venues/binance";
import { BYBIT_NOW, bybitBase, bybitOrder, bybitOrderList } from "../helpers/venues/bybit";
import { OKX_NOW, okxBase, okxError, okxOk, okxOrder, okxSigned } from "../helpers/venues/okx";

const KEY = "spot-test-key-Rw81bT";
const SECRET = "spot-test-secret-Ny47cD";
const PASSPHRASE = "spot-test-passphrase";

const servers: VenueReplay[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

async function adapterOn(venueName: CcxtVenue, accountType: AccountType, routes: Record<string, Route>, now: number, symbols?: string[]) {
  const venue = await serveVenueReplay(routes);
  servers.push(venue);
  const exchange = createCcxtExchange({
    venue: venueName,
    accountType,
    apiKey: KEY,
    secret: SECRET,
    password: venueName === "okx" ? PASSPHRASE : undefined,
    baseUrl: venue.url,
    timeoutMs: 5_000,
  });
  const adapter = new CcxtAdapter({ venue: venueName, accountType, exchange, symbols, clock: () => new Date(now) });
  return { venue, adapter };
}

// ---- Binance ---------------------------------------------------------------------------------

const binanceOnly =
  (reply: Reply | ((req: ReceivedRequest) => Reply)): Route =>
  (req) => {
    if (!binanceSigned(KEY, SECRET, req)) return binanceError(-1022, "Signature for this request is not valid.");
    return typeof reply === "function" ? reply(req) : reply;
  };

/** GET /fapi/v3/positionRisk, one-way mode (positionSide BOTH): positionAmt is signed, in BTC. */
function binancePositionRisk(positionAmt: string, markPrice: string) {
  return {
    symbol: "BTCUSDT",
    positionSide: "BOTH",
    positionAmt,
    entryPrice: "60000.0",
    breakEvenPrice: "60024.0",
    markPrice,
    unRealizedProfit: "-75.37500000",
    liquidationPrice: "0",
    isolatedMargin: "0",
    notional: (Number(positionAmt) * Number(markPrice)).toFixed(8),
    marginAsset: "USDT",
    isolatedWallet: "0",
    initialMargin: "4507.53750000",
    maintMargin: "180.30150000",
    positionInitialMargin: "4507.53750000",
    openOrderInitialMargin: "0",
    adl: 2,
    bidNotional: "0",
    askNotional: "0",
    updateTime: BINANCE_NOW - 60_000,
  };
}

/** GET /fapi/v1/leverageBracket: ccxt loads it before reading positions. */
const BINANCE_BRACKETS = [
  {
    symbol: "BTCUSDT",
    notionalCoef: 1.5,
    brackets: [{ bracket: 1, initialLeverage: 125, notionalCap: 50000, notionalFloor: 0, maintMarginRatio: 0.004, cum: 0 }],
  },
];

describe("CcxtAdapter on Binance USDⓈ-M: positions", () => {
  it("reads positionAmt signed (a short is negative) and leaves out a flat symbol", async () => {
    const { venue, adapter } = await adapterOn(
      "binance",
      "linear",
      {
        ...binanceBase(),
        "GET /fapi/v1/leverageBracket": binanceOnly({ json: BINANCE_BRACKETS }),
        "GET /fapi/v3/positionRisk": binanceOnly({ json: [binancePositionRisk("-0.750", "60100.50000000")] }),
      },
      BINANCE_NOW,
    );
    expect(await adapter.fetchPositions()).toEqual([{ symbol: "BTCUSDT", size: -0.75, markPrice: 60100.5 }]);
    expect(venue.to("/fapi/v3/positionRisk")).toHaveLength(1);
    expect(binanceSigned(KEY, SECRET, venue.to("/fapi/v3/positionRisk")[0]!)).toBe(true);

    venue.routes.set("GET /fapi/v3/positionRisk", binanceOnly({ json: [binancePositionRisk("0.000", "60100.50000000")] }));
    expect(await adapter.fetchPositions()).toEqual([]);
  });
});

/** GET /api/v3/account: free and locked per asset. */
const binanceAccount = (btcFree: string, btcLocked: string) => ({
  makerCommission: 10,
  takerCommission: 10,
  buyerCommission: 0,
  sellerCommission: 0,
  commissionRates: { maker: "0.00100000", taker: "0.00100000", buyer: "0.00000000", seller: "0.00000000" },
  canTrade: true,
  canWithdraw: false,
  canDeposit: true,
  brokered: false,
  requireSelfTradePrevention: false,
  preventSor: false,
  updateTime: BINANCE_NOW - 60_000,
  accountType: "SPOT",
  balances: [
    { asset: "BTC", free: btcFree, locked: btcLocked },
    { asset: "USDT", free: "1500.00000000", locked: "0.00000000" },
  ],
  permissions: ["SPOT"],
  uid: 354937868,
});

/** POST /api/v3/order, newOrderRespType FULL, a market order filled at once. */
function binanceSpotFill(req: ReceivedRequest): Reply {
  const p = new URLSearchParams(req.body || req.query.toString());
  const qty = p.get("quantity") ?? "0";
  return {
    json: {
      symbol: "BTCUSDT",
      orderId: 28458,
      orderListId: -1,
      clientOrderId: p.get("newClientOrderId") ?? "",
      transactTime: BINANCE_NOW,
      price: "0.00000000",
      origQty: qty,
      executedQty: qty,
      origQuoteOrderQty: "0.00000000",
      cummulativeQuoteQty: (Number(qty) * 60002).toFixed(8),
      status: "FILLED",
      timeInForce: "GTC",
      type: "MARKET",
      side: p.get("side"),
      workingTime: BINANCE_NOW,
      selfTradePreventionMode: "EXPIRE_MAKER",
      fills: [{ price: "60002.00000000", qty, commission: "0.00000000", commissionAsset: "BTC", tradeId: 3001 }],
    },
  };
}

describe("CcxtAdapter on Binance spot: balances and orders", () => {
  it("reads the base currency's free + locked balance as the position", async () => {
    const { venue, adapter } = await adapterOn(
      "binance",
      "spot",
      { ...binanceBase(), "GET /api/v3/account": binanceOnly({ json: binanceAccount("0.20000000", "0.05000000") }) },
      BINANCE_NOW,
      ["BTCUSDT"],
    );
    expect(await adapter.fetchPositions()).toEqual([{ symbol: "BTCUSDT", size: 0.25, markPrice: null }]);
    expect(venue.to("/api/v3/account")).toHaveLength(1);
  });

  it("sends newClientOrderId in the signed body, and closes with a plain SELL (no reduceOnly on spot)", async () => {
    const ID = "beta-5a0c3e71d9b2f46e8a10";
    const { venue, adapter } = await adapterOn("binance", "spot", { ...binanceBase(), "POST /api/v3/order": binanceOnly(binanceSpotFill) }, BINANCE_NOW, [
      "BTCUSDT",
    ]);
    expect(await adapter.createOrder({ clientOrderId: ID, symbol: "BTCUSDT", side: "buy", qty: 0.25 })).toMatchObject({
      clientOrderId: ID,
      side: "buy",
      status: "filled",
      filledQty: 0.25,
      avgPrice: 60002,
    });
    expect(await adapter.closeReduceOnly({ clientOrderId: `${ID}c`, symbol: "BTCUSDT", size: 0.25 })).toMatchObject({ side: "sell", status: "filled" });
    const [open, close] = venue
      .to("/api/v3/order")
      .map((r) => ({ signed: binanceSigned(KEY, SECRET, r), p: new URLSearchParams(r.body || r.query.toString()) }));
    expect(open!.signed && close!.signed).toBe(true);
    expect(open!.p.get("newClientOrderId")).toBe(ID);
    expect(open!.p.get("side")).toBe("BUY");
    expect(open!.p.get("type")).toBe("MARKET");
    expect(open!.p.get("quantity")).toBe("0.25");
    expect(close!.p.get("newClientOrderId")).toBe(`${ID}c`);
    expect(close!.p.get("side")).toBe("SELL");
    expect(close!.p.has("reduceOnly")).toBe(false);
  });
});

// ---- OKX spot --------------------------------------------------------------------------------

const okxOnly =
  (reply: Reply | ((req: ReceivedRequest) => Reply)): Route =>
  (req) => {
    if (!okxSigned(KEY, SECRET, PASSPHRASE, req)) return { status: 401, json: okxError("50113", "Invalid Sign") };
    return typeof reply === "function" ? reply(req) : reply;
  };

/** GET /api/v5/public/instruments?instType=SPOT */
const OKX_SPOT_INSTRUMENTS = okxOk([
  {
    alias: "",
    auctionEndTime: "",
    baseCcy: "BTC",
    category: "1",
    ctMult: "",
    ctType: "",
    ctVal: "",
    ctValCcy: "",
    contTdSwTime: "",
    expTime: "",
    futureSettlement: false,
    instFamily: "",
    instId: "BTC-USDT",
    instType: "SPOT",
    lever: "10",
    listTime: "1548133413000",
    lotSz: "0.00000001",
    maxIcebergSz: "9999999999.0000000000000000",
    maxLmtAmt: "20000000",
    maxLmtSz: "9999999999",
    maxMktAmt: "1000000",
    maxMktSz: "1000000",
    maxStopSz: "1000000",
    maxTriggerSz: "9999999999.0000000000000000",
    maxTwapSz: "9999999999.0000000000000000",
    minSz: "0.00001",
    openType: "",
    optType: "",
    quoteCcy: "USDT",
    ruleType: "normal",
    settleCcy: "",
    state: "live",
    stk: "",
    tickSz: "0.1",
    uly: "",
  },
]);

/** GET /api/v5/account/balance: one account, per-currency details. */
const okxBalance = (btcEq: string, btcFrozen: string) =>
  okxOk([
    {
      adjEq: "",
      availEq: "",
      borrowFroz: "",
      details: [
        {
          accAvgPx: "",
          availBal: String(Number(btcEq) - Number(btcFrozen)),
          availEq: "",
          borrowFroz: "",
          cashBal: btcEq,
          ccy: "BTC",
          clSpotInUseAmt: "",
          crossLiab: "",
          disEq: "15000",
          eq: btcEq,
          eqUsd: "15000",
          fixedBal: "0",
          frozenBal: btcFrozen,
          imr: "",
          interest: "",
          isoEq: "0",
          isoLiab: "",
          isoUpl: "0",
          liab: "",
          maxLoan: "",
          maxSpotInUse: "",
          mgnRatio: "",
          mmr: "",
          notionalLever: "",
          openAvgPx: "",
          ordFrozen: btcFrozen,
          rewardBal: "0",
          smtSyncEq: "0",
          spotBal: "",
          spotCopyTradingEq: "0",
          spotInUseAmt: "",
          spotIsoBal: "0",
          spotUpl: "",
          spotUplRatio: "",
          stgyEq: "0",
          totalPnl: "",
          totalPnlRatio: "",
          twap: "0",
          uTime: String(OKX_NOW - 60_000),
          upl: "0",
          uplLiab: "",
        },
      ],
      imr: "",
      isoEq: "0",
      mgnRatio: "",
      mmr: "",
      notionalUsd: "",
      ordFroz: "",
      totalEq: "16500",
      uTime: String(OKX_NOW - 60_000),
      upl: "0",
    },
  ]);

describe("CcxtAdapter on OKX spot", () => {
  const ID = "gamma7c1e0a9b2d3f48561e2a";
  const spotOrder = (state: Parameters<typeof okxOrder>[0]["state"], sz: string, accFillSz: string, side: "buy" | "sell" = "buy") => ({
    ...okxOrder({ clOrdId: ID, state, sz, accFillSz, avgPx: accFillSz === "0" ? "" : "60002.5", side }),
    instId: "BTC-USDT",
    instType: "SPOT",
    tdMode: "cash",
    tgtCcy: "base_ccy",
    lever: "",
    posSide: "",
  });
  const okxSpot = (routes: Record<string, Route>) =>
    adapterOn("okx", "spot", { ...okxBase(), "GET /api/v5/public/instruments": { json: OKX_SPOT_INSTRUMENTS }, ...routes }, OKX_NOW, ["BTC-USDT"]);

  it("asks by clOrdId on instId BTC-USDT in the signed query; sizes are BTC, not contracts", async () => {
    const { venue, adapter } = await okxSpot({ "GET /api/v5/trade/order": okxOnly({ json: okxOk([spotOrder("partially_filled", "0.25", "0.1")]) }) });
    expect(await adapter.findOrder({ symbol: "BTC-USDT", clientOrderId: ID, placedAt: new Date(OKX_NOW - 60_000).toISOString() })).toMatchObject({
      clientOrderId: ID,
      symbol: "BTC-USDT",
      status: "partially_filled",
      qty: 0.25,
      filledQty: 0.1,
    });
    const [asked] = venue.to("/api/v5/trade/order");
    expect(asked!.query.get("clOrdId")).toBe(ID);
    expect(asked!.query.get("instId")).toBe("BTC-USDT");
    expect(okxSigned(KEY, SECRET, PASSPHRASE, asked!)).toBe(true);
    expect(venue.to("/api/v5/public/instruments")[0]!.query.get("instType")).toBe("SPOT");
  });

  it("reads the base currency's equity in /api/v5/account/balance as the position", async () => {
    const { adapter } = await okxSpot({ "GET /api/v5/account/balance": okxOnly({ json: okxBalance("0.25", "0.05") }) });
    expect(await adapter.fetchPositions()).toEqual([{ symbol: "BTC-USDT", size: 0.25, markPrice: null }]);
  });

  it("buys at market in BTC (tgtCcy base_ccy, tdMode cash) with clOrdId, and closes with a plain sell", async () => {
    const { venue, adapter } = await okxSpot({
      "POST /api/v5/trade/order": okxOnly((req) => {
        const body = JSON.parse(req.body) as { clOrdId: string };
        return { json: okxOk([{ clOrdId: body.clOrdId, ordId: "680800019749904385", tag: "", ts: String(OKX_NOW), sCode: "0", sMsg: "Order placed" }]) };
      }),
      "GET /api/v5/trade/order": okxOnly({ json: okxOk([spotOrder("filled", "0.25", "0.25")]) }),
    });
    expect(await adapter.createOrder({ clientOrderId: ID, symbol: "BTC-USDT", side: "buy", qty: 0.25 })).toMatchObject({ status: "filled", filledQty: 0.25 });
    await adapter.closeReduceOnly({ clientOrderId: ID, symbol: "BTC-USDT", size: 0.25 });
    const [open, close] = venue
      .to("/api/v5/trade/order")
      .filter((r) => r.method === "POST")
      .map((r) => ({ signed: okxSigned(KEY, SECRET, PASSPHRASE, r), body: JSON.parse(r.body) as Record<string, unknown> }));
    expect(open!.signed && close!.signed).toBe(true);
    expect(open!.body).toMatchObject({ instId: "BTC-USDT", clOrdId: ID, side: "buy", ordType: "market", sz: "0.25", tdMode: "cash", tgtCcy: "base_ccy" });
    expect(close!.body).toMatchObject({ clOrdId: ID, side: "sell", sz: "0.25" });
    expect(close!.body).not.toHaveProperty("reduceOnly");
  });
});

// ---- Bybit spot ------------------------------------------------------------------------------

describe("CcxtAdapter on Bybit V5 spot: orders", () => {
  it("buys at market in BTC (marketUnit baseCoin) with orderLinkId, and closes with a plain sell", async () => {
    const ID = "alpha-8d2e6f10a4c3b5972e11";
    const bybitOnly =
      (reply: (req: ReceivedRequest) => Reply): Route =>
      (req) => {
        const ts = String(req.headers["x-bapi-timestamp"] ?? "");
        const recv = String(req.headers["x-bapi-recv-window"] ?? "");
        const payload = req.method === "GET" ? req.query.toString() : req.body;
        const expected = createHmac("sha256", SECRET).update(`${ts}${KEY}${recv}${payload}`).digest("hex");
        if (req.headers["x-bapi-sign"] !== expected) return { json: { retCode: 10004, retMsg: "error sign!", result: {}, retExtInfo: {}, time: BYBIT_NOW } };
        return reply(req);
      };
    const { venue, adapter } = await adapterOn(
      "bybit",
      "spot",
      {
        ...bybitBase(),
        "POST /v5/order/create": bybitOnly((req) => ({
          json: {
            retCode: 0,
            retMsg: "OK",
            result: { orderId: "1761620357212932864", orderLinkId: (JSON.parse(req.body) as { orderLinkId: string }).orderLinkId },
            retExtInfo: {},
            time: BYBIT_NOW,
          },
        })),
        "GET /v5/order/realtime": bybitOnly(() => ({
          json: bybitOrderList(
            [bybitOrder({ orderLinkId: ID, orderStatus: "Filled", qty: "0.250000", cumExecQty: "0.250000", avgPrice: "60002", category: "spot" })],
            "spot",
          ),
        })),
      },
      BYBIT_NOW,
      ["BTCUSDT"],
    );
    expect(await adapter.createOrder({ clientOrderId: ID, symbol: "BTCUSDT", side: "buy", qty: 0.25 })).toMatchObject({ status: "filled", filledQty: 0.25 });
    await adapter.closeReduceOnly({ clientOrderId: ID, symbol: "BTCUSDT", size: 0.25 });
    const [open, close] = venue.to("/v5/order/create").map((r) => JSON.parse(r.body) as Record<string, unknown>);
    expect(open).toMatchObject({ category: "spot", symbol: "BTCUSDT", side: "Buy", orderType: "Market", qty: "0.25", marketUnit: "baseCoin", orderLinkId: ID });
    expect(close).toMatchObject({ category: "spot", side: "Sell", qty: "0.25", marketUnit: "baseCoin", orderLinkId: ID });
    expect(close).not.toHaveProperty("reduceOnly");
  });
});
