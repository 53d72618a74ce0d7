// No "server-only": the bots' library on PostgreSQL (the demo and soak bots run it with tsx).
/**
 * The journal writer on a PostgreSQL journal (docs/journal.md, "PostgreSQL"): the same statements,
 * transactions and order as the SQLite JournalWriter (lib/bot/journal-writer.ts holds them once, as
 * generators of statements), driven by node-postgres instead of better-sqlite3. Differences, all of
 * them in this file:
 *
 * - every call that touches the journal returns a promise (the exchange's calls already did);
 * - a transaction is `BEGIN` … `COMMIT` on one pooled connection, READ COMMITTED: each write the
 *   writer makes is an upsert, an `INSERT … ON CONFLICT DO NOTHING`, or an `UPDATE … WHERE` that
 *   the row lock re-checks, so none needs SQLite's BEGIN IMMEDIATE to be right beside a second
 *   writer; COMMIT returns once the commit is durable (synchronous_commit on, the default), so the
 *   intent is committed before the send, as on SQLite;
 * - `?` placeholders are numbered `$1`, `$2`…; an inserted reconciliation's id comes back through
 *   `RETURNING id` (the column is an identity: the writer never names ids);
 * - bigint columns are read as JavaScript numbers (as better-sqlite3 reads SQLite's integers);
 * - a row lock is waited for BUSY_TIMEOUT_MS (lock_timeout), as SQLite's busy timeout.
 *
 * A bot never writes `audit_log`, so it never takes the audit chain's advisory lock.
 */
import pg from "pg";
import { BUSY_TIMEOUT_MS, JournalError, latestSchemaVersion } from "../db/journal-file";
import { pgSchemaState } from "../db/pg-journal";
import { JournalWriterCore, type JournalEngine, type JournalStep, type JournalTx, type JournalWriterOptions } from "./journal-writer";

/** `?` outside quotes and comments to `$1`, `$2`…: the writer's statements hold no `?` of their own. */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  let out = "";
  let quote: string | null = null;
  for (const ch of sql) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === "?") {
      out += `$${++n}`;
      continue;
    }
    out += ch;
  }
  return out;
}

const INT8_OID = 20;

/** node-postgres settings for a journal: bigint as a number, as better-sqlite3 reads SQLite's integers. */
export const PG_JOURNAL_TYPES = {
  getTypeParser: (oid: number, format?: "text" | "binary") => (oid === INT8_OID ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as "text")),
} as pg.CustomTypesConfig;

const sqlCache = new Map<string, string>();

function pgSql(step: JournalStep): string {
  const key = step.want === "id" ? `id:${step.sql}` : step.sql;
  let sql = sqlCache.get(key);
  if (sql === undefined) {
    sql = numberPlaceholders(step.sql) + (step.want === "id" ? " RETURNING id" : "");
    sqlCache.set(key, sql);
  }
  return sql;
}

/** node-postgres: a transaction on one pooled connection, rolled back if any statement throws. */
export function pgEngine(pool: pg.Pool): JournalEngine<"async"> {
  return {
    async exec<T>(tx: JournalTx<T>, opts: { transaction: boolean }): Promise<T> {
      const client = await pool.connect();
      let open = false;
      let failed: Error | undefined;
      try {
        if (opts.transaction) {
          await client.query("BEGIN");
          open = true;
        }
        let step = tx.next();
        while (!step.done) {
          const r = await client.query(pgSql(step.value), step.value.params);
          const want = step.value.want;
          const out = want === "run" ? (r.rowCount ?? 0) : want === "get" ? r.rows[0] : want === "all" ? r.rows : Number((r.rows[0] as { id: number }).id);
          step = tx.next(out);
        }
        if (open) {
          open = false;
          await client.query("COMMIT");
        }
        return step.value;
      } catch (error) {
        failed = error instanceof Error ? error : new Error(String(error));
        if (open) await client.query("ROLLBACK").catch(() => undefined);
        throw error;
      } finally {
        // After an error the connection is dropped, not pooled: it may be the connection that broke
        // (a restart, a failover), and the next call must get a live one.
        client.release(failed);
      }
    },
  } as JournalEngine<"async">;
}

/** Shown instead of the password in errors. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = "***";
    return u.toString();
  } catch {
    return "(unparsable PostgreSQL URL)";
  }
}

/**
 * A pool on a PostgreSQL journal for one bot process, checked first: the schema must be the
 * contract version this driftwatch writes (journal_schema.version), else a JournalError (no_schema,
 * older_schema, future_schema, unreadable) naming the database and the fix.
 */
export async function openPgJournal(url: string, opts: { max?: number } = {}): Promise<pg.Pool> {
  const where = redactUrl(url);
  // lock_timeout: a row another writer holds (the console clearing this bot's breaker) is waited
  // for as long as SQLite's busy timeout, then the call fails (SQLSTATE 55P03) instead of hanging.
  const pool = new pg.Pool({ connectionString: url, max: opts.max ?? 4, types: PG_JOURNAL_TYPES, lock_timeout: BUSY_TIMEOUT_MS });
  // An idle connection the server drops (a restart, a failover, an administrator) is removed from
  // the pool, and the next call opens a new one; without a listener node would crash the bot on it.
  pool.on("error", () => undefined);
  const want = latestSchemaVersion();
  const migrate = `run "npm run journal -- migrate" for PostgreSQL (lib/db/pg-journal.ts, or driftwatch_journal.migrate in Python) on ${where}`;
  try {
    const client = await pool.connect();
    let state;
    try {
      state = await pgSchemaState(client);
    } finally {
      client.release();
    }
    if (state.version === 0) throw new JournalError("no_schema", where, "has no journal schema (no journal_schema row)", migrate);
    if (state.version > want)
      throw new JournalError("future_schema", where, `has schema version ${state.version}, newer than this driftwatch knows (${want})`, "upgrade driftwatch");
    if (state.version < want) throw new JournalError("older_schema", where, `has schema version ${state.version}; this driftwatch needs ${want}`, migrate);
    return pool;
  } catch (error) {
    await pool.end().catch(() => undefined);
    if (error instanceof JournalError) throw error;
    throw new JournalError(
      "unreadable",
      where,
      `cannot be reached or read (${error instanceof Error ? error.message : String(error)})`,
      "check the URL, the server, and the user's rights",
    );
  }
}

/** The TypeScript bots' writer on a PostgreSQL journal (openPgJournal): every call async. */
export class PgJournalWriter extends JournalWriterCore<"async"> {
  readonly pool: pg.Pool;
  constructor(opts: Omit<JournalWriterOptions, "db"> & { pool: pg.Pool }) {
    super(pgEngine(opts.pool), opts);
    this.pool = opts.pool;
  }
}
