import { afterEach, describe, expect, it } from "vitest";
import { BreakerHaltedError, RECONCILE_STRATEGY } from "@/lib/bot/journal-writer";
import type { Decision } from "@/lib/journal/client-order-id";
import { botOn, ENGINES, pgJournalsForFile, type BotOnEngine } from "../helpers/engines";

const buy500: Decision = { strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00Z" };

const journals = pgJournalsForFile("journal-writer");
let bot: BotOnEngine | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

const events = async (id: string) =>
  (await bot!.rows<{ kind: string; actor: string }>(`SELECT kind, actor FROM order_events WHERE client_order_id = ? ORDER BY id`, id)).map((e) => e.kind);
const breakerEvents = () =>
  bot!.rows<{ kind: string; reason: string; reconciliation_id: number | null }>(`SELECT kind, reason, reconciliation_id FROM breaker_events ORDER BY id`);
const breaker = async () => (await bot!.rows<{ halted: number; reason: string | null; version: number }>(`SELECT halted, reason, version FROM breakers`))[0]!;

describe.each(ENGINES)("the journal writer on %s", (engine) => {
  describe("sendOnce", () => {
    it("writes the intent before the send and the reply after it", async () => {
      bot = await botOn(engine, journals);
      const out = await bot.writer.sendOnce(buy500);
      expect(out.kind).toBe("placed");
      expect(out.order).toMatchObject({ clientOrderId: "q500-d802a55a0df8ed0d3231", state: "filled", filledQty: 500, attempts: 1 });
      expect(out.order.exchangeOrderId).toBeTruthy();
      expect(await events(out.order.clientOrderId)).toEqual(["intent", "send"]);
      expect(bot.sim.position("AAPL")).toBe(500);
    });

    it("ends at 500, not 1,000, when the reply is lost after the exchange filled the order", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
      const out = await bot.writer.sendOnce(buy500);
      expect(out).toMatchObject({ kind: "placed", order: { state: "filled", filledQty: 500, attempts: 1 } });
      expect(await events(out.order.clientOrderId)).toEqual(["intent", "timeout", "lookup_found"]);
      expect(bot.sim.position("AAPL")).toBe(500);
      expect(bot.sim.orders()).toHaveLength(1);
      expect((await breaker()).halted).toBe(0);
    });

    it("resends with the same id only after a lookup proves the exchange never got it", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "timeout_not_received" });
      const out = await bot.writer.sendOnce(buy500);
      expect(out).toMatchObject({ kind: "placed", order: { state: "filled", attempts: 2 } });
      expect(await events(out.order.clientOrderId)).toEqual(["intent", "timeout", "lookup_absent", "send"]);
      expect(bot.sim.position("AAPL")).toBe(500);
    });

    it("an order that arrives late after a resend is refused as a duplicate: one position, not two", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "delayed_appearance", delayMs: 700 });
      const out = await bot.writer.sendOnce(buy500);
      expect(out.kind).toBe("placed");
      bot.sim.advance(5_000);
      expect(bot.sim.position("AAPL")).toBe(500);
    });

    it("marks the order unknown and trips the breaker when lookups keep failing, and never sends on top of the doubt", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
      bot.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
      const out = await bot.writer.sendOnce(buy500);
      expect(out).toMatchObject({ kind: "unknown", order: { state: "unknown", attempts: 1 } });
      expect(out.order.lastError).toMatch(/lookup failed/);
      expect(bot.sim.orders()).toHaveLength(1); // the one lost reply, no blind retry
      expect(await breaker()).toMatchObject({ halted: 1, reason: `order ${out.order.clientOrderId} unknown: ${out.order.lastError}` });
      expect(await breakerEvents()).toEqual([{ kind: "trip", reason: (await breaker()).reason, reconciliation_id: null }]);
      expect(bot.alerts.map((a) => a.kind)).toEqual(["unknown_order"]);
    });

    it("records a rejection as settled without tripping", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "reject", reason: "insufficient margin" });
      const out = await bot.writer.sendOnce(buy500);
      expect(out).toMatchObject({ kind: "rejected", reason: "insufficient margin", order: { state: "rejected" } });
      expect((await breaker()).halted).toBe(0);
    });

    it("waits out a rate limit with a lookup first, then sends", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "rate_limit" });
      const out = await bot.writer.sendOnce(buy500);
      expect(out).toMatchObject({ kind: "placed", order: { state: "filled", attempts: 2 } });
      expect(await events(out.order.clientOrderId)).toEqual(["intent", "error", "lookup_absent", "send"]);
    });

    it("does nothing twice for the same decision", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      const again = await bot.writer.sendOnce(buy500);
      expect(again.kind).toBe("existing");
      expect(bot.sim.orders()).toHaveLength(1);
      expect(bot.sim.position("AAPL")).toBe(500);
    });

    it("refuses new entries while halted and writes no intent, but lets reductions through", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      await bot.writer.trip("test halt");
      await expect(bot.writer.sendOnce({ ...buy500, bar: "2026-08-10T15:31:00Z" })).rejects.toThrow(BreakerHaltedError);
      expect(await bot.rows(`SELECT 1 FROM orders`)).toHaveLength(1);
      const reduce = await bot.writer.sendOnce({ ...buy500, side: "sell", qty: 200, bar: "2026-08-10T15:31:00Z" }, { reduceOnly: true });
      expect(reduce.kind).toBe("placed");
      expect(bot.sim.position("AAPL")).toBe(300);
    });

    it("bumps the version on every update of an order", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "timeout_not_received" });
      const out = await bot.writer.sendOnce(buy500);
      // intent (1) + attempt, timeout, attempt, send
      expect(out.order.version).toBe(5);
    });
  });

  describe("startup recovery", () => {
    it("copies what the exchange has, marks what it proves missing absent, and leaves unknown what it cannot look up", async () => {
      bot = await botOn(engine, journals);
      // Three orders left behind by a bot that died: one reached the exchange, one never did, one cannot be looked up.
      bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
      bot.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity, symbol: "ETHUSDT" });
      const reached = (await bot.writer.recordIntent(buy500)).order;
      await bot.sim.createOrder({ clientOrderId: reached.clientOrderId, symbol: "AAPL", side: "buy", qty: 500 }).catch(() => undefined);
      const never = (await bot.writer.recordIntent({ ...buy500, symbol: "BTCUSDT", qty: 0.5 })).order;
      const cannot = (await bot.writer.recordIntent({ ...buy500, symbol: "ETHUSDT", qty: 2 })).order;

      const report = await bot.writer.recover();
      expect(report).toEqual({ checked: 3, found: [reached.clientOrderId], absent: [never.clientOrderId], unknown: [cannot.clientOrderId] });
      const states = Object.fromEntries(
        (await bot.rows<{ client_order_id: string; state: string }>(`SELECT client_order_id, state FROM orders`)).map((r) => [r.client_order_id, r.state]),
      );
      expect(states).toEqual({ [reached.clientOrderId]: "filled", [never.clientOrderId]: "absent", [cannot.clientOrderId]: "unknown" });
      expect((await breaker()).halted).toBe(1);
    });

    it("lets an absent order be resent with the same id, and only that one", async () => {
      bot = await botOn(engine, journals);
      const never = (await bot.writer.recordIntent(buy500)).order;
      await bot.writer.recover();
      const out = await bot.writer.sendOnce(buy500);
      expect(out).toMatchObject({ kind: "placed", order: { clientOrderId: never.clientOrderId, state: "filled" } });
      expect(bot.sim.position("AAPL")).toBe(500);
    });
  });

  describe("reconcile", () => {
    it("is skipped while orders are in flight, and records no books", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.4 });
      await bot.writer.sendOnce(buy500);
      const r = await bot.writer.reconcile();
      expect(r).toMatchObject({ outcome: "skipped", ordersInFlight: 1 });
      expect(await bot.rows(`SELECT * FROM reconciliation_positions`)).toHaveLength(0);
      expect((await breaker()).halted).toBe(0);
    });

    it("writes both books and stays clean when they agree", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      const r = await bot.writer.reconcile({ symbols: ["AAPL", "BTCUSDT"] });
      expect(r.outcome).toBe("clean");
      const rows = await bot.rows<{ symbol: string; ours: number; theirs: number; qty_step: number; mark_price: number | null }>(
        `SELECT symbol, ours, theirs, qty_step, mark_price FROM reconciliation_positions ORDER BY symbol`,
      );
      expect(rows.map((x) => [x.symbol, x.ours, x.theirs, x.qty_step])).toEqual([
        ["AAPL", 500, 500, 1],
        ["BTCUSDT", 0, 0, 0.001],
      ]);
      expect(rows[0]!.mark_price).toBeGreaterThan(0);
    });

    it("on a position the bot never opened: cancels, closes reduce-only, trips with the cycle as cause", async () => {
      bot = await botOn(engine, journals);
      bot.sim.setPositionBehindBot("ETHUSDT", 3);
      const r = await bot.writer.reconcile();
      expect(r).toMatchObject({ outcome: "drift", tripped: true });
      expect(bot.sim.position("ETHUSDT")).toBe(0);
      const close = await bot.rows<{ strategy: string; side: string; qty: number; state: string }>(`SELECT strategy, side, qty, state FROM orders`);
      expect(close).toEqual([{ strategy: RECONCILE_STRATEGY, side: "sell", qty: 3, state: "filled" }]);
      expect(await breakerEvents()).toEqual([{ kind: "trip", reason: "unknown position ETHUSDT +3", reconciliation_id: r.reconciliationId }]);
      expect(bot.alerts.map((a) => a.kind)).toEqual(["unknown_position"]);
      // The close is not the bot's own position: the next cycle is clean, not a new drift.
      expect((await bot.writer.reconcile()).outcome).toBe("clean");
    });

    it("on a manual partial close: records the drift and trips", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      bot.sim.setPositionBehindBot("AAPL", 300);
      const r = await bot.writer.reconcile();
      expect(r.outcome).toBe("drift");
      expect(await breaker()).toMatchObject({ halted: 1, reason: "size drift AAPL: book +500 vs exchange +300" });
      expect(bot.sim.position("AAPL")).toBe(300); // a size drift is for a person to judge, not flattened
    });

    it("does not trip again for a drift that persists while halted", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      bot.sim.setPositionBehindBot("AAPL", 300);
      await bot.writer.reconcile();
      const again = await bot.writer.reconcile();
      expect(again).toMatchObject({ outcome: "drift", tripped: false });
      expect(await breakerEvents()).toHaveLength(1);
    });

    it("counts an operator's book correction from its next cycle: the size drift reconciles clean and stays clean after new fills", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      bot.sim.setPositionBehindBot("AAPL", 300);
      const drift = await bot.writer.reconcile();
      expect(drift.outcome).toBe("drift");
      // What the console writes when the operator adopts the exchange's size (docs/journal.md).
      await bot.exec(
        `INSERT INTO book_corrections (bot_id, symbol, kind, ours, theirs, reconciliation_id, delta, note, corrected_by, corrected_at)
         VALUES ('bot-a', 'AAPL', 'adopt_exchange', 500, 300, ?, -200, 'closed 200 by hand on the venue', 'operator:ana', ?)`,
        drift.reconciliationId,
        bot.sim.now().toISOString(),
      );
      expect((await bot.writer.book()).get("AAPL")).toBe(300);
      expect((await bot.writer.reconcile()).outcome).toBe("clean");
      await expect(bot.exec(`DELETE FROM book_corrections`)).rejects.toThrow(/append-only/);
      await expect(bot.exec(`UPDATE book_corrections SET delta = 0`)).rejects.toThrow(/append-only/);
    });

    it("writes the mark price of a symbol the exchange holds flat, so a drift against a flat exchange has a value", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      bot.sim.setPositionBehindBot("AAPL", 0);
      const r = await bot.writer.reconcile({ symbols: ["AAPL", "BTCUSDT"] });
      expect(r.outcome).toBe("drift");
      const rows = await bot.rows<{ symbol: string; theirs: number; mark_price: number | null }>(
        `SELECT symbol, theirs, mark_price FROM reconciliation_positions ORDER BY symbol`,
      );
      expect(rows.map((x) => [x.symbol, x.theirs, x.mark_price])).toEqual([
        ["AAPL", 0, bot.sim.price("AAPL")],
        ["BTCUSDT", 0, bot.sim.price("BTCUSDT")],
      ]);
      const aapl = r.outcome === "drift" ? r.lines.find((l) => l.symbol === "AAPL") : undefined;
      expect(aapl?.driftNotional).toBe(500 * bot.sim.price("AAPL"));
    });

    it("records an error, not a clean cycle, when positions cannot be fetched", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "positions", fault: "fetch_fail" });
      const r = await bot.writer.reconcile();
      expect(r.outcome).toBe("error");
      expect((await bot.rows<{ outcome: string; error: string }>(`SELECT outcome, error FROM reconciliations`))[0]).toMatchObject({
        outcome: "error",
        error: expect.stringMatching(/fetch positions failed/),
      });
      expect(bot.alerts.map((a) => a.kind)).toEqual(["reconciliation_error"]);
    });
  });

  describe("heartbeat and registration", () => {
    it("registers the bot with a running breaker once, and moves the heartbeat", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.register();
      expect(await bot.rows(`SELECT bot_id, exchange, client_id_prefix FROM bots`)).toEqual([{ bot_id: "bot-a", exchange: "sim", client_id_prefix: "q500" }]);
      expect(await breaker()).toMatchObject({ halted: 0, version: 1 });
      const before = (await bot.rows<{ heartbeat_at: string }>(`SELECT heartbeat_at FROM bots`))[0]!.heartbeat_at;
      bot.sim.advance(15_000);
      await bot.writer.heartbeat();
      const after = (await bot.rows<{ heartbeat_at: string }>(`SELECT heartbeat_at FROM bots`))[0]!.heartbeat_at;
      expect(Date.parse(after) - Date.parse(before)).toBe(15_000);
    });

    it("keeps a halt across a restart: registering again does not clear the breaker", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.trip("drift");
      await bot.writer.register();
      expect((await breaker()).halted).toBe(1);
    });
  });
});
