/**
 * CcxtAdapter on Binance spot (api/v3) and USDⓈ-M futures (fapi/v1), against recorded responses on
 * loopback: ccxt signs (HMAC-SHA256 in the query's `signature`, checked here as Binance checks it)
 * and parses. A client id is asked as origClientOrderId; -2013 "Order does not exist" is absent only
 * for an order inside the time Binance keeps orders canceled without fills.
 */
import { afterEach, describe, expect, it } from "vitest";
import { LookupFailedError } from "@/lib/exchange/adapter";
import { CcxtAdapter, createCcxtExchange, type AccountType } from "@/lib/exchange/ccxt-adapter";
import { serveVenueReplay, type ReceivedRequest, type Reply, type Route, type VenueReplay } from "../helpers/venue-replay";
import { BINANCE_NOW, binanceBase, binanceError, binanceOrder, binanceSigned } from "../helpers/venues/binance";

const KEY = "binance-test-key-Jd82kq";
const SECRET = "binance-test-secret-Qm3vT0";
const ID = "beta-7b41d0c9e2a35f186d04";
const PLACED = new Date(BINANCE_NOW - 5 * 60_000).toISOString();

const servers: VenueReplay[] = [];
afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

const signed =
  (reply: Reply | ((req: ReceivedRequest) => Reply)): Route =>
  (req) => {
    if (!binanceSigned(KEY, SECRET, req)) return binanceError(-1022, "Signature for this request is not valid.");
    return typeof reply === "function" ? reply(req) : reply;
  };

const failure = async (p: Promise<unknown>) => {
  const error = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(LookupFailedError);
  return (error as Error).message;
};

for (const accountType of ["spot", "linear"] as const satisfies readonly AccountType[]) {
  const futures = accountType === "linear";
  const ORDER_PATH = futures ? "/fapi/v1/order" : "/api/v3/order";

  async function binance(route: Route, opts: { secret?: string; timeoutMs?: number } = {}) {
    const venue = await serveVenueReplay({ ...binanceBase(), [`GET ${ORDER_PATH}`]: route });
    servers.push(venue);
    const exchange = createCcxtExchange({
      venue: "binance",
      accountType,
      apiKey: KEY,
      secret: opts.secret ?? SECRET,
      baseUrl: venue.url,
      timeoutMs: opts.timeoutMs,
    });
    const adapter = new CcxtAdapter({ venue: "binance", accountType, exchange, symbols: ["BTCUSDT"], clock: () => new Date(BINANCE_NOW) });
    return { venue, adapter };
  }
  const find = (adapter: CcxtAdapter, placedAt = PLACED) => adapter.findOrder({ symbol: "BTCUSDT", clientOrderId: ID, placedAt });
  const order = (status: Parameters<typeof binanceOrder>[0]["status"], executedQty: string, avgPrice = "60002") =>
    signed({ json: binanceOrder({ clientOrderId: ID, status, origQty: futures ? "0.500" : "0.50000000", executedQty, avgPrice, futures }) });

  describe(`CcxtAdapter on Binance ${futures ? "USDⓈ-M futures" : "spot"}`, () => {
    it("asks by origClientOrderId in the signed query and finds an open order", async () => {
      const { venue, adapter } = await binance(order("NEW", "0", ""));
      expect(await find(adapter)).toMatchObject({ clientOrderId: ID, symbol: "BTCUSDT", side: "buy", qty: 0.5, status: "open", filledQty: 0 });
      const [asked] = venue.to(ORDER_PATH);
      expect(asked!.query.get("origClientOrderId")).toBe(ID);
      expect(asked!.query.get("symbol")).toBe("BTCUSDT");
      expect(asked!.query.get("signature")).toMatch(/^[0-9a-f]{64}$/);
      expect(binanceSigned(KEY, SECRET, asked!)).toBe(true);
    });

    it("finds a partially filled, a filled and a canceled order", async () => {
      expect(await find((await binance(order("PARTIALLY_FILLED", "0.2"))).adapter)).toMatchObject({ status: "partially_filled", filledQty: 0.2 });
      expect(await find((await binance(order("FILLED", "0.5"))).adapter)).toMatchObject({ status: "filled", filledQty: 0.5, avgPrice: 60002 });
      expect(await find((await binance(order("CANCELED", "0", ""))).adapter)).toMatchObject({ status: "canceled", filledQty: 0 });
    });

    it("answers absent on -2013 for an order inside Binance's retention", async () => {
      const { adapter } = await binance(signed(binanceError(-2013, "Order does not exist.")));
      expect(await find(adapter)).toBeNull();
    });

    it("fails, never absent, on -2013 for an order older than Binance's retention", async () => {
      const { adapter } = await binance(signed(binanceError(-2013, "Order does not exist.")));
      expect(await failure(find(adapter, new Date(BINANCE_NOW - 4 * 86_400_000).toISOString()))).toMatch(/made 4 days ago, past the 3 days binance keeps/);
    });

    it("fails on HTTP 429, on a 5xx page, on maintenance and on a refused signature, without the key or the signature", async () => {
      const limited = await binance({
        status: 429,
        json: { code: -1003, msg: "Too many requests; current limit of IP(127.0.0.1) is 6000 requests per minute." },
      });
      expect(await failure(find(limited.adapter))).toMatch(/rate limited/);
      const down = await binance({ status: 503, text: "<html><body>503 Service Temporarily Unavailable</body></html>" });
      expect(await failure(find(down.adapter))).toMatch(/unavailable/);
      const maintenance = await binance({ status: 200, json: { code: 1, msg: "System is under maintenance." } });
      expect(await failure(find(maintenance.adapter))).toMatch(/under maintenance/);
      const wrong = await binance(order("FILLED", "0.5"), { secret: "not-the-binance-secret" });
      const message = await failure(find(wrong.adapter));
      expect(message).toMatch(/refused the key or its signature/);
      const sent = wrong.venue.to(ORDER_PATH)[0]!;
      expect(message).not.toContain(KEY);
      expect(message).not.toContain(sent.query.get("signature")!);
    });

    it("fails when Binance never answers", async () => {
      const { adapter } = await binance("hang", { timeoutMs: 300 });
      expect(await failure(find(adapter))).toMatch(/no answer in 0.3 s/);
    });
  });
}

describe("CcxtAdapter on Binance USDⓈ-M: sending", () => {
  it("sends newClientOrderId, and reduceOnly on a close", async () => {
    const venue = await serveVenueReplay({
      ...binanceBase(),
      "POST /fapi/v1/order": signed((req) => {
        const p = new URLSearchParams(req.body || req.query.toString());
        return {
          json: {
            ...binanceOrder({
              clientOrderId: p.get("newClientOrderId") ?? "",
              status: "FILLED",
              origQty: p.get("quantity") ?? "0",
              executedQty: p.get("quantity") ?? "0",
              avgPrice: "60002",
              futures: true,
            }),
            side: p.get("side"),
            reduceOnly: p.get("reduceOnly") === "true",
          },
        };
      }),
    });
    servers.push(venue);
    const exchange = createCcxtExchange({ venue: "binance", accountType: "linear", apiKey: KEY, secret: SECRET, baseUrl: venue.url });
    const adapter = new CcxtAdapter({ venue: "binance", accountType: "linear", exchange, clock: () => new Date(BINANCE_NOW) });
    expect(await adapter.createOrder({ clientOrderId: ID, symbol: "BTCUSDT", side: "buy", qty: 0.5 })).toMatchObject({ status: "filled", filledQty: 0.5 });
    expect(await adapter.closeReduceOnly({ clientOrderId: `${ID}x`, symbol: "BTCUSDT", size: 0.5 })).toMatchObject({ side: "sell", status: "filled" });
    const [open, close] = venue.to("/fapi/v1/order").map((r) => new URLSearchParams(r.body || r.query.toString()));
    expect(open!.get("newClientOrderId")).toBe(ID);
    expect(open!.get("side")).toBe("BUY");
    expect(open!.get("type")).toBe("MARKET");
    expect(close!.get("newClientOrderId")).toBe(`${ID}x`);
    expect(close!.get("side")).toBe("SELL");
    expect(close!.get("reduceOnly")).toBe("true");
  });
});
