import "server-only";
/** Acknowledging a drift: a person has looked. It lapses on its own; it never silences forever. */
import { z } from "zod";
import { noteField, seenSizeField } from "./text-field";
import { botIdField, symbolField } from "../journal/ids";
import { getCurrentBookLine, type CurrentBookLine } from "../queries/book-line";
import { latestDriftSince } from "../queries/clear-checklist";
import { classifyDrift, driftTolerance } from "../reconcile/diff";
import { silenceAcknowledgement, type SilenceDeps, type SilenceOutcome } from "../alerting/silences";
import { Refusal, type ActionSpec } from "./guard";

const num = seenSizeField;

const schema = z.object({
  botId: botIdField,
  symbol: symbolField,
  /** What the operator saw, so a changed drift is not acknowledged blind. */
  drift: z.enum(["size_drift", "unknown_position"], { error: "Missing drift class" }),
  ours: num("our size"),
  theirs: num("their size"),
  driftSince: z
    .string()
    .max(40)
    .optional()
    .transform((v) => (v ? v : null)),
  note: noteField({ field: "note", ask: "Say what you checked" }),
});

/** `silence`: only with Alertmanager configured, what became of the page's silence. */
export interface Acknowledged {
  expiresAt: string;
  silence?: SilenceOutcome;
}

type AckInput = z.infer<typeof schema>;

/** The precondition of an acknowledgement, on either engine: the line still drifts as the operator saw it. */
export function checkAcknowledgeable(input: AckInput, line: CurrentBookLine | null): CurrentBookLine & { drift: "size_drift" | "unknown_position" } {
  if (!line) throw new Refusal("refused", `No book line for ${input.botId} ${input.symbol} in the journal.`);
  if (line.drift === "none") throw new Refusal("refused", `${input.botId} ${input.symbol} is not drifting any more: nothing to acknowledge.`);
  const changed: string[] = [];
  if (line.drift !== input.drift) changed.push(`class ${input.drift} → ${line.drift}`);
  if (line.driftSince !== input.driftSince) changed.push("a new drift episode started");
  if (Math.abs(line.ours - input.ours) >= driftTolerance(line.qtyStep) || Math.abs(line.theirs - input.theirs) >= driftTolerance(line.qtyStep)) {
    changed.push(`sizes ours ${input.ours} → ${line.ours}, theirs ${input.theirs} → ${line.theirs}`);
  }
  if (changed.length > 0)
    throw new Refusal("conflict", `The drift on ${input.botId} ${input.symbol} changed since you looked. Look again before acknowledging.`, changed);
  return line as CurrentBookLine & { drift: "size_drift" | "unknown_position" };
}

export function acknowledgedResult(input: AckInput, line: CurrentBookLine, acknowledgementId: number, expiresAt: string) {
  return {
    data: { expiresAt },
    detail: {
      acknowledgementId,
      drift: line.drift,
      ours: line.ours,
      theirs: line.theirs,
      reconciliationId: line.reconciliationId,
      note: input.note,
      expiresAt,
    },
  };
}

/** One drift_acknowledgements row, for both engines (the PostgreSQL actions add RETURNING id). */
export const ACK_INSERT_SQL = `INSERT INTO drift_acknowledgements (bot_id, symbol, drift, ours, theirs, reconciliation_id, drift_since, note, acknowledged_by, acknowledged_at, expires_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

interface AckBy {
  note: string;
  actor: string;
  /** When it was acknowledged, ISO. */
  at: string;
  expiresAt: string;
}

/** ACK_INSERT_SQL's values for a drift on the current book line. */
export function ackOfLine(line: CurrentBookLine, by: AckBy) {
  return [line.botId, line.symbol, line.drift, line.ours, line.theirs, line.reconciliationId, line.driftSince, by.note, by.actor, by.at, by.expiresAt];
}

/** ACK_INSERT_SQL's values for a drift that ended: it names its latest cycle, and has no start of its own. */
export function ackOfEnded(input: { botId: string; symbol: string }, latest: DriftCycle, drift: string, by: AckBy) {
  return [input.botId, input.symbol, drift, latest.ours, latest.theirs, latest.id, null, by.note, by.actor, by.at, by.expiresAt];
}

/** `silences`: Alertmanager is configured; after the acknowledgement commits, its page is silenced. */
export function acknowledgeDriftSpec(deps: { ackTtlMs: number; silences?: SilenceDeps | null }): ActionSpec<typeof schema, undefined, Acknowledged> {
  const silences = deps.silences;
  return {
    action: "acknowledge_drift",
    schema,
    target: (i) => `${i.botId}/${i.symbol}`,
    apply: ({ db, input, actor, now }) => {
      const line = checkAcknowledgeable(input, getCurrentBookLine({ db, botId: input.botId, symbol: input.symbol }));
      const expiresAt = new Date(now.getTime() + deps.ackTtlMs).toISOString();
      const { lastInsertRowid } = db.prepare(ACK_INSERT_SQL).run(...ackOfLine(line, { note: input.note, actor, at: now.toISOString(), expiresAt }));
      return acknowledgedResult(input, line, Number(lastInsertRowid), expiresAt);
    },
    followUp: silences
      ? async ({ input, data, detail, user, now }) => {
          const { outcome, audit } = await silenceAcknowledgement(silences, {
            acknowledgementId: detail.acknowledgementId as number,
            botId: input.botId,
            symbol: input.symbol,
            note: input.note,
            expiresAt: data.expiresAt,
            operator: user.name,
            now,
          });
          return { data: { ...data, silence: outcome }, audit };
        }
      : undefined,
  };
}

const endedSchema = z.object({
  botId: botIdField,
  symbol: symbolField,
  /** The latest drifting cycle the operator saw: a newer one means it drifted again. */
  reconciliationId: z.coerce.number({ error: "Missing cycle" }).int().positive("Missing cycle"),
  note: noteField({ field: "note", ask: "Say what you checked" }),
});

/**
 * Acknowledging a drift that came and went while the bot was halted. The overview offers
 * acknowledgement only while a symbol drifts, yet the clear checklist asks that every drift since
 * the trip was looked at: a drift of a few seconds would otherwise block the clear for good.
 */
export function acknowledgeEndedDriftSpec(deps: { ackTtlMs: number }): ActionSpec<typeof endedSchema, undefined, { expiresAt: string }> {
  return {
    action: "acknowledge_drift",
    schema: endedSchema,
    target: (i) => `${i.botId}/${i.symbol}`,
    apply: ({ db, input, actor, now }) => {
      const breaker = checkEndedBreaker(
        input,
        db.prepare(`SELECT halted, changed_at AS changedAt FROM breakers WHERE bot_id = ?`).get(input.botId) as
          { halted: number; changedAt: string } | undefined,
      );
      const latest = checkEndedLatest(input, latestDriftSince({ db, botId: input.botId, symbol: input.symbol, since: breaker.changedAt }));
      const drift = checkEndedLine(input, latest, getCurrentBookLine({ db, botId: input.botId, symbol: input.symbol }));
      const expiresAt = new Date(now.getTime() + deps.ackTtlMs).toISOString();
      db.prepare(ACK_INSERT_SQL).run(...ackOfEnded(input, latest, drift, { note: input.note, actor, at: now.toISOString(), expiresAt }));
      return endedAcknowledgedResult(input, latest, drift, expiresAt);
    },
  };
}

type EndedInput = z.infer<typeof endedSchema>;
/** A symbol's latest drifting cycle since the trip (lib/queries/clear-checklist.ts latestDriftSince). */
export interface DriftCycle {
  id: number;
  at: string;
  ours: number;
  theirs: number;
  qtyStep: number;
}

/** The acknowledgement of an ended drift, in three steps on either engine: the bot is halted… */
export function checkEndedBreaker(input: EndedInput, breaker: { halted: number; changedAt: string } | undefined): { changedAt: string } {
  if (!breaker || breaker.halted !== 1) throw new Refusal("refused", `${input.botId} is not halted: a drift that ended needs no acknowledgement to clear.`);
  return breaker;
}

/** …the symbol drifted since the trip, last in the cycle the operator saw… */
export function checkEndedLatest(input: EndedInput, latest: DriftCycle | undefined): DriftCycle {
  if (!latest) throw new Refusal("refused", `${input.botId} ${input.symbol} has not drifted since the trip: nothing to acknowledge.`);
  if (latest.id !== input.reconciliationId) {
    throw new Refusal("conflict", `${input.botId} ${input.symbol} drifted again since you looked (cycle #${latest.id}). Look again before acknowledging.`, [
      `cycle #${input.reconciliationId} seen, #${latest.id} now`,
    ]);
  }
  return latest;
}

/** …and it drifts no more. Returns the drift class to record. */
export function checkEndedLine(input: EndedInput, latest: DriftCycle, line: CurrentBookLine | null): "size_drift" | "unknown_position" {
  if (line && line.drift !== "none")
    throw new Refusal("refused", `${input.botId} ${input.symbol} is still drifting: acknowledge it on the overview, where its sizes are live.`);
  const drift = classifyDrift(latest);
  if (drift === "none") throw new Refusal("refused", `${input.botId} ${input.symbol} has not drifted since the trip: nothing to acknowledge.`);
  return drift;
}

export function endedAcknowledgedResult(input: EndedInput, latest: DriftCycle, drift: string, expiresAt: string) {
  return {
    data: { expiresAt },
    detail: { ended: true, drift, ours: latest.ours, theirs: latest.theirs, reconciliationId: latest.id, at: latest.at, note: input.note },
  };
}
