import "server-only";
/**
 * The sign-in limiter's counts in PostgreSQL, for several console processes behind a balancer
 * (DRIFTWATCH_LIMITER_URL): a guesser spreading attempts over them meets one count. Same rule as
 * the in-memory store (waitBefore, delayAfterFailures in lib/auth/rate-limit.ts).
 *
 * The table is the console's, not the bots' journal contract: schema `driftwatch_console`, created
 * here on first use (under an advisory lock, so two processes starting together do not race), one
 * row per key with its failure times (ms) still in the window. It may live in the journal's
 * database or any other; nothing of the journal is read.
 *
 * Atomic per attempt: one transaction upserts every key of the attempt (`INSERT … ON CONFLICT … DO
 * UPDATE … RETURNING`, keys in sorted order so two attempts never deadlock), which both prunes the
 * aged-out times and row-locks the keys until COMMIT; the decision is made on what it returned, and
 * the failure appended before COMMIT. Parallel guesses from any number of processes are therefore
 * counted one after another: the first few get through, the rest wait, as in one process.
 */
import pg from "pg";
import { LOGIN_LIMIT, waitBefore, type Admission, type Attempt, type RateLimitOptions, type SignInLimiter } from "./rate-limit";

const TABLE = "driftwatch_console.sign_in_failures";

const SCHEMA_SQL = [
  "SELECT pg_advisory_xact_lock(hashtext('driftwatch_console.schema'))",
  "CREATE SCHEMA IF NOT EXISTS driftwatch_console",
  `CREATE TABLE IF NOT EXISTS ${TABLE} (
     key text PRIMARY KEY,
     -- Failure times in ms since the epoch, oldest first, all within the window.
     failures bigint[] NOT NULL,
     last_at bigint NOT NULL
   )`,
  `CREATE INDEX IF NOT EXISTS sign_in_failures_last_at_idx ON ${TABLE} (last_at)`,
];

export class PgLoginRateLimiter implements SignInLimiter {
  private ready: Promise<void> | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: RateLimitOptions = LOGIN_LIMIT,
  ) {}

  /** Creates the console's schema and table if missing; retried on the next call after a failure. */
  ensureSchema(): Promise<void> {
    this.ready ??= this.inTransaction(async (c) => {
      for (const sql of SCHEMA_SQL) await c.query(sql);
    }).catch((error: unknown) => {
      this.ready = null;
      throw error;
    });
    return this.ready;
  }

  private async inTransaction<R>(body: (c: pg.PoolClient) => Promise<R>): Promise<R> {
    const client = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN");
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch((e: Error) => (broken = e));
      throw error;
    } finally {
      client.release(broken);
    }
  }

  async begin(keys: readonly string[], now: number = Date.now()): Promise<Admission> {
    await this.ensureSchema();
    const sorted = [...new Set(keys)].sort();
    const since = now - this.opts.windowMs;
    return this.inTransaction(async (c) => {
      // Keys nobody failed on within the window: gone, so spraying names cannot grow the table for long.
      await c.query(`DELETE FROM ${TABLE} WHERE last_at <= $1`, [since]);
      const rows = await c.query<{ failures: number[] }>(
        `INSERT INTO ${TABLE} AS o (key, failures, last_at)
           SELECT k, '{}', 0 FROM unnest($1::text[]) WITH ORDINALITY AS u(k, n) ORDER BY n
         ON CONFLICT (key) DO UPDATE SET failures = ARRAY(SELECT t FROM unnest(o.failures) AS t WHERE t > $2 ORDER BY t)
         RETURNING failures::float8[] AS failures`,
        [sorted, since],
      );
      const retryAfterMs = waitBefore(
        rows.rows.map((r) => r.failures),
        now,
        this.opts,
      );
      if (retryAfterMs > 0) return { ok: false, retryAfterMs };
      await c.query(`UPDATE ${TABLE} SET failures = failures || $2::bigint, last_at = greatest(last_at, $2::bigint) WHERE key = ANY($1::text[])`, [
        sorted,
        now,
      ]);
      return { ok: true, attempt: { keys, at: now } };
    });
  }

  /** The attempt succeeded: it no longer counts (one of its times removed from each key). */
  async succeed(attempt: Attempt): Promise<void> {
    await this.ensureSchema();
    await this.pool.query(
      `UPDATE ${TABLE} SET failures = failures[:array_position(failures, $2::bigint) - 1] || failures[array_position(failures, $2::bigint) + 1:]
       WHERE key = ANY($1::text[]) AND $2::bigint = ANY(failures)`,
      [[...new Set(attempt.keys)], attempt.at],
    );
  }

  failureCount = async (key: string, now: number = Date.now()): Promise<number> => {
    await this.ensureSchema();
    const r = await this.pool.query<{ n: number }>(
      `SELECT cardinality(ARRAY(SELECT t FROM unnest(failures) AS t WHERE t > $2))::int AS n FROM ${TABLE} WHERE key = $1`,
      [key, now - this.opts.windowMs],
    );
    return r.rows[0]?.n ?? 0;
  };
}

/** The shared limiter for a console configured with DRIFTWATCH_LIMITER_URL. */
export function pgLoginRateLimiter(url: string): PgLoginRateLimiter {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  // An idle connection dropped by the server must not take the console down; the next query reconnects.
  pool.on("error", (error) => console.error(`driftwatch: the sign-in limiter's PostgreSQL connection failed: ${error.message}`));
  return new PgLoginRateLimiter(pool);
}
