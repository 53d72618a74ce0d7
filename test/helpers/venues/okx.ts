/**
 * OKX V5 responses, shaped as https://www.okx.com/docs-v5/en/ documents them. BTC-USDT-SWAP has a
 * contract value of 0.01 BTC: "sz": "50" is 0.5 BTC.
 */
import { createHmac } from "node:crypto";
import type { ReceivedRequest, Route } from "../venue-replay";

export const OKX_NOW = Date.parse("2026-08-10T12:00:00.000Z");

export const okxOk = (data: unknown[]) => ({ code: "0", msg: "", data });
export const okxError = (code: string, msg: string) => ({ code, msg, data: [] });

export const OKX_SWAP_INSTRUMENTS = okxOk([
  {
    alias: "",
    auctionEndTime: "",
    baseCcy: "",
    category: "1",
    ctMult: "1",
    ctType: "linear",
    ctVal: "0.01",
    ctValCcy: "BTC",
    contTdSwTime: "",
    expTime: "",
    futureSettlement: false,
    instFamily: "BTC-USDT",
    instId: "BTC-USDT-SWAP",
    instType: "SWAP",
    lever: "100",
    listTime: "1573557408000",
    lotSz: "0.01",
    maxIcebergSz: "100000000.0000000000000000",
    maxLmtAmt: "20000000",
    maxLmtSz: "100000000",
    maxMktAmt: "",
    maxMktSz: "12000",
    maxStopSz: "12000",
    maxTriggerSz: "100000000.0000000000000000",
    maxTwapSz: "100000000.0000000000000000",
    minSz: "0.01",
    openType: "",
    optType: "",
    quoteCcy: "",
    ruleType: "normal",
    settleCcy: "USDT",
    state: "live",
    stk: "",
    tickSz: "0.1",
    uly: "BTC-USDT",
  },
]);

type OkxState = "live" | "partially_filled" | "filled" | "canceled" | "mmp_canceled";

/** One order of GET /api/v5/trade/order. */
export function okxOrder(o: { clOrdId: string; state: OkxState; sz: string; accFillSz: string; avgPx: string; side?: "buy" | "sell" }) {
  const created = String(OKX_NOW - 60_000);
  return {
    accFillSz: o.accFillSz,
    algoClOrdId: "",
    algoId: "",
    attachAlgoClOrdId: "",
    attachAlgoOrds: [],
    avgPx: o.avgPx,
    cTime: created,
    cancelSource: o.state === "canceled" ? "1" : "",
    cancelSourceReason: o.state === "canceled" ? "Order canceled by user" : "",
    category: "normal",
    ccy: "",
    clOrdId: o.clOrdId,
    fee: "0",
    feeCcy: "USDT",
    fillPx: o.avgPx,
    fillSz: o.accFillSz,
    fillTime: o.accFillSz === "0" ? "" : created,
    instId: "BTC-USDT-SWAP",
    instType: "SWAP",
    isTpLimit: "false",
    lever: "10",
    linkedAlgoOrd: { algoId: "" },
    ordId: "680800019749904384",
    ordType: "market",
    pnl: "0",
    posSide: "net",
    px: "",
    pxType: "",
    pxUsd: "",
    pxVol: "",
    quickMgnType: "",
    rebate: "0",
    rebateCcy: "USDT",
    reduceOnly: "false",
    side: o.side ?? "buy",
    slOrdPx: "",
    slTriggerPx: "",
    slTriggerPxType: "",
    source: "",
    state: o.state,
    stpId: "",
    stpMode: "cancel_maker",
    sz: o.sz,
    tag: "",
    tdMode: "cross",
    tgtCcy: "",
    tpOrdPx: "",
    tpTriggerPx: "",
    tpTriggerPxType: "",
    tradeId: "",
    uTime: String(Number(created) + 5),
  };
}

/** One net-mode position of GET /api/v5/account/positions ("pos" is signed, in contracts). */
export function okxPosition(pos: string, markPx: string) {
  return {
    adl: "1",
    availPos: "",
    avgPx: "60000",
    baseBal: "",
    baseBorrowed: "",
    baseInterest: "",
    bePx: "60030",
    bizRefId: "",
    bizRefType: "",
    cTime: String(OKX_NOW - 86_400_000),
    ccy: "USDT",
    clSpotInUseAmt: "",
    closeOrderAlgo: [],
    deltaBS: "",
    deltaPA: "",
    fee: "0",
    fundingFee: "0",
    gammaBS: "",
    gammaPA: "",
    idxPx: markPx,
    imr: "4500",
    instId: "BTC-USDT-SWAP",
    instType: "SWAP",
    interest: "",
    last: markPx,
    lever: "10",
    liab: "",
    liabCcy: "",
    liqPenalty: "0",
    liqPx: "",
    margin: "",
    markPx,
    maxSpotInUseAmt: "",
    mgnMode: "cross",
    mgnRatio: "120",
    mmr: "180",
    notionalUsd: "45000",
    optVal: "",
    pendingCloseOrdLiabVal: "",
    pnl: "0",
    pos,
    posCcy: "",
    posId: "1752810569801498626",
    posSide: "net",
    quoteBal: "",
    quoteBorrowed: "",
    quoteInterest: "",
    realizedPnl: "0",
    spotInUseAmt: "",
    spotInUseCcy: "",
    thetaBS: "",
    thetaPA: "",
    tradeId: "1234",
    uTime: String(OKX_NOW - 60_000),
    upl: "0",
    uplLastPx: "0",
    uplRatio: "0",
    uplRatioLastPx: "0",
    usdPx: "",
    vegaBS: "",
    vegaPA: "",
  };
}

/** OKX's check: base64 HMAC-SHA256 of timestamp + method + path with query + body. */
export function okxSigned(key: string, secret: string, passphrase: string, req: ReceivedRequest): boolean {
  const ts = String(req.headers["ok-access-timestamp"] ?? "");
  const query = req.query.toString();
  const path = query ? `${req.path}?${query}` : req.path;
  const expected = createHmac("sha256", secret).update(`${ts}${req.method}${path}${req.body}`).digest("base64");
  return req.headers["ok-access-key"] === key && req.headers["ok-access-passphrase"] === passphrase && req.headers["ok-access-sign"] === expected;
}

export function okxBase(): Record<string, Route> {
  return {
    "GET /api/v5/public/instruments": { json: OKX_SWAP_INSTRUMENTS },
    "GET /api/v5/public/time": { json: okxOk([{ ts: String(OKX_NOW) }]) },
  };
}
