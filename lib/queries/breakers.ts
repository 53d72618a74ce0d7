import "server-only";
import type { CauseOrderSettled } from "../breaker/halt-cause";
import { getCauseInSyncSince, getCauseOrdersSettled } from "./halt-cause";
import type { SourceHealth } from "./fleet";
import type { JournalDb } from "../db/console";
import { jsonObjectSql } from "../db/dialect";
import { queryOf, type Dialect, type JournalQuery } from "../db/query";
import type { BreakerEventRow } from "../db/schema";
import type { IncidentDrift } from "../incidents/events";
import { incidentHref, incidentStoryHref, incidentWindowAround, type IncidentWindow } from "../url-state/incidents";
import { readDriftsByReconciliation } from "./drifts";
import { listBots, type BotSummary } from "./bots";

/** Events per bot and page: the board costs O(bots x page), however long the history. */
export const BREAKER_PAGE_SIZE = 20;

export interface BreakerState {
  halted: boolean;
  reason: string | null;
  changedAt: string;
  changedBy: string;
  version: number;
  /** Halted, and how its cause went, as the bot card says it (lib/queries/halt-cause.ts); null otherwise. */
  causeInSyncSince: string | null;
  causeOrdersSettled: CauseOrderSettled[] | null;
}

export interface BreakerCause {
  reconciliationId: number;
  /** Null when the cycle is not in the journal (a writer recorded an id it never wrote). */
  at: string | null;
  outcome: string | null;
  drifts: IncidentDrift[];
  /** The cycle on the incident review. */
  href: string;
}

export interface BreakerTripView {
  kind: "trip";
  id: number;
  at: string;
  reason: string;
  actor: string;
  cause: BreakerCause | null;
  /**
   * halted: no clear since, and the breaker is still halted. cleared: a clear event ended it.
   * unrecorded: no clear event, yet the breaker is no longer halted (a writer skipped the event).
   */
  status: "halted" | "cleared" | "unrecorded";
  clearedAt: string | null;
  clearedBy: string | null;
  /** Trip to clear; to now while halted; null when the end was not recorded. */
  durationMs: number | null;
  /**
   * The incident this trip began: `storyHref` its story (/incidents/<id>), where a reviewer starts;
   * `href` the window around it minute by minute, at the trip.
   */
  incident: IncidentWindow & { href: string; storyHref: string };
}

export interface BreakerClearView {
  kind: "clear";
  id: number;
  at: string;
  reason: string;
  actor: string;
  /** The trip this clear ended; null when none is recorded before it. */
  tripAt: string | null;
  /** That trip's id, which is its incident's number, and the incident's story. */
  tripId: number | null;
  storyHref: string | null;
  durationMs: number | null;
}

export type BreakerEventView = BreakerTripView | BreakerClearView;

export interface BreakerBotView {
  botId: string;
  breaker: BreakerState | null;
  /**
   * Whether anything vouches for the bot now (botStatus, as its card says it): "stale" or
   * "unknown" when its heartbeat or cycles are stale or its times cannot be trusted, with the
   * reasons; null when the bot is well (halted or not). The breaker row is what the bot last wrote:
   * a bot that stopped, or that tripped and could not write it, still reads "not halted".
   */
  vouch: { now: "stale" | "unknown"; alarms: string[] } | null;
  /** Newest first. */
  events: BreakerEventView[];
  /** Cursor of the next, older page; null when these are the oldest. */
  olderBefore: number | null;
}

export interface BreakerBoard {
  readAt: string;
  bots: BreakerBotView[];
  pageSize: number;
  /** The page starts below this event id (one bot's older events); null for the newest. */
  before: number | null;
  /** Each journal's state, when the console reads several (lib/queries/fleet.ts). */
  sources?: SourceHealth[];
}

type EventRow = Pick<BreakerEventRow, "id" | "at" | "kind" | "reason" | "actor" | "reconciliationId"> & {
  nextClear: string | null;
  /** A clear's trip, as JSON `{ at, id }`: the bot's last trip before it. */
  prevTrip: string | null;
};

/**
 * Per bot, its breaker now and its trips and clears, newest first, one page each. Every read is an
 * index seek on breaker_events (bot_id, at): the page, then for each trip the first clear after it
 * and for each clear the trip before it.
 */
const pageSql = (dialect: Dialect, paged: boolean, pageSize: number) => `
  SELECT b.id, b.at, b.kind, b.reason, b.actor, b.reconciliation_id AS reconciliationId,
    CASE WHEN b.kind = 'trip' THEN (
      SELECT ${jsonObjectSql(dialect, [
        ["at", "c.at"],
        ["actor", "c.actor"],
      ])} FROM breaker_events c
      WHERE c.bot_id = b.bot_id AND c.kind = 'clear' AND (c.at, c.id) > (b.at, b.id)
      ORDER BY c.at, c.id LIMIT 1) END AS nextClear,
    CASE WHEN b.kind = 'clear' THEN (
      SELECT ${jsonObjectSql(dialect, [
        ["at", "t.at"],
        ["id", "t.id"],
      ])} FROM breaker_events t
      WHERE t.bot_id = b.bot_id AND t.kind = 'trip' AND (t.at, t.id) < (b.at, b.id)
      ORDER BY t.at DESC, t.id DESC LIMIT 1) END AS prevTrip
  FROM breaker_events b
  WHERE b.bot_id = ?
    ${paged ? "AND (b.at, b.id) < (SELECT at, id FROM breaker_events WHERE id = ?)" : ""}
  ORDER BY b.at DESC, b.id DESC
  LIMIT ${pageSize + 1}`;

const botsSql = (oneBot: boolean) => `WITH ids AS (SELECT bot_id FROM bots UNION SELECT bot_id FROM breakers)
  SELECT ids.bot_id AS botId, br.halted, br.reason, br.changed_at AS changedAt, br.changed_by AS changedBy, br.version
  FROM ids LEFT JOIN breakers br ON br.bot_id = ids.bot_id
  ${oneBot ? "WHERE ids.bot_id = ?" : ""}
  ORDER BY ids.bot_id`;

/** What a bot with a breaker row and no row in `bots` is: nothing of it was ever heard. */
export const NO_BOTS_ROW = "no row in bots, so no heartbeat: nothing says whether it runs";

export async function getBreakerBoard(params: {
  db: JournalDb | JournalQuery;
  now: Date;
  /** The staleness limits the bot cards use (lib/env.ts), for each bot's `vouch`. */
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  bot?: string | null;
  before?: number | null;
  pageSize?: number;
}): Promise<BreakerBoard> {
  const { now } = params;
  const q = queryOf(params.db);
  // Each bot as its card judges it (O(bots), one seek each), for what vouches for it now.
  const summaries = new Map(
    (await listBots({ db: q, now, heartbeatStaleMs: params.heartbeatStaleMs, reconciliationStaleMs: params.reconciliationStaleMs })).map((b) => [b.botId, b]),
  );
  const pageSize = params.pageSize ?? BREAKER_PAGE_SIZE;
  const before = params.before ?? null;
  const bot = params.bot ?? null;

  const bots = await q.all<{
    botId: string;
    halted: number | null;
    reason: string | null;
    changedAt: string | null;
    changedBy: string | null;
    version: number | null;
  }>(botsSql(bot !== null), bot === null ? [] : [bot]);

  const eventsSql = pageSql(q.dialect, before !== null, pageSize);
  const pages = await Promise.all(
    bots.map(async (b) => {
      const rows = await q.all<EventRow>(eventsSql, before === null ? [b.botId] : [b.botId, before]);
      return { bot: b, rows: rows.slice(0, pageSize), more: rows.length > pageSize };
    }),
  );

  const causeIds = pages.flatMap((p) => p.rows.filter((r) => r.kind === "trip" && r.reconciliationId !== null).map((r) => r.reconciliationId!));
  const cycles = new Map<number, { at: string; outcome: string }>();
  for (let i = 0; i < causeIds.length; i += 500) {
    const batch = causeIds.slice(i, i + 500);
    for (const c of await q.all<{ id: number; at: string; outcome: string }>(
      `SELECT id, at, outcome FROM reconciliations WHERE id IN (${batch.map(() => "?").join(", ")})`,
      batch,
    ))
      cycles.set(c.id, c);
  }
  const drifts = await readDriftsByReconciliation({ db: q, reconciliationIds: causeIds });
  // A halted bot's cause, gone or not, as every screen that shows the cause says it: its card's
  // read has it; a bot with a breaker row and no row in bots has no card, so it is read here.
  const gone = new Map(
    await Promise.all(
      bots
        .filter((b) => b.halted === 1)
        .map(async (b) => {
          const card = summaries.get(b.botId)?.breaker;
          return [
            b.botId,
            card?.halted
              ? { inSyncSince: card.causeInSyncSince, ordersSettled: card.causeOrdersSettled }
              : { inSyncSince: await getCauseInSyncSince({ db: q, botId: b.botId }), ordersSettled: await getCauseOrdersSettled({ db: q, botId: b.botId }) },
          ] as const;
        }),
    ),
  );

  return {
    readAt: now.toISOString(),
    pageSize,
    before,
    bots: pages.map(({ bot: b, rows, more }) => {
      const breaker: BreakerState | null =
        b.halted === null || b.changedAt === null || b.changedBy === null || b.version === null
          ? null
          : {
              halted: b.halted === 1,
              reason: b.reason,
              changedAt: b.changedAt,
              changedBy: b.changedBy,
              version: b.version,
              causeInSyncSince: gone.get(b.botId)?.inSyncSince ?? null,
              causeOrdersSettled: gone.get(b.botId)?.ordersSettled ?? null,
            };
      const events = rows.map((r): BreakerEventView => {
        if (r.kind === "clear") {
          const trip = r.prevTrip === null ? null : (JSON.parse(r.prevTrip) as { at: string; id: number });
          const since = trip === null ? NaN : Date.parse(trip.at);
          return {
            kind: "clear",
            id: r.id,
            at: r.at,
            reason: r.reason,
            actor: r.actor,
            tripAt: trip?.at ?? null,
            tripId: trip?.id ?? null,
            storyHref: trip === null ? null : incidentStoryHref(trip.id),
            durationMs: Number.isNaN(since) ? null : Date.parse(r.at) - since,
          };
        }
        return tripView({ row: r, breaker, now, botId: b.botId, cycle: r.reconciliationId === null ? undefined : cycles.get(r.reconciliationId), drifts });
      });
      const last = rows.at(-1);
      return { botId: b.botId, breaker, vouch: vouchOf(summaries.get(b.botId)), events, olderBefore: more && last ? last.id : null };
    }),
  };
}

/** A bot's `vouch` from its card's read; a bot without a row in `bots` was never heard. */
function vouchOf(bot: BotSummary | undefined): BreakerBotView["vouch"] {
  if (bot === undefined) return { now: "unknown", alarms: [NO_BOTS_ROW] };
  const now = bot.status === "halted" ? bot.haltedAlso : bot.status === "stale" || bot.status === "unknown" ? bot.status : null;
  return now === null ? null : { now, alarms: bot.alarms };
}

function tripView(p: {
  row: EventRow;
  breaker: BreakerState | null;
  now: Date;
  botId: string;
  cycle: { at: string; outcome: string } | undefined;
  drifts: Map<number, IncidentDrift[]>;
}): BreakerTripView {
  const { row, breaker, now } = p;
  const clear = row.nextClear === null ? null : (JSON.parse(row.nextClear) as { at: string; actor: string });
  const status = clear !== null ? "cleared" : breaker?.halted === false ? "unrecorded" : "halted";
  const start = Date.parse(row.at);
  const durationMs = clear !== null ? Date.parse(clear.at) - start : status === "halted" ? now.getTime() - start : null;
  // A halt that ended without its event is reviewed up to when the breaker row last changed.
  const endAt = clear?.at ?? (status === "unrecorded" && breaker && breaker.changedAt > row.at ? breaker.changedAt : status === "unrecorded" ? row.at : null);
  const window = incidentWindowAround({ tripAt: row.at, endAt, now });
  const filters = { bot: p.botId };
  const cause: BreakerCause | null =
    row.reconciliationId === null
      ? null
      : {
          reconciliationId: row.reconciliationId,
          at: p.cycle?.at ?? null,
          outcome: p.cycle?.outcome ?? null,
          drifts: p.drifts.get(row.reconciliationId) ?? [],
          href: incidentHref(window, filters, `reconciliation-${row.reconciliationId}`),
        };
  return {
    kind: "trip",
    id: row.id,
    at: row.at,
    reason: row.reason,
    actor: row.actor,
    cause,
    status,
    clearedAt: clear?.at ?? null,
    clearedBy: clear?.actor ?? null,
    durationMs,
    incident: { ...window, href: incidentHref(window, filters, `breaker-${row.id}`), storyHref: incidentStoryHref(row.id) },
  };
}
