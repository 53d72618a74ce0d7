// No "server-only": it is the TypeScript bots' library (the demo and soak bots run it with tsx); it never runs in the console.
/**
 * The journal writer for TypeScript bots: the three habits of docs/journal.md as a library.
 *
 *  1. every order gets a deterministic client order id, derived from the decision;
 *  2. the intent is on disk before the send and the reply after it; a timeout makes the order
 *     doubtful, and doubt is settled by looking the id up, never by resending blind;
 *  3. every cycle the two books are compared; a drift trips the breaker.
 *
 * Writes are plain SQL on purpose: this file doubles as the reference for bot authors in other
 * languages, who write the same statements with their own SQLite driver. Each write is one short
 * BEGIN IMMEDIATE transaction that also appends its history row. The statements are generators an
 * engine runs (JournalTx): better-sqlite3 here, node-postgres in pg-journal-writer.ts, so a
 * PostgreSQL journal gets the same statements in the same transactions (docs/journal.md,
 * "Writing a PostgreSQL journal").
 *
 * Retention (contract migration 0005, docs/journal.md "Retention"): a prune may delete old
 * reconciliations and their positions while this writer runs. Nothing here reads them back (the
 * book is the orders plus book_corrections, the breaker its own row, both kept for good), ids stay
 * unique because a bot's latest cycle is never pruned, and the prune's batches are far shorter than
 * the busy timeout. This writer never touches journal_prunes.
 */
import type Database from "better-sqlite3";
import type { BreakerRow } from "../db/schema";
import type { Actor, OrderSide, OrderState } from "../journal/contract";
import { ORDER_STATES, SETTLED_STATES } from "../journal/contract";
import { ALWAYS_DOUBTFUL_STATES } from "../journal/order-state";
import { clientOrderId, decisionSeed, type Decision, type IdForm } from "../journal/client-order-id";
import { diffBooks, type BookDiff } from "../reconcile/diff";
import {
  DuplicateClientOrderIdError,
  OrderRejectedError,
  RateLimitError,
  SendTimeoutError,
  type ExchangeAdapter,
  type ExchangeOrder,
} from "../exchange/adapter";

/**
 * Why an order is unknown: the send's failure, then what the last lookup met, as the breaker's
 * reason and the order's last error say it. The last lookup's error alone ("lookup failed:
 * connection reset") hid from the person paged that the send itself had timed out.
 */
export const unknownWhy = (sendError: string | null, last: string): string =>
  sendError === null || sendError === last ? last : `send failed: ${sendError}; then ${last}`;

/** Orders of this strategy are the bot's reduce-only closes of positions it never opened. */
export const RECONCILE_STRATEGY = "reconcile";

export interface Alert {
  botId: string;
  at: string;
  kind: "unknown_order" | "unknown_position" | "size_drift" | "reconciliation_error";
  message: string;
  drift?: BookDiff;
}

export interface JournalWriterOptions {
  db: Database.Database;
  botId: string;
  exchange: ExchangeAdapter;
  /** Prefix of every client order id this bot makes. */
  prefix: string;
  /** `compact` (no `-` after the prefix) for a venue whose ids are letters and digits only, such as OKX; default `dash`. */
  idForm?: IdForm;
  /** Quantity step per symbol the bot trades; used for the drift tolerance. */
  qtyStepFor: (symbol: string) => number | undefined;
  /**
   * Step used for a symbol the bot does not know (a position it never opened on a market it does
   * not trade). Small on purpose: any size there is a drift.
   */
  unknownSymbolQtyStep?: number;
  clock?: () => Date;
  sleep?: (ms: number) => Promise<void>;
  /** Send attempts before an order is declared unknown, and the first backoff (doubles each time). */
  retry?: { attempts: number; backoffMs: number };
  onAlert?: (alert: Alert) => void;
}

export type OrderRowLite = {
  clientOrderId: string;
  botId: string;
  strategy: string;
  symbol: string;
  side: OrderSide;
  qty: number;
  bar: string;
  state: OrderState;
  exchangeOrderId: string | null;
  filledQty: number;
  avgPrice: number | null;
  attempts: number;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  version: number;
};

export type SendOutcome =
  /** The exchange has the order (acknowledged, or found by a lookup). */
  | { kind: "placed"; order: OrderRowLite }
  /** The exchange refused it: settled, nothing to resend. */
  | { kind: "rejected"; order: OrderRowLite; reason: string }
  /** Nobody can say whether the exchange has it: the order is `unknown` and the breaker tripped. */
  | { kind: "unknown"; order: OrderRowLite }
  /** The decision was already journaled and is not resendable (settled, or still being settled). */
  | { kind: "existing"; order: OrderRowLite };

export class BreakerHaltedError extends Error {
  override name = "BreakerHaltedError";
  constructor(
    readonly botId: string,
    readonly reason: string | null,
  ) {
    super(`bot ${botId} is halted (${reason ?? "no reason given"}): no new entries until an operator clears it`);
  }
}

export interface RecoveryReport {
  checked: number;
  found: string[];
  absent: string[];
  unknown: string[];
}

export type ReconcileReport =
  | { outcome: "skipped"; reconciliationId: number; ordersInFlight: number }
  | { outcome: "error"; reconciliationId: number; error: string }
  | { outcome: "clean" | "drift"; reconciliationId: number; lines: BookDiff[]; tripped: boolean };

const SETTLED_SQL = SETTLED_STATES.map((s) => `'${s}'`).join(", ");
/** Not settled and not already doubtful: the exchange may still be changing the position. */
const IN_FLIGHT_SQL = `(${ORDER_STATES.filter(
  (s) => !(SETTLED_STATES as readonly string[]).includes(s) && !(ALWAYS_DOUBTFUL_STATES as readonly string[]).includes(s),
)
  .map((s) => `'${s}'`)
  .join(", ")})`;

/** Quoted aliases: PostgreSQL folds an unquoted alias to lower case. */
const ORDER_COLUMNS = `client_order_id AS "clientOrderId", bot_id AS "botId", strategy, symbol, side, qty, bar, state,
  exchange_order_id AS "exchangeOrderId", filled_qty AS "filledQty", avg_price AS "avgPrice", attempts,
  last_error AS "lastError", created_at AS "createdAt", updated_at AS "updatedAt", version`;

/**
 * The statements a bot runs every cycle that must cost what is open, never the whole history. The
 * `state NOT IN (settled)` term repeats the partial index's own condition word for word: SQLite uses
 * a partial index only when the query's WHERE visibly implies the index's.
 */
export const PER_CYCLE_SQL = {
  unsettledOrders: `SELECT ${ORDER_COLUMNS} FROM orders WHERE bot_id = ? AND state NOT IN (${SETTLED_SQL}) ORDER BY created_at`,
  ordersInFlight: `SELECT count(*) AS n FROM orders WHERE bot_id = ? AND state NOT IN (${SETTLED_SQL}) AND state IN ${IN_FLIGHT_SQL}`,
} as const;

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error));

// --- the engine seam -------------------------------------------------------------------------------

/**
 * One statement of a write or read, as the writer asks for it: `?` placeholders (an engine that
 * numbers its parameters, PostgreSQL's `$n`, rewrites them), and what it wants back: the number of
 * rows changed, one row, every row, or the id of the row inserted.
 */
export interface JournalStep {
  sql: string;
  params: unknown[];
  want: "run" | "get" | "all" | "id";
}

/**
 * A transaction (or a single statement) as a generator of statements: the engine runs each one
 * and hands its result back. The same code then drives better-sqlite3 synchronously (the SQLite
 * path stays what it was: no promise, no await, inside one BEGIN IMMEDIATE) and node-postgres
 * asynchronously (lib/bot/pg-journal-writer.ts). One copy of the statements for both engines.
 */
export type JournalTx<T> = Generator<JournalStep, T, unknown>;

function* run(sql: string, ...params: unknown[]): JournalTx<number> {
  return (yield { sql, params, want: "run" }) as number;
}
function* get<T>(sql: string, ...params: unknown[]): JournalTx<T | undefined> {
  return (yield { sql, params, want: "get" }) as T | undefined;
}
function* all<T>(sql: string, ...params: unknown[]): JournalTx<T[]> {
  return (yield { sql, params, want: "all" }) as T[];
}
function* insertId(sql: string, ...params: unknown[]): JournalTx<number> {
  return (yield { sql, params, want: "id" }) as number;
}

const statements = new WeakMap<Database.Database, Map<string, Database.Statement>>();

function prepared(db: Database.Database, sql: string): Database.Statement {
  let cache = statements.get(db);
  if (!cache) statements.set(db, (cache = new Map()));
  let st = cache.get(sql);
  if (!st) cache.set(sql, (st = db.prepare(sql)));
  return st;
}

/** Runs a JournalTx on better-sqlite3, synchronously. */
function driveSqlite<T>(db: Database.Database, tx: JournalTx<T>): T {
  let step = tx.next();
  while (!step.done) {
    const { sql, params, want } = step.value;
    const st = prepared(db, sql);
    const out =
      want === "run"
        ? st.run(...params).changes
        : want === "get"
          ? st.get(...params)
          : want === "all"
            ? st.all(...params)
            : Number(st.run(...params).lastInsertRowid);
    step = tx.next(out);
  }
  return step.value;
}

/**
 * What a writer needs of its journal: run a JournalTx, in a transaction of its own (`tx`) or as
 * single statements that commit on their own. SQLite returns the value itself, PostgreSQL a promise.
 */
export interface JournalEngine<R extends "sync" | "async"> {
  exec<T>(tx: JournalTx<T>, opts: { transaction: boolean }): R extends "sync" ? T : Promise<T>;
}

type Out<R extends "sync" | "async", T> = R extends "sync" ? T : Promise<T>;

/** better-sqlite3: each transaction a BEGIN IMMEDIATE, prepared statements cached per connection. */
export function sqliteEngine(db: Database.Database): JournalEngine<"sync"> {
  return {
    exec: <T>(tx: JournalTx<T>, opts: { transaction: boolean }) =>
      (opts.transaction ? db.transaction(() => driveSqlite(db, tx)).immediate() : driveSqlite(db, tx)) as T,
  } as JournalEngine<"sync">;
}

// --- the statements ----------------------------------------------------------------------------------

/** The writer's logic over any engine: SQLite (JournalWriter) or PostgreSQL (PgJournalWriter). */
export abstract class JournalWriterCore<R extends "sync" | "async"> {
  readonly botId: string;
  readonly prefix: string;
  protected readonly engine: JournalEngine<R>;
  private readonly exchange: ExchangeAdapter;
  private readonly clock: () => Date;
  private readonly sleep: (ms: number) => Promise<void>;
  private readonly retry: { attempts: number; backoffMs: number };
  private readonly opts: Omit<JournalWriterOptions, "db">;

  protected constructor(engine: JournalEngine<R>, opts: Omit<JournalWriterOptions, "db">) {
    this.engine = engine;
    this.opts = opts;
    this.botId = opts.botId;
    this.prefix = opts.prefix;
    this.exchange = opts.exchange;
    this.clock = opts.clock ?? (() => new Date());
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    this.retry = opts.retry ?? { attempts: 3, backoffMs: 500 };
    if (this.retry.attempts < 1) throw new RangeError("retry.attempts must be at least 1");
  }

  private now(): string {
    return this.clock().toISOString();
  }

  /** One short transaction: BEGIN IMMEDIATE on SQLite, BEGIN … COMMIT on PostgreSQL. */
  protected tx<T>(t: JournalTx<T>): Out<R, T> {
    return this.engine.exec(t, { transaction: true }) as Out<R, T>;
  }

  /** Statements that commit each on its own (reads, the heartbeat, a lone event). */
  protected one<T>(t: JournalTx<T>): Out<R, T> {
    return this.engine.exec(t, { transaction: false }) as Out<R, T>;
  }

  // --- bots, heartbeat, breaker -------------------------------------------------------------

  /** Registers the bot and its breaker (running) if they are not in the journal yet. */
  register(): Out<R, void> {
    const at = this.now();
    const { botId, prefix } = this;
    const exchange = this.exchange.name;
    return this.tx(
      (function* () {
        yield* run(
          `INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES (?, ?, ?, ?)
           ON CONFLICT (bot_id) DO UPDATE SET exchange = excluded.exchange, client_id_prefix = excluded.client_id_prefix`,
          botId,
          exchange,
          prefix,
          at,
        );
        yield* run(
          `INSERT INTO breakers (bot_id, halted, reason, changed_at, changed_by, version)
           VALUES (?, 0, NULL, ?, 'bot', 1) ON CONFLICT (bot_id) DO NOTHING`,
          botId,
          at,
        );
      })(),
    );
  }

  heartbeat(): Out<R, void> {
    const at = this.now();
    const botId = this.botId;
    return this.one(
      (function* () {
        yield* run(`UPDATE bots SET heartbeat_at = ? WHERE bot_id = ?`, at, botId);
      })(),
    );
  }

  breaker(): Out<R, { halted: boolean; reason: string | null; version: number }> {
    const botId = this.botId;
    return this.one(
      (function* () {
        const row = yield* get<Pick<BreakerRow, "halted" | "reason" | "version">>(`SELECT halted, reason, version FROM breakers WHERE bot_id = ?`, botId);
        // No breaker row means nobody registered the bot: refuse to trade rather than assume "running".
        if (!row) return { halted: true, reason: "bot not registered", version: 0 };
        return { halted: row.halted === 1, reason: row.reason, version: row.version };
      })(),
    );
  }

  /**
   * Halts new entries. Writes a trip event only on the transition to halted: a drift that persists
   * while halted is already visible in every reconciliation row and needs no new cause.
   */
  trip(reason: string, reconciliationId: number | null = null): Out<R, boolean> {
    const at = this.now();
    const botId = this.botId;
    return this.tx(
      (function* () {
        const changed = yield* run(
          `UPDATE breakers SET halted = 1, reason = ?, changed_at = ?, changed_by = 'bot', version = version + 1
           WHERE bot_id = ? AND halted = 0`,
          reason,
          at,
          botId,
        );
        if (changed === 0) return false;
        yield* run(
          `INSERT INTO breaker_events (bot_id, at, kind, reason, actor, reconciliation_id) VALUES (?, ?, 'trip', ?, 'bot', ?)`,
          botId,
          at,
          reason,
          reconciliationId,
        );
        return true;
      })(),
    );
  }

  // --- orders ---------------------------------------------------------------------------------

  order(clientOrderIdValue: string): Out<R, OrderRowLite | undefined> {
    return this.one(selectOrder(clientOrderIdValue));
  }

  private mustOrder(id: string): Out<R, OrderRowLite> {
    return this.one(mustOrder(id));
  }

  private event(id: string, kind: string, detail: Record<string, unknown>): Out<R, number> {
    return this.one(insertEvent(id, kind, detail, "bot", this.now()));
  }

  /**
   * Step 1: the intent, on disk and committed before anything touches the network.
   * Idempotent: the same decision finds its existing row.
   */
  recordIntent(decision: Decision): Out<R, { order: OrderRowLite; inserted: boolean }> {
    const id = clientOrderId(this.prefix, decision, this.opts.idForm);
    const at = this.now();
    const botId = this.botId;
    return this.tx(
      (function* () {
        const inserted =
          (yield* run(
            `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty,
               attempts, created_at, updated_at, version)
             VALUES (?, ?, ?, ?, ?, ?, ?, 'created', 0, 0, ?, ?, 1) ON CONFLICT (client_order_id) DO NOTHING`,
            id,
            botId,
            decision.strategy,
            decision.symbol,
            decision.side,
            decision.qty,
            decision.bar,
            at,
            at,
          )) === 1;
        if (inserted) yield* insertEvent(id, "intent", { seed: decisionSeed(decision) }, "bot", at);
        return { order: yield* mustOrder(id), inserted };
      })(),
    );
  }

  /** Copies what the exchange says about an order into the journal. */
  private applyExchangeOrder(id: string, found: ExchangeOrder, kind: "send" | "lookup_found" | "status"): Out<R, OrderRowLite> {
    const at = this.now();
    return this.tx(
      (function* () {
        yield* run(
          `UPDATE orders SET state = ?, exchange_order_id = ?, filled_qty = ?, avg_price = ?, last_error = NULL,
             updated_at = ?, version = version + 1 WHERE client_order_id = ?`,
          found.status,
          found.exchangeOrderId,
          found.filledQty,
          found.avgPrice,
          at,
          id,
        );
        yield* insertEvent(
          id,
          kind,
          { status: found.status, exchangeOrderId: found.exchangeOrderId, filledQty: found.filledQty, avgPrice: found.avgPrice },
          "bot",
          at,
        );
        return yield* mustOrder(id);
      })(),
    );
  }

  private setState(id: string, state: OrderState, kind: string, detail: Record<string, unknown>, lastError: string | null = null): Out<R, OrderRowLite> {
    const at = this.now();
    return this.tx(
      (function* () {
        yield* run(
          `UPDATE orders SET state = ?, last_error = coalesce(?, last_error), updated_at = ?, version = version + 1
           WHERE client_order_id = ?`,
          state,
          lastError,
          at,
          id,
        );
        yield* insertEvent(id, kind, detail, "bot", at);
        return yield* mustOrder(id);
      })(),
    );
  }

  private noteError(id: string, kind: "timeout" | "error", message: string, detail: Record<string, unknown>): Out<R, void> {
    const at = this.now();
    return this.tx(
      (function* () {
        yield* run(`UPDATE orders SET last_error = ?, updated_at = ?, version = version + 1 WHERE client_order_id = ?`, message, at, id);
        yield* insertEvent(id, kind, { ...detail, error: message }, "bot", at);
      })(),
    );
  }

  private countAttempt(id: string): Out<R, number> {
    const at = this.now();
    return this.tx(
      (function* () {
        yield* run(`UPDATE orders SET attempts = attempts + 1, updated_at = ?, version = version + 1 WHERE client_order_id = ?`, at, id);
        return (yield* mustOrder(id)).attempts;
      })(),
    );
  }

  /** A lookup that says: found (copied into the journal), absent (proved missing), or failed. */
  private async lookup(order: OrderRowLite): Promise<{ kind: "found"; order: OrderRowLite } | { kind: "absent" } | { kind: "failed"; error: string }> {
    try {
      const found = await this.exchange.findOrder({ symbol: order.symbol, clientOrderId: order.clientOrderId, placedAt: order.createdAt });
      if (found) return { kind: "found", order: await this.applyExchangeOrder(order.clientOrderId, found, "lookup_found") };
      return { kind: "absent" };
    } catch (error) {
      const message = `lookup failed: ${errorText(error)}`;
      await this.noteError(order.clientOrderId, "error", message, { during: "lookup" });
      return { kind: "failed", error: message };
    }
  }

  /**
   * Sends a decision at most once. Before every retry the id is looked up; when the exchange still
   * cannot say whether it has the order after the last attempt, the order becomes `unknown` and the
   * breaker trips. A halted bot may only send reduce-only orders.
   */
  async sendOnce(decision: Decision, opts: { reduceOnly?: boolean } = {}): Promise<SendOutcome> {
    if (!opts.reduceOnly) {
      const breaker = await this.breaker();
      if (breaker.halted) throw new BreakerHaltedError(this.botId, breaker.reason);
    }
    const { order: intent, inserted } = await this.recordIntent(decision);
    // Only a fresh intent, or an order a lookup proved absent, may be sent. Anything else is
    // already on its way, settled, or doubtful: sending again would be the blind retry.
    if (!inserted && intent.state !== "absent" && intent.state !== "created") return { kind: "existing", order: intent };
    if (!inserted && intent.state === "created") {
      // A previous run died between the intent and the send (or during it): ask first.
      const first = await this.lookup(intent);
      if (first.kind === "found") return { kind: "placed", order: first.order };
      if (first.kind === "failed") return this.declareUnknown(intent.clientOrderId, first.error);
      await this.event(intent.clientOrderId, "lookup_absent", { during: "resume" });
    }
    const id = intent.clientOrderId;
    let lastError = "no attempt made";
    /** The last send's own failure: the reason of an unknown order starts with it. */
    let sendError: string | null = null;
    for (let attempt = 0; attempt < this.retry.attempts; attempt++) {
      if (attempt > 0) {
        await this.sleep(this.retry.backoffMs * 2 ** (attempt - 1));
        const looked = await this.lookup(await this.mustOrder(id));
        if (looked.kind === "found") return { kind: "placed", order: looked.order };
        if (looked.kind === "failed") {
          lastError = looked.error;
          continue; // cannot tell: never send on top of a doubt
        }
        await this.event(id, "lookup_absent", { during: "retry", attempt });
      }
      const n = await this.countAttempt(id);
      try {
        const reply = await this.exchange.createOrder({
          clientOrderId: id,
          symbol: decision.symbol,
          side: decision.side,
          qty: decision.qty,
          reduceOnly: opts.reduceOnly ?? false,
        });
        return { kind: "placed", order: await this.applyExchangeOrder(id, reply, "send") };
      } catch (error) {
        if (error instanceof OrderRejectedError) {
          const order = await this.setState(id, "rejected", "status", { status: "rejected", reason: error.reason, attempt: n }, error.message);
          return { kind: "rejected", order, reason: error.reason };
        }
        lastError = errorText(error);
        sendError = lastError;
        if (error instanceof SendTimeoutError) await this.noteError(id, "timeout", lastError, { attempt: n });
        else if (error instanceof DuplicateClientOrderIdError) await this.noteError(id, "error", lastError, { attempt: n, duplicate: true });
        else if (error instanceof RateLimitError) await this.noteError(id, "error", lastError, { attempt: n, rateLimited: true });
        else await this.noteError(id, "error", lastError, { attempt: n });
      }
    }
    const last = await this.lookup(await this.mustOrder(id));
    if (last.kind === "found") return { kind: "placed", order: last.order };
    return this.declareUnknown(id, unknownWhy(sendError, last.kind === "failed" ? last.error : lastError));
  }

  private async declareUnknown(id: string, why: string): Promise<SendOutcome> {
    const order = await this.setState(id, "unknown", "status", { status: "unknown", why }, why);
    await this.trip(`order ${id} unknown: ${why}`);
    this.alert({ kind: "unknown_order", message: `order ${id} is unknown after ${order.attempts} attempt(s): ${why}` });
    return { kind: "unknown", order };
  }

  /** Asks the exchange about one order and copies the answer; used by recovery and by polling. */
  async refresh(id: string): Promise<OrderRowLite> {
    const order = await this.mustOrder(id);
    const looked = await this.lookup(order);
    if (looked.kind === "found") return looked.order;
    if (looked.kind === "absent") return await this.setState(id, "absent", "lookup_absent", { during: "refresh" });
    return await this.mustOrder(id);
  }

  /**
   * At startup: every non-settled order of this bot is looked up. Found: its status is copied.
   * Proved missing: `absent` (resendable with the same id). Lookup failed: `unknown`, and the
   * breaker trips, because nobody knows what the exchange holds.
   */
  async recover(): Promise<RecoveryReport> {
    const pending = await this.unsettledOrders();
    const report: RecoveryReport = { checked: pending.length, found: [], absent: [], unknown: [] };
    for (const order of pending) {
      const looked = await this.lookup(order);
      if (looked.kind === "found") report.found.push(order.clientOrderId);
      else if (looked.kind === "absent") {
        await this.setState(order.clientOrderId, "absent", "lookup_absent", { during: "recovery" });
        report.absent.push(order.clientOrderId);
      } else {
        if (order.state !== "unknown") await this.setState(order.clientOrderId, "unknown", "status", { status: "unknown", why: looked.error }, looked.error);
        report.unknown.push(order.clientOrderId);
      }
    }
    if (report.unknown.length > 0) {
      await this.trip(`${report.unknown.length} order(s) unknown after startup recovery: ${report.unknown.join(", ")}`);
      this.alert({ kind: "unknown_order", message: `startup recovery could not settle ${report.unknown.join(", ")}` });
    }
    return report;
  }

  /**
   * This bot's orders that are not settled (live, doubtful or not yet sent), oldest first: what a
   * bot polls every cycle. Reads the partial index of unsettled orders, so it costs what is open,
   * never the whole history.
   */
  unsettledOrders(): Out<R, OrderRowLite[]> {
    return this.one(all<OrderRowLite>(PER_CYCLE_SQL.unsettledOrders, this.botId));
  }

  // --- books and reconciliation -----------------------------------------------------------------

  /**
   * The bot's own book: the fills of its strategies' orders (reconcile closes excluded), plus every
   * book correction an operator wrote for this bot (docs/journal.md, "Book corrections"). Read from
   * the journal each time, so a correction counts from the bot's next cycle on.
   */
  book(): Out<R, Map<string, number>> {
    const botId = this.botId;
    return this.one(
      (function* () {
        // The subquery's alias: PostgreSQL (before 16) refuses a FROM subquery without one.
        const rows = yield* all<{ symbol: string; size: number }>(
          `SELECT symbol, sum(size) AS size FROM (
             SELECT symbol, CASE side WHEN 'buy' THEN filled_qty ELSE -filled_qty END AS size
               FROM orders WHERE bot_id = ? AND strategy <> '${RECONCILE_STRATEGY}'
             UNION ALL
             SELECT symbol, delta AS size FROM book_corrections WHERE bot_id = ?
           ) AS fills GROUP BY symbol`,
          botId,
          botId,
        );
        return new Map(rows.map((r) => [r.symbol, r.size]));
      })(),
    );
  }

  ordersInFlight(): Out<R, number> {
    const botId = this.botId;
    return this.one(
      (function* () {
        const row = yield* get<{ n: number }>(PER_CYCLE_SQL.ordersInFlight, botId);
        return row?.n ?? 0;
      })(),
    );
  }

  private stepFor(symbol: string): number {
    return this.opts.qtyStepFor(symbol) ?? this.opts.unknownSymbolQtyStep ?? 1e-8;
  }

  private insertReconciliation(at: string, outcome: string, inFlight: number, error: string | null): JournalTx<number> {
    return insertId(
      `INSERT INTO reconciliations (bot_id, at, outcome, orders_in_flight, error) VALUES (?, ?, ?, ?, ?)`,
      this.botId,
      at,
      outcome,
      inFlight,
      error,
    );
  }

  /**
   * One reconciliation cycle. Skipped while orders are in flight (fills still settling would look
   * like drift). Otherwise both books are written, and each drift acts: an unknown position has its
   * symbol's orders canceled and is closed reduce-only, unless an order of the bot on that symbol is
   * unknown; any drift trips the breaker and alerts.
   */
  async reconcile(opts: { symbols?: readonly string[] } = {}): Promise<ReconcileReport> {
    const at = this.now();
    const inFlight = await this.ordersInFlight();
    if (inFlight > 0) {
      const reconciliationId = await this.tx(this.insertReconciliation(at, "skipped", inFlight, null));
      return { outcome: "skipped", reconciliationId, ordersInFlight: inFlight };
    }
    let positions;
    try {
      positions = await this.exchange.fetchPositions();
    } catch (error) {
      const message = `fetch positions failed: ${errorText(error)}`;
      const reconciliationId = await this.tx(this.insertReconciliation(at, "error", 0, message));
      this.alert({ kind: "reconciliation_error", message });
      return { outcome: "error", reconciliationId, error: message };
    }
    const ours = await this.book();
    for (const symbol of opts.symbols ?? []) if (!ours.has(symbol)) ours.set(symbol, 0);
    const theirs = new Map(positions.map((p) => [p.symbol, p.size]));
    const marks = new Map(positions.map((p) => [p.symbol, p.markPrice]));
    // A symbol the exchange holds flat has no position, so no mark from fetchPositions; without one
    // the bot's side of an unknown or shrunk position has no value on the console. Ask for it.
    const unpriced = [...new Set([...ours.keys(), ...theirs.keys()])].filter((s) => marks.get(s) == null);
    if (unpriced.length > 0) {
      try {
        for (const [symbol, mark] of await this.exchange.fetchMarkPrices(unpriced)) marks.set(symbol, mark);
      } catch (error) {
        // A missing mark costs the console a value, not the cycle its comparison.
        this.alert({ kind: "reconciliation_error", message: `fetch mark prices failed: ${errorText(error)}` });
      }
    }
    const lines = diffBooks({ ours, theirs, specFor: (s) => ({ qtyStep: this.stepFor(s), markPrice: marks.get(s) ?? null }) });
    const drifts = lines.filter((l) => l.drift !== "none");
    const outcome = drifts.length > 0 ? "drift" : "clean";
    const cycle = this.insertReconciliation(at, outcome, 0, null);
    const reconciliationId = await this.tx(
      (function* () {
        const rid = yield* cycle;
        for (const l of lines)
          yield* run(
            `INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, ?, ?)`,
            rid,
            l.symbol,
            l.ours,
            l.theirs,
            l.qtyStep,
            l.markPrice ?? null,
          );
        return rid;
      })(),
    );
    // A symbol with an order of ours in doubt: the "unknown" position may be that very order, filled
    // while its reply was lost. Closing it would sell what the bot bought, and once a lookup settles
    // the order the book would drift the other way. Trip and leave it to a person (or the lookup).
    const doubtful = new Map((await this.unsettledOrders()).filter((o) => o.state === "unknown").map((o) => [o.symbol, o.clientOrderId]));
    let tripped = false;
    for (const d of drifts) {
      const inDoubt = doubtful.get(d.symbol);
      if (d.drift === "unknown_position" && inDoubt !== undefined) {
        const reason = `position ${d.symbol} ${signed(d.theirs)} the book does not hold, while order ${inDoubt} on it is unknown: not closed`;
        tripped = (await this.trip(reason, reconciliationId)) || tripped;
        this.alert({ kind: "unknown_position", message: reason, drift: d });
      } else if (d.drift === "unknown_position") {
        await this.flatten(d, at);
        const reason = `unknown position ${d.symbol} ${signed(d.theirs)}`;
        tripped = (await this.trip(reason, reconciliationId)) || tripped;
        this.alert({ kind: "unknown_position", message: reason, drift: d });
      } else {
        const reason = `size drift ${d.symbol}: book ${signed(d.ours)} vs exchange ${signed(d.theirs)}`;
        tripped = (await this.trip(reason, reconciliationId)) || tripped;
        this.alert({ kind: "size_drift", message: reason, drift: d });
      }
    }
    return { outcome, reconciliationId, lines, tripped };
  }

  /** Cancel the symbol's orders, then close the position the bot never opened, reduce-only. */
  private async flatten(d: BookDiff, at: string): Promise<void> {
    try {
      await this.exchange.cancelAllOrders(d.symbol);
    } catch (error) {
      this.alert({ kind: "unknown_position", message: `cancel orders on ${d.symbol} failed: ${errorText(error)}`, drift: d });
    }
    const decision: Decision = {
      strategy: RECONCILE_STRATEGY,
      symbol: d.symbol,
      side: d.theirs > 0 ? "sell" : "buy",
      qty: Math.abs(d.theirs),
      bar: at,
    };
    const { order, inserted } = await this.recordIntent(decision);
    if (!inserted) return;
    const n = await this.countAttempt(order.clientOrderId);
    try {
      const reply = await this.exchange.closeReduceOnly({ clientOrderId: order.clientOrderId, symbol: d.symbol, size: d.theirs });
      await this.applyExchangeOrder(order.clientOrderId, reply, "send");
    } catch (error) {
      if (error instanceof OrderRejectedError) {
        await this.setState(order.clientOrderId, "rejected", "status", { status: "rejected", reason: error.reason, attempt: n }, error.message);
      } else {
        // The close's fate is unknown: the breaker is tripping anyway; say so on the order.
        await this.setState(order.clientOrderId, "unknown", "timeout", { attempt: n, error: errorText(error) }, errorText(error));
      }
    }
  }

  private alert(a: Omit<Alert, "botId" | "at">): void {
    this.opts.onAlert?.({ botId: this.botId, at: this.now(), ...a });
  }
}

function selectOrder(id: string): JournalTx<OrderRowLite | undefined> {
  return get<OrderRowLite>(`SELECT ${ORDER_COLUMNS} FROM orders WHERE client_order_id = ?`, id);
}

function* mustOrder(id: string): JournalTx<OrderRowLite> {
  const row = yield* selectOrder(id);
  if (!row) throw new Error(`order ${id} vanished from the journal`);
  return row;
}

function insertEvent(id: string, kind: string, detail: Record<string, unknown>, actor: Actor, at: string): JournalTx<number> {
  return run(`INSERT INTO order_events (client_order_id, at, kind, actor, detail) VALUES (?, ?, ?, ?, ?)`, id, at, kind, actor, JSON.stringify(detail));
}

/** The TypeScript bots' writer on a SQLite journal (openJournalWriter): every call synchronous but the exchange's. */
export class JournalWriter extends JournalWriterCore<"sync"> {
  constructor(opts: JournalWriterOptions) {
    super(sqliteEngine(opts.db), opts);
  }
}

function signed(n: number): string {
  return n > 0 ? `+${n}` : String(n);
}
