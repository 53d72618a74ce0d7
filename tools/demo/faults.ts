/**
 * What can go wrong, as plain data: the failures of the seeds (lost replies, late orders, partial
 * fills, refusals, failing lookups, rate limits) and the changes made behind a bot's back. The
 * scenarios, the live demo, the fast history and the property test all describe their incidents
 * with these, and apply them with applyFault.
 */
import { floorToStep, roundToStep } from "./markets";
import type { Rng } from "./random";
import type { DemoWorld } from "./world";

export type DemoFault =
  /**
   * The exchange took the next order (filled, or `fillRatio` of it, the rest `completeAfterMs`
   * later, 20 s by default) and the reply was lost. With `lookupsFailForMs`, the bot's own lookups
   * of that order fail for so long after (its link, not the venue: the venue gateway answers).
   */
  | { kind: "lost_reply"; fillRatio: number; completeAfterMs?: number; lookupsFailForMs?: number; symbol?: string }
  /** The next send timed out and never reached the exchange. */
  | { kind: "never_arrived"; symbol?: string }
  /** The next send times out and the order reaches the exchange `delayMs` later. */
  | { kind: "late_arrival"; delayMs: number; symbol?: string }
  /** The next order fills `fillRatio` at once and the rest `completeAfterMs` later. */
  | { kind: "partial_fill"; fillRatio: number; completeAfterMs: number; symbol?: string }
  | { kind: "reject"; reason?: string; symbol?: string }
  | { kind: "rate_limit"; symbol?: string }
  /**
   * The bot's next `times` lookups fail (Infinity: until someone clears the faults): its link to
   * the venue, not the venue, so the venue gateway still answers the console meanwhile.
   */
  | { kind: "lookups_fail"; times: number; symbol?: string }
  /** The next `times` position reads fail. */
  | { kind: "positions_unreadable"; times: number }
  /** Someone closes `fraction` of the bot's largest position by hand (or of `symbol`'s). */
  | { kind: "manual_partial_close"; fraction: number; symbol?: string }
  /** Someone opens `units` of a normal entry on a market where the bot holds nothing. */
  | { kind: "foreign_position"; units: number; side: "buy" | "sell"; symbol?: string };

/** Faults a healthy bot rides out without a trip (at most a skipped reconciliation). */
export const BENIGN_KINDS = ["lost_reply", "never_arrived", "late_arrival", "partial_fill", "reject", "rate_limit", "positions_unreadable"] as const;
/** Faults that end in a trip: a person has to look. */
export const INCIDENT_KINDS = ["lost_reply_unknown", "manual_partial_close", "foreign_position"] as const;

/**
 * Applies a fault to a bot's venue. Order faults wait for the bot's next matching call; changes
 * behind its back happen now. Returns what was done, or null when it did not apply (nothing to
 * close by hand, no flat market left to open a foreign position on).
 */
export function applyFault(world: DemoWorld, botId: string, fault: DemoFault): string | null {
  const sim = world.exchange(botId);
  const bot = world.bot(botId);
  const only = fault.kind !== "positions_unreadable" && fault.symbol ? { symbol: fault.symbol } : {};
  const on = fault.kind !== "positions_unreadable" && fault.symbol ? ` on ${fault.symbol}` : "";
  switch (fault.kind) {
    case "lost_reply":
      sim.inject({
        on: "create",
        ...only,
        fault: "timeout_after_accept",
        fillRatio: fault.fillRatio,
        // A remainder that never fills would keep every reconciliation skipped.
        completeAfterMs: fault.fillRatio < 1 ? (fault.completeAfterMs ?? 20_000) : undefined,
        lookupsFailForMs: fault.lookupsFailForMs,
      });
      return `next order${on}: accepted, reply lost${
        fault.lookupsFailForMs === undefined ? "" : `; the bot cannot look it up for ${fault.lookupsFailForMs / 1000} s (the venue gateway can)`
      }`;
    case "never_arrived":
      sim.inject({ on: "create", ...only, fault: "timeout_not_received" });
      return `next order${on}: times out, never reaches the exchange`;
    case "late_arrival":
      sim.inject({ on: "create", ...only, fault: "delayed_appearance", delayMs: fault.delayMs });
      return `next order${on}: times out, reaches the exchange ${fault.delayMs} ms later`;
    case "partial_fill":
      sim.inject({ on: "create", ...only, fault: "partial_fill", fillRatio: fault.fillRatio, completeAfterMs: fault.completeAfterMs });
      return `next order${on}: ${Math.round(fault.fillRatio * 100)} % filled, the rest ${fault.completeAfterMs} ms later`;
    case "reject":
      sim.inject({ on: "create", ...only, fault: "reject", reason: fault.reason ?? "insufficient margin" });
      return `next order${on}: rejected`;
    case "rate_limit":
      sim.inject({ on: "create", ...only, fault: "rate_limit" });
      return `next order${on}: rate limited`;
    case "lookups_fail":
      sim.inject({ on: "find", ...only, fault: "lookup_fail", times: fault.times });
      return `the bot's next ${fault.times === Infinity ? "" : `${fault.times} `}lookups${on} fail (the venue gateway still answers)`;
    case "positions_unreadable":
      sim.inject({ on: "positions", fault: "fetch_fail", times: fault.times });
      return `the next ${fault.times} position reads fail`;
    case "manual_partial_close": {
      const held = bot.spec.markets
        .filter((m) => !fault.symbol || m.symbol === fault.symbol)
        .map((m) => ({ m, size: sim.position(m.symbol) }))
        .filter((x) => x.size !== 0)
        .sort((a, b) => Math.abs(b.size) * sim.price(b.m.symbol) - Math.abs(a.size) * sim.price(a.m.symbol))[0];
      if (!held) return null;
      const after = roundToStep(held.size * (1 - fault.fraction), held.m.qtyStep);
      if (after === held.size) return null;
      world.setPositionBehindBot(botId, held.m.symbol, after);
      return `someone closed ${roundToStep(Math.abs(held.size - after), held.m.qtyStep)} of ${held.size} ${held.m.symbol} by hand`;
    }
    case "foreign_position": {
      const busy = new Set(bot.writer.unsettledOrders().map((o) => o.symbol));
      const book = bot.writer.book();
      const flat = bot.spec.markets.find(
        (m) =>
          (!fault.symbol || m.symbol === fault.symbol) &&
          sim.position(m.symbol) === 0 &&
          Math.abs(book.get(m.symbol) ?? 0) < m.qtyStep / 2 &&
          !busy.has(m.symbol),
      );
      if (!flat) return null;
      const size = floorToStep((fault.units * flat.notional) / sim.price(flat.symbol), flat.qtyStep);
      if (!(size > 0)) return null;
      world.setPositionBehindBot(botId, flat.symbol, fault.side === "buy" ? size : -size);
      return `someone opened ${fault.side === "buy" ? "+" : "-"}${size} ${flat.symbol} on the account by hand`;
    }
  }
}

/** One fault a healthy bot should ride out. */
export function randomBenignFault(rng: Rng): DemoFault {
  switch (rng.pick(BENIGN_KINDS)) {
    case "lost_reply":
      return { kind: "lost_reply", fillRatio: rng.chance(0.8) ? 1 : 0.5 };
    case "never_arrived":
      return { kind: "never_arrived" };
    case "late_arrival":
      return { kind: "late_arrival", delayMs: rng.pick([300, 700, 5_000, 30_000]) };
    case "partial_fill":
      return { kind: "partial_fill", fillRatio: rng.pick([0.2, 0.5, 0.75]), completeAfterMs: rng.pick([5_000, 20_000, 90_000]) };
    case "reject":
      return { kind: "reject" };
    case "rate_limit":
      return { kind: "rate_limit" };
    case "positions_unreadable":
      return { kind: "positions_unreadable", times: rng.int(1, 2) };
  }
}

/** One incident that trips a breaker, as a list of faults applied together. */
export function randomIncident(rng: Rng): DemoFault[] {
  switch (rng.pick(INCIDENT_KINDS)) {
    case "lost_reply_unknown":
      // The reply is lost and the lookups fail long enough for the order to be declared unknown;
      // a later lookup settles it.
      return [
        { kind: "lost_reply", fillRatio: 1 },
        { kind: "lookups_fail", times: rng.int(3, 8) },
      ];
    case "manual_partial_close":
      return [{ kind: "manual_partial_close", fraction: rng.pick([0.25, 0.4, 0.5]) }];
    case "foreign_position":
      return [{ kind: "foreign_position", units: rng.pick([0.5, 1, 2]), side: rng.chance(0.5) ? "buy" : "sell" }];
  }
}
