// No "server-only": the prune command (scripts/journal.ts) runs it with tsx, outside Next, where that import throws.
/**
 * Pruning a journal while its bot keeps writing (`npm run journal -- prune`). The rules of what is
 * kept are lib/journal/retention.ts; this is how the rows go without ever making the bot wait.
 *
 * - Everything that decides which rows go is read first, outside any write lock (a WAL reader never
 *   blocks the bot).
 * - The rows go in small batches by reconciliation id, each its own BEGIN IMMEDIATE transaction sized
 *   so that it holds the write lock for about `lockTargetMs` (measured, and the next batch resized),
 *   with a pause between batches in which the bot's writes, waiting on their busy timeout, get in.
 *   What made the bot's tail, measured by scripts/bench/prune-probe.ts (docs/performance.md,
 *   "Pruning"), and what each default answers:
 *   - a bot that finds the lock taken sleeps in SQLite's busy handler 1, 2, 5, 10 … ms, so a 4 ms
 *     hold cost it 8 ms and a hold's tail (a preempted batch) 20–30 ms: batches of about 0.5 ms, and
 *     the prune holds the lock at most 5 % of the time (after a batch of L ms it pauses 19 L), so
 *     few writes meet it and those wait one or two short sleeps;
 *   - a PASSIVE checkpoint after every batch, outside the lock, so the bot's auto-checkpoint never
 *     finds a WAL full of the prune's pages to copy;
 *   - what was left was CPU: a prune at the same priority as the bot, woken or preempted on the
 *     same two cores, held the lock while the bot waited (lock-wait p99 6.7–9.4 ms against 1.1–1.6
 *     at nice 19, docs/performance.md "fourth pass"). The CLI runs at nice 19 (`--nice`). Its own
 *     fdatasync of the WAL after each batch (`syncWal`, the third pass's answer to the bot's commit
 *     flushing the prune's pages) is off by default since: at nice 19 the two probe runs gave the
 *     bot ×0.97 and ×1.02 of idle without it, ×1.18 and ×1.52 with it.
 * - The run is recorded in journal_prunes before the first delete, and every batch moves its cursor
 *   and counts in the same transaction as its deletes: killed at any moment, the journal is
 *   consistent (a cycle goes with its positions or not at all) and a rerun resumes at the cursor.
 * - Then, with the second horizons (issue 19's fourth pass), the same pacing for two more kinds of
 *   rows: settled orders with their events (their fills carried into one order per bot, symbol,
 *   strategy and side, so every bot's book stays the same), and five-minute rollups folded into
 *   hourly ones. Each batch is whole orders or whole hours, so a killed run leaves neither half done.
 * - Nothing else is touched: no DELETE trigger exists on the per-cycle tables, so latest_positions,
 *   the breaker and the operator tables stay exactly as they were.
 *
 * Freed pages go on SQLite's freelist and the bot's next inserts reuse them, so a journal pruned
 * regularly stops growing at the size of its horizon; `vacuumInto` writes a compact copy for archives.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import {
  HOURLY_MS,
  INCIDENT_MARGIN_MS,
  inSpans,
  keptIncidentSpans,
  mergeSpans,
  pruneHorizon,
  floorToRollup,
  rollupHorizon,
  type BreakerEventLite,
  type Span,
} from "../journal/retention";
import { orderIdsInReason } from "../incidents/story";

export interface PruneOptions {
  /** A write connection (openJournalWriter): WAL, busy timeout set. */
  db: Database.Database;
  keepMs: number;
  /** Incident windows keep their per-cycle rows this long after they end; null or absent: for good. */
  keepIncidentsMs?: number | null;
  /** Settled orders and their events are kept this long after their last update; null or absent: for good. */
  keepOrdersMs?: number | null;
  /** Five-minute rollups are kept this long, then folded into hourly ones; null or absent: never folded. */
  keepRollupsMs?: number | null;
  now?: Date;
  /** `cli:<user>` or `timer:<user>`: recorded with the run. */
  actor: string;
  dryRun?: boolean;
  /** Hold the write lock for about this long per batch. */
  lockTargetMs?: number;
  /** Pause between batches at least this long, so waiting writers get in. */
  pauseMs?: number;
  /** The most of the time the prune holds the write lock: after a batch that held it L ms, it pauses L × (1 / share − 1). */
  lockShare?: number;
  /** Run a PASSIVE checkpoint after every this many batches (outside the lock). */
  checkpointEvery?: number;
  /** fdatasync the WAL after each batch, outside the lock, so the bot's next commit does not flush the prune's pages (default off). */
  syncWal?: boolean;
  /** Stops the run after the current batch (PruneStoppedError); the journal_prunes row stays open and a rerun resumes it. */
  signal?: AbortSignal;
  /** Called about every `progressEveryMs` (default 10 s) between batches. */
  onProgress?: (p: PruneProgress) => void;
  progressEveryMs?: number;
  /** Called after each batch (progress; tests stop here to be killed). */
  onBatch?: (b: { batch: number; phase: "cycles" | "orders" | "rollups"; cycles: number; positions: number; lockMs: number }) => void;
}

export interface PruneProgress {
  phase: "cycles" | "orders" | "rollups";
  /** Units looked at in this phase (reconciliations, settled orders, hours of rollups) of `total`. */
  done: number;
  total: number;
  /** Per second, over this phase so far. */
  rate: number;
  /** At that rate; null until there is one. */
  etaMs: number | null;
  /** Where the cycles phase is: the journal_prunes cursor. */
  cursor: number;
}

/** Stopped by `signal` between batches: everything up to `cursor` is done and recorded; a rerun resumes. */
export class PruneStoppedError extends Error {
  override name = "PruneStoppedError";
  constructor(
    readonly phase: PruneProgress["phase"],
    readonly cursor: number,
  ) {
    super(
      phase === "cycles"
        ? `stopped at reconciliation ${cursor}; run the same command again to resume`
        : `stopped while ${phase === "orders" ? "pruning settled orders" : "folding rollups"} (the reconciliations are done, up to ${cursor}); run the same command again to resume`,
    );
  }
}

/** The pace for a journal nobody writes meanwhile (a copy, an archive, a test): 20 ms batches, no pauses, no extra syncs. */
export const NO_BOT_PACE = { lockTargetMs: 20, pauseMs: 0, lockShare: 1, syncWal: false, checkpointEvery: 25 } satisfies Partial<PruneOptions>;

export interface PruneReport {
  pruneId: number | null;
  horizon: string;
  /** A run that had been stopped was continued. */
  resumed: boolean;
  dryRun: boolean;
  /** Per-cycle rows removed (or, with dryRun, that would be). */
  cycles: number;
  positions: number;
  /** Cycles older than the horizon that stay: inside incident windows, or referenced by a kept row. */
  keptCycles: number;
  incidents: number;
  /** Incident windows ended before the incident horizon: their cycles went like any others. */
  incidentsPruned: number;
  /** Incident windows (an hour either side of a trip and its clear, merged where they touch) whose cycles stay. */
  incidentWindowsKept: number;
  incidentHorizon: string | null;
  /** Settled orders removed with their events (or, with dryRun, that would be). */
  orders: number;
  orderEvents: number;
  /** Settled orders older than the order horizon that stay: named by the audit log, a breaker event or an operator event, or inside a kept incident. */
  keptOrders: number;
  orderHorizon: string | null;
  /** Five-minute rollup rows folded away (each hour's rows became one; or, with dryRun, would). */
  rollupsFolded: number;
  rollupHorizon: string | null;
  /** A dry run only: the prune running on this journal meanwhile (its figures are a moving target), or null. */
  running?: OpenPrune | null;
  batches: number;
  lockMsMax: number;
  lockMsP99: number;
  elapsedMs: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Plan {
  horizon: number;
  spans: Map<string, Span[]>;
  incidents: number;
  /** Incident windows (merged) that ended before the incident horizon. */
  incidentsPruned: number;
  /** Incident windows (merged) still inside the incident horizon: their cycles stay. */
  incidentWindowsKept: number;
  /** Cycles that stay whatever their age: referenced by a kept row, or a bot's latest. */
  pinned: Set<number>;
  /** The last reconciliation id older than the horizon: nothing after it is looked at. */
  endId: number;
}

/** Everything the deletes depend on, read without a write lock. */
function plan(db: Database.Database, keepMs: number, now: number, incidentHorizon: number | null): Plan {
  const horizon = pruneHorizon(now, keepMs);
  const horizonIso = new Date(horizon).toISOString();
  const events = db.prepare(`SELECT bot_id AS botId, at, kind FROM breaker_events ORDER BY bot_id, at, id`).all() as (BreakerEventLite & { botId: string })[];
  const byBot = new Map<string, BreakerEventLite[]>();
  for (const e of events) {
    let list = byBot.get(e.botId);
    if (!list) byBot.set(e.botId, (list = []));
    list.push(e);
  }
  const spans = new Map<string, Span[]>();
  let incidents = 0;
  let incidentsPruned = 0;
  let incidentWindowsKept = 0;
  for (const [bot, list] of byBot) {
    incidents += list.filter((e) => e.kind === "trip").length;
    const all = keptIncidentSpans(list, null);
    const kept = keptIncidentSpans(list, incidentHorizon);
    incidentsPruned += all.length - kept.length;
    incidentWindowsKept += kept.length;
    spans.set(bot, kept);
  }
  // A drift still going on is kept from its start (with the margin), incident or not.
  const ongoing = db
    .prepare(`SELECT bot_id AS botId, min(drift_since) AS since FROM latest_positions WHERE drift <> 'none' AND drift_since IS NOT NULL GROUP BY bot_id`)
    .all() as { botId: string; since: string }[];
  for (const o of ongoing) {
    spans.set(o.botId, mergeSpans([...(spans.get(o.botId) ?? []), { from: floorToRollup(Date.parse(o.since) - INCIDENT_MARGIN_MS), to: Infinity }]));
  }
  const pinned = new Set<number>(
    db
      .prepare(
        `SELECT reconciliation_id FROM breaker_events WHERE reconciliation_id IS NOT NULL
         UNION SELECT reconciliation_id FROM book_corrections
         UNION SELECT reconciliation_id FROM drift_acknowledgements
         UNION SELECT reconciliation_id FROM latest_positions
         UNION SELECT max(id) FROM reconciliations GROUP BY bot_id
         UNION SELECT max(id) FROM reconciliations WHERE outcome IN ('clean', 'drift') GROUP BY bot_id`,
      )
      .pluck()
      .all() as number[],
  );
  const endId = (db.prepare(`SELECT max(id) FROM reconciliations WHERE at < ?`).pluck().get(horizonIso) as number | null) ?? 0;
  return { horizon, spans, incidents, incidentsPruned, incidentWindowsKept, pinned, endId };
}

const doomed = (p: Plan, r: { id: number; botId: string; at: string }) => {
  const t = Date.parse(r.at);
  // A time that does not parse is no proof of age: keep the row.
  return Number.isFinite(t) && t < p.horizon && !p.pinned.has(r.id) && !inSpans(t, p.spans.get(r.botId) ?? []);
};

/**
 * Prunes `opts.db` to its horizon; refuses with PruneBusyError, changing nothing, while another
 * prune runs on the same journal (a dry run reads only and needs no lock).
 */
export async function pruneJournal(opts: PruneOptions): Promise<PruneReport> {
  if (opts.dryRun) return { ...(await pruneLocked(opts)), running: runningPrune(opts.db) };
  const release = acquirePruneLock(opts.db);
  try {
    return await pruneLocked(opts);
  } finally {
    release();
  }
}

async function pruneLocked(opts: PruneOptions): Promise<PruneReport> {
  const { db } = opts;
  const started = Date.now();
  const now = (opts.now ?? new Date()).getTime();
  const lockTargetMs = opts.lockTargetMs ?? 0.5;
  const pauseMs = opts.pauseMs ?? 2;
  // In WAL, NORMAL keeps the file consistent through a crash; a batch lost to a power cut is simply
  // redone by the next run. It spares each batch an fsync while it holds the lock.
  db.pragma("synchronous = NORMAL");
  const incidentHorizon = opts.keepIncidentsMs == null ? null : pruneHorizon(now, opts.keepIncidentsMs);
  // On a five-minute boundary like the cycle and incident horizons, so every horizon reads alike.
  const orderHorizon = opts.keepOrdersMs == null ? null : pruneHorizon(now, opts.keepOrdersMs);
  const foldHorizon = opts.keepRollupsMs == null ? null : rollupHorizon(now, opts.keepRollupsMs);
  const isoOrNull = (t: number | null) => (t === null ? null : new Date(t).toISOString());
  const p = plan(db, opts.keepMs, now, incidentHorizon);
  const horizonIso = new Date(p.horizon).toISOString();
  const report: PruneReport = {
    pruneId: null,
    horizon: horizonIso,
    resumed: false,
    dryRun: Boolean(opts.dryRun),
    cycles: 0,
    positions: 0,
    keptCycles: 0,
    incidents: p.incidents,
    incidentsPruned: p.incidentsPruned,
    incidentWindowsKept: p.incidentWindowsKept,
    incidentHorizon: isoOrNull(incidentHorizon),
    orders: 0,
    orderEvents: 0,
    keptOrders: 0,
    orderHorizon: isoOrNull(orderHorizon),
    rollupsFolded: 0,
    rollupHorizon: isoOrNull(foldHorizon),
    batches: 0,
    lockMsMax: 0,
    lockMsP99: 0,
    elapsedMs: 0,
  };
  const page = db.prepare(`SELECT id, bot_id AS botId, at FROM reconciliations WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`);
  const orders = orderPlan(db, p, orderHorizon);
  // Where the last finished prune's folding stopped: older hours are hourly already.
  const foldFrom = (db.prepare(`SELECT max(rollup_horizon) FROM journal_prunes WHERE finished_at IS NOT NULL`).pluck().get() as string | null) ?? "";
  const fold = foldHorizon === null ? null : foldPlan(db, foldFrom, new Date(foldHorizon).toISOString());

  if (opts.dryRun) {
    const count = db.prepare(`SELECT count(*) FROM reconciliation_positions WHERE reconciliation_id = ?`).pluck();
    let cursor = 0;
    for (;;) {
      const rows = page.all(cursor, p.endId, 5000) as { id: number; botId: string; at: string }[];
      if (rows.length === 0) break;
      for (const r of rows) {
        if (doomed(p, r)) {
          report.cycles += 1;
          report.positions += count.get(r.id) as number;
        } else if (Date.parse(r.at) < p.horizon) report.keptCycles += 1;
      }
      cursor = rows[rows.length - 1]!.id;
    }
    for (let cursor = 0; ;) {
      const batch = orders.next(cursor, 5000);
      if (batch.scanned === 0) break;
      cursor = batch.cursor;
      report.orders += batch.ids.length;
      report.keptOrders += batch.kept;
      for (const id of batch.ids) report.orderEvents += orders.eventCount(id);
    }
    for (const unit of fold ?? []) report.rollupsFolded += unit.hours.reduce((n, h) => n + h.rows - 1, 0);
    report.elapsedMs = Date.now() - started;
    return report;
  }

  // Claim the run: continue one that was stopped, else record a new one, before anything goes. A
  // resumed run records the later of each horizon: what the stopped run may already have removed.
  const later = (a: string | null, b: string | null) => (a === null ? b : b === null ? a : a > b ? a : b);
  const claim = db.transaction(() => {
    const open = db
      .prepare(
        `SELECT id, cursor, horizon, incident_horizon AS incidentHorizon, order_horizon AS orderHorizon, rollup_horizon AS rollupHorizon
         FROM journal_prunes WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1`,
      )
      .get() as
      { id: number; cursor: number; horizon: string; incidentHorizon: string | null; orderHorizon: string | null; rollupHorizon: string | null } | undefined;
    if (open) {
      const horizon = open.horizon > horizonIso ? open.horizon : horizonIso;
      db.prepare(`UPDATE journal_prunes SET horizon = ?, keep_ms = ?, actor = ?, incident_horizon = ?, order_horizon = ?, rollup_horizon = ? WHERE id = ?`).run(
        horizon,
        opts.keepMs,
        opts.actor,
        later(open.incidentHorizon, report.incidentHorizon),
        later(open.orderHorizon, report.orderHorizon),
        later(open.rollupHorizon, report.rollupHorizon),
        open.id,
      );
      return { id: open.id, cursor: open.cursor, resumed: true };
    }
    const id = Number(
      db
        .prepare(
          `INSERT INTO journal_prunes (started_at, horizon, keep_ms, incident_margin_ms, actor, incident_horizon, order_horizon, rollup_horizon)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(
          new Date(now).toISOString(),
          horizonIso,
          opts.keepMs,
          INCIDENT_MARGIN_MS,
          opts.actor,
          report.incidentHorizon,
          report.orderHorizon,
          report.rollupHorizon,
        ).lastInsertRowid,
    );
    return { id, cursor: 0, resumed: false };
  });
  const run = claim.immediate();
  report.pruneId = run.id;
  report.resumed = run.resumed;

  const delPositions = db.prepare(`DELETE FROM reconciliation_positions WHERE reconciliation_id = ?`);
  const delCycle = db.prepare(`DELETE FROM reconciliations WHERE id = ?`);
  const advance = db.prepare(
    `UPDATE journal_prunes SET cursor = ?, cycles_deleted = cycles_deleted + ?, positions_deleted = positions_deleted + ? WHERE id = ?`,
  );
  const begin = db.prepare("BEGIN IMMEDIATE");
  const commit = db.prepare("COMMIT");
  /** One batch in its own write transaction: the time waited for the lock (the bot's commit) apart from the time held. */
  const tx = <T>(work: () => T): { value: T; waitMs: number; lockMs: number } => {
    const t0 = process.hrtime.bigint();
    begin.run();
    const t1 = process.hrtime.bigint();
    let value: T;
    try {
      value = work();
      commit.run();
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
    return { value, waitMs: Number(t1 - t0) / 1e6, lockMs: Number(process.hrtime.bigint() - t1) / 1e6 };
  };
  const batchTx = (ids: number[], lastId: number) =>
    tx(() => {
      let positions = 0;
      for (const id of ids) {
        positions += delPositions.run(id).changes;
        delCycle.run(id);
      }
      advance.run(lastId, ids.length, positions, run.id);
      return positions;
    });

  // Every page a batch's deletes touch, read before the lock: the table and its three indexes. A
  // page read from disk inside the transaction would keep the bot waiting on the disk.
  const warm = {
    cycle: db.prepare(`SELECT * FROM reconciliations WHERE id = ?`),
    cycleByBot: db.prepare(`SELECT id FROM reconciliations INDEXED BY reconciliations_bot_at_idx WHERE bot_id = ? AND at = ?`),
    cycleByAt: db.prepare(`SELECT id FROM reconciliations INDEXED BY reconciliations_at_idx WHERE at = ?`),
    lines: db.prepare(`SELECT * FROM reconciliation_positions WHERE reconciliation_id = ?`),
    lineBySymbol: db.prepare(
      `SELECT 1 FROM reconciliation_positions INDEXED BY reconciliation_positions_symbol_idx WHERE symbol = ? AND reconciliation_id = ?`,
    ),
  };
  const prefetch = (rows: { id: number; botId: string; at: string }[]) => {
    for (const r of rows) {
      warm.cycle.get(r.id);
      warm.cycleByBot.get(r.botId, r.at);
      warm.cycleByAt.get(r.at);
      for (const l of warm.lines.all(r.id) as { symbol: string }[]) warm.lineBySymbol.get(l.symbol, r.id);
    }
  };
  // Pages the deletes dirty are copied back to the file by a checkpoint; run here, outside the lock
  // (PASSIVE never blocks a writer), it spares the bot's own commits from doing that copying.
  const checkpointEvery = opts.checkpointEvery ?? 1;
  const lockShare = opts.lockShare ?? 0.05;
  // Only a WAL journal has a -wal to flush (a copy made by VACUUM INTO, say, is in rollback mode).
  const walFile = `${db.name}-wal`;
  const wal = (opts.syncWal ?? false) && db.pragma("journal_mode", { simple: true }) === "wal" && fs.existsSync(walFile) ? fs.openSync(walFile, "r") : null;
  const holds: number[] = [];
  // Progress: what each phase has to look at, counted once when it starts (outside the lock).
  const progressEveryMs = opts.progressEveryMs ?? 10_000;
  const phase = { name: "cycles" as PruneProgress["phase"], done: 0, total: 0, startedAt: Date.now(), cursor: run.cursor };
  let lastProgress = Date.now();
  const startPhase = (name: PruneProgress["phase"], total: number) => Object.assign(phase, { name, done: 0, total, startedAt: Date.now() });
  const tick = (done: number) => {
    phase.done += done;
    if (opts.onProgress && Date.now() - lastProgress >= progressEveryMs) {
      lastProgress = Date.now();
      const rate = phase.done / Math.max((lastProgress - phase.startedAt) / 1000, 1e-3);
      const etaMs = rate > 0 ? (Math.max(0, phase.total - phase.done) / rate) * 1000 : null;
      opts.onProgress({ phase: phase.name, done: phase.done, total: phase.total, rate, etaMs, cursor: phase.cursor });
    }
  };
  /** After a batch: flush and checkpoint outside the lock, then pause so the prune holds the lock at most `lockShare` of the time. */
  const rest = async (lockMs: number, worked: boolean) => {
    holds.push(lockMs);
    report.batches += 1;
    if (wal !== null) fs.fdatasyncSync(wal);
    if (report.batches % checkpointEvery === 0) db.pragma("wal_checkpoint(PASSIVE)");
    // Between batches, so what was done is committed and recorded: a rerun resumes from here.
    if (opts.signal?.aborted) throw new PruneStoppedError(phase.name, phase.cursor);
    if (worked) await sleep(Math.max(pauseMs, lockShare < 1 ? lockMs * (1 / lockShare - 1) : 0));
  };
  /** The next batch's size (units of work), resized so the lock is held about lockTargetMs. */
  const resize = (size: number, lockMs: number, max = 2000) =>
    Math.min(max, Math.max(1, size * Math.min(2, Math.max(0.5, lockTargetMs / Math.max(lockMs, 0.05)))));
  try {
    // 1. Per-cycle rows before the horizon, outside the kept incident windows.
    let cursor = run.cursor;
    let size = 20;
    startPhase("cycles", db.prepare(`SELECT count(*) FROM reconciliations WHERE id > ? AND id <= ?`).pluck().get(cursor, p.endId) as number);
    for (;;) {
      const rows = page.all(cursor, p.endId, Math.max(1, Math.round(size))) as { id: number; botId: string; at: string }[];
      if (rows.length === 0) break;
      const ids: number[] = [];
      for (const r of rows) {
        if (doomed(p, r)) ids.push(r.id);
        else if (Date.parse(r.at) < p.horizon) report.keptCycles += 1;
      }
      const lastId = rows[rows.length - 1]!.id;
      prefetch(rows.filter((r) => ids.includes(r.id)));
      const { value: positions, lockMs } = batchTx(ids, lastId);
      cursor = lastId;
      phase.cursor = lastId;
      tick(rows.length);
      report.cycles += ids.length;
      report.positions += positions;
      opts.onBatch?.({ batch: report.batches + 1, phase: "cycles", cycles: ids.length, positions, lockMs });
      size = ids.length > 0 ? resize(size, lockMs) : Math.min(2000, size * 2);
      await rest(lockMs, ids.length > 0);
    }

    // 2. Settled orders last updated before the order horizon, with their events. Each batch is
    // whole orders, so a killed run leaves no order without its events; a rerun finds the rest.
    // A bot's book is the sum of its orders' fills (docs/journal.md): the fills of the orders that
    // go are carried, in the same transaction, into one settled order per bot, symbol, strategy and
    // side, so every book stays exactly what it was.
    const carry = db.prepare(
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, attempts, created_at, updated_at)
       VALUES (@id, @botId, @strategy, @symbol, @side, @qty, 'pruned', 'filled', @qty, 0, @createdAt, @updatedAt)
       ON CONFLICT (client_order_id) DO UPDATE SET qty = qty + excluded.qty, filled_qty = filled_qty + excluded.filled_qty,
         created_at = min(created_at, excluded.created_at), updated_at = max(updated_at, excluded.updated_at)`,
    );
    const delEvents = db.prepare(`DELETE FROM order_events WHERE client_order_id = ?`);
    const delOrder = db.prepare(`DELETE FROM orders WHERE client_order_id = ?`);
    const countOrders = db.prepare(`UPDATE journal_prunes SET orders_deleted = orders_deleted + ? WHERE id = ?`);
    size = 20;
    startPhase("orders", orders.total());
    for (let cursor = 0; ;) {
      const batch = orders.next(cursor, Math.max(1, Math.round(size)));
      if (batch.scanned === 0) break;
      cursor = batch.cursor;
      report.keptOrders += batch.kept;
      tick(batch.scanned);
      if (batch.ids.length === 0) continue;
      orders.prefetch(batch.ids);
      const { value: events, lockMs } = tx(() => {
        let n = 0;
        for (const c of orders.carried(batch.ids)) carry.run(c);
        for (const id of batch.ids) {
          n += delEvents.run(id).changes;
          delOrder.run(id);
        }
        countOrders.run(batch.ids.length, run.id);
        return n;
      });
      report.orders += batch.ids.length;
      report.orderEvents += events;
      opts.onBatch?.({ batch: report.batches + 1, phase: "orders", cycles: 0, positions: 0, lockMs });
      size = resize(size, lockMs);
      await rest(lockMs, true);
    }

    // 3. Five-minute rollups before the rollup horizon, folded into one row per hour. Each batch
    // re-reads its hours under the lock and replaces them whole: a killed run leaves every hour
    // either five-minute or hourly, and a rerun folds the rest.
    const foldCount = db.prepare(`UPDATE journal_prunes SET rollups_folded = rollups_folded + ? WHERE id = ?`);
    size = 4;
    startPhase(
      "rollups",
      (fold ?? []).reduce((n, u) => n + u.hours.length, 0),
    );
    for (const unit of fold ?? []) {
      for (let i = 0; i < unit.hours.length;) {
        const hours = unit.hours.slice(i, i + Math.max(1, Math.round(size)));
        i += hours.length;
        unit.prefetch(hours);
        const { value: folded, lockMs } = tx(() => {
          const n = hours.reduce((acc, h) => acc + unit.foldHour(h.start), 0);
          foldCount.run(n, run.id);
          return n;
        });
        report.rollupsFolded += folded;
        tick(hours.length);
        opts.onBatch?.({ batch: report.batches + 1, phase: "rollups", cycles: 0, positions: 0, lockMs });
        size = resize(size, lockMs, 200);
        await rest(lockMs, true);
      }
    }
  } finally {
    if (wal !== null) fs.closeSync(wal);
  }
  db.prepare(`UPDATE journal_prunes SET finished_at = ? WHERE id = ?`).run(new Date().toISOString(), run.id);
  holds.sort((a, b) => a - b);
  report.lockMsMax = holds[holds.length - 1] ?? 0;
  report.lockMsP99 = holds[Math.min(holds.length - 1, Math.floor(holds.length * 0.99))] ?? 0;
  report.elapsedMs = Date.now() - started;
  return report;
}

const SETTLED_SQL = `('filled', 'canceled', 'rejected', 'absent')`;

/** The order that carries the fills of a bot's pruned orders of one symbol, strategy and side; never pruned itself. */
export const CARRIED_ORDER_PREFIX = "pruned:";
export const carriedOrderId = (o: { botId: string; symbol: string; strategy: string; side: string }) =>
  `${CARRIED_ORDER_PREFIX}${o.botId}/${o.symbol}/${o.strategy}/${o.side}`;

/**
 * Which settled orders go: last updated before the order horizon, and named by nothing that stays
 * (the audit log's targets, a breaker event's reason, an operator's event on the order, a kept
 * incident window of its bot).
 * Read without the lock, page by page in rowid order.
 */
function orderPlan(db: Database.Database, p: Plan, orderHorizon: number | null) {
  const horizonIso = orderHorizon === null ? "" : new Date(orderHorizon).toISOString();
  const audited = new Set(db.prepare(`SELECT DISTINCT target FROM audit_log`).pluck().all() as string[]);
  // The order a trip names in its reason is the trip's cause (the incident page reads it so): kept with the breaker event, for good.
  const tripped = new Set((db.prepare(`SELECT reason FROM breaker_events`).pluck().all() as string[]).flatMap(orderIdsInReason));
  const page = db.prepare(
    `SELECT rowid AS rid, client_order_id AS id, bot_id AS botId, symbol, strategy, side, filled_qty AS filledQty, created_at AS createdAt,
            updated_at AS updatedAt FROM orders
     WHERE rowid > ? AND state IN ${SETTLED_SQL} AND updated_at < ? AND substr(client_order_id, 1, ${CARRIED_ORDER_PREFIX.length}) <> '${CARRIED_ORDER_PREFIX}'
     ORDER BY rowid LIMIT ?`,
  );
  const events = db.prepare(`SELECT id, at, kind FROM order_events WHERE client_order_id = ? ORDER BY id`);
  const eventCount = db.prepare(`SELECT count(*) FROM order_events WHERE client_order_id = ?`).pluck();
  const total = db
    .prepare(
      `SELECT count(*) FROM orders WHERE state IN ${SETTLED_SQL} AND updated_at < ? AND substr(client_order_id, 1, ${CARRIED_ORDER_PREFIX.length}) <> '${CARRIED_ORDER_PREFIX}'`,
    )
    .pluck();
  const warm = {
    order: db.prepare(`SELECT * FROM orders WHERE client_order_id = ?`),
    bySymbol: db.prepare(`SELECT 1 FROM orders INDEXED BY orders_bot_symbol_created_idx WHERE bot_id = ? AND symbol = ? AND created_at = ?`),
    eventByAt: db.prepare(`SELECT 1 FROM order_events INDEXED BY order_events_at_idx WHERE at = ?`),
  };
  type Row = { botId: string; symbol: string; strategy: string; side: string; filledQty: number; createdAt: string; updatedAt: string };
  const rows = new Map<string, Row>();
  return {
    next(cursor: number, limit: number): { scanned: number; cursor: number; ids: string[]; kept: number } {
      if (orderHorizon === null) return { scanned: 0, cursor, ids: [], kept: 0 };
      const page_ = page.all(cursor, horizonIso, limit) as (Row & { rid: number; id: string })[];
      const ids: string[] = [];
      let kept = 0;
      rows.clear();
      for (const o of page_) {
        const t = Date.parse(o.createdAt);
        const named =
          audited.has(o.id) ||
          tripped.has(o.id) ||
          !Number.isFinite(t) ||
          inSpans(t, p.spans.get(o.botId) ?? []) ||
          (events.all(o.id) as { kind: string }[]).some((e) => e.kind === "operator");
        if (named) kept += 1;
        else {
          ids.push(o.id);
          rows.set(o.id, o);
        }
      }
      return { scanned: page_.length, cursor: page_.at(-1)?.rid ?? cursor, ids, kept };
    },
    eventCount: (id: string) => eventCount.get(id) as number,
    /** The settled orders the pages will look at: the progress's total. */
    total: () => (orderHorizon === null ? 0 : (total.get(horizonIso) as number)),
    /** The carried orders' increments for a batch of this page's orders: their fills summed per bot, symbol, strategy and side. */
    carried(ids: string[]) {
      const out = new Map<
        string,
        { id: string; botId: string; strategy: string; symbol: string; side: string; qty: number; createdAt: string; updatedAt: string }
      >();
      for (const id of ids) {
        const o = rows.get(id)!;
        if (!(o.filledQty > 0)) continue;
        const key = carriedOrderId(o);
        const c = out.get(key);
        if (c) {
          c.qty += o.filledQty;
          if (o.createdAt < c.createdAt) c.createdAt = o.createdAt;
          if (o.updatedAt > c.updatedAt) c.updatedAt = o.updatedAt;
        } else
          out.set(key, {
            id: key,
            botId: o.botId,
            strategy: o.strategy,
            symbol: o.symbol,
            side: o.side,
            qty: o.filledQty,
            createdAt: o.createdAt,
            updatedAt: o.updatedAt,
          });
      }
      return [...out.values()];
    },
    /** The pages a batch's deletes touch (the order, its indexes, its events and theirs), read before the lock. */
    prefetch(ids: string[]) {
      for (const id of ids) {
        const o = rows.get(id);
        warm.order.get(id);
        if (o) warm.bySymbol.get(o.botId, o.symbol, o.createdAt);
        for (const e of events.all(id) as { at: string }[]) warm.eventByAt.get(e.at);
      }
    },
  };
}

interface RollupRowAll {
  bot_id: string;
  symbol: string;
  bucket: string;
  cycles: number;
  qty_step: number;
  first_at: string;
  first_ours: number;
  first_theirs: number;
  last_at: string;
  last_ours: number;
  last_theirs: number;
  min_ours_at: string;
  min_ours: number;
  min_ours_theirs: number;
  max_ours_at: string;
  max_ours: number;
  max_ours_theirs: number;
  min_theirs_at: string;
  min_theirs_ours: number;
  min_theirs: number;
  max_theirs_at: string;
  max_theirs_ours: number;
  max_theirs: number;
  wide_at: string;
  wide_ours: number;
  wide_theirs: number;
  drift_cycles: number;
  unknown_cycles: number;
  first_drift_at: string | null;
  last_drift_at: string | null;
}

/**
 * Several five-minute rows of one bot, symbol and hour as the one row the rollup trigger would have
 * kept had its buckets been an hour wide (migration 0003's rules: first and last by time, each
 * extreme by value with ties to the earlier line, the widest gap likewise, the counts summed).
 */
export function foldRollups(rows: readonly RollupRowAll[], hourStart: string): RollupRowAll {
  const out = { ...rows[0]!, bucket: hourStart };
  for (const r of rows.slice(1)) {
    out.cycles += r.cycles;
    out.drift_cycles += r.drift_cycles;
    out.unknown_cycles += r.unknown_cycles;
    if (r.first_at < out.first_at) [out.first_at, out.first_ours, out.first_theirs] = [r.first_at, r.first_ours, r.first_theirs];
    if (r.last_at >= out.last_at) [out.last_at, out.last_ours, out.last_theirs, out.qty_step] = [r.last_at, r.last_ours, r.last_theirs, r.qty_step];
    if (r.min_ours < out.min_ours || (r.min_ours === out.min_ours && r.min_ours_at < out.min_ours_at))
      [out.min_ours_at, out.min_ours, out.min_ours_theirs] = [r.min_ours_at, r.min_ours, r.min_ours_theirs];
    if (r.max_ours > out.max_ours || (r.max_ours === out.max_ours && r.max_ours_at < out.max_ours_at))
      [out.max_ours_at, out.max_ours, out.max_ours_theirs] = [r.max_ours_at, r.max_ours, r.max_ours_theirs];
    if (r.min_theirs < out.min_theirs || (r.min_theirs === out.min_theirs && r.min_theirs_at < out.min_theirs_at))
      [out.min_theirs_at, out.min_theirs_ours, out.min_theirs] = [r.min_theirs_at, r.min_theirs_ours, r.min_theirs];
    if (r.max_theirs > out.max_theirs || (r.max_theirs === out.max_theirs && r.max_theirs_at < out.max_theirs_at))
      [out.max_theirs_at, out.max_theirs_ours, out.max_theirs] = [r.max_theirs_at, r.max_theirs_ours, r.max_theirs];
    const gap = Math.abs(r.wide_ours - r.wide_theirs);
    const outGap = Math.abs(out.wide_ours - out.wide_theirs);
    if (gap > outGap || (gap === outGap && r.wide_at < out.wide_at)) [out.wide_at, out.wide_ours, out.wide_theirs] = [r.wide_at, r.wide_ours, r.wide_theirs];
    if (r.first_drift_at !== null && (out.first_drift_at === null || r.first_drift_at < out.first_drift_at)) out.first_drift_at = r.first_drift_at;
    if (r.last_drift_at !== null && (out.last_drift_at === null || r.last_drift_at > out.last_drift_at)) out.last_drift_at = r.last_drift_at;
  }
  return out;
}

const ROLLUP_COLUMNS = [
  "bot_id",
  "symbol",
  "bucket",
  "cycles",
  "qty_step",
  "first_at",
  "first_ours",
  "first_theirs",
  "last_at",
  "last_ours",
  "last_theirs",
  "min_ours_at",
  "min_ours",
  "min_ours_theirs",
  "max_ours_at",
  "max_ours",
  "max_ours_theirs",
  "min_theirs_at",
  "min_theirs_ours",
  "min_theirs",
  "max_theirs_at",
  "max_theirs_ours",
  "max_theirs",
  "wide_at",
  "wide_ours",
  "wide_theirs",
  "drift_cycles",
  "unknown_cycles",
  "first_drift_at",
  "last_drift_at",
] as const;

/** `2026-11-10T13:25:00.000Z` → `2026-11-10T13:00:00.000Z`: the bucket keys are ISO strings (migration 0003). */
const hourOf = (bucket: string) => `${bucket.slice(0, 13)}:00:00.000Z`;
const nextHour = (hour: string) => new Date(Date.parse(hour) + HOURLY_MS).toISOString();

/**
 * The hours to fold, one unit per bot (its cycle_rollups) and per bot and symbol (its
 * position_rollups): every hour in [from, to) that still has a five-minute row other than its first.
 * Read without the lock, one primary-key range per unit.
 */
function foldPlan(db: Database.Database, from: string, to: string) {
  const units: {
    hours: { start: string; rows: number }[];
    prefetch: (hours: { start: string }[]) => void;
    foldHour: (start: string) => number;
  }[] = [];
  const posRange = db.prepare(`SELECT * FROM position_rollups WHERE bot_id = ? AND symbol = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`);
  const posDel = db.prepare(`DELETE FROM position_rollups WHERE bot_id = ? AND symbol = ? AND bucket >= ? AND bucket < ?`);
  const posIns = db.prepare(`INSERT INTO position_rollups (${ROLLUP_COLUMNS.join(", ")}) VALUES (${ROLLUP_COLUMNS.map((c) => `@${c}`).join(", ")})`);
  const cycRange = db.prepare(`SELECT bucket, cycles FROM cycle_rollups WHERE bot_id = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`);
  const cycDel = db.prepare(`DELETE FROM cycle_rollups WHERE bot_id = ? AND bucket >= ? AND bucket < ?`);
  const cycIns = db.prepare(`INSERT INTO cycle_rollups (bot_id, bucket, cycles) VALUES (?, ?, ?)`);
  const toFold = (buckets: string[]) => {
    const hours = new Map<string, number>();
    for (const b of buckets) hours.set(hourOf(b), (hours.get(hourOf(b)) ?? 0) + 1);
    const present = new Set(buckets);
    return [...hours].filter(([h, n]) => n > 1 || !present.has(h)).map(([start, rows]) => ({ start, rows }));
  };
  const bots = db.prepare(`SELECT DISTINCT bot_id FROM cycle_rollups`).pluck().all() as string[];
  for (const bot of bots) {
    const buckets = (cycRange.all(bot, from, to) as { bucket: string }[]).map((r) => r.bucket);
    units.push({
      hours: toFold(buckets),
      prefetch: (hours) => hours.forEach((h) => cycRange.all(bot, h.start, nextHour(h.start))),
      foldHour: (start) => {
        const rows = cycRange.all(bot, start, nextHour(start)) as { cycles: number }[];
        if (rows.length === 0) return 0;
        cycDel.run(bot, start, nextHour(start));
        cycIns.run(
          bot,
          start,
          rows.reduce((n, r) => n + r.cycles, 0),
        );
        return rows.length - 1;
      },
    });
  }
  const pairs = db.prepare(`SELECT DISTINCT bot_id AS botId, symbol FROM position_rollups`).all() as { botId: string; symbol: string }[];
  const bucketsOf = db.prepare(`SELECT bucket FROM position_rollups WHERE bot_id = ? AND symbol = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`).pluck();
  for (const { botId, symbol } of pairs) {
    units.push({
      hours: toFold(bucketsOf.all(botId, symbol, from, to) as string[]),
      prefetch: (hours) => hours.forEach((h) => posRange.all(botId, symbol, h.start, nextHour(h.start))),
      foldHour: (start) => {
        const rows = posRange.all(botId, symbol, start, nextHour(start)) as RollupRowAll[];
        if (rows.length === 0) return 0;
        posDel.run(botId, symbol, start, nextHour(start));
        posIns.run(foldRollups(rows, start));
        return rows.length - 1;
      },
    });
  }
  return units.filter((u) => u.hours.length > 0);
}

interface OpenPrune {
  actor: string;
  startedAt: string;
  cursor: number;
}
const openPrune = (journal: Database.Database) =>
  journal.prepare(`SELECT actor, started_at AS startedAt, cursor FROM journal_prunes WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1`).get() as
    OpenPrune | undefined;

/**
 * The prune running on this journal now, if any: an unfinished journal_prunes row whose lock is
 * held (an unfinished row with a free lock is a stopped run, which the next prune resumes). Takes
 * the lock for an instant only when such a row exists.
 */
export function runningPrune(journal: Database.Database): OpenPrune | null {
  const open = openPrune(journal);
  if (!open) return null;
  try {
    acquirePruneLock(journal)();
    return null;
  } catch (error) {
    if (error instanceof PruneBusyError) return openPrune(journal) ?? open;
    throw error;
  }
}

/** Refused: another prune holds this journal (its process is alive; a killed one releases at once). */
export class PruneBusyError extends Error {
  override name = "PruneBusyError";
}

/** The file whose lock says a prune is running on `journal`: beside it, as SQLite's -wal and -shm are. */
export const pruneLockFile = (journal: string) => `${path.resolve(journal)}.prune-lock`;

/**
 * One prune at a time per journal. Two at once would both resume the same journal_prunes row and
 * count each other's deletes. The lock is a write transaction held open on a small SQLite file
 * beside the journal: SQLite's own POSIX lock, which the kernel drops the moment its process
 * ends, so a killed prune never leaves a stale lock for the next run to guess about (no pid files,
 * no timeouts). The file is left in place: unlinking it could hand two runs two different files.
 */
export function acquirePruneLock(journal: Database.Database): () => void {
  const file = pruneLockFile(journal.name);
  const lock = new Database(file, { timeout: 0 });
  try {
    lock.pragma("busy_timeout = 0");
    // Nothing is ever written to it: no -journal file beside it, hot or not.
    lock.pragma("journal_mode = MEMORY");
    lock.exec("BEGIN IMMEDIATE");
  } catch (error) {
    lock.close();
    if ((error as { code?: string }).code !== "SQLITE_BUSY") throw error;
    const open = openPrune(journal);
    const who = open ? ` (started ${open.startedAt} by ${open.actor}, at reconciliation ${open.cursor})` : "";
    throw new PruneBusyError(
      `another prune is running on ${path.resolve(journal.name)}${who}; nothing was changed. Wait for it to finish, or stop it: a stopped prune resumes on the next run`,
    );
  }
  return () => {
    if (lock.inTransaction) lock.exec("ROLLBACK");
    lock.close();
  };
}

/**
 * A compact copy of the journal for archives (SQLite's VACUUM INTO): a read transaction, so the bot
 * keeps writing meanwhile. Refuses to overwrite a file.
 */
export function vacuumInto(db: Database.Database, target: string): { file: string; bytes: number } {
  const abs = path.resolve(target);
  if (fs.existsSync(abs)) throw new Error(`--vacuum-into ${abs}: the file exists; give a new file name`);
  db.prepare(`VACUUM INTO ?`).run(abs);
  return { file: abs, bytes: fs.statSync(abs).size };
}

/** Pages of the file and how many of them are free for reuse: what `prune` reports after a run. */
export function pageUse(db: Database.Database): { pageSize: number; pages: number; freePages: number } {
  return {
    pageSize: db.pragma("page_size", { simple: true }) as number,
    pages: db.pragma("page_count", { simple: true }) as number,
    freePages: db.pragma("freelist_count", { simple: true }) as number,
  };
}
