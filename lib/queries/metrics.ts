import "server-only";
/**
 * What GET /api/metrics exposes, as plain numbers: the overview's own reads (bot status from
 * lib/breaker/bot-status.ts, drift and acknowledgement coverage from lib/reconcile, doubtful orders
 * from lib/journal/order-state.ts) reshaped for Prometheus, so an alert and the screen it links to
 * can never disagree. No operator names and no account data: only bot ids, symbols and counts.
 */
import { RECONCILIATION_OUTCOMES } from "../journal/contract";
import { countAuditActions, getAuditHead } from "./audit";
import { getOverview } from "./overview";
import { anyEngine, type QueryContext } from "./read";

type ReconciliationOutcome = (typeof RECONCILIATION_OUTCOMES)[number];
export type DriftingClass = "size_drift" | "unknown_position";

export interface BotMetrics {
  botId: string;
  halted: boolean;
  /** Unix seconds of the breaker's last change, while halted; else null. */
  haltedSince: number | null;
  /** +Inf when there is no readable heartbeat: nothing vouches for the bot, so a staleness alert fires. */
  heartbeatAgeSeconds: number;
  /** +Inf when there is no readable reconciliation yet. */
  reconciliationAgeSeconds: number;
  /** Since the last cycle that compared the books (clean or drift); +Inf when none has. */
  comparedAgeSeconds: number;
  lastOutcome: ReconciliationOutcome | null;
  doubtfulOrders: number;
  /** Since the oldest doubtful order was written (as the doubtful list counts it); 0 when none. */
  oldestDoubtfulAgeSeconds: number;
  driftingSymbols: Record<DriftingClass, number>;
  /** The largest |difference| at its mark price among drifting symbols with a mark; 0 when none. */
  largestDriftNotional: number;
  unacknowledgedDrifts: number;
  acknowledgementsInForce: number;
}

export interface MetricsView {
  bots: BotMetrics[];
  /** Only the symbols that drift now. */
  drifts: { botId: string; symbol: string; drift: DriftingClass; acknowledged: boolean }[];
  audit: { entries: number; hash: string };
  actions: { action: string; outcome: string; count: number }[];
}

const seconds = (ms: number | null) => (ms === null ? Infinity : ms / 1000);

/** Engine-neutral (lib/queries/read.ts anyEngine): a PostgreSQL source's bots page as a SQLite source's do. */
export const getMetrics = anyEngine(async ({ q, config, now }: QueryContext): Promise<MetricsView> => {
  const overview = await getOverview({
    db: q,
    now,
    heartbeatStaleMs: config.heartbeatStaleMs,
    reconciliationStaleMs: config.reconciliationStaleMs,
    doubtfulGraceMs: config.doubtfulGraceMs,
  });
  const drifting = overview.lines.flatMap((l) => (l.drift === "none" ? [] : [{ ...l, drift: l.drift }]));
  const bots = overview.bots.map((b): BotMetrics => {
    const mine = drifting.filter((l) => l.botId === b.botId);
    const outcome = b.lastReconciliation?.outcome;
    const halted = b.breaker?.halted === true;
    const oldest = b.oldestDoubtfulAt === null ? NaN : Date.parse(b.oldestDoubtfulAt);
    return {
      botId: b.botId,
      halted,
      haltedSince: halted && b.breaker ? Date.parse(b.breaker.changedAt) / 1000 : null,
      heartbeatAgeSeconds: seconds(b.heartbeatAgeMs),
      reconciliationAgeSeconds: seconds(b.lastReconciliation?.ageMs ?? null),
      comparedAgeSeconds: seconds(b.lastCompared?.ageMs ?? null),
      lastOutcome: RECONCILIATION_OUTCOMES.find((o) => o === outcome) ?? null,
      doubtfulOrders: b.doubtfulOrders,
      oldestDoubtfulAgeSeconds: Number.isNaN(oldest) ? 0 : Math.max(0, (now.getTime() - oldest) / 1000),
      driftingSymbols: {
        size_drift: mine.filter((l) => l.drift === "size_drift").length,
        unknown_position: mine.filter((l) => l.drift === "unknown_position").length,
      },
      largestDriftNotional: Math.max(0, ...mine.map((l) => l.driftNotional ?? 0)),
      unacknowledgedDrifts: mine.filter((l) => l.ack === null).length,
      acknowledgementsInForce: mine.filter((l) => l.ack !== null).length,
    };
  });
  const [head, actions] = await Promise.all([getAuditHead({ db: q }), countAuditActions({ db: q })]);
  return {
    bots,
    drifts: drifting.map((l) => ({ botId: l.botId, symbol: l.symbol, drift: l.drift, acknowledged: l.ack !== null })),
    audit: { entries: head.entries, hash: head.hash },
    actions,
  };
});
