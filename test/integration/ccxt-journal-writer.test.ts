/**
 * The journal writer (lib/bot) on CcxtAdapter against recorded Bybit V5 responses: the same
 * sendOnce / recovery / reconcile code the demo runs on the simulator, here through ccxt's signing
 * and parsing. A lost reply is looked up by orderLinkId, never resent.
 */
import { afterEach, describe, expect, it } from "vitest";
import Database from "better-sqlite3";
import { openJournalWriter } from "@/lib/db/journal-file";
import { JournalWriter } from "@/lib/bot/journal-writer";
import { CcxtAdapter, createCcxtExchange } from "@/lib/exchange/ccxt-adapter";
import type { Decision } from "@/lib/journal/client-order-id";
import { migratedJournal, migrationsDir } from "../helpers/journal";
import { serveVenueReplay, type ReceivedRequest, type Route, type VenueReplay } from "../helpers/venue-replay";
import { BYBIT_NOW, bybitBase, bybitOrder, bybitOrderList, bybitPosition } from "../helpers/venues/bybit";

const buy: Decision = { strategy: "sma_cross", symbol: "BTCUSDT", side: "buy", qty: 0.5, bar: "2026-08-10T12:00:00.000Z" };

const cleanups: (() => void | Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/**
 * A Bybit account that keeps what it was sent: every create is received and then listed by
 * realtime as filled; `replyLost` hangs the create's reply after receipt, `lookupsDown` answers
 * every realtime read with a 503 page.
 */
async function bybitAccount(opts: { replyLost?: boolean; lookupsDown?: boolean; position?: string } = {}) {
  const received = new Map<string, { qty: string; side: "Buy" | "Sell" }>();
  const ack = (req: ReceivedRequest) => {
    const body = JSON.parse(req.body) as { orderLinkId: string; qty: string; side: "Buy" | "Sell" };
    received.set(body.orderLinkId, { qty: body.qty, side: body.side });
    return body;
  };
  const routes: Record<string, Route> = {
    ...bybitBase(),
    "POST /v5/order/create": (req) => {
      const body = ack(req);
      if (opts.replyLost) return "hang";
      return {
        json: {
          retCode: 0,
          retMsg: "OK",
          result: { orderId: "1a1e9c21-9d60-4c6e-b9a7-0f0d5cf3a7c1", orderLinkId: body.orderLinkId },
          retExtInfo: {},
          time: BYBIT_NOW,
        },
      };
    },
    "GET /v5/order/realtime": (req) => {
      if (opts.lookupsDown) return { status: 503, text: "<html><body>503 Service Unavailable</body></html>" };
      const id = req.query.get("orderLinkId") ?? "";
      const o = received.get(id);
      return {
        json: bybitOrderList(o ? [bybitOrder({ orderLinkId: id, orderStatus: "Filled", side: o.side, qty: o.qty, cumExecQty: o.qty, avgPrice: "60002" })] : []),
      };
    },
    "GET /v5/order/history": { json: bybitOrderList([]) },
    "GET /v5/position/list": {
      json: {
        retCode: 0,
        retMsg: "OK",
        result: {
          list: opts.position ? [bybitPosition({ side: "Buy", size: opts.position, markPrice: "60100" })] : [],
          nextPageCursor: "",
          category: "linear",
        },
        retExtInfo: {},
        time: BYBIT_NOW,
      },
    },
  };
  const venue: VenueReplay = await serveVenueReplay(routes);
  cleanups.push(() => venue.close());
  return { venue, received };
}

function writerOn(venue: VenueReplay, file = migratedJournal("ccxt-writer")) {
  const exchange = createCcxtExchange({
    venue: "bybit",
    accountType: "linear",
    apiKey: "writer-test-key-1",
    secret: "writer-test-secret-1",
    baseUrl: venue.url,
    timeoutMs: 400,
  });
  const adapter = new CcxtAdapter({ venue: "bybit", accountType: "linear", exchange });
  const { db } = openJournalWriter(file, { migrationsDir });
  cleanups.push(() => void db.close());
  const writer = new JournalWriter({
    db,
    botId: "alpha",
    prefix: "alpha",
    exchange: adapter,
    qtyStepFor: (s) => (s === "BTCUSDT" ? 0.001 : undefined),
    sleep: async () => undefined,
    retry: { attempts: 3, backoffMs: 10 },
  });
  writer.register();
  const read = new Database(file, { readonly: true });
  cleanups.push(() => void read.close());
  const events = (id: string) => read.prepare(`SELECT kind FROM order_events WHERE client_order_id = ? ORDER BY id`).pluck().all(id) as string[];
  return { file, writer, events, read };
}

describe("the journal writer on CcxtAdapter (Bybit V5)", () => {
  it("places an order with its client id as orderLinkId and copies the fill Bybit reports", async () => {
    const { venue } = await bybitAccount();
    const { writer, events, read } = writerOn(venue);
    const out = await writer.sendOnce(buy);
    expect(out).toMatchObject({ kind: "placed", order: { state: "filled", filledQty: 0.5, avgPrice: 60002, attempts: 1 } });
    expect(events(out.order.clientOrderId)).toEqual(["intent", "send"]);
    const sent = venue.to("/v5/order/create").map((r) => JSON.parse(r.body) as { orderLinkId: string });
    expect(sent).toEqual([expect.objectContaining({ orderLinkId: out.order.clientOrderId })]);
    expect(read.prepare(`SELECT exchange FROM bots WHERE bot_id = 'alpha'`).pluck().get()).toBe("bybit-linear");
  });

  it("looks a lost reply up by orderLinkId and finds it filled: one order sent, never two", async () => {
    const { venue } = await bybitAccount({ replyLost: true });
    const { writer, events } = writerOn(venue);
    const out = await writer.sendOnce(buy);
    expect(out).toMatchObject({ kind: "placed", order: { state: "filled", filledQty: 0.5, attempts: 1 } });
    expect(events(out.order.clientOrderId)).toEqual(["intent", "timeout", "lookup_found"]);
    expect(venue.to("/v5/order/create")).toHaveLength(1);
    expect(venue.to("/v5/order/realtime").map((r) => r.query.get("orderLinkId"))).toContain(out.order.clientOrderId);
  });

  it("marks the order unknown and trips the breaker when Bybit cannot be asked, and sends nothing on top", async () => {
    const { venue } = await bybitAccount({ replyLost: true, lookupsDown: true });
    const { writer } = writerOn(venue);
    const out = await writer.sendOnce(buy);
    expect(out).toMatchObject({ kind: "unknown", order: { state: "unknown" } });
    expect(out.order.lastError).toMatch(/lookup failed: bybit could not be asked about .*: unavailable/);
    expect(writer.breaker().halted).toBe(true);
    expect(venue.to("/v5/order/create")).toHaveLength(1);
  });

  it("recovers at startup: an intent Bybit never got is proved absent by realtime and history", async () => {
    const { venue } = await bybitAccount();
    const { writer } = writerOn(venue);
    const { order } = writer.recordIntent(buy);
    const report = await writer.recover();
    expect(report).toMatchObject({ checked: 1, absent: [order.clientOrderId], unknown: [] });
    expect(venue.to("/v5/order/history")[0]!.query.get("orderLinkId")).toBe(order.clientOrderId);
  });

  it("reconciles against Bybit's positions: the filled buy and a +0.5 position agree", async () => {
    const { venue } = await bybitAccount({ position: "0.5" });
    const { writer } = writerOn(venue);
    await writer.sendOnce(buy);
    const report = await writer.reconcile();
    expect(report).toMatchObject({ outcome: "clean", tripped: false });
  });
});
