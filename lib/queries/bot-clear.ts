import "server-only";
import type { ChecklistItem, UnacknowledgedDrift } from "../breaker/clear-checklist";
import type { JournalDb } from "../db/console";
import { queryOf, type JournalQuery } from "../db/query";
import type { ClearRequestRow } from "../db/schema";
import { getBookCorrections, type BookCorrectionsView } from "./book-corrections";
import { listBots, type BotSummary } from "./bots";
import { getClearChecklist } from "./clear-checklist";

export type ClearRequestView = Pick<ClearRequestRow, "id" | "requestedBy" | "requestedAt" | "expiresAt" | "reason" | "breakerVersion">;

/** A drift since the trip that an operator acknowledged: the latest acknowledgement of its symbol. */
export interface AcknowledgedDrift {
  symbol: string;
  drift: "size_drift" | "unknown_position";
  ours: number;
  theirs: number;
  by: string;
  at: string;
  note: string;
}

/**
 * Acknowledgements that count for the current halt, the latest per symbol: the same rule as the
 * checklist's (made on a cycle since the trip, or recorded since it), over the index on
 * drift_acknowledgements (bot_id, …); bounded, as a halt sees a handful of symbols.
 */
const ACKNOWLEDGED_SINCE_TRIP_SQL = `
  SELECT a.symbol, a.drift, a.ours, a.theirs, a.acknowledged_by AS by, a.acknowledged_at AS at, a.note
  FROM drift_acknowledgements a LEFT JOIN reconciliations ar ON ar.id = a.reconciliation_id
  WHERE a.bot_id = ? AND (ar.at >= ? OR a.acknowledged_at >= ?)
  ORDER BY a.id DESC LIMIT 200`;

/**
 * The bot's latest breaker event, one backward seek on breaker_events (bot_id, at): a trip while the
 * bot is halted is the trip of this halt, its incident's id. A clear there means the halt's own trip
 * was never written (a writer skipped the event), and no incident tells it.
 */
const LATEST_BREAKER_EVENT_SQL = `
  SELECT id, kind FROM breaker_events WHERE bot_id = ? ORDER BY at DESC, id DESC LIMIT 1`;

export interface BotClearView {
  bot: BotSummary;
  /** The bot's doubtful orders now (past the grace), as the overview's card counts them. */
  doubtfulOrders: number;
  /** With several journals, the name of the one that holds the bot. */
  source?: string;
  /** Halted: the id of the trip that began this halt (its incident, /incidents/<id>); else null. */
  haltTripId: number | null;
  items: ChecklistItem[];
  /** Drifts since the trip that nobody acknowledged, for the forms beside the checklist. */
  drifts: UnacknowledgedDrift[];
  /** Drifts since the trip that were acknowledged, by symbol; empty while not halted. */
  acknowledged: AcknowledgedDrift[];
  twoPersonClear: boolean;
  pending: ClearRequestView[];
  /** The symbols that drift now (what a book correction may be made on) and the bot's corrections. */
  book: BookCorrectionsView;
}

/** The bot page: its card, the clear checklist and any clear request waiting for approval; on any engine. */
export async function getBotClearView(params: {
  db: JournalDb | JournalQuery;
  botId: string;
  now: Date;
  heartbeatStaleMs: number;
  reconciliationStaleMs: number;
  doubtfulGraceMs: number;
  twoPersonClear: boolean;
}): Promise<BotClearView | null> {
  const q = queryOf(params.db);
  const bot = (await listBots(params)).find((b) => b.botId === params.botId);
  if (!bot) return null;
  const { items, facts } = await getClearChecklist({ ...params, db: q });
  const pending = await q.all<ClearRequestView>(
    `SELECT id, requested_by AS requestedBy, requested_at AS requestedAt, expires_at AS expiresAt, reason, breaker_version AS breakerVersion
       FROM clear_requests WHERE bot_id = ? AND status = 'pending' AND expires_at > ? ORDER BY id DESC LIMIT 10`,
    [params.botId, params.now.toISOString()],
  );
  const trippedAt = bot.breaker?.halted ? bot.breaker.changedAt : null;
  const latest = trippedAt === null ? undefined : await q.get<{ id: number; kind: string }>(LATEST_BREAKER_EVENT_SQL, [params.botId]);
  const acknowledged = new Map<string, AcknowledgedDrift>();
  if (trippedAt !== null) {
    for (const a of await q.all<AcknowledgedDrift>(ACKNOWLEDGED_SINCE_TRIP_SQL, [params.botId, trippedAt, trippedAt])) {
      if (!acknowledged.has(a.symbol)) acknowledged.set(a.symbol, a);
    }
  }
  return {
    bot,
    doubtfulOrders: facts.doubtfulOrders,
    haltTripId: latest?.kind === "trip" ? Number(latest.id) : null,
    // The heartbeat item's words count seconds: the page words them from `beat` as its age keeps
    // counting (components/bot/clear-halt-panel.tsx), so the view does not change every second.
    items: items.map((i) => (i.beat ? { ...i, detail: "" } : i)),
    drifts: facts.unacknowledgedDrifts,
    acknowledged: [...acknowledged.values()].sort((a, b) => (a.symbol < b.symbol ? -1 : 1)),
    twoPersonClear: params.twoPersonClear,
    pending,
    book: await getBookCorrections({ db: q, botId: params.botId }),
  };
}
