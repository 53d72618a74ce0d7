import "server-only";
/**
 * Halt now: an operator trips a bot's breaker by hand, the kill switch every bot console has. It
 * writes exactly what the bot's own trip writes (docs/journal.md, "Reconciling and the breaker"),
 * with the operator as the one who changed it and no reconciliation as its cause, so the bot
 * honours it on its next cycle and it is cleared through the same checklist. No two-person rule:
 * stopping a bot must be fast; letting it trade again is what the clear guards.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { HAND_HALT_PREFIX } from "../breaker/halt-cause";
import { botIdField } from "../journal/ids";
import { formatUtc } from "../text/format";
import { asSentence } from "../text/sentence";
import { Refusal, type ActionSpec } from "./guard";
import { noteField } from "./text-field";

const haltSchema = z.object({
  botId: botIdField,
  reason: noteField({ field: "reason", ask: "Say why you are halting it" }),
  breakerVersion: z.coerce.number({ error: "Missing breaker version" }).int().positive("Missing breaker version"),
});

export interface BreakerNow {
  halted: number;
  reason: string | null;
  changedAt: string;
  changedBy: string;
  version: number;
}

/** What the precondition reads, on either engine: the bot as typed, its nearest name, its breaker. */
export interface HaltFacts {
  exact: boolean;
  /** A bot whose id differs only by case, when the typed one does not exist. */
  near: string | undefined;
  breaker: BreakerNow | undefined;
}

type HaltInput = z.infer<typeof haltSchema>;

/** The precondition of a halt, on either engine: the bot exists, is running, and its breaker is as seen. */
export function checkHalt(input: HaltInput, facts: HaltFacts, now: Date): void {
  if (!facts.exact) {
    const near = facts.near;
    if (near !== undefined) {
      throw new Refusal("refused", `No bot named ${input.botId}: bot ids are exact, and this journal has ${near}. Halt ${near} instead.`, [
        `${input.botId} typed, ${near} exists`,
      ]);
    }
    throw new Refusal("refused", `No bot named ${input.botId} in this journal. Pick the bot from the overview.`);
  }
  const breaker = facts.breaker;
  if (!breaker) {
    throw new Refusal(
      "refused",
      `${input.botId} has no breaker row, so it cannot be halted from here. A bot writes that row when it starts: stop the bot itself.`,
    );
  }
  if (breaker.halted === 1) {
    throw new Refusal(
      "refused",
      `${input.botId} is already halted since ${formatUtc(breaker.changedAt, now)} by ${breaker.changedBy}: nothing to do. Its reason: ${asSentence(breaker.reason ?? "none recorded")}`,
      [],
      { breakerVersion: breaker.version },
    );
  }
  if (breaker.version !== input.breakerVersion) {
    throw new Refusal(
      "conflict",
      `The breaker of ${input.botId} changed since you looked (version ${input.breakerVersion}, now ${breaker.version}): last changed at ${formatUtc(breaker.changedAt, now)} by ${breaker.changedBy}. Look again, then halt it if you still mean to.`,
      [`breaker version ${input.breakerVersion} seen, ${breaker.version} now`, `last changed ${formatUtc(breaker.changedAt, now)} by ${breaker.changedBy}`],
    );
  }
}

/** The trip's reason as the journal keeps it, and what the action returns and audits. */
export const handHaltReason = (input: HaltInput) => `${HAND_HALT_PREFIX}${input.reason}`;
export const haltNotApplied = (input: HaltInput) => new Refusal("conflict", `The breaker of ${input.botId} changed while halting it. Look again.`);
export const haltResult = (input: HaltInput) => ({
  data: { version: input.breakerVersion + 1 },
  detail: { reason: input.reason, breakerVersion: input.breakerVersion },
});

function haltFacts(db: Database.Database, botId: string): HaltFacts {
  const exact = db.prepare(`SELECT 1 FROM bots WHERE bot_id = ?`).pluck().get(botId) !== undefined;
  const near = exact
    ? undefined
    : (db.prepare(`SELECT bot_id FROM bots WHERE lower(bot_id) = lower(?) ORDER BY bot_id LIMIT 1`).pluck().get(botId) as string | undefined);
  const breaker = exact
    ? (db.prepare(`SELECT halted, reason, changed_at AS changedAt, changed_by AS changedBy, version FROM breakers WHERE bot_id = ?`).get(botId) as
        BreakerNow | undefined)
    : undefined;
  return { exact, near, breaker };
}

export function haltBotSpec(): ActionSpec<typeof haltSchema, undefined, { version: number }> {
  return {
    action: "halt_bot",
    schema: haltSchema,
    target: (i) => i.botId,
    apply: ({ db, input, actor, now }) => {
      checkHalt(input, haltFacts(db, input.botId), now);
      const at = now.toISOString();
      const reason = handHaltReason(input);
      const changed = db
        .prepare(
          `UPDATE breakers SET halted = 1, reason = ?, changed_at = ?, changed_by = ?, version = version + 1 WHERE bot_id = ? AND version = ? AND halted = 0`,
        )
        .run(reason, at, actor, input.botId, input.breakerVersion).changes;
      if (changed !== 1) throw haltNotApplied(input);
      db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, 'trip', ?, ?, NULL)`).run(
        input.botId,
        at,
        reason,
        actor,
      );
      return haltResult(input);
    },
  };
}
