/**
 * CcxtAdapter on OKX V5 (USDT perpetual swaps), against recorded responses on loopback: ccxt signs
 * (base64 HMAC in OK-ACCESS-SIGN, checked here as OKX checks it) and parses. A client id is asked
 * as clOrdId; 51603 "Order does not exist" is absent only within the 2 hours OKX keeps an order
 * canceled without fills. Sizes are contracts of 0.01 BTC on the wire and BTC in the adapter.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LookupFailedError } from "@/lib/exchange/adapter";
import { CcxtAdapter, createCcxtExchange } from "@/lib/exchange/ccxt-adapter";
import { serveVenueReplay, type ReceivedRequest, type Reply, type Route, type VenueReplay } from "../helpers/venue-replay";
import { OKX_NOW, okxBase, okxError, okxOk, okxOrder, okxPosition, okxSigned } from "../helpers/venues/okx";

const KEY = "okx-test-key-Lw02nA";
const SECRET = "okx-test-secret-Hc91Pe";
const PASSPHRASE = "okx-test-passphrase";
const ID = "gamma0b5e1d2c3a4f59687a1b"; // OKX: clOrdId is letters and digits only, up to 32: the compact form (docs/journal.md)
const SYMBOL = "BTC-USDT-SWAP";
const PLACED = new Date(OKX_NOW - 5 * 60_000).toISOString();

const servers: VenueReplay[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const signed =
  (reply: Reply | ((req: ReceivedRequest) => Reply)): Route =>
  (req) => {
    if (!okxSigned(KEY, SECRET, PASSPHRASE, req)) return { status: 401, json: okxError("50113", "Invalid Sign") };
    return typeof reply === "function" ? reply(req) : reply;
  };

async function okx(routes: Record<string, Route>, opts: { secret?: string; timeoutMs?: number } = {}) {
  const venue = await serveVenueReplay({ ...okxBase(), ...routes });
  servers.push(venue);
  const exchange = createCcxtExchange({
    venue: "okx",
    accountType: "linear",
    apiKey: KEY,
    secret: opts.secret ?? SECRET,
    password: PASSPHRASE,
    baseUrl: venue.url,
    timeoutMs: opts.timeoutMs,
  });
  const adapter = new CcxtAdapter({ venue: "okx", accountType: "linear", exchange, clock: () => new Date(OKX_NOW) });
  return { venue, adapter };
}

const orderRoute = (route: Route) => ({ "GET /api/v5/trade/order": route });
const order = (state: Parameters<typeof okxOrder>[0]["state"], accFillSz: string, avgPx = "60002.5") =>
  orderRoute(signed({ json: okxOk([okxOrder({ clOrdId: ID, state, sz: "50", accFillSz, avgPx })]) }));
const find = (adapter: CcxtAdapter, placedAt = PLACED) => adapter.findOrder({ symbol: SYMBOL, clientOrderId: ID, placedAt });
const failure = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupFailedError);
  return (error as Error).message;
};

describe("CcxtAdapter on OKX: looking an order up by clOrdId", () => {
  it("asks by clOrdId in the signed request and finds a live order, in BTC", async () => {
    const { venue, adapter } = await okx(order("live", "0", ""));
    expect(await find(adapter)).toMatchObject({ clientOrderId: ID, symbol: SYMBOL, side: "buy", qty: 0.5, status: "open", filledQty: 0, avgPrice: null });
    const [asked] = venue.to("/api/v5/trade/order");
    expect(asked!.query.get("clOrdId")).toBe(ID);
    expect(asked!.query.get("instId")).toBe(SYMBOL);
    expect(asked!.headers["ok-access-sign"]).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    expect(okxSigned(KEY, SECRET, PASSPHRASE, asked!)).toBe(true);
  });

  it("finds a partially filled, a filled and a canceled order", async () => {
    expect(await find((await okx(order("partially_filled", "20"))).adapter)).toMatchObject({ status: "partially_filled", filledQty: 0.2, avgPrice: 60002.5 });
    expect(await find((await okx(order("filled", "50"))).adapter)).toMatchObject({ status: "filled", filledQty: 0.5 });
    expect(await find((await okx(order("canceled", "0", ""))).adapter)).toMatchObject({ status: "canceled", filledQty: 0 });
  });

  it("answers absent on 51603 within OKX's two hours, and fails after them", async () => {
    const { adapter } = await okx(orderRoute(signed({ json: okxError("51603", "Order does not exist") })));
    expect(await find(adapter)).toBeNull();
    expect(await failure(find(adapter, new Date(OKX_NOW - 3 * 3_600_000).toISOString()))).toMatch(/made 3 h ago, past the 2 h okx keeps every order for/);
  });

  it("fails on 429, on maintenance, on a 5xx page, on a refused signature and when OKX never answers", async () => {
    expect(await failure(find((await okx(orderRoute({ status: 429, json: okxError("50011", "Too Many Requests") }))).adapter))).toMatch(
      /rate limited|unavailable/,
    );
    const maintenance = await okx(orderRoute({ status: 503, json: okxError("50001", "Service temporarily unavailable. Please try again later.") }));
    expect(await failure(find(maintenance.adapter))).toMatch(/under maintenance|unavailable/);
    expect(await failure(find((await okx(orderRoute({ status: 500, text: "<html>Internal Server Error</html>" }))).adapter))).toMatch(/unavailable/);
    const wrong = await okx(order("filled", "50"), { secret: "not-the-okx-secret-00" });
    const message = await failure(find(wrong.adapter));
    expect(message).toMatch(/refused the key or its signature/);
    expect(message).not.toContain(KEY);
    expect(message).not.toContain(String(wrong.venue.to("/api/v5/trade/order")[0]!.headers["ok-access-sign"]));
    expect(await failure(find((await okx(orderRoute("hang"), { timeoutMs: 300 })).adapter))).toMatch(/no answer in 0.3 s/);
  });
});

describe("CcxtAdapter on OKX: orders and positions", () => {
  it("sends clOrdId and the size in contracts, reduceOnly on a close", async () => {
    const { venue, adapter } = await okx({
      "POST /api/v5/trade/order": signed((req) => {
        const body = JSON.parse(req.body) as { clOrdId: string };
        return { json: okxOk([{ clOrdId: body.clOrdId, ordId: "680800019749904384", tag: "", ts: String(OKX_NOW), sCode: "0", sMsg: "Order placed" }]) };
      }),
      ...order("filled", "50"),
    });
    expect(await adapter.createOrder({ clientOrderId: ID, symbol: SYMBOL, side: "buy", qty: 0.5 })).toMatchObject({ status: "filled", filledQty: 0.5 });
    await adapter.closeReduceOnly({ clientOrderId: ID, symbol: SYMBOL, size: -0.25 });
    const [open, close] = venue.to("/api/v5/trade/order").filter((r) => r.method === "POST");
    expect(JSON.parse(open!.body)).toMatchObject({ instId: SYMBOL, clOrdId: ID, side: "buy", ordType: "market", sz: "50" });
    expect(JSON.parse(close!.body)).toMatchObject({ clOrdId: ID, side: "buy", sz: "25", reduceOnly: true });
  });

  it("reads a net short of 75 contracts as -0.75 BTC", async () => {
    const { adapter } = await okx({ "GET /api/v5/account/positions": signed({ json: okxOk([okxPosition("-75", "60100.5")]) }) });
    expect(await adapter.fetchPositions()).toEqual([{ symbol: SYMBOL, size: -0.75, markPrice: 60100.5 }]);
  });
});
