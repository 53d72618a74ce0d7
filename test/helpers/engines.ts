/**
 * The same writer tests on both engines: a real SQLite file migrated from drizzle/, and a real
 * PostgreSQL database migrated from drizzle/pg on the file's own server (test/helpers/postgres.ts,
 * one server per test file; each test gets a fresh database copied from a migrated template).
 * Where PostgreSQL's binaries are missing outside CI, only SQLite runs and postgres.ts says so loudly.
 */
import pg from "pg";
import { afterAll, beforeAll } from "vitest";
import { migratePgJournal } from "@/lib/db/pg-journal";
import { numberPlaceholders, openPgJournal, PG_JOURNAL_TYPES, PgJournalWriter } from "@/lib/bot/pg-journal-writer";
import { JournalWriter, type Alert, type JournalWriterOptions } from "@/lib/bot/journal-writer";
import { SimExchange } from "@/lib/exchange/simulator";
import { botOnSim, SYMBOLS } from "./bot";
import { postgresAvailable, startPostgres, type PostgresServer } from "./postgres";

export type Engine = "sqlite" | "postgresql";

/** Both engines, or SQLite alone where PostgreSQL's binaries are missing (never in CI: postgres.ts throws there). */
export const ENGINES: readonly Engine[] = postgresAvailable ? ["sqlite", "postgresql"] : ["sqlite"];

export interface PgJournals {
  server: () => PostgresServer;
  /** A new, empty, migrated journal database: its connection string. */
  fresh: () => Promise<string>;
  /** A new database with no schema at all (for a writer's own migrate). */
  empty: () => Promise<string>;
  /** Every row of each query, bigint read as a number (as better-sqlite3 reads SQLite's integers). */
  rows: (url: string, queries: readonly string[]) => Promise<Record<string, unknown[]>>;
}

/** One PostgreSQL server for this test file, started in beforeAll and stopped in afterAll. */
export function pgJournalsForFile(label: string): PgJournals {
  let server: PostgresServer | undefined;
  let n = 0;
  const admin = async <T>(fn: (c: pg.Client) => Promise<T>, database = "postgres"): Promise<T> => {
    const c = new pg.Client({ connectionString: server!.url.replace(/\/postgres$/, `/${database}`) });
    await c.connect();
    try {
      return await fn(c);
    } finally {
      await c.end();
    }
  };
  beforeAll(async () => {
    if (!postgresAvailable) return;
    server = await startPostgres({ label });
    console.log(`PostgreSQL initdb + start (${label}): ${server.startMs.toFixed(0)} ms`);
    await admin((c) => c.query("CREATE DATABASE journal_template"));
    await admin((c) => migratePgJournal(c), "journal_template");
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });
  return {
    server: () => server!,
    fresh: async () => {
      const name = `journal_${++n}`;
      await admin((c) => c.query(`CREATE DATABASE ${name} TEMPLATE journal_template`));
      return server!.url.replace(/\/postgres$/, `/${name}`);
    },
    empty: async () => {
      const name = `empty_${++n}`;
      await admin((c) => c.query(`CREATE DATABASE ${name}`));
      return server!.url.replace(/\/postgres$/, `/${name}`);
    },
    rows: async (url, queries) => {
      const c = new pg.Client({ connectionString: url, types: PG_JOURNAL_TYPES });
      await c.connect();
      try {
        const out: Record<string, unknown[]> = {};
        for (const q of queries) out[q] = (await c.query(q)).rows;
        return out;
      } finally {
        await c.end();
      }
    },
  };
}

type AnyWriter = JournalWriter | PgJournalWriter;

export interface BotOnEngine {
  engine: Engine;
  sim: SimExchange;
  writer: AnyWriter;
  alerts: Alert[];
  /** `?` placeholders on both engines. */
  rows: <T = Record<string, unknown>>(sql: string, ...params: unknown[]) => Promise<T[]>;
  /** A statement as another writer (the console) would run it. */
  exec: (sql: string, ...params: unknown[]) => Promise<void>;
  close: () => Promise<void>;
}

/** test/helpers/bot.ts's botOnSim on either engine: the same simulator, clock, retry and alerts. */
export async function botOn(
  engine: Engine,
  journals: PgJournals,
  opts: { seed?: number; botId?: string; prefix?: string; writer?: Partial<Omit<JournalWriterOptions, "db">> } = {},
): Promise<BotOnEngine> {
  if (engine === "sqlite") {
    const b = botOnSim(opts);
    return {
      engine,
      sim: b.sim,
      writer: b.writer,
      alerts: b.alerts,
      rows: async <T>(sql: string, ...params: unknown[]) => b.rows<T>(sql, ...params),
      exec: async (sql, ...params) => {
        b.db.prepare(sql).run(...params);
      },
      close: async () => b.close(),
    };
  }
  const url = await journals.fresh();
  const pool = await openPgJournal(url);
  const sim = new SimExchange({ seed: opts.seed ?? 7, symbols: SYMBOLS, startAt: new Date("2026-08-10T15:30:00.000Z") });
  const alerts: Alert[] = [];
  const steps = new Map(SYMBOLS.map((s) => [s.symbol, s.qtyStep]));
  const writer = new PgJournalWriter({
    pool,
    botId: opts.botId ?? "bot-a",
    prefix: opts.prefix ?? "q500",
    exchange: sim,
    qtyStepFor: (s) => steps.get(s),
    clock: () => sim.now(),
    sleep: async (ms) => sim.advance(ms),
    retry: { attempts: 3, backoffMs: 500 },
    onAlert: (a) => alerts.push(a),
    ...opts.writer,
  });
  await writer.register();
  return {
    engine,
    sim,
    writer,
    alerts,
    rows: async <T>(sql: string, ...params: unknown[]) => (await pool.query(numberPlaceholders(sql), params)).rows as T[],
    exec: async (sql, ...params) => {
      await pool.query(numberPlaceholders(sql), params);
    },
    close: () => pool.end(),
  };
}
