/**
 * The journal schema, contract v1 (docs/journal.md). drizzle-kit generates `drizzle/*.sql` from this
 * file; those SQL files are the contract that bots in any language apply.
 *
 * Names and meanings of the contract's tables and columns are fixed. What this file adds beyond the
 * contract (indexes, CHECK constraints, defaults) is listed in docs/journal.md under "Additions".
 */
import { sql } from "drizzle-orm";
import { check, index, integer, primaryKey, real, sqliteTable, text } from "drizzle-orm/sqlite-core";
import { BREAKER_EVENT_KINDS, ORDER_EVENT_KINDS, ORDER_SIDES, ORDER_STATES, RECONCILIATION_OUTCOMES, SETTLED_STATES } from "../journal/contract";

const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(", "));

export const bots = sqliteTable("bots", {
  botId: text("bot_id").primaryKey(),
  exchange: text("exchange").notNull(),
  clientIdPrefix: text("client_id_prefix").notNull(),
  heartbeatAt: text("heartbeat_at"),
});

export const orders = sqliteTable(
  "orders",
  {
    clientOrderId: text("client_order_id").primaryKey(),
    botId: text("bot_id").notNull(),
    strategy: text("strategy").notNull(),
    symbol: text("symbol").notNull(),
    side: text("side", { enum: ORDER_SIDES }).notNull(),
    qty: real("qty").notNull(),
    bar: text("bar").notNull(),
    state: text("state", { enum: ORDER_STATES }).notNull().default("created"),
    exchangeOrderId: text("exchange_order_id"),
    filledQty: real("filled_qty").notNull().default(0),
    avgPrice: real("avg_price"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: text("created_at").notNull(),
    updatedAt: text("updated_at").notNull(),
    version: integer("version").notNull().default(1),
  },
  (t) => [
    check("orders_side_check", sql`${t.side} in (${inList(ORDER_SIDES)})`),
    check("orders_state_check", sql`${t.state} in (${inList(ORDER_STATES)})`),
    check("orders_qty_check", sql`${t.qty} > 0`),
    check("orders_filled_qty_check", sql`${t.filledQty} >= 0`),
    index("orders_bot_symbol_created_idx").on(t.botId, t.symbol, t.createdAt),
    // Every non-settled order, small whatever the history: the doubtful list and startup recovery
    // read only this.
    index("orders_unsettled_idx")
      .on(t.botId, t.updatedAt)
      .where(sql`${t.state} not in (${inList(SETTLED_STATES)})`),
  ],
);

export const orderEvents = sqliteTable(
  "order_events",
  {
    id: integer("id").primaryKey(),
    clientOrderId: text("client_order_id").notNull(),
    at: text("at").notNull(),
    kind: text("kind", { enum: ORDER_EVENT_KINDS }).notNull(),
    actor: text("actor").notNull(),
    detail: text("detail").notNull().default("{}"),
  },
  (t) => [
    check("order_events_kind_check", sql`${t.kind} in (${inList(ORDER_EVENT_KINDS)})`),
    index("order_events_order_idx").on(t.clientOrderId, t.id),
    index("order_events_at_idx").on(t.at),
  ],
);

export const reconciliations = sqliteTable(
  "reconciliations",
  {
    id: integer("id").primaryKey(),
    botId: text("bot_id").notNull(),
    at: text("at").notNull(),
    outcome: text("outcome", { enum: RECONCILIATION_OUTCOMES }).notNull(),
    ordersInFlight: integer("orders_in_flight").notNull().default(0),
    error: text("error"),
  },
  (t) => [
    check("reconciliations_outcome_check", sql`${t.outcome} in (${inList(RECONCILIATION_OUTCOMES)})`),
    index("reconciliations_bot_at_idx").on(t.botId, t.at),
    index("reconciliations_at_idx").on(t.at),
  ],
);

export const reconciliationPositions = sqliteTable(
  "reconciliation_positions",
  {
    reconciliationId: integer("reconciliation_id").notNull(),
    symbol: text("symbol").notNull(),
    ours: real("ours").notNull(),
    theirs: real("theirs").notNull(),
    qtyStep: real("qty_step").notNull(),
    markPrice: real("mark_price"),
  },
  (t) => [
    primaryKey({ columns: [t.reconciliationId, t.symbol] }),
    check("reconciliation_positions_qty_step_check", sql`${t.qtyStep} > 0`),
    index("reconciliation_positions_symbol_idx").on(t.symbol, t.reconciliationId),
  ],
);

export const breakers = sqliteTable(
  "breakers",
  {
    botId: text("bot_id").primaryKey(),
    halted: integer("halted").notNull().default(0),
    reason: text("reason"),
    changedAt: text("changed_at").notNull(),
    changedBy: text("changed_by").notNull(),
    version: integer("version").notNull().default(1),
  },
  (t) => [check("breakers_halted_check", sql`${t.halted} in (0, 1)`)],
);

export const breakerEvents = sqliteTable(
  "breaker_events",
  {
    id: integer("id").primaryKey(),
    botId: text("bot_id").notNull(),
    at: text("at").notNull(),
    kind: text("kind", { enum: BREAKER_EVENT_KINDS }).notNull(),
    reason: text("reason").notNull(),
    actor: text("actor").notNull(),
    reconciliationId: integer("reconciliation_id"),
  },
  (t) => [
    check("breaker_events_kind_check", sql`${t.kind} in (${inList(BREAKER_EVENT_KINDS)})`),
    index("breaker_events_bot_at_idx").on(t.botId, t.at),
    index("breaker_events_at_idx").on(t.at),
  ],
);

/**
 * Addition to contract v1: the latest book line per bot and symbol, maintained by a trigger on
 * reconciliation_positions (see drizzle/0001_*.sql) in the same transaction as each snapshot, so
 * the overview costs O(symbols) however long the history, and bots in any language keep it right
 * without knowing it exists. Read it together with the bot's latest compared reconciliation: a
 * symbol missing from that cycle was flat on both sides.
 */
export const latestPositions = sqliteTable(
  "latest_positions",
  {
    botId: text("bot_id").notNull(),
    symbol: text("symbol").notNull(),
    reconciliationId: integer("reconciliation_id").notNull(),
    at: text("at").notNull(),
    ours: real("ours").notNull(),
    theirs: real("theirs").notNull(),
    qtyStep: real("qty_step").notNull(),
    markPrice: real("mark_price"),
    drift: text("drift", { enum: ["none", "size_drift", "unknown_position"] }).notNull(),
    /** `at` of the first cycle of the current, unbroken drift; null when not drifting. */
    driftSince: text("drift_since"),
  },
  (t) => [primaryKey({ columns: [t.botId, t.symbol] }), check("latest_positions_drift_check", sql`${t.drift} in ('none', 'size_drift', 'unknown_position')`)],
);

/**
 * Five-minute summaries of each bot's book against the exchange's, per symbol, kept by a trigger on
 * reconciliation_positions in the same transaction as each snapshot (migration 0003). A long chart
 * reads one row per five minutes instead of every cycle: the first and last line of the bucket and
 * the line at each extreme (lowest and highest of ours and of theirs, widest gap), the same seven
 * the chart's downsampler keeps, plus the drifting cycles. `bucket` is the UTC start of the five
 * minutes, in the journal's time format.
 */
export const positionRollups = sqliteTable(
  "position_rollups",
  {
    botId: text("bot_id").notNull(),
    symbol: text("symbol").notNull(),
    bucket: text("bucket").notNull(),
    /** Compared cycles in the bucket that carried this symbol's line. */
    cycles: integer("cycles").notNull(),
    qtyStep: real("qty_step").notNull(),
    firstAt: text("first_at").notNull(),
    firstOurs: real("first_ours").notNull(),
    firstTheirs: real("first_theirs").notNull(),
    lastAt: text("last_at").notNull(),
    lastOurs: real("last_ours").notNull(),
    lastTheirs: real("last_theirs").notNull(),
    minOursAt: text("min_ours_at").notNull(),
    minOurs: real("min_ours").notNull(),
    minOursTheirs: real("min_ours_theirs").notNull(),
    maxOursAt: text("max_ours_at").notNull(),
    maxOurs: real("max_ours").notNull(),
    maxOursTheirs: real("max_ours_theirs").notNull(),
    minTheirsAt: text("min_theirs_at").notNull(),
    minTheirsOurs: real("min_theirs_ours").notNull(),
    minTheirs: real("min_theirs").notNull(),
    maxTheirsAt: text("max_theirs_at").notNull(),
    maxTheirsOurs: real("max_theirs_ours").notNull(),
    maxTheirs: real("max_theirs").notNull(),
    wideAt: text("wide_at").notNull(),
    wideOurs: real("wide_ours").notNull(),
    wideTheirs: real("wide_theirs").notNull(),
    /** Cycles in drift, and among them unknown positions. */
    driftCycles: integer("drift_cycles").notNull(),
    unknownCycles: integer("unknown_cycles").notNull(),
    firstDriftAt: text("first_drift_at"),
    lastDriftAt: text("last_drift_at"),
  },
  (t) => [primaryKey({ columns: [t.botId, t.symbol, t.bucket] })],
);

/** Compared cycles per bot and five minutes: a symbol's rollup is complete when it counts as many. */
export const cycleRollups = sqliteTable(
  "cycle_rollups",
  {
    botId: text("bot_id").notNull(),
    bucket: text("bucket").notNull(),
    cycles: integer("cycles").notNull(),
  },
  (t) => [primaryKey({ columns: [t.botId, t.bucket] })],
);

// --- Operator tables: written by the console alone (docs/journal.md) ---------------------------

/**
 * An operator's acknowledgement of one drift. It never silences anything forever: it lapses at
 * expires_at, and earlier when the drift changes class, grows, or a new drift episode starts
 * (all judged at read time against latest_positions, so nothing has to remember to end it).
 */
export const driftAcknowledgements = sqliteTable(
  "drift_acknowledgements",
  {
    id: integer("id").primaryKey(),
    botId: text("bot_id").notNull(),
    symbol: text("symbol").notNull(),
    /** What the operator saw: the class, both sizes, and the cycle it came from. */
    drift: text("drift", { enum: ["size_drift", "unknown_position"] }).notNull(),
    ours: real("ours").notNull(),
    theirs: real("theirs").notNull(),
    reconciliationId: integer("reconciliation_id").notNull(),
    driftSince: text("drift_since"),
    note: text("note").notNull(),
    acknowledgedBy: text("acknowledged_by").notNull(),
    acknowledgedAt: text("acknowledged_at").notNull(),
    expiresAt: text("expires_at").notNull(),
  },
  (t) => [
    check("drift_acknowledgements_drift_check", sql`${t.drift} in ('size_drift', 'unknown_position')`),
    index("drift_acknowledgements_bot_symbol_idx").on(t.botId, t.symbol, t.id),
  ],
);

/**
 * A correction of the bot's book for one symbol, written by an operator (never by a bot): the bot
 * adds `delta` to its book for that symbol from its next cycle on. `adopt_exchange`: the exchange's
 * position is the truth (`delta = theirs - ours`); `flattened_on_venue`: the operator closed the
 * position on the venue by hand (`delta = -ours`). Append-only (triggers), like the audit log: an
 * edited correction would silently move the bot's book.
 */
export const bookCorrections = sqliteTable(
  "book_corrections",
  {
    id: integer("id").primaryKey(),
    botId: text("bot_id").notNull(),
    symbol: text("symbol").notNull(),
    kind: text("kind", { enum: ["adopt_exchange", "flattened_on_venue"] }).notNull(),
    /** What the operator saw: both sizes, and the cycle they came from. */
    ours: real("ours").notNull(),
    theirs: real("theirs").notNull(),
    reconciliationId: integer("reconciliation_id").notNull(),
    /** Added to the bot's book for the symbol from now on. */
    delta: real("delta").notNull(),
    note: text("note").notNull(),
    correctedBy: text("corrected_by").notNull(),
    correctedAt: text("corrected_at").notNull(),
  },
  (t) => [
    check("book_corrections_kind_check", sql`${t.kind} in ('adopt_exchange', 'flattened_on_venue')`),
    index("book_corrections_bot_symbol_idx").on(t.botId, t.symbol, t.id),
  ],
);

/** A request to clear a halt under the two-person rule, waiting for a second operator. */
export const clearRequests = sqliteTable(
  "clear_requests",
  {
    id: integer("id").primaryKey(),
    botId: text("bot_id").notNull(),
    /** The breaker version the requester saw; an approval is refused if it moved. */
    breakerVersion: integer("breaker_version").notNull(),
    reason: text("reason").notNull(),
    requestedBy: text("requested_by").notNull(),
    requestedAt: text("requested_at").notNull(),
    expiresAt: text("expires_at").notNull(),
    status: text("status", { enum: ["pending", "approved", "withdrawn"] })
      .notNull()
      .default("pending"),
    decidedBy: text("decided_by"),
    decidedAt: text("decided_at"),
  },
  (t) => [check("clear_requests_status_check", sql`${t.status} in ('pending', 'approved', 'withdrawn')`), index("clear_requests_bot_idx").on(t.botId, t.id)],
);

/**
 * Every operator action, applied or refused. Append-only (triggers refuse UPDATE and DELETE) and
 * chained: each row's hash covers its content and the previous row's hash, so an edit anywhere
 * breaks every hash after it (npm run audit -- verify names the first broken entry).
 */
export const auditLog = sqliteTable(
  "audit_log",
  {
    id: integer("id").primaryKey(),
    at: text("at").notNull(),
    /** `operator:<name>`, or `anonymous` for a request without a valid session. */
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    /** What it acted on: an order id, `bot/symbol`, a bot id. */
    target: text("target").notNull(),
    outcome: text("outcome", { enum: ["applied", "refused"] }).notNull(),
    /** For a refusal: unauthorized, invalid, refused, conflict or internal. */
    code: text("code"),
    /** JSON: the reasons, the input as received (bounded), and what changed. */
    detail: text("detail").notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
  },
  (t) => [
    check("audit_log_outcome_check", sql`${t.outcome} in ('applied', 'refused')`),
    index("audit_log_at_idx").on(t.at),
    index("audit_log_actor_idx").on(t.actor, t.id),
    index("audit_log_action_idx").on(t.action, t.id),
  ],
);

/**
 * One run of `npm run journal -- prune` (migration 0005): the per-cycle rows (reconciliations and
 * reconciliation_positions) of compared history before `horizon` may be gone, except around
 * incidents. Written by the prune alone, never by a bot. The row is written before the first delete
 * and counted up in every batch, so a run that was killed still says what it removed; `cursor` is
 * the last reconciliation id it looked at, where a rerun resumes.
 */
export const journalPrunes = sqliteTable(
  "journal_prunes",
  {
    id: integer("id").primaryKey(),
    startedAt: text("started_at").notNull(),
    /** Null while it runs, or when it was stopped before the end (a rerun resumes it). */
    finishedAt: text("finished_at"),
    /** Per-cycle rows older than this may be gone (a five-minute boundary, so rollups cover it exactly). */
    horizon: text("horizon").notNull(),
    keepMs: integer("keep_ms").notNull(),
    /** Kept around every incident: from this long before its trip to this long after its clear. */
    incidentMarginMs: integer("incident_margin_ms").notNull(),
    cursor: integer("cursor").notNull().default(0),
    cyclesDeleted: integer("cycles_deleted").notNull().default(0),
    positionsDeleted: integer("positions_deleted").notNull().default(0),
    /** Who ran it: `cli:<user>` by hand, `timer:<user>` from the systemd timer. */
    actor: text("actor").notNull(),
    /**
     * Migration 0006, each null when that kind is kept for good. Incident windows ending before
     * `incident_horizon` lost their per-cycle rows too; settled orders (and their events) last
     * updated before `order_horizon` are gone; before `rollup_horizon` (an hour boundary) the
     * five-minute rollups were folded into one row per hour, keyed by the hour's start.
     */
    incidentHorizon: text("incident_horizon"),
    orderHorizon: text("order_horizon"),
    rollupHorizon: text("rollup_horizon"),
    ordersDeleted: integer("orders_deleted").notNull().default(0),
    rollupsFolded: integer("rollups_folded").notNull().default(0),
  },
  (t) => [index("journal_prunes_horizon_idx").on(t.horizon)],
);

export type BotRow = typeof bots.$inferSelect;
export type OrderRow = typeof orders.$inferSelect;
export type OrderEventRow = typeof orderEvents.$inferSelect;
export type ReconciliationRow = typeof reconciliations.$inferSelect;
export type ReconciliationPositionRow = typeof reconciliationPositions.$inferSelect;
export type BreakerRow = typeof breakers.$inferSelect;
export type BreakerEventRow = typeof breakerEvents.$inferSelect;
export type LatestPositionRow = typeof latestPositions.$inferSelect;
export type PositionRollupRow = typeof positionRollups.$inferSelect;
export type DriftAcknowledgementRow = typeof driftAcknowledgements.$inferSelect;
export type BookCorrectionRow = typeof bookCorrections.$inferSelect;
export type ClearRequestRow = typeof clearRequests.$inferSelect;
export type AuditRow = typeof auditLog.$inferSelect;
export type JournalPruneRow = typeof journalPrunes.$inferSelect;
