/**
 * Random failure schedules against the two demo bots on one real journal. fast-check draws a seed
 * and a list of faults (lost replies, late orders, partial fills, refusals, failing lookups and
 * position reads, rate limits, positions changed by hand), injects each at its cycle, lets the bots
 * and a simulated on-call person run, then lets the network heal and checks what must always hold:
 *
 *  - no double fill: the venue never holds, from the bot's own strategy orders, more than one entry
 *    of the largest size the bot decided for that symbol, and every order on the venue under the
 *    bot's prefix was journaled first;
 *  - the venue's position is exactly the journal's fills plus what was done by hand;
 *  - an unknown order is halted on at every cycle, and ends settled by a later lookup or still
 *    unknown with its bot halted (no clear since it became unknown);
 *  - every trip has a cause row: a drifting reconciliation of that bot, or an unknown order of it.
 */
import fc from "fast-check";
import { afterEach, describe, expect, it } from "vitest";
import { RECONCILE_STRATEGY } from "@/lib/bot/journal-writer";
import type { DemoFault } from "@/tools/demo/faults";
import { applyFault } from "@/tools/demo/faults";
import { ALPHA, BETA, withOverrides, type BotSpec } from "@/tools/demo/markets";
import { SimulatedOnCall } from "@/tools/demo/operator";
import { seededRng, subSeed, type Rng } from "@/tools/demo/random";
import type { Stance, Strategy } from "@/tools/demo/strategies";
import { DemoWorld } from "@/tools/demo/world";
import { migratedJournal, migrationsDir } from "../helpers/journal";
import { JournalView } from "../helpers/demo-journal";

const BAR_MS = 30_000;
const CYCLE_MS = 10_000;
const FAULTY_CYCLES = 45;
const HEALING_CYCLES = 15;

/** A strategy that changes its mind at random on most bars: many orders, so many faults land. */
function coin(rng: Rng): Strategy {
  return { name: "coin", lookback: 0, decide: () => rng.pick<Stance>([-1, 0, 1]) };
}

function coinSpec(spec: BotSpec, seed: number): BotSpec {
  const strategy = coin(seededRng(subSeed(seed, `coin-${spec.botId}`)));
  return withOverrides(spec, { strategies: Object.fromEntries(spec.markets.map((m) => [m.symbol, strategy])) });
}

const faultArb: fc.Arbitrary<DemoFault> = fc.oneof(
  fc.record({ kind: fc.constant("lost_reply" as const), fillRatio: fc.constantFrom(1, 1, 0.5, 0), completeAfterMs: fc.constantFrom(5_000, 20_000, 60_000) }),
  fc.record({ kind: fc.constant("never_arrived" as const) }),
  fc.record({ kind: fc.constant("late_arrival" as const), delayMs: fc.constantFrom(300, 700, 4_000, 25_000) }),
  fc.record({
    kind: fc.constant("partial_fill" as const),
    fillRatio: fc.constantFrom(0.2, 0.5, 0.75),
    completeAfterMs: fc.constantFrom(5_000, 20_000, 60_000),
  }),
  fc.record({ kind: fc.constant("reject" as const) }),
  fc.record({ kind: fc.constant("rate_limit" as const) }),
  fc.record({ kind: fc.constant("lookups_fail" as const), times: fc.integer({ min: 1, max: 8 }) }),
  fc.record({ kind: fc.constant("positions_unreadable" as const), times: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant("manual_partial_close" as const), fraction: fc.constantFrom(0.25, 0.5, 1) }),
  fc.record({ kind: fc.constant("foreign_position" as const), units: fc.constantFrom(0.5, 1), side: fc.constantFrom("buy" as const, "sell" as const) }),
);

const scheduleArb = fc.array(fc.record({ cycle: fc.integer({ min: 0, max: FAULTY_CYCLES - 1 }), botId: fc.constantFrom("alpha", "beta"), fault: faultArb }), {
  maxLength: 24,
});

interface ExchangeSide {
  clientOrderId: string;
  symbol: string;
  side: "buy" | "sell";
  filledQty: number;
}

const signed = (o: { side: "buy" | "sell"; filledQty: number }) => (o.side === "buy" ? o.filledQty : -o.filledQty);
const near = (a: number, b: number, step: number) => Math.abs(a - b) < step / 2;

let world: DemoWorld | undefined;
let view: JournalView | undefined;
afterEach(() => {
  world?.close();
  view?.close();
  world = view = undefined;
});

/** Strategy and quantity of a journaled order never change: read each once per run. */
type Decided = Map<string, { strategy: string; qty: number } | undefined>;

/** Checked after every cycle, while faults are still landing. */
function checkCycle(w: DemoWorld, decided: Decided): void {
  for (const bot of w.bots) {
    const sim = w.exchange(bot.botId);
    const unsettled = bot.writer.unsettledOrders();
    if (unsettled.some((o) => o.state === "unknown")) expect(bot.writer.breaker().halted, `${bot.botId} has an unknown order but is not halted`).toBe(true);

    const venue: ExchangeSide[] = sim.orders().filter((o) => o.clientOrderId.startsWith(`${bot.spec.prefix}-`));
    for (const market of bot.spec.markets) {
      const mine = venue.filter((o) => o.symbol === market.symbol);
      const journaled = mine.map((o) => {
        if (!decided.get(o.clientOrderId)) {
          const row = bot.writer.order(o.clientOrderId);
          decided.set(o.clientOrderId, row && { strategy: row.strategy, qty: row.qty });
        }
        return decided.get(o.clientOrderId);
      });
      // Never sent without its intent on disk.
      expect(
        journaled.every((row) => row !== undefined),
        `an order on ${market.symbol} reached the venue without a journal row`,
      ).toBe(true);
      const entries = journaled.filter((row) => row && row.strategy !== RECONCILE_STRATEGY);
      const largest = Math.max(0, ...entries.map((row) => row!.qty));
      const ownExposure = mine.filter((_, i) => journaled[i]!.strategy !== RECONCILE_STRATEGY).reduce((sum, o) => sum + signed(o), 0);
      // The bot only goes flat -> one entry -> flat: anything beyond one entry is a double fill.
      expect(Math.abs(ownExposure), `${bot.botId} holds ${ownExposure} ${market.symbol} from its own orders`).toBeLessThanOrEqual(largest + market.qtyStep / 2);
    }
  }
}

/** Checked once the network has healed and the bots have settled what they could. */
function checkEnd(w: DemoWorld, v: JournalView): void {
  for (const bot of w.bots) {
    const sim = w.exchange(bot.botId);
    const injected = w.injected(bot.botId);
    const halted = bot.writer.breaker().halted;
    const unknown = new Set(
      bot.writer
        .unsettledOrders()
        .filter((o) => o.state === "unknown")
        .map((o) => o.clientOrderId),
    );

    // The venue holds exactly the journal's fills plus what was done by hand, unless an order is
    // still unknown (its fills are what nobody can tell yet).
    for (const market of bot.spec.markets) {
      const orders = v.orders(bot.botId, "symbol = ?", market.symbol);
      if (orders.some((o) => unknown.has(o.client_order_id))) continue;
      const fills = orders.reduce((sum, o) => sum + (o.side === "buy" ? o.filled_qty : -o.filled_qty), 0);
      const expected = fills + (injected.get(market.symbol) ?? 0);
      expect(
        near(sim.position(market.symbol), expected, market.qtyStep),
        `${bot.botId} ${market.symbol}: venue ${sim.position(market.symbol)}, journal fills + by hand ${expected}`,
      ).toBe(true);
    }

    // Every order that was ever unknown: settled by a later lookup, or still unknown and halted on.
    const clears = v.breakerEvents(bot.botId).filter((e) => e.kind === "clear");
    const becameUnknown = v.all<{ client_order_id: string; at: string; id: number }>(
      `SELECT e.client_order_id, e.at, e.id FROM order_events e JOIN orders o USING (client_order_id)
        WHERE o.bot_id = ? AND json_extract(e.detail, '$.status') = 'unknown' ORDER BY e.id`,
      bot.botId,
    );
    for (const u of becameUnknown) {
      if (unknown.has(u.client_order_id)) {
        expect(halted, `${u.client_order_id} is unknown but ${bot.botId} is not halted`).toBe(true);
        const lastUnknown = becameUnknown.filter((x) => x.client_order_id === u.client_order_id).at(-1)!;
        expect(
          clears.filter((c) => c.at > lastUnknown.at),
          `a halt was cleared while ${u.client_order_id} was unknown`,
        ).toEqual([]);
      } else {
        const later = v.all<{ kind: string }>(
          `SELECT kind FROM order_events WHERE client_order_id = ? AND id > ? AND kind IN ('lookup_found', 'lookup_absent')`,
          u.client_order_id,
          u.id,
        );
        expect(later.length, `${u.client_order_id} left unknown without a lookup settling it`).toBeGreaterThan(0);
      }
    }

    // Every trip has its cause in the journal.
    for (const trip of v.breakerEvents(bot.botId).filter((e) => e.kind === "trip")) {
      if (trip.reconciliation_id !== null) {
        const rec = v.all<{ bot_id: string; outcome: string }>(`SELECT bot_id, outcome FROM reconciliations WHERE id = ?`, trip.reconciliation_id);
        expect(rec).toEqual([{ bot_id: bot.botId, outcome: "drift" }]);
        const drifting = v.positions(trip.reconciliation_id).filter((p) => !near(p.ours, p.theirs, p.qty_step));
        expect(drifting.length, `trip ${trip.id} names a reconciliation without a drift`).toBeGreaterThan(0);
      } else {
        const ids = trip.reason.match(new RegExp(`${bot.spec.prefix}-[0-9a-f]{20}`, "g")) ?? [];
        expect(ids.length, `trip ${trip.id} has neither a reconciliation nor an order as cause: ${trip.reason}`).toBeGreaterThan(0);
        for (const id of ids) {
          const cause = v.all<{ n: number }>(
            `SELECT count(*) AS n FROM order_events e JOIN orders o USING (client_order_id)
              WHERE o.bot_id = ? AND e.client_order_id = ? AND json_extract(e.detail, '$.status') = 'unknown' AND e.at <= ?`,
            bot.botId,
            id,
            trip.at,
          );
          expect(cause[0]!.n, `trip ${trip.id} names ${id}, which was never unknown`).toBeGreaterThan(0);
        }
      }
    }
  }
}

describe("the demo bots under random failure schedules", () => {
  // bybit-v5: the writer reaches each venue through CcxtAdapter as Bybit V5 REST on loopback, the
  // faults coming out on the wire, as in `npm run demo`; fewer runs, each HTTP request costs.
  it.each([
    ["direct", 30, 100, 5],
    ["bybit-v5", 12, 30, 1],
  ] as const)(
    "never double-fill, keep the venue equal to the journal plus what was done by hand, halt on every unknown order, and give every trip a cause (%s link, %i runs)",
    async (venueLink, numRuns, minFaults, minTrips) => {
      let runs = 0;
      let faultsApplied = 0;
      let trips = 0;
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 2 ** 31 - 1 }), scheduleArb, async (seed, schedule) => {
          runs++;
          world = await DemoWorld.open({
            file: migratedJournal("prop"),
            seed,
            start: new Date("2026-08-12T08:00:00.000Z"),
            specs: [coinSpec(ALPHA, seed), coinSpec(BETA, seed)],
            barMs: BAR_MS,
            cycleMs: CYCLE_MS,
            warmupBars: 0,
            migrationsDir,
            synchronous: "NORMAL",
            venueLink,
          });
          const decided: Decided = new Map();
          const onCall = new SimulatedOnCall({ world, rng: seededRng(subSeed(seed, "on-call")), respondAfterMs: [20_000, 90_000] });
          for (let cycle = 0; cycle < FAULTY_CYCLES + HEALING_CYCLES; cycle++) {
            if (cycle === FAULTY_CYCLES) for (const bot of world.bots) world.exchange(bot.botId).clearFaults();
            for (const s of schedule.filter((x) => x.cycle === cycle)) if (applyFault(world, s.botId, s.fault) !== null) faultsApplied++;
            if (cycle > 0) world.advance(CYCLE_MS);
            await world.cycle();
            onCall.tick();
            checkCycle(world, decided);
          }
          view = new JournalView(world.file);
          trips += view.breakerEvents().filter((e) => e.kind === "trip").length;
          checkEnd(world, view);
          world.close();
          view.close();
          world = view = undefined;
        }),
        { numRuns, seed: 20260812, endOnFailure: true },
      );
      // The schedules did reach the bots: faults landed and some of them tripped a breaker.
      expect(runs).toBe(numRuns);
      expect(faultsApplied).toBeGreaterThan(minFaults);
      expect(trips).toBeGreaterThan(minTrips);
    },
  );
});
