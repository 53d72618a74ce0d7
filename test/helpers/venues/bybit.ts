/**
 * Bybit V5 responses, shaped as https://bybit-exchange.github.io/docs/v5 documents them (every
 * field of the order and position objects, strings where Bybit sends strings).
 */
import type { Route } from "../venue-replay";

export const BYBIT_NOW = Date.parse("2026-08-10T12:00:00.000Z");

const envelope = (result: unknown, time = BYBIT_NOW) => ({ retCode: 0, retMsg: "OK", result, retExtInfo: {}, time });
export const bybitError = (retCode: number, retMsg: string) => ({ retCode, retMsg, result: {}, retExtInfo: {}, time: BYBIT_NOW });

export const BYBIT_INSTRUMENTS = {
  linear: envelope({
    category: "linear",
    list: [
      {
        symbol: "BTCUSDT",
        contractType: "LinearPerpetual",
        status: "Trading",
        baseCoin: "BTC",
        quoteCoin: "USDT",
        launchTime: "1585526400000",
        deliveryTime: "0",
        deliveryFeeRate: "",
        priceScale: "2",
        leverageFilter: { minLeverage: "1", maxLeverage: "100.00", leverageStep: "0.01" },
        priceFilter: { minPrice: "0.10", maxPrice: "1999999.80", tickSize: "0.10" },
        lotSizeFilter: {
          maxOrderQty: "1190.000",
          minOrderQty: "0.001",
          qtyStep: "0.001",
          postOnlyMaxOrderQty: "1190.000",
          maxMktOrderQty: "500.000",
          minNotionalValue: "5",
        },
        unifiedMarginTrade: true,
        fundingInterval: 480,
        settleCoin: "USDT",
        copyTrading: "both",
        upperFundingRate: "0.00375",
        lowerFundingRate: "-0.00375",
        isPreListing: false,
        preListingInfo: null,
      },
    ],
    nextPageCursor: "",
  }),
  spot: envelope({
    category: "spot",
    list: [
      {
        symbol: "BTCUSDT",
        baseCoin: "BTC",
        quoteCoin: "USDT",
        innovation: "0",
        status: "Trading",
        marginTrading: "utaOnly",
        stTag: "0",
        lotSizeFilter: {
          basePrecision: "0.000001",
          quotePrecision: "0.00000001",
          minOrderQty: "0.000048",
          maxOrderQty: "71.73956243",
          minOrderAmt: "1",
          maxOrderAmt: "2000000",
        },
        priceFilter: { tickSize: "0.01" },
        riskParameters: { priceLimitRatioX: "0.01", priceLimitRatioY: "0.02" },
      },
    ],
  }),
};

type BybitStatus = "New" | "PartiallyFilled" | "Filled" | "Cancelled" | "PartiallyFilledCanceled" | "Rejected";

/** One order as /v5/order/realtime and /v5/order/history list it. */
export function bybitOrder(o: {
  orderLinkId: string;
  orderStatus: BybitStatus;
  qty: string;
  cumExecQty: string;
  avgPrice: string;
  side?: "Buy" | "Sell";
  category?: "linear" | "spot";
  orderId?: string;
  createdTime?: number;
}) {
  const created = String(o.createdTime ?? BYBIT_NOW - 60_000);
  const leaves = (Number(o.qty) - Number(o.cumExecQty)).toFixed(3);
  const live = o.orderStatus === "New" || o.orderStatus === "PartiallyFilled";
  return {
    orderId: o.orderId ?? "1a1e9c21-9d60-4c6e-b9a7-0f0d5cf3a7c1",
    orderLinkId: o.orderLinkId,
    blockTradeId: "",
    symbol: "BTCUSDT",
    price: "0",
    qty: o.qty,
    side: o.side ?? "Buy",
    isLeverage: "",
    positionIdx: 0,
    orderStatus: o.orderStatus,
    createType: "CreateByUser",
    cancelType: o.orderStatus === "Cancelled" || o.orderStatus === "PartiallyFilledCanceled" ? "CancelByUser" : "UNKNOWN",
    rejectReason: o.orderStatus === "Rejected" ? "EC_NoImmediateQtyToFill" : "EC_NoError",
    avgPrice: o.avgPrice,
    leavesQty: live ? leaves : "0",
    leavesValue: "0",
    cumExecQty: o.cumExecQty,
    cumExecValue: (Number(o.cumExecQty) * Number(o.avgPrice || 0)).toFixed(4),
    cumExecFee: "0",
    timeInForce: "IOC",
    orderType: "Market",
    stopOrderType: "",
    orderIv: "",
    marketUnit: o.category === "spot" ? "baseCoin" : "",
    triggerPrice: "",
    takeProfit: "",
    stopLoss: "",
    tpslMode: "",
    ocoTriggerBy: "",
    tpLimitPrice: "",
    slLimitPrice: "",
    tpTriggerBy: "",
    slTriggerBy: "",
    triggerDirection: 0,
    triggerBy: "",
    lastPriceOnCreated: "60000.0",
    reduceOnly: false,
    closeOnTrigger: false,
    placeType: "",
    smpType: "None",
    smpGroup: 0,
    smpOrderId: "",
    createdTime: created,
    updatedTime: String(Number(created) + 5),
  };
}

/** The reply of /v5/order/realtime or /v5/order/history. */
export const bybitOrderList = (list: unknown[], category = "linear") => envelope({ category, list, nextPageCursor: "" });

export function bybitPosition(p: { side: "Buy" | "Sell" | ""; size: string; markPrice: string }) {
  return {
    positionIdx: 0,
    riskId: 1,
    riskLimitValue: "2000000",
    symbol: "BTCUSDT",
    side: p.side,
    size: p.size,
    avgPrice: "60000",
    positionValue: (Number(p.size) * 60000).toFixed(2),
    tradeMode: 0,
    positionStatus: "Normal",
    autoAddMargin: 0,
    adlRankIndicator: 2,
    leverage: "10",
    positionBalance: "0",
    markPrice: p.markPrice,
    liqPrice: "",
    bustPrice: "",
    positionMM: "0",
    positionIM: "0",
    tpslMode: "Full",
    takeProfit: "",
    stopLoss: "",
    trailingStop: "0",
    unrealisedPnl: "0",
    curRealisedPnl: "0",
    cumRealisedPnl: "0",
    seq: 140916,
    isReduceOnly: false,
    mmrSysUpdatedTime: "",
    leverageSysUpdatedTime: "",
    createdTime: String(BYBIT_NOW - 86_400_000),
    updatedTime: String(BYBIT_NOW - 60_000),
  };
}

/** Markets, server time: what every Bybit test serves besides the case at hand. */
export function bybitBase(): Record<string, Route> {
  return {
    "GET /v5/market/instruments-info": (req) => ({ json: BYBIT_INSTRUMENTS[req.query.get("category") === "spot" ? "spot" : "linear"] }),
    "GET /v5/market/time": {
      json: envelope({ timeSecond: String(Math.floor(BYBIT_NOW / 1000)), timeNano: `${BYBIT_NOW}000000` }),
    },
  };
}
