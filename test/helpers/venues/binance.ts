/**
 * Binance spot (api/v3) and USDⓈ-M futures (fapi/v1) responses, shaped as
 * https://developers.binance.com/docs documents them.
 */
import { createHmac } from "node:crypto";
import type { ReceivedRequest, Reply, Route } from "../venue-replay";

export const BINANCE_NOW = Date.parse("2026-08-10T12:00:00.000Z");

const filtersSpot = [
  { filterType: "PRICE_FILTER", minPrice: "0.01000000", maxPrice: "1000000.00000000", tickSize: "0.01000000" },
  { filterType: "LOT_SIZE", minQty: "0.00001000", maxQty: "9000.00000000", stepSize: "0.00001000" },
  { filterType: "MARKET_LOT_SIZE", minQty: "0.00000000", maxQty: "107.00000000", stepSize: "0.00000000" },
  { filterType: "NOTIONAL", minNotional: "5.00000000", applyMinToMarket: true, maxNotional: "9000000.00000000", applyMaxToMarket: false, avgPriceMins: 5 },
];

export const BINANCE_SPOT_INFO = {
  timezone: "UTC",
  serverTime: BINANCE_NOW,
  rateLimits: [],
  exchangeFilters: [],
  symbols: [
    {
      symbol: "BTCUSDT",
      status: "TRADING",
      baseAsset: "BTC",
      baseAssetPrecision: 8,
      quoteAsset: "USDT",
      quotePrecision: 8,
      quoteAssetPrecision: 8,
      baseCommissionPrecision: 8,
      quoteCommissionPrecision: 8,
      orderTypes: ["LIMIT", "LIMIT_MAKER", "MARKET", "STOP_LOSS_LIMIT", "TAKE_PROFIT_LIMIT"],
      icebergAllowed: true,
      ocoAllowed: true,
      otoAllowed: true,
      quoteOrderQtyMarketAllowed: true,
      allowTrailingStop: true,
      cancelReplaceAllowed: true,
      isSpotTradingAllowed: true,
      isMarginTradingAllowed: true,
      filters: filtersSpot,
      permissions: [],
      permissionSets: [["SPOT", "MARGIN"]],
      defaultSelfTradePreventionMode: "EXPIRE_MAKER",
      allowedSelfTradePreventionModes: ["EXPIRE_TAKER", "EXPIRE_MAKER", "EXPIRE_BOTH"],
    },
  ],
};

export const BINANCE_FUTURES_INFO = {
  timezone: "UTC",
  serverTime: BINANCE_NOW,
  futuresType: "U_MARGINED",
  rateLimits: [],
  exchangeFilters: [],
  assets: [{ asset: "USDT", marginAvailable: true, autoAssetExchange: "-10000" }],
  symbols: [
    {
      symbol: "BTCUSDT",
      pair: "BTCUSDT",
      contractType: "PERPETUAL",
      deliveryDate: 4133404800000,
      onboardDate: 1569398400000,
      status: "TRADING",
      maintMarginPercent: "2.5000",
      requiredMarginPercent: "5.0000",
      baseAsset: "BTC",
      quoteAsset: "USDT",
      marginAsset: "USDT",
      pricePrecision: 2,
      quantityPrecision: 3,
      baseAssetPrecision: 8,
      quotePrecision: 8,
      underlyingType: "COIN",
      underlyingSubType: ["PoW"],
      triggerProtect: "0.0500",
      liquidationFee: "0.012500",
      marketTakeBound: "0.05",
      maxMoveOrderLimit: 10000,
      filters: [
        { filterType: "PRICE_FILTER", minPrice: "556.80", maxPrice: "4529764", tickSize: "0.10" },
        { filterType: "LOT_SIZE", minQty: "0.001", maxQty: "1000", stepSize: "0.001" },
        { filterType: "MARKET_LOT_SIZE", minQty: "0.001", maxQty: "120", stepSize: "0.001" },
        { filterType: "MAX_NUM_ORDERS", limit: 200 },
        { filterType: "MIN_NOTIONAL", notional: "100" },
        { filterType: "PERCENT_PRICE", multiplierUp: "1.0500", multiplierDown: "0.9500", multiplierDecimal: "4" },
      ],
      orderTypes: ["LIMIT", "MARKET", "STOP", "STOP_MARKET", "TAKE_PROFIT", "TAKE_PROFIT_MARKET", "TRAILING_STOP_MARKET"],
      timeInForce: ["GTC", "IOC", "FOK", "GTX", "GTD"],
      permissionSets: ["GRID", "COPY"],
    },
  ],
};

type BinanceStatus = "NEW" | "PARTIALLY_FILLED" | "FILLED" | "CANCELED" | "EXPIRED" | "REJECTED";

/** GET /api/v3/order (spot) or GET /fapi/v1/order (USDⓈ-M). */
export function binanceOrder(o: { clientOrderId: string; status: BinanceStatus; origQty: string; executedQty: string; avgPrice: string; futures: boolean }) {
  const quote = (Number(o.executedQty) * Number(o.avgPrice || 0)).toFixed(8);
  const time = BINANCE_NOW - 60_000;
  if (o.futures) {
    return {
      avgPrice: o.avgPrice || "0",
      clientOrderId: o.clientOrderId,
      cumQuote: quote,
      executedQty: o.executedQty,
      orderId: 1917641,
      origQty: o.origQty,
      origType: "MARKET",
      price: "0",
      reduceOnly: false,
      side: "BUY",
      positionSide: "BOTH",
      status: o.status,
      stopPrice: "0",
      closePosition: false,
      symbol: "BTCUSDT",
      time,
      timeInForce: "GTC",
      type: "MARKET",
      updateTime: time + 5,
      workingType: "CONTRACT_PRICE",
      priceProtect: false,
      priceMatch: "NONE",
      selfTradePreventionMode: "EXPIRE_MAKER",
      goodTillDate: 0,
    };
  }
  return {
    symbol: "BTCUSDT",
    orderId: 28457,
    orderListId: -1,
    clientOrderId: o.clientOrderId,
    price: "0.00000000",
    origQty: o.origQty,
    executedQty: o.executedQty,
    cummulativeQuoteQty: quote,
    status: o.status,
    timeInForce: "GTC",
    type: "MARKET",
    side: "BUY",
    stopPrice: "0.00000000",
    icebergQty: "0.00000000",
    time,
    updateTime: time + 5,
    isWorking: true,
    workingTime: time,
    origQuoteOrderQty: "0.00000000",
    selfTradePreventionMode: "NONE",
  };
}

export const binanceError = (code: number, msg: string, status = 400): Reply => ({ status, json: { code, msg } });

/** Binance's check: HMAC-SHA256 of the query without `signature`, and the key in X-MBX-APIKEY. */
export function binanceSigned(key: string, secret: string, req: ReceivedRequest): boolean {
  const raw = req.method === "GET" || req.method === "DELETE" ? req.query.toString() : req.body || req.query.toString();
  const params = new URLSearchParams(raw);
  const signature = params.get("signature");
  params.delete("signature");
  const payload = raw.replace(/&?signature=[0-9a-f]+$/, "");
  const expected = createHmac("sha256", secret).update(payload).digest("hex");
  return req.headers["x-mbx-apikey"] === key && signature === expected && params.has("timestamp");
}

export function binanceBase(): Record<string, Route> {
  return {
    "GET /api/v3/exchangeInfo": { json: BINANCE_SPOT_INFO },
    "GET /fapi/v1/exchangeInfo": { json: BINANCE_FUTURES_INFO },
    "GET /api/v3/time": { json: { serverTime: BINANCE_NOW } },
    "GET /fapi/v1/time": { json: { serverTime: BINANCE_NOW } },
  };
}
