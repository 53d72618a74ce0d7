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
import { Refusal, type ActionSpec } from "./guard";
import { noteField } from "./text-field";

const haltSchema = z.object({
  botId: botIdField,
  reason: noteField({ field: "reason", ask: "Say why you are halting it" }),
  breakerVersion: z.coerce.number({ error: "Missing breaker version" }).int().positive("Missing breaker version"),
});

interface BreakerNow {
  halted: number;
  reason: string | null;
  changedAt: string;
  changedBy: string;
  version: number;
}

/** The bot as typed, or a refusal that says which id exists when only the case differs. */
function findBot(db: Database.Database, botId: string): void {
  const exact = db.prepare(`SELECT 1 FROM bots WHERE bot_id = ?`).pluck().get(botId);
  if (exact !== undefined) return;
  const near = db.prepare(`SELECT bot_id FROM bots WHERE lower(bot_id) = lower(?) ORDER BY bot_id LIMIT 1`).pluck().get(botId) as string | undefined;
  if (near !== undefined) {
    throw new Refusal("refused", `No bot named ${botId}: bot ids are exact, and this journal has ${near}. Halt ${near} instead.`, [
      `${botId} typed, ${near} exists`,
    ]);
  }
  throw new Refusal("refused", `No bot named ${botId} in this journal. Pick the bot from the overview.`);
}

export function haltBotSpec(): ActionSpec<typeof haltSchema, undefined, { version: number }> {
  return {
    action: "halt_bot",
    schema: haltSchema,
    target: (i) => i.botId,
    apply: ({ db, input, actor, now }) => {
      findBot(db, input.botId);
      const breaker = db
        .prepare(`SELECT halted, reason, changed_at AS changedAt, changed_by AS changedBy, version FROM breakers WHERE bot_id = ?`)
        .get(input.botId) as BreakerNow | undefined;
      if (!breaker) {
        throw new Refusal(
          "refused",
          `${input.botId} has no breaker row, so it cannot be halted from here. A bot writes that row when it starts: stop the bot itself.`,
        );
      }
      if (breaker.halted === 1) {
        throw new Refusal(
          "refused",
          `${input.botId} is already halted since ${formatUtc(breaker.changedAt, now)} by ${breaker.changedBy}: nothing to do. Its reason: ${breaker.reason ?? "none recorded"}.`,
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
      const at = now.toISOString();
      const reason = `${HAND_HALT_PREFIX}${input.reason}`;
      const changed = db
        .prepare(
          `UPDATE breakers SET halted = 1, reason = ?, changed_at = ?, changed_by = ?, version = version + 1 WHERE bot_id = ? AND version = ? AND halted = 0`,
        )
        .run(reason, at, actor, input.botId, input.breakerVersion).changes;
      if (changed !== 1) throw new Refusal("conflict", `The breaker of ${input.botId} changed while halting it. Look again.`);
      db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, 'trip', ?, ?, NULL)`).run(
        input.botId,
        at,
        reason,
        actor,
      );
      return { data: { version: input.breakerVersion + 1 }, detail: { reason: input.reason, breakerVersion: input.breakerVersion } };
    },
  };
}
