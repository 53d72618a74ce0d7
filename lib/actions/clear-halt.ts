import "server-only";
/**
 * Clearing a halt: the one action that lets a bot add risk again. Refused unless the checklist
 * holds and the breaker is exactly as the operator saw it; with the two-person rule, a first
 * operator requests and a different second one approves within the window.
 */
import type Database from "better-sqlite3";
import { z } from "zod";
import { noteField } from "./text-field";
import { BOT_ID_MAX, botIdField } from "../journal/ids";
import { clearChecklist, unmet, type ClearFacts } from "../breaker/clear-checklist";
import { getClearFacts } from "../queries/clear-checklist";
import { expireBotSilences, type ClearedSilences, type SilenceDeps } from "../alerting/silences";
import { Refusal, type ActionSpec, type FollowUpContext } from "./guard";

export interface ClearDeps {
  heartbeatStaleMs: number;
  doubtfulGraceMs: number;
  twoPersonClear: boolean;
  twoPersonWindowMs: number;
  /** Alertmanager is configured: a clear expires the silences made for the bot's acknowledgements. */
  silences?: SilenceDeps | null;
}

/**
 * After a clear committed: the bot's silences end (the halt they were made during is over). Only
 * a clear that happened; `silences` in the data only when there were some.
 */
function endSilences<T extends { cleared: boolean }>(deps: ClearDeps) {
  const silences = deps.silences;
  if (!silences) return undefined;
  return async ({ input, data, now }: FollowUpContext<{ botId: string }, T & { silences?: ClearedSilences }>) => {
    if (!data.cleared) return { data, audit: null };
    const ended = await expireBotSilences(silences, { botId: input.botId, now });
    return ended ? { data: { ...data, silences: ended.outcome }, audit: ended.audit } : { data, audit: null };
  };
}

const botId = botIdField;
const breakerVersion = z.coerce.number({ error: "Missing breaker version" }).int().positive("Missing breaker version");

const clearSchema = z
  .object({
    botId,
    breakerVersion,
    reason: noteField({ field: "reason", ask: "Say why it is safe to resume" }),
    confirmBotId: z.string().trim().max(BOT_ID_MAX, "Type the bot id exactly to confirm"),
  })
  .refine((v) => v.confirmBotId === v.botId, { path: ["confirmBotId"], message: "Type the bot id exactly to confirm" });

/** Everything a clear must find true, inside the transaction. */
function loadAndCheckClearable(db: Database.Database, deps: ClearDeps, input: { botId: string; breakerVersion: number }, now: Date) {
  const facts = getClearFacts({ db, botId: input.botId, now, heartbeatStaleMs: deps.heartbeatStaleMs, doubtfulGraceMs: deps.doubtfulGraceMs });
  return checkClearable(facts, input);
}

/** The checklist and the breaker as the operator saw it, on either engine: the facts come from the engine's statements. */
export function checkClearable(facts: ClearFacts, input: { botId: string; breakerVersion: number }) {
  const items = clearChecklist(facts);
  if (!facts.breaker) throw new Refusal("refused", `No breaker for bot ${input.botId}.`);
  if (facts.breaker.version !== input.breakerVersion) {
    throw new Refusal(
      "conflict",
      `The breaker of ${input.botId} changed since you loaded the page (version ${input.breakerVersion}, now ${facts.breaker.version}). Look again.`,
      [`breaker version ${input.breakerVersion} seen, ${facts.breaker.version} now`],
    );
  }
  if (!facts.breaker.halted) throw new Refusal("refused", `${input.botId} is not halted.`);
  const missing = unmet(items);
  if (missing.length > 0) {
    throw new Refusal(
      "refused",
      `Not yet safe to clear ${input.botId}: ${missing.map((i) => i.label.toLowerCase()).join("; ")}.`,
      missing.map((i) => `${i.label}: ${i.detail}${i.fix ? `. ${i.fix}` : ""}`),
    );
  }
  return facts.breaker;
}

export const clearNotApplied = (input: { botId: string }) => new Refusal("conflict", `The breaker of ${input.botId} changed while clearing. Look again.`);

function clearBreaker(db: Database.Database, input: { botId: string; breakerVersion: number }, reason: string, actor: string, now: Date) {
  const at = now.toISOString();
  const changed = db
    .prepare(
      `UPDATE breakers SET halted = 0, reason = NULL, changed_at = ?, changed_by = ?, version = version + 1 WHERE bot_id = ? AND version = ? AND halted = 1`,
    )
    .run(at, actor, input.botId, input.breakerVersion).changes;
  if (changed !== 1) throw clearNotApplied(input);
  db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, 'clear', ?, ?, NULL)`).run(
    input.botId,
    at,
    reason,
    actor,
  );
}

export type ClearOutcome = { cleared: true; silences?: ClearedSilences } | { cleared: false; requestId: number; expiresAt: string };

export function clearHaltSpec(deps: ClearDeps): ActionSpec<typeof clearSchema, undefined, ClearOutcome> {
  return {
    action: deps.twoPersonClear ? "request_clear_halt" : "clear_halt",
    schema: clearSchema,
    target: (i) => i.botId,
    apply: ({ db, input, actor, now }) => {
      const breaker = loadAndCheckClearable(db, deps, input, now);
      if (!deps.twoPersonClear) {
        clearBreaker(db, input, input.reason, actor, now);
        return clearedResult(input, breaker);
      }
      const pending = db
        .prepare(`SELECT id FROM clear_requests WHERE bot_id = ? AND status = 'pending' AND breaker_version = ? AND expires_at > ?`)
        .pluck()
        .get(input.botId, input.breakerVersion, now.toISOString()) as number | undefined;
      checkNoPendingRequest(input, pending);
      const expiresAt = new Date(now.getTime() + deps.twoPersonWindowMs).toISOString();
      const requestId = Number(
        db
          .prepare(
            `INSERT INTO clear_requests (bot_id, breaker_version, reason, requested_by, requested_at, expires_at, status) VALUES (?, ?, ?, ?, ?, ?, 'pending')`,
          )
          .run(input.botId, input.breakerVersion, input.reason, actor, now.toISOString(), expiresAt).lastInsertRowid,
      );
      return requestedResult(input, requestId, expiresAt);
    },
    followUp: endSilences<ClearOutcome>(deps),
  };
}

type ClearInput = z.infer<typeof clearSchema>;

export const clearedResult = (input: ClearInput, breaker: NonNullable<ClearFacts["breaker"]>) => ({
  data: { cleared: true as const },
  detail: { trippedReason: breaker.reason, trippedAt: breaker.changedAt, reason: input.reason, breakerVersion: input.breakerVersion },
});

export function checkNoPendingRequest(input: ClearInput, pending: number | undefined): void {
  if (pending !== undefined) throw new Refusal("conflict", `A request to clear ${input.botId} is already waiting for approval (#${pending}).`);
}

export const requestedResult = (input: ClearInput, requestId: number, expiresAt: string) => ({
  data: { cleared: false as const, requestId, expiresAt },
  detail: { requestId, reason: input.reason, expiresAt, breakerVersion: input.breakerVersion },
});

const approveSchema = z.object({
  requestId: z.coerce.number({ error: "Missing request" }).int().positive("Missing request"),
  botId,
  breakerVersion,
});

export function approveClearSpec(deps: ClearDeps): ActionSpec<typeof approveSchema, undefined, { cleared: true; silences?: ClearedSilences }> {
  return {
    action: "approve_clear_halt",
    schema: approveSchema,
    target: (i) => i.botId,
    apply: ({ db, input, actor, now }) => {
      const req = checkApprovable(
        input,
        db
          .prepare(
            `SELECT id, bot_id AS botId, breaker_version AS breakerVersion, reason, requested_by AS requestedBy, expires_at AS expiresAt, status FROM clear_requests WHERE id = ?`,
          )
          .get(input.requestId) as ClearRequest | undefined,
        actor,
        now,
      );
      loadAndCheckClearable(db, deps, input, now);
      clearBreaker(db, input, approvedReason(req, actor), actor, now);
      db.prepare(`UPDATE clear_requests SET status = 'approved', decided_by = ?, decided_at = ? WHERE id = ?`).run(actor, now.toISOString(), req.id);
      return approvedResult(req);
    },
    followUp: endSilences<{ cleared: true }>(deps),
  };
}

export interface ClearRequest {
  id: number;
  botId: string;
  breakerVersion: number;
  reason: string;
  requestedBy: string;
  expiresAt: string;
  status: string;
}

/** The request a second operator approves, on either engine: pending, unexpired, someone else's, for the breaker seen. */
export function checkApprovable(input: z.infer<typeof approveSchema>, req: ClearRequest | undefined, actor: string, now: Date): ClearRequest {
  if (!req || req.botId !== input.botId) throw new Refusal("refused", `No request #${input.requestId} to clear ${input.botId}.`);
  if (req.status !== "pending") throw new Refusal("conflict", `Request #${req.id} was already ${req.status}.`);
  if (Date.parse(req.expiresAt) <= now.getTime()) throw new Refusal("refused", `Request #${req.id} expired at ${req.expiresAt}; a new request is needed.`);
  if (req.requestedBy === actor) throw new Refusal("refused", "You requested this clear: a second operator must approve it.");
  if (req.breakerVersion !== input.breakerVersion) throw new Refusal("conflict", "The breaker changed since the request was made. Look again.");
  return req;
}

export const approvedReason = (req: ClearRequest, actor: string) => `${req.reason} (requested by ${req.requestedBy}, approved by ${actor})`;

export const approvedResult = (req: ClearRequest) => ({
  data: { cleared: true as const },
  detail: { requestId: req.id, requestedBy: req.requestedBy, reason: req.reason },
});
