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
 *   - the prune commits without fsync (synchronous NORMAL), and the bot's next commit, which
 *     fsyncs the WAL, flushed the prune's pages too: the prune fdatasyncs the WAL itself after
 *     each batch, outside the lock;
 *   - a PASSIVE checkpoint after every batch, outside the lock, so the bot's auto-checkpoint never
 *     finds a WAL full of the prune's pages to copy.
 * - The run is recorded in journal_prunes before the first delete, and every batch moves its cursor
 *   and counts in the same transaction as its deletes: killed at any moment, the journal is
 *   consistent (a cycle goes with its positions or not at all) and a rerun resumes at the cursor.
 * - Nothing else is touched: no DELETE trigger exists on the per-cycle tables, so the rollups,
 *   latest_positions, orders and the operator tables stay exactly as they were.
 *
 * Freed pages go on SQLite's freelist and the bot's next inserts reuse them, so a journal pruned
 * regularly stops growing at the size of its horizon; `vacuumInto` writes a compact copy for archives.
 */
import fs from "node:fs";
import path from "node:path";
import Database from "better-sqlite3";
import { INCIDENT_MARGIN_MS, inSpans, incidentSpans, mergeSpans, pruneHorizon, floorToRollup, type BreakerEventLite, type Span } from "../journal/retention";

export interface PruneOptions {
  /** A write connection (openJournalWriter): WAL, busy timeout set. */
  db: Database.Database;
  keepMs: number;
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
  /** fdatasync the WAL after each batch, outside the lock, so the bot's next commit does not flush the prune's pages. */
  syncWal?: boolean;
  /** Called after each batch (progress; tests stop here to be killed). */
  onBatch?: (b: { batch: number; cycles: number; positions: number; lockMs: number }) => void;
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
  /** Cycles that stay whatever their age: referenced by a kept row, or a bot's latest. */
  pinned: Set<number>;
  /** The last reconciliation id older than the horizon: nothing after it is looked at. */
  endId: number;
}

/** Everything the deletes depend on, read without a write lock. */
function plan(db: Database.Database, keepMs: number, now: number): Plan {
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
  for (const [bot, list] of byBot) {
    incidents += list.filter((e) => e.kind === "trip").length;
    spans.set(bot, incidentSpans(list));
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
  return { horizon, spans, incidents, pinned, endId };
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
  if (opts.dryRun) return pruneLocked(opts);
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
  const p = plan(db, opts.keepMs, now);
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
    batches: 0,
    lockMsMax: 0,
    lockMsP99: 0,
    elapsedMs: 0,
  };
  const page = db.prepare(`SELECT id, bot_id AS botId, at FROM reconciliations WHERE id > ? AND id <= ? ORDER BY id LIMIT ?`);

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
    report.elapsedMs = Date.now() - started;
    return report;
  }

  // Claim the run: continue one that was stopped, else record a new one, before anything goes.
  const claim = db.transaction(() => {
    const open = db.prepare(`SELECT id, cursor, horizon FROM journal_prunes WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1`).get() as
      { id: number; cursor: number; horizon: string } | undefined;
    if (open) {
      const horizon = open.horizon > horizonIso ? open.horizon : horizonIso;
      db.prepare(`UPDATE journal_prunes SET horizon = ?, keep_ms = ?, actor = ? WHERE id = ?`).run(horizon, opts.keepMs, opts.actor, open.id);
      return { id: open.id, cursor: open.cursor, resumed: true };
    }
    const id = Number(
      db
        .prepare(`INSERT INTO journal_prunes (started_at, horizon, keep_ms, incident_margin_ms, actor) VALUES (?, ?, ?, ?, ?)`)
        .run(new Date(now).toISOString(), horizonIso, opts.keepMs, INCIDENT_MARGIN_MS, opts.actor).lastInsertRowid,
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
  const batchTx = (ids: number[], lastId: number): { positions: number; waitMs: number; lockMs: number } => {
    const t0 = process.hrtime.bigint();
    begin.run();
    const t1 = process.hrtime.bigint();
    let positions = 0;
    try {
      for (const id of ids) {
        positions += delPositions.run(id).changes;
        delCycle.run(id);
      }
      advance.run(lastId, ids.length, positions, run.id);
      commit.run();
    } catch (error) {
      if (db.inTransaction) db.exec("ROLLBACK");
      throw error;
    }
    return { positions, waitMs: Number(t1 - t0) / 1e6, lockMs: Number(process.hrtime.bigint() - t1) / 1e6 };
  };

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
  const wal = (opts.syncWal ?? true) && db.pragma("journal_mode", { simple: true }) === "wal" && fs.existsSync(walFile) ? fs.openSync(walFile, "r") : null;
  const holds: number[] = [];
  try {
    let cursor = run.cursor;
    // Cycles looked at per batch, resized to hold the lock for about lockTargetMs.
    let size = 20;
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
      const { positions, lockMs } = batchTx(ids, lastId);
      holds.push(lockMs);
      cursor = lastId;
      report.batches += 1;
      report.cycles += ids.length;
      report.positions += positions;
      opts.onBatch?.({ batch: report.batches, cycles: ids.length, positions, lockMs });
      if (ids.length > 0) size = Math.min(2000, Math.max(1, size * Math.min(2, Math.max(0.5, lockTargetMs / Math.max(lockMs, 0.05)))));
      else size = Math.min(2000, size * 2);
      if (wal !== null) fs.fdatasyncSync(wal);
      if (report.batches % checkpointEvery === 0) db.pragma("wal_checkpoint(PASSIVE)");
      if (ids.length > 0) await sleep(Math.max(pauseMs, lockShare < 1 ? lockMs * (1 / lockShare - 1) : 0));
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
    const open = journal
      .prepare(`SELECT actor, started_at AS startedAt, cursor FROM journal_prunes WHERE finished_at IS NULL ORDER BY id DESC LIMIT 1`)
      .get() as { actor: string; startedAt: string; cursor: number } | undefined;
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
