/**
 * The one way the screens' loaders run SQL, whatever the engine: `q.all(sql, params)` and
 * `q.get(sql, params)`, both awaited. SQL is written once with SQLite's `?` placeholders; a
 * PostgreSQL query translates them to `$1…$n` once per text (kept, like SQLite's prepared
 * statements), and quotes its camelCase aliases (`AS botId` → `AS "botId"`: PostgreSQL folds an
 * unquoted name to lower case). Where the two engines differ (a JSON builder, GLOB), the loader asks `q.dialect`
 * for the fragment (lib/db/dialect.ts): never a second copy of a whole query.
 *
 * On SQLite the query is the connection's cached prepared statement (lib/db/statements.ts), run
 * synchronously as before; only the answer is handed over through a resolved promise, so the
 * SQLite path keeps its cost (bench rows in docs/performance.md).
 */
import type Database from "better-sqlite3";
import type { Pool, PoolClient } from "pg";
import type { JournalDb } from "./console";
import { connectionOf, statement } from "./statements";

export type Dialect = "sqlite" | "postgres";

export interface JournalQuery {
  readonly dialect: Dialect;
  /** Stands for the connection: per-connection memory (heartbeat motion) is keyed by it. */
  readonly key: object;
  all<T>(sql: string, params?: readonly unknown[]): Promise<T[]>;
  get<T>(sql: string, params?: readonly unknown[]): Promise<T | undefined>;
  /** Every row as an array of its columns in SELECT order (SQLite's raw mode, node-postgres's rowMode "array"). */
  arrays<T extends unknown[]>(sql: string, params?: readonly unknown[]): Promise<T[]>;
}

class SqliteQuery implements JournalQuery {
  readonly dialect = "sqlite" as const;
  constructor(readonly key: Database.Database) {}
  all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return settle(() => this.prepared(sql, false).all(...params) as T[]);
  }
  get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return settle(() => this.prepared(sql, false).get(...params) as T | undefined);
  }
  arrays<T extends unknown[]>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    return settle(() => this.prepared(sql, true).all(...params) as T[]);
  }
  /** The connection's cached statement for this text, shared with raw reads of the same text: its mode is set on every use. */
  private prepared(sql: string, raw: boolean) {
    return statement(this.key, sql).pluck(false).raw(raw);
  }
}

/** A synchronous read as the promise the async engines answer with: a thrown error is a rejection, never a throw. */
function settle<T>(read: () => T): Promise<T> {
  try {
    return Promise.resolve(read());
  } catch (error) {
    return Promise.reject(error);
  }
}

const sqliteQueries = new WeakMap<Database.Database, SqliteQuery>();

/** The query handle of a SQLite connection (a read handle, or the guard's write connection), or a handle as it is. */
export function queryOf(db: JournalDb | Database.Database | JournalQuery): JournalQuery {
  if ("dialect" in db && "all" in db && typeof (db as JournalQuery).get === "function" && "key" in db) return db as JournalQuery;
  const sqlite = connectionOf(db as JournalDb | Database.Database);
  let q = sqliteQueries.get(sqlite);
  if (!q) sqliteQueries.set(sqlite, (q = new SqliteQuery(sqlite)));
  return q;
}

const translated = new Map<string, string>();

/** `?` → `$1…$n` outside quoted strings and identifiers, and camelCase aliases quoted. Exported for its unit test. */
export function toPgPlaceholders(sql: string): string {
  let out = translated.get(sql);
  if (out !== undefined) return out;
  let n = 0;
  let quote: string | null = null;
  out = "";
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
      out += ch;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
      out += ch;
    } else if (ch === "?") out += `$${++n}`;
    else out += ch;
  }
  out = out.replace(/\bAS\s+([a-z][a-z0-9]*[A-Z][A-Za-z0-9]*)\b/g, 'AS "$1"');
  if (translated.size > 5_000) translated.clear();
  translated.set(sql, out);
  return out;
}

/** A PostgreSQL query handle over a pool (or one checked-out client, for a transaction). */
export class PgQuery implements JournalQuery {
  readonly dialect = "postgres" as const;
  constructor(
    readonly key: Pool | PoolClient,
    private readonly onError?: (error: unknown) => void,
  ) {}
  async all<T>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      const result = await this.key.query({ text: toPgPlaceholders(sql), values: params as unknown[] });
      return result.rows as T[];
    } catch (error) {
      this.onError?.(error);
      throw error;
    }
  }
  async arrays<T extends unknown[]>(sql: string, params: readonly unknown[] = []): Promise<T[]> {
    try {
      const result = await this.key.query({ text: toPgPlaceholders(sql), values: params as unknown[], rowMode: "array" });
      return result.rows as T[];
    } catch (error) {
      this.onError?.(error);
      throw error;
    }
  }
  async get<T>(sql: string, params: readonly unknown[] = []): Promise<T | undefined> {
    return (await this.all<T>(sql, params))[0];
  }
}
