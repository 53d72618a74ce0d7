/**
 * The reference journal of the performance benchmark: months-of-trading sized history written in
 * bulk, the same rows a bot writes through the contract, without simulating every send and reply.
 *
 * Shape (defaults): 2 bots, 50 symbols each, a reconciliation every 15 s round the clock, each cycle
 * carrying every symbol's line (20 days: 2 x 115,200 cycles x 50 = 11.5 million position rows);
 * about 25,000 filled orders per bot and day with their intent, send and fill events; drift episodes
 * about 7 times per bot and day, each one tripping the breaker, acknowledged and cleared by a
 * simulated operator through the audit log's own append (so the hash chain is real); a handful of
 * doubtful orders at the end. Positions follow the fills, and the exchange's book follows the bot's
 * except inside a drift episode, so the trigger-maintained latest_positions table and every drift
 * the console shows come out of the same rows a full scan would read.
 *
 * Deterministic for a seed and an end time. Rows go in through the migrations' triggers, in one
 * transaction per simulated hour, so the file is what a real bot would have left behind.
 */
import fs from "node:fs";
import type Database from "better-sqlite3";
import { consoleAuditKey } from "../../lib/audit/key";
import { appendAudit } from "../../lib/audit/log";
import { migrateJournal, openJournalWriter } from "../../lib/db/journal-file";
import { clientOrderId } from "../../lib/journal/client-order-id";
import { stepDecimals } from "../demo/markets";
import { classifyDrift, type DriftClass } from "../../lib/reconcile/diff";
import { seededRng, subSeed, type Rng } from "../demo/random";

export interface ReferenceOptions {
  file: string;
  days: number;
  /** End of the history (the last cycle is at or just before it). Default: now. */
  end?: Date;
  seed?: number;
  bots?: number;
  symbolsPerBot?: number;
  cycleMs?: number;
  /** Filled orders per bot and simulated day. */
  ordersPerDay?: number;
  /** Drift episodes (each a trip, an acknowledgement and a clear) per bot and simulated day. */
  driftsPerDay?: number;
  /**
   * Bulk mode (default): the latest_positions trigger and the history indexes are dropped while the
   * rows go in and put back at the end, with latest_positions written from the generator's own final
   * state. Four times faster; the integration tests check it leaves the same file as trigger mode.
   */
  bulk?: boolean;
  migrationsDir?: string;
  onProgress?: (line: string) => void;
}

export interface ReferenceReport {
  file: string;
  start: string;
  end: string;
  cycles: number;
  positionRows: number;
  orders: number;
  orderEvents: number;
  trips: number;
  clears: number;
  acknowledgements: number;
  auditEntries: number;
  doubtful: number;
  bytes: number;
  elapsedMs: number;
}

interface Symbol {
  symbol: string;
  qtyStep: number;
  price: number;
  /** The bot's position, in steps (signed). */
  steps: number;
}

interface Latest {
  reconciliationId: number;
  at: string;
  ours: number;
  theirs: number;
  qtyStep: number;
  markPrice: number;
  drift: DriftClass;
  driftSince: string | null;
}

/** Dropped in bulk mode and put back, from their own stored SQL, once the rows are in. */
const BULK_DEFERRED = ["latest_positions_on_snapshot", "reconciliation_positions_symbol_idx", "order_events_order_idx", "order_events_at_idx"];

interface Episode {
  symbol: Symbol;
  kind: "size_drift" | "unknown_position";
  /** The exchange's position minus the bot's, in steps. */
  offset: number;
  startedAt: number;
  endsAt: number;
  ackAt: number;
  acked: boolean;
}

interface BotState {
  botId: string;
  prefix: string;
  symbols: Symbol[];
  rng: Rng;
  halted: boolean;
  breakerVersion: number;
  episode: Episode | null;
  clearAt: number | null;
  nextDriftAt: number;
  orderSeq: number;
  latest: Map<string, Latest>;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const iso = (t: number) => new Date(t).toISOString();

function makeBot(index: number, symbolsPerBot: number, seed: number): BotState {
  const botId = index === 0 ? "alpha" : index === 1 ? "beta" : `bot${index}`;
  const rng = seededRng(subSeed(seed, botId));
  const crypto = index % 2 === 0;
  const symbols: Symbol[] = Array.from({ length: symbolsPerBot }, (_, i) => {
    const n = String(i + 1).padStart(2, "0");
    return crypto
      ? { symbol: `C${n}USDT`, qtyStep: 10 ** -(i % 4), price: 10 + rng.next() * 5_000, steps: 0 }
      : { symbol: `EQ${n}`, qtyStep: 1, price: 20 + rng.next() * 500, steps: 0 };
  });
  return { botId, prefix: botId, symbols, rng, halted: false, breakerVersion: 1, episode: null, clearAt: null, nextDriftAt: 0, orderSeq: 0, latest: new Map() };
}

/** Writes a reference journal to `file` (replacing it). */
export function writeReferenceJournal(opts: ReferenceOptions): ReferenceReport {
  const started = Date.now();
  const cycleMs = opts.cycleMs ?? 15_000;
  const seed = opts.seed ?? 7;
  const symbolsPerBot = opts.symbolsPerBot ?? 50;
  const ordersPerDay = opts.ordersPerDay ?? 25_000;
  const driftsPerDay = opts.driftsPerDay ?? 7;
  const endMs = Math.floor((opts.end ?? new Date()).getTime() / cycleMs) * cycleMs;
  const startMs = endMs - Math.round(opts.days * DAY_MS);
  const cyclesPerBot = Math.floor((endMs - startMs) / cycleMs);
  const ordersPerCycle = (ordersPerDay * cycleMs) / DAY_MS;
  const meanDriftGap = DAY_MS / driftsPerDay;

  for (const f of [opts.file, `${opts.file}-wal`, `${opts.file}-shm`]) fs.rmSync(f, { force: true });
  migrateJournal(opts.file, { migrationsDir: opts.migrationsDir });
  const { db } = openJournalWriter(opts.file, { migrationsDir: opts.migrationsDir });
  // A file being built that nobody reads yet: no fsync per transaction, a larger page cache.
  db.pragma("synchronous = OFF");
  db.pragma("cache_size = -262144");

  const bulk = opts.bulk ?? true;
  const deferred = bulk
    ? (db.prepare(`SELECT name, sql FROM sqlite_master WHERE name IN (${BULK_DEFERRED.map(() => "?").join(", ")})`).all(...BULK_DEFERRED) as {
        name: string;
        sql: string;
      }[])
    : [];
  if (deferred.length !== (bulk ? BULK_DEFERRED.length : 0))
    throw new Error(`the journal schema lacks one of ${BULK_DEFERRED.join(", ")}: is drizzle/ up to date?`);
  for (const d of deferred) db.exec(d.sql.startsWith("CREATE TRIGGER") ? `DROP TRIGGER "${d.name}"` : `DROP INDEX "${d.name}"`);

  const bots = Array.from({ length: opts.bots ?? 2 }, (_, i) => makeBot(i, symbolsPerBot, seed));
  const st = statements(db);
  const report = { cycles: 0, positionRows: 0, orders: 0, orderEvents: 0, trips: 0, clears: 0, acknowledgements: 0, auditEntries: 0, doubtful: 0 };

  db.transaction(() => {
    for (const b of bots) {
      st.bot.run(b.botId, b.botId === "alpha" ? "sim-perp" : "sim-equities", b.prefix, iso(startMs));
      st.breaker.run(b.botId, iso(startMs));
      b.nextDriftAt = startMs + HOUR_MS + b.rng.next() * 2 * meanDriftGap;
    }
  })();

  const cycle = (b: BotState, t: number) => {
    // Orders of this cycle: the strategy's entries and exits, each filled within the cycle.
    const n = Math.floor(ordersPerCycle) + (b.rng.next() < ordersPerCycle % 1 ? 1 : 0);
    for (let k = 0; k < n; k++) {
      const s = b.rng.pick(b.symbols);
      // The drifting symbol is left alone until the venue and the bot agree again.
      if (s === b.episode?.symbol) continue;
      // Halted: only orders that bring a position back toward flat.
      let dir = b.rng.next() < 0.5 - s.steps * 0.04 ? 1 : -1;
      if (b.halted) {
        if (s.steps === 0) continue;
        dir = s.steps > 0 ? -1 : 1;
      }
      const lots = Math.min(1 + Math.floor(b.rng.next() * 3), b.halted ? Math.abs(s.steps) : 3);
      const qty = size(lots, s.qtyStep);
      const side = dir > 0 ? "buy" : "sell";
      const bar = iso(t - cycleMs + k);
      const id = clientOrderId(b.prefix, { strategy: "ref", symbol: s.symbol, side, qty, bar });
      const at = t - cycleMs + 200 + k * 10;
      s.price *= 1 + (b.rng.next() - 0.5) * 0.002;
      // A venue fills at a price tick (a cent here), not at the walk's sixteen digits.
      const fill = Math.round(s.price * 100) / 100;
      st.order.run(id, b.botId, s.symbol, side, qty, bar, `X${b.botId}${++b.orderSeq}`, qty, fill, iso(at), iso(at + 120));
      // As docs/journal.md has a bot record them: the send with the status the venue answered, then
      // the fill it reported, under `status` (the words of the incident pages read that key).
      st.event.run(id, iso(at), "intent", "{}");
      st.event.run(id, iso(at + 40), "send", `{"status":"new"}`);
      st.event.run(id, iso(at + 120), "status", `{"status":"filled","filledQty":${qty},"avgPrice":${fill}}`);
      s.steps += dir * lots;
      report.orders += 1;
      report.orderEvents += 3;
    }

    // Drift episodes: the exchange's book moves away from the bot's on one symbol.
    if (!b.episode && !b.halted && t >= b.nextDriftAt) {
      const flat = b.symbols.find((s) => s.steps === 0);
      const unknown = flat !== undefined && b.rng.next() < 0.3;
      const symbol = unknown ? flat : b.rng.pick(b.symbols);
      const cycles = 4 + Math.floor(b.rng.next() * 60);
      b.episode = {
        symbol,
        kind: unknown ? "unknown_position" : "size_drift",
        offset: (b.rng.next() < 0.5 ? 1 : -1) * (1 + Math.floor(b.rng.next() * 4)),
        startedAt: t,
        endsAt: t + cycles * cycleMs,
        ackAt: t + Math.floor(cycles / 2) * cycleMs,
        acked: false,
      };
      b.nextDriftAt = t + (0.2 + b.rng.next() * 1.6) * meanDriftGap;
    }
    const ep = b.episode;
    if (ep && t >= ep.endsAt) {
      b.episode = null;
      b.clearAt = t + (2 + Math.floor(b.rng.next() * 10)) * 60_000;
    }
    const drifting = b.episode !== null;

    const info = st.reconciliation.run(b.botId, iso(t), drifting ? "drift" : "clean");
    const rid = Number(info.lastInsertRowid);
    for (const s of b.symbols) {
      let theirs = s.steps;
      if (b.episode && b.episode.symbol === s) theirs = b.episode.kind === "unknown_position" ? b.episode.offset : s.steps + b.episode.offset;
      const line = { ours: size(s.steps, s.qtyStep), theirs: size(theirs, s.qtyStep), qtyStep: s.qtyStep };
      st.position.run(rid, s.symbol, line.ours, line.theirs, s.qtyStep, s.price);
      if (bulk) {
        // What the trigger would keep: the latest line, and when its current drift run began.
        const prev = b.latest.get(s.symbol);
        const drift = classifyDrift(line);
        const driftSince = drift === "none" ? null : prev && prev.drift !== "none" ? prev.driftSince : iso(t);
        b.latest.set(s.symbol, { reconciliationId: rid, at: iso(t), ...line, markPrice: s.price, drift, driftSince });
      }
    }
    report.positionRows += b.symbols.length;
    report.cycles += 1;

    if (drifting && !b.halted) {
      b.halted = true;
      const reason = `drift on ${b.episode!.symbol.symbol} (${b.episode!.kind})`;
      st.trip.run(b.botId, iso(t + 50), "trip", reason, "bot", rid);
      st.breakerSet.run(1, reason, iso(t + 50), "bot", b.botId);
      b.breakerVersion += 1;
      report.trips += 1;
    }
    if (b.episode && !b.episode.acked && t >= b.episode.ackAt) {
      const e = b.episode;
      const s = e.symbol;
      const ours = size(s.steps, s.qtyStep);
      const theirs = size(e.kind === "unknown_position" ? e.offset : s.steps + e.offset, s.qtyStep);
      const at = iso(t + 3_000);
      st.ack.run(
        b.botId,
        s.symbol,
        e.kind,
        ours,
        theirs,
        rid,
        iso(e.startedAt),
        "looking at it with the venue",
        "operator:oncall",
        at,
        iso(t + 3_000 + HOUR_MS),
      );
      appendAudit(
        db,
        {
          at,
          actor: "operator:oncall",
          action: "acknowledge_drift",
          target: `${b.botId}/${s.symbol}`,
          outcome: "applied",
          detail: { drift: e.kind, ours, theirs, reconciliationId: rid, note: "looking at it with the venue" },
        },
        consoleAuditKey(),
      );
      e.acked = true;
      report.acknowledgements += 1;
      report.auditEntries += 1;
    }
    if (b.halted && !b.episode && b.clearAt !== null && t >= b.clearAt) {
      const at = iso(t + 5_000);
      const version = b.breakerVersion;
      st.trip.run(b.botId, at, "clear", "books agree again; venue confirmed", "operator:oncall", null);
      st.breakerSet.run(0, null, at, "operator:oncall", b.botId);
      appendAudit(
        db,
        {
          at,
          actor: "operator:oncall",
          action: "clear_halt",
          target: b.botId,
          outcome: "applied",
          detail: { breakerVersion: version, reason: "books agree again; venue confirmed" },
        },
        consoleAuditKey(),
      );
      b.halted = false;
      b.clearAt = null;
      b.breakerVersion += 1;
      report.clears += 1;
      report.auditEntries += 1;
    }
  };

  // One transaction per simulated hour; both bots interleaved in time, as on a shared file.
  const cyclesPerTx = Math.max(1, Math.floor(HOUR_MS / cycleMs));
  let lastDay = -1;
  for (let c0 = 1; c0 <= cyclesPerBot; c0 += cyclesPerTx) {
    db.transaction(() => {
      for (let c = c0; c < c0 + cyclesPerTx && c <= cyclesPerBot; c++) {
        const t = startMs + c * cycleMs;
        for (const b of bots) cycle(b, t);
      }
    })();
    const day = Math.floor(((c0 - 1) * cycleMs) / DAY_MS);
    if (day !== lastDay) {
      lastDay = day;
      opts.onProgress?.(
        `day ${day + 1}/${Math.ceil(opts.days)}: ${report.positionRows.toLocaleString("en")} position rows, ${report.orders.toLocaleString("en")} orders`,
      );
    }
  }

  // The end of the run: heartbeats now, and a few orders whose outcome nobody knows.
  db.transaction(() => {
    for (const b of bots) {
      st.heartbeat.run(iso(endMs), b.botId);
      for (const [k, s] of b.symbols.slice(0, 4).entries()) {
        const qty = s.qtyStep;
        const bar = iso(endMs - (k + 1) * 60_000);
        const id = clientOrderId(b.prefix, { strategy: "ref", symbol: s.symbol, side: "buy", qty, bar });
        const at = endMs - (k + 1) * 60_000 + 500;
        st.unknown.run(id, b.botId, s.symbol, qty, bar, iso(at), iso(at + 10_000));
        st.event.run(id, iso(at), "intent", "{}");
        st.event.run(id, iso(at + 10_000), "timeout", `{"error":"timeout after 10000 ms"}`);
        report.doubtful += 1;
        report.orderEvents += 2;
      }
    }
  })();
  if (bulk) {
    db.transaction(() => {
      const put = db.prepare(
        `INSERT INTO latest_positions (bot_id, symbol, reconciliation_id, at, ours, theirs, qty_step, mark_price, drift, drift_since) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      );
      for (const b of bots) {
        for (const [symbol, l] of b.latest) put.run(b.botId, symbol, l.reconciliationId, l.at, l.ours, l.theirs, l.qtyStep, l.markPrice, l.drift, l.driftSince);
      }
      for (const d of deferred) db.exec(d.sql);
    })();
  }
  db.pragma("wal_checkpoint(TRUNCATE)");
  db.pragma("optimize");
  db.close();

  return {
    file: opts.file,
    start: iso(startMs),
    end: iso(endMs),
    ...report,
    bytes: fs.statSync(opts.file).size,
    elapsedMs: Date.now() - started,
  };
}

/** A size of whole steps, written without float noise (0.1 * 3 is 0.3, not 0.30000000000000004). */
function size(steps: number, step: number): number {
  return Number((steps * step).toFixed(stepDecimals(step)));
}

function statements(db: Database.Database) {
  return {
    bot: db.prepare(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES (?, ?, ?, ?)`),
    breaker: db.prepare(`INSERT INTO breakers (bot_id, halted, reason, changed_at, changed_by, version) VALUES (?, 0, NULL, ?, 'bot', 1)`),
    breakerSet: db.prepare(`UPDATE breakers SET halted = ?, reason = ?, changed_at = ?, changed_by = ?, version = version + 1 WHERE bot_id = ?`),
    heartbeat: db.prepare(`UPDATE bots SET heartbeat_at = ? WHERE bot_id = ?`),
    order: db.prepare(
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, exchange_order_id, filled_qty, avg_price, attempts, created_at, updated_at, version)
       VALUES (?, ?, 'ref', ?, ?, ?, ?, 'filled', ?, ?, ?, 1, ?, ?, 3)`,
    ),
    unknown: db.prepare(
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, attempts, last_error, created_at, updated_at, version)
       VALUES (?, ?, 'ref', ?, 'buy', ?, ?, 'unknown', 1, 'timeout after 10000 ms', ?, ?, 2)`,
    ),
    event: db.prepare(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, 'bot', ?)`),
    reconciliation: db.prepare(`INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight) VALUES (?, ?, ?, 0)`),
    position: db.prepare(`INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, ?, ?)`),
    trip: db.prepare(`INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, ?, ?, ?, ?)`),
    ack: db.prepare(
      `INSERT INTO drift_acknowledgements (bot_id, symbol, drift, ours, theirs, reconciliation_id, drift_since, note, acknowledged_by, acknowledged_at, expires_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  };
}
