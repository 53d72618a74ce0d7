/**
 * A PostgreSQL journal for a test: a fresh database on the file's server (test/helpers/postgres.ts),
 * migrated from drizzle/pg, with a pool the guard takes its connections from. And the same rows
 * written into a SQLite journal and a PostgreSQL one, so a test can run an action on both engines
 * and compare what each did.
 */
import type Database from "better-sqlite3";
import pg from "pg";
import { migratePgJournal } from "@/lib/db/pg-journal";
import type { PostgresServer } from "./postgres";

let databases = 0;

/** A new, migrated journal database on `server`, and a pool on it (close it with `pool.end()`). */
export async function freshPgJournal(server: PostgresServer, label = "journal"): Promise<{ pool: pg.Pool; url: string; name: string }> {
  const name = `${label.replace(/\W/g, "_")}_${process.pid}_${++databases}`;
  const admin = new pg.Client({ connectionString: server.url });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = server.url.replace(/\/postgres$/, `/${name}`);
  const pool = quietPool(url);
  const client = await pool.connect();
  try {
    await migratePgJournal(client);
  } finally {
    client.release();
  }
  return { pool, url, name };
}

/**
 * A pool whose idle connections may be cut by the server's own stop at the end of a file: the pool
 * re-emits such a client's error, and a pool with no listener throws it as an uncaught exception
 * (57P01, "terminating connection due to administrator command"), which failed a whole run.
 */
export function quietPool(url: string, config: Omit<pg.PoolConfig, "connectionString"> = { max: 4 }): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, ...config });
  pool.on("error", () => undefined);
  return pool;
}

/** One statement with `?` placeholders, run on either engine. */
export type Exec = (sql: string, params?: unknown[]) => Promise<void>;

export const sqliteExec =
  (db: Database.Database): Exec =>
  async (sql, params = []) => {
    db.prepare(sql).run(...params);
  };

export const pgExec =
  (pool: pg.Pool): Exec =>
  async (sql, params = []) => {
    let n = 0;
    await pool.query(
      sql.replace(/\?/g, () => `$${++n}`),
      params,
    );
  };

export interface SeedBot {
  botId: string;
  heartbeatAt: string | null;
  breaker: { halted: boolean; reason: string | null; changedAt: string; changedBy: string; version: number } | null;
}
export interface SeedCycle {
  id: number;
  botId: string;
  at: string;
  outcome: "clean" | "drift" | "skipped" | "error";
  lines: { symbol: string; ours: number; theirs: number; qtyStep: number; markPrice?: number | null }[];
}
export interface SeedOrder {
  clientOrderId: string;
  botId: string;
  symbol: string;
  qty: number;
  state: string;
  filledQty?: number;
  createdAt: string;
  updatedAt: string;
  version: number;
}

/** The same bots, breakers, cycles (the triggers fill latest_positions) and orders on either engine. */
export async function seedJournal(exec: Exec, world: { bots: SeedBot[]; cycles: SeedCycle[]; orders: SeedOrder[] }): Promise<void> {
  for (const b of world.bots) {
    await exec(`INSERT INTO bots (bot_id, exchange, client_id_prefix, heartbeat_at) VALUES (?, 'sim', ?, ?)`, [b.botId, `${b.botId}-`, b.heartbeatAt]);
    if (b.breaker) {
      await exec(`INSERT INTO breakers (bot_id, halted, reason, changed_at, changed_by, version) VALUES (?, ?, ?, ?, ?, ?)`, [
        b.botId,
        b.breaker.halted ? 1 : 0,
        b.breaker.reason,
        b.breaker.changedAt,
        b.breaker.changedBy,
        b.breaker.version,
      ]);
    }
  }
  for (const c of world.cycles) {
    await exec(`INSERT INTO reconciliations (id, bot_id, at, outcome) VALUES (?, ?, ?, ?)`, [c.id, c.botId, c.at, c.outcome]);
    for (const l of c.lines) {
      await exec(`INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES (?, ?, ?, ?, ?, ?)`, [
        c.id,
        l.symbol,
        l.ours,
        l.theirs,
        l.qtyStep,
        l.markPrice ?? null,
      ]);
    }
  }
  for (const o of world.orders) {
    await exec(
      `INSERT INTO orders (client_order_id, bot_id, strategy, symbol, side, qty, bar, state, filled_qty, created_at, updated_at, version) VALUES (?, ?, 'test', ?, 'buy', ?, ?, ?, ?, ?, ?, ?)`,
      [o.clientOrderId, o.botId, o.symbol, o.qty, o.createdAt, o.state, o.filledQty ?? 0, o.createdAt, o.updatedAt, o.version],
    );
  }
}

/** The tables an action writes besides the audit log, in a fixed order, for comparing engines or before and after. */
export const ACTION_TABLES = {
  breakers: "bot_id",
  breaker_events: "id",
  orders: "client_order_id",
  order_events: "id",
  drift_acknowledgements: "id",
  book_corrections: "id",
  clear_requests: "id",
} as const;

/** Every row of ACTION_TABLES on PostgreSQL, numbers as numbers. */
export async function pgTables(pool: pg.Pool): Promise<Record<string, unknown[]>> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(ACTION_TABLES)) {
    const rows = (await pool.query({ text: `SELECT * FROM ${table} ORDER BY ${order}`, types: { getTypeParser: int8 } })).rows;
    out[table] = rows.map((r) => ({ ...r }));
  }
  return out;
}

export function sqliteTables(db: Database.Database): Record<string, unknown[]> {
  const out: Record<string, unknown[]> = {};
  for (const [table, order] of Object.entries(ACTION_TABLES)) out[table] = db.prepare(`SELECT * FROM ${table} ORDER BY ${order}`).all() as unknown[];
  return out;
}

const int8 = ((oid: number, format?: "text" | "binary") =>
  oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format)) as pg.CustomTypesConfig["getTypeParser"];

export interface AuditRowOf {
  id: number;
  at: string;
  actor: string;
  action: string;
  target: string;
  outcome: string;
  code: string | null;
  detail: string;
  prev_hash: string;
  hash: string;
}

export async function pgAuditRows(pool: pg.Pool): Promise<AuditRowOf[]> {
  return (await pool.query<AuditRowOf>({ text: `SELECT * FROM audit_log ORDER BY id`, types: { getTypeParser: int8 } })).rows.map((r) => ({ ...r }));
}
