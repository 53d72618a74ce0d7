import "server-only";
/**
 * The operator actions on a PostgreSQL journal. Each is its SQLite spec (lib/actions/*.ts: the
 * audit name, schema, target, slow work and follow-up) with `apply` replaced by these statements;
 * the precondition checks, their messages and what is audited are the same functions on both
 * engines (checkHalt, checkStillDoubtful, checkClearable, …). Only the statements differ:
 * placeholders `$n`, `RETURNING id` for a new row's id, `FOR UPDATE` on the rows a precondition
 * rests on and the bot also writes (lib/actions/pg-guard.ts says why), and ids and symbols ordered
 * `COLLATE "C"` (SQLite's byte order). Times are compared and ordered in the database's collation:
 * the contract's times are fixed-width UTC (digits and separators at fixed places), which a
 * collation ordering digits as digits orders as bytes do (a database made with `--locale=C`, as the
 * tests' is, leaves no doubt); `COLLATE "C"` there would keep the (bot_id, at) index from serving
 * the reads (a bot's last two cycles out of 1.2 million: 115 ms with it, 0.1 ms without, measured
 * on the test server).
 *
 * Reads that the pages make through lib/queries (the clear checklist's facts, a bot's current book
 * line, a pending correction, a drift's latest cycle) are the pages' own, run in the transaction
 * on its connection (`tx.q`, lib/db/reads.ts), with the breaker row locked where a clear rests on it.
 */
import { readClearFacts, readLatestDriftSince } from "../queries/clear-checklist";
import { readPendingCorrection } from "../queries/book-corrections";
import { readCurrentBookLine } from "../queries/book-line";
import {
  ACK_INSERT_SQL,
  ackOfEnded,
  ackOfLine,
  acknowledgedResult,
  acknowledgeDriftSpec,
  acknowledgeEndedDriftSpec,
  checkAcknowledgeable,
  checkEndedBreaker,
  checkEndedLatest,
  checkEndedLine,
  endedAcknowledgedResult,
} from "./acknowledge-drift";
import {
  approveClearSpec,
  approvedReason,
  approvedResult,
  checkApprovable,
  checkClearable,
  checkNoPendingRequest,
  clearedResult,
  clearHaltSpec,
  clearNotApplied,
  requestedResult,
  type ClearDeps,
  type ClearRequest,
} from "./clear-halt";
import {
  checkCorrectable,
  CORRECTION_INSERT_SQL,
  correctBookSpec,
  correctedResult,
  correctionRows,
  correctionValues,
  UNSETTLED_SQL,
  type CorrectionFacts,
} from "./correct-book";
import { checkHalt, haltBotSpec, haltNotApplied, haltResult, handHaltReason, type BreakerNow } from "./halt-bot";
import type { Pool } from "pg";
import type { OrderLookup } from "../exchange/venue-gateway";
import { onPostgres, pgTx, type PgTx } from "./pg-guard";
import { toPgPlaceholders } from "../db/query";
import {
  checkStillDoubtful,
  lookupResolution,
  manualResolution,
  needsMark,
  resolveByLookupSpecWith,
  resolveManuallySpec,
  usableMark,
  type OrderRow,
  type Resolution,
} from "./resolve-order";

const ORDER_COLUMNS = `client_order_id AS "clientOrderId", bot_id AS "botId", symbol, qty, state, filled_qty AS "filledQty", created_at AS "createdAt", updated_at AS "updatedAt", version`;

/** The order, locked: a bot's update of it waits for the action (or the action for the bot's). */
const loadOrderPg = (tx: PgTx, clientOrderId: string) =>
  tx.one<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE client_order_id = $1 FOR UPDATE`, [clientOrderId]);

async function writeResolutionPg(tx: PgTx, order: OrderRow, r: Resolution, now: Date): Promise<void> {
  const at = now.toISOString();
  const { change, event } = r;
  await tx.run(
    `UPDATE orders SET state = $1, filled_qty = $2, avg_price = coalesce($3, avg_price), exchange_order_id = coalesce($4, exchange_order_id),
       last_error = NULL, updated_at = $5, version = version + 1 WHERE client_order_id = $6 AND version = $7`,
    [change.state, change.filledQty, change.avgPrice, change.exchangeOrderId ?? null, at, order.clientOrderId, order.version],
  );
  await tx.run(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES ($1, $2, $3, $4, $5)`, [
    order.clientOrderId,
    at,
    event.kind,
    event.actor,
    JSON.stringify(event.detail),
  ]);
}

/** Settling a doubtful order by asking the exchange: the order is read on `pool` before the transaction, the exchange asked outside it. */
export function resolveByLookupPgSpec(deps: { lookup: OrderLookup | null; graceMs: number; pool: Pool }) {
  const findOrder = async (clientOrderId: string) => {
    const client = await deps.pool.connect();
    try {
      return (await pgTx(client).one<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE client_order_id = $1`, [clientOrderId])) ?? undefined;
    } finally {
      client.release();
    }
  };
  return onPostgres(resolveByLookupSpecWith({ lookup: deps.lookup, graceMs: deps.graceMs, findOrder }), async ({ tx, input, prepared, actor, now }) => {
    const order = checkStillDoubtful(await loadOrderPg(tx, input.clientOrderId), input, now, deps.graceMs);
    const r = lookupResolution(order, input, prepared.answer, actor);
    await writeResolutionPg(tx, order, r, now);
    return r.result;
  });
}

export function resolveManuallyPgSpec(deps: { graceMs: number }) {
  return onPostgres(resolveManuallySpec(deps), async ({ tx, input, actor, now }) => {
    const order = checkStillDoubtful(await loadOrderPg(tx, input.clientOrderId), input, now, deps.graceMs);
    const mark = needsMark(input)
      ? usableMark(
          await tx.one<{ markPrice: number | null; at: string }>(
            `SELECT mark_price AS "markPrice", at FROM latest_positions WHERE bot_id = $1 AND symbol = $2`,
            [order.botId, order.symbol],
          ),
        )
      : undefined;
    const r = manualResolution(order, input, mark, actor, now);
    await writeResolutionPg(tx, order, r, now);
    return r.result;
  });
}

/** The screens' current line (lib/queries/book-line.ts), read inside the action's transaction. */
const getCurrentBookLinePg = (tx: PgTx, botId: string, symbol: string) => readCurrentBookLine({ db: tx.q, botId, symbol });

const ACK_INSERT = `${toPgPlaceholders(ACK_INSERT_SQL)} RETURNING id`;

export function acknowledgeDriftPgSpec(deps: Parameters<typeof acknowledgeDriftSpec>[0]) {
  return onPostgres(acknowledgeDriftSpec(deps), async ({ tx, input, actor, now }) => {
    const line = checkAcknowledgeable(input, await getCurrentBookLinePg(tx, input.botId, input.symbol));
    const expiresAt = new Date(now.getTime() + deps.ackTtlMs).toISOString();
    const row = await tx.one<{ id: number }>(ACK_INSERT, ackOfLine(line, { note: input.note, actor, at: now.toISOString(), expiresAt }));
    return acknowledgedResult(input, line, row!.id, expiresAt);
  });
}

export function acknowledgeEndedDriftPgSpec(deps: { ackTtlMs: number }) {
  return onPostgres(acknowledgeEndedDriftSpec(deps), async ({ tx, input, actor, now }) => {
    const breaker = checkEndedBreaker(
      input,
      await tx.one<{ halted: number; changedAt: string }>(`SELECT halted, changed_at AS "changedAt" FROM breakers WHERE bot_id = $1 FOR SHARE`, [input.botId]),
    );
    const latest = checkEndedLatest(input, await readLatestDriftSince({ q: tx.q, botId: input.botId, symbol: input.symbol, since: breaker.changedAt }));
    const drift = checkEndedLine(input, latest, await getCurrentBookLinePg(tx, input.botId, input.symbol));
    const expiresAt = new Date(now.getTime() + deps.ackTtlMs).toISOString();
    await tx.run(ACK_INSERT, ackOfEnded(input, latest, drift, { note: input.note, actor, at: now.toISOString(), expiresAt }));
    return endedAcknowledgedResult(input, latest, drift, expiresAt);
  });
}

async function clearBreakerPg(tx: PgTx, input: { botId: string; breakerVersion: number }, reason: string, actor: string, now: Date): Promise<void> {
  const at = now.toISOString();
  const changed = await tx.run(
    `UPDATE breakers SET halted = 0, reason = NULL, changed_at = $1, changed_by = $2, version = version + 1 WHERE bot_id = $3 AND version = $4 AND halted = 1`,
    [at, actor, input.botId, input.breakerVersion],
  );
  if (changed !== 1) throw clearNotApplied(input);
  await tx.run(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ($1, $2, 'clear', $3, $4, NULL)`, [
    input.botId,
    at,
    reason,
    actor,
  ]);
}

/** The clear checklist's facts (the page's own read), with the bot's breaker row locked for the transaction. */
const clearFactsOf = (tx: PgTx, deps: ClearDeps, botId: string, now: Date) =>
  readClearFacts(tx.q, { botId, now, heartbeatStaleMs: deps.heartbeatStaleMs, doubtfulGraceMs: deps.doubtfulGraceMs }, { lock: true });

export function clearHaltPgSpec(deps: ClearDeps) {
  return onPostgres(clearHaltSpec(deps), async ({ tx, input, actor, now }) => {
    const breaker = checkClearable(await clearFactsOf(tx, deps, input.botId, now), input);
    if (!deps.twoPersonClear) {
      await clearBreakerPg(tx, input, input.reason, actor, now);
      return clearedResult(input, breaker);
    }
    const pending = await tx.one<{ id: number }>(
      `SELECT id FROM clear_requests WHERE bot_id = $1 AND status = 'pending' AND breaker_version = $2 AND expires_at > $3 ORDER BY id LIMIT 1`,
      [input.botId, input.breakerVersion, now.toISOString()],
    );
    checkNoPendingRequest(input, pending?.id);
    const expiresAt = new Date(now.getTime() + deps.twoPersonWindowMs).toISOString();
    const row = await tx.one<{ id: number }>(
      `INSERT INTO clear_requests (bot_id, breaker_version, reason, requested_by, requested_at, expires_at, status) VALUES ($1, $2, $3, $4, $5, $6, 'pending') RETURNING id`,
      [input.botId, input.breakerVersion, input.reason, actor, now.toISOString(), expiresAt],
    );
    return requestedResult(input, row!.id, expiresAt);
  });
}

export function approveClearPgSpec(deps: ClearDeps) {
  return onPostgres(approveClearSpec(deps), async ({ tx, input, actor, now }) => {
    const req = checkApprovable(
      input,
      await tx.one<ClearRequest>(
        `SELECT id, bot_id AS "botId", breaker_version AS "breakerVersion", reason, requested_by AS "requestedBy", expires_at AS "expiresAt", status
         FROM clear_requests WHERE id = $1 FOR UPDATE`,
        [input.requestId],
      ),
      actor,
      now,
    );
    checkClearable(await clearFactsOf(tx, deps, input.botId, now), input);
    await clearBreakerPg(tx, input, approvedReason(req, actor), actor, now);
    await tx.run(`UPDATE clear_requests SET status = 'approved', decided_by = $1, decided_at = $2 WHERE id = $3`, [actor, now.toISOString(), req.id]);
    return approvedResult(req);
  });
}

export function haltBotPgSpec() {
  return onPostgres(haltBotSpec(), async ({ tx, input, actor, now }) => {
    const exact = (await tx.one(`SELECT 1 AS one FROM bots WHERE bot_id = $1`, [input.botId])) !== undefined;
    const near = exact
      ? undefined
      : (
          await tx.one<{ botId: string }>(`SELECT bot_id AS "botId" FROM bots WHERE lower(bot_id) = lower($1) ORDER BY bot_id COLLATE "C" LIMIT 1`, [
            input.botId,
          ])
        )?.botId;
    const breaker = exact
      ? await tx.one<BreakerNow>(
          `SELECT halted, reason, changed_at AS "changedAt", changed_by AS "changedBy", version FROM breakers WHERE bot_id = $1 FOR UPDATE`,
          [input.botId],
        )
      : undefined;
    checkHalt(input, { exact, near, breaker }, now);
    const at = now.toISOString();
    const reason = handHaltReason(input);
    const changed = await tx.run(
      `UPDATE breakers SET halted = 1, reason = $1, changed_at = $2, changed_by = $3, version = version + 1 WHERE bot_id = $4 AND version = $5 AND halted = 0`,
      [reason, at, actor, input.botId, input.breakerVersion],
    );
    if (changed !== 1) throw haltNotApplied(input);
    await tx.run(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES ($1, $2, 'trip', $3, $4, NULL)`, [
      input.botId,
      at,
      reason,
      actor,
    ]);
    return haltResult(input);
  });
}

export function correctBookPgSpec(deps: { ackTtlMs: number }) {
  return onPostgres(correctBookSpec(deps), async ({ tx, input, actor, now }) => {
    const { botId, symbol } = input;
    const line = await getCurrentBookLinePg(tx, botId, symbol);
    const facts: CorrectionFacts = { line, pending: null, unsettled: undefined, moved: undefined };
    if (line) {
      facts.pending = await readPendingCorrection({ q: tx.q, botId, symbol });
      facts.unsettled = await tx.one<{ id: string; state: string }>(
        `SELECT client_order_id AS id, state FROM orders WHERE bot_id = $1 AND symbol = $2 AND ${UNSETTLED_SQL} ORDER BY created_at, client_order_id COLLATE "C" LIMIT 1`,
        [botId, symbol],
      );
      const cycle = await tx.one<{ at: string }>(`SELECT at FROM reconciliations WHERE id = $1`, [line.reconciliationId]);
      facts.moved =
        cycle === undefined
          ? undefined
          : await tx.one<{ id: string; state: string }>(
              `SELECT client_order_id AS id, state FROM orders WHERE bot_id = $1 AND symbol = $2 AND updated_at > $3 ORDER BY updated_at DESC LIMIT 1`,
              [botId, symbol, cycle.at],
            );
    }
    const current = checkCorrectable(input, facts, now);
    const rows = correctionRows(input, current, now, deps.ackTtlMs);
    const correction = await tx.one<{ id: number }>(`${toPgPlaceholders(CORRECTION_INSERT_SQL)} RETURNING id`, correctionValues(input, current, rows, actor));
    await tx.run(ACK_INSERT, ackOfLine(current, { note: input.note, actor, at: rows.at, expiresAt: rows.expiresAt }));
    return correctedResult(input, current, rows, correction!.id);
  });
}
