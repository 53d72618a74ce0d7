/**
 * A simulated on-call person, for the fast history and the live demo's --on-call: some time after a
 * trip they look, put right what was done by hand, and clear the halt once the bot's books agree
 * and none of its orders is in doubt. Without them a simulated week would be one halt and six days
 * of a bot that only reduces.
 *
 * Only a person clears a halt, never the bot: the clear is the console's write (one BEGIN IMMEDIATE
 * transaction: the breaker row, its `clear` event and the audit entry, as lib/actions/clear-halt.ts
 * writes them), done here on a connection of its own.
 */
import type Database from "better-sqlite3";
import { consoleAuditKey } from "../../lib/audit/key";
import { appendAudit } from "../../lib/audit/log";
import type { Rng } from "./random";
import type { DemoWorld } from "./world";

export interface ClearHalt {
  botId: string;
  /** `operator:<name>`. */
  actor: `operator:${string}`;
  at: string;
  reason: string;
}

/** Clears a bot's halt and records who did it and why. Returns false when the bot was not halted. */
export function clearHalt(db: Database.Database, c: ClearHalt): boolean {
  return db
    .transaction(() => {
      const breaker = db.prepare(`SELECT halted, reason, changed_at AS changedAt, version FROM breakers WHERE bot_id = ?`).get(c.botId) as
        { halted: number; reason: string | null; changedAt: string; version: number } | undefined;
      if (!breaker || breaker.halted !== 1) return false;
      db.prepare(
        `UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = ?, version = version + 1
         WHERE bot_id = ? AND version = ? AND halted = 1`,
      ).run(c.at, c.actor, c.botId, breaker.version);
      db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, 'clear', ?, ?, NULL)`).run(
        c.botId,
        c.at,
        c.reason,
        c.actor,
      );
      appendAudit(
        db,
        {
          at: c.at,
          actor: c.actor,
          action: "clear_halt",
          target: c.botId,
          outcome: "applied",
          detail: { trippedReason: breaker.reason, trippedAt: breaker.changedAt, reason: c.reason, breakerVersion: breaker.version, simulated: true },
        },
        consoleAuditKey(),
      );
      return true;
    })
    .immediate();
}

export interface OnCallOptions {
  world: DemoWorld;
  rng: Rng;
  name?: string;
  /** How long after a trip the person looks, in simulated ms: a range, picked at random. */
  respondAfterMs?: [number, number];
}

export class SimulatedOnCall {
  private readonly world: DemoWorld;
  private readonly db: Database.Database;
  private readonly rng: Rng;
  private readonly actor: `operator:${string}`;
  private readonly respondAfterMs: [number, number];
  /** Per halted bot: when the person will look. */
  private readonly lookAt = new Map<string, number>();

  constructor(opts: OnCallOptions) {
    this.world = opts.world;
    this.db = opts.world.connection();
    this.rng = opts.rng;
    this.actor = `operator:${opts.name ?? "oncall"}`;
    this.respondAfterMs = opts.respondAfterMs ?? [15 * 60_000, 60 * 60_000];
  }

  /** Looks at every bot once; call after each cycle. Returns what the person did. */
  tick(): string[] {
    const done: string[] = [];
    const now = this.world.now().getTime();
    for (const bot of this.world.bots) {
      const breaker = bot.writer.breaker();
      if (!breaker.halted) {
        this.lookAt.delete(bot.botId);
        continue;
      }
      // A halt a person made by hand (the console's Halt now) is theirs to clear, not the simulated on-call's.
      if (this.haltedByHand(bot.botId)) continue;
      const due = this.lookAt.get(bot.botId);
      if (due === undefined) {
        this.lookAt.set(bot.botId, now + this.rng.int(this.respondAfterMs[0], this.respondAfterMs[1]));
        continue;
      }
      if (now < due) continue;
      const fixed = this.putRight(bot.botId);
      done.push(...fixed);
      if (bot.writer.unsettledOrders().some((o) => o.state === "unknown")) continue;
      if (this.lastOutcome(bot.botId) !== "clean") continue;
      const at = this.world.now().toISOString();
      if (clearHalt(this.db, { botId: bot.botId, actor: this.actor, at, reason: `reviewed: ${breaker.reason ?? "halt"}; books agree, nothing in doubt` })) {
        done.push(`${this.actor} cleared ${bot.botId}'s halt`);
      }
    }
    return done;
  }

  /** Buys back (or sells back) what was changed by hand, so the venue matches the bot's book. */
  private putRight(botId: string): string[] {
    const bot = this.world.bot(botId);
    const sim = this.world.exchange(botId);
    const book = bot.writer.book();
    // An order still unsettled on a symbol may be the whole difference: wait for it to settle.
    const unsettled = new Set(bot.writer.unsettledOrders().map((o) => o.symbol));
    const done: string[] = [];
    for (const m of bot.spec.markets) {
      const ours = book.get(m.symbol) ?? 0;
      const theirs = sim.position(m.symbol);
      // Only a size drift is the person's to fix: an unknown position the bot closes itself.
      if (unsettled.has(m.symbol) || Math.abs(ours) < m.qtyStep / 2 || Math.abs(ours - theirs) < m.qtyStep / 2) continue;
      this.world.setPositionBehindBot(botId, m.symbol, ours);
      done.push(`${this.actor} restored ${m.symbol} on ${botId}'s account from ${theirs} to ${ours}`);
    }
    return done;
  }

  private haltedByHand(botId: string): boolean {
    const by = this.db.prepare(`SELECT changed_by FROM breakers WHERE bot_id = ? AND halted = 1`).pluck().get(botId) as string | undefined;
    return by?.startsWith("operator:") ?? false;
  }

  private lastOutcome(botId: string): string | undefined {
    const row = this.db.prepare(`SELECT outcome FROM reconciliations WHERE bot_id = ? ORDER BY at DESC, id DESC LIMIT 1`).get(botId) as
      { outcome: string } | undefined;
    return row?.outcome;
  }
}
