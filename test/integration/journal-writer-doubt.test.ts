import { afterEach, describe, expect, it } from "vitest";
import { RECONCILE_STRATEGY } from "@/lib/bot/journal-writer";
import type { Decision } from "@/lib/journal/client-order-id";
import { botOn, ENGINES, pgJournalsForFile, type BotOnEngine } from "../helpers/engines";

const buy500: Decision = { strategy: "media_movil", symbol: "AAPL", side: "buy", qty: 500, bar: "2026-08-10T15:30:00.000Z" };

const journals = pgJournalsForFile("journal-writer-doubt");
let bot: BotOnEngine | undefined;
afterEach(async () => {
  await bot?.close();
  bot = undefined;
});

describe.each(ENGINES)("on %s", (engine) => {
  describe("reconcile next to an order whose fate is unknown", () => {
    it("does not flatten a position its own unknown order may have opened, and the books agree once the lookup settles it", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "timeout_after_accept" });
      bot.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
      const sent = await bot.writer.sendOnce(buy500);
      expect(sent.kind).toBe("unknown");

      // The exchange filled it; the journal cannot know yet. Closing the 500 now would leave the book
      // at +500 against a flat exchange the moment the lookup works again.
      const r = await bot.writer.reconcile();
      expect(r).toMatchObject({ outcome: "drift", tripped: false });
      expect(bot.sim.position("AAPL")).toBe(500);
      expect(await bot.rows(`SELECT 1 FROM orders WHERE strategy = ?`, RECONCILE_STRATEGY)).toHaveLength(0);
      expect(await bot.rows<{ kind: string }>(`SELECT kind FROM breaker_events`)).toEqual([{ kind: "trip" }]);
      expect(bot.alerts.at(-1)).toMatchObject({ kind: "unknown_position", message: expect.stringContaining(sent.order.clientOrderId) });

      bot.sim.clearFaults();
      expect(await bot.writer.refresh(sent.order.clientOrderId)).toMatchObject({ state: "filled", filledQty: 500 });
      expect((await bot.writer.reconcile()).outcome).toBe("clean");
    });

    it("still flattens a position the bot never opened when its unknown order is on another symbol", async () => {
      bot = await botOn(engine, journals);
      bot.sim.inject({ on: "create", fault: "timeout_not_received" });
      bot.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
      expect((await bot.writer.sendOnce(buy500)).kind).toBe("unknown");
      bot.sim.setPositionBehindBot("ETHUSDT", 3);
      const r = await bot.writer.reconcile();
      expect(r.outcome).toBe("drift");
      expect(bot.sim.position("ETHUSDT")).toBe(0);
      expect(await bot.rows<{ symbol: string; state: string }>(`SELECT symbol, state FROM orders WHERE strategy = ?`, RECONCILE_STRATEGY)).toEqual([
        { symbol: "ETHUSDT", state: "filled" },
      ]);
    });
  });

  describe("unsettledOrders", () => {
    it("lists the bot's live and doubtful orders, not its settled ones nor another bot's", async () => {
      bot = await botOn(engine, journals);
      await bot.writer.sendOnce(buy500);
      bot.sim.inject({ on: "create", fault: "partial_fill", fillRatio: 0.5 });
      const live = await bot.writer.sendOnce({ ...buy500, bar: "2026-08-10T15:31:00.000Z" });
      bot.sim.inject({ on: "create", fault: "timeout_not_received" });
      bot.sim.inject({ on: "find", fault: "lookup_fail", times: Infinity });
      const doubtful = await bot.writer.sendOnce({ ...buy500, symbol: "BTCUSDT", qty: 0.5 });
      expect((await bot.writer.unsettledOrders()).map((o) => [o.clientOrderId, o.state])).toEqual([
        [live.order.clientOrderId, "partially_filled"],
        [doubtful.order.clientOrderId, "unknown"],
      ]);
    });
  });
});
