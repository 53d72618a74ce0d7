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
 *
 * When PostgreSQL cannot be reached the attempt is counted in this process's memory instead (the
 * in-memory store, with a log line at most once a minute): sign-in stays open to the on-call
 * person, still under delays, only no longer shared until the database answers again.
 */
import pg from "pg";
import { LOGIN_LIMIT, LoginRateLimiter, waitBefore, type Admission, type Attempt, type RateLimitOptions, type SignInLimiter } from "./rate-limit";

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
  private readonly local: LoginRateLimiter;
  /** Attempts admitted by the in-memory fallback: forgiven there. */
  private readonly admittedLocally = new WeakSet<Attempt>();
  private lastComplaint = -Infinity;

  constructor(
    private readonly pool: pg.Pool,
    private readonly opts: RateLimitOptions = LOGIN_LIMIT,
    private readonly log: (line: string) => void = (line) => console.error(line),
  ) {
    this.local = new LoginRateLimiter(opts);
  }

  private complain(error: unknown): void {
    const now = Date.now();
    if (now - this.lastComplaint < 60_000) return;
    this.lastComplaint = now;
    this.log(
      `driftwatch: the shared sign-in limiter (DRIFTWATCH_LIMITER_URL) cannot be reached (${(error as Error).message}); counting failed sign-ins in this process until it answers`,
    );
  }

  async begin(keys: readonly string[], now: number = Date.now()): Promise<Admission> {
    try {
      return await this.beginShared(keys, now);
    } catch (error) {
      this.complain(error);
      const admission = this.local.begin(keys, now);
      if (admission.ok) this.admittedLocally.add(admission.attempt);
      return admission;
    }
  }

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

  private async beginShared(keys: readonly string[], now: number): Promise<Admission> {
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
    if (this.admittedLocally.has(attempt)) return this.local.succeed(attempt);
    try {
      await this.forgive(attempt);
    } catch (error) {
      // The sign-in itself succeeded; an unforgiven failure only ages out.
      this.complain(error);
    }
  }

  private async forgive(attempt: Attempt): Promise<void> {
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
  // A database that does not answer within 3 s is treated as unreachable: the sign-in falls back to memory.
  const pool = new pg.Pool({ connectionString: url, max: 4, connectionTimeoutMillis: 3_000 });
  // An idle connection dropped by the server must not take the console down; the next query reconnects.
  pool.on("error", (error) => console.error(`driftwatch: the sign-in limiter's PostgreSQL connection failed: ${error.message}`));
  return new PgLoginRateLimiter(pool);
}
