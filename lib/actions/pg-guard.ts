import "server-only";
/**
 * The guard on a PostgreSQL journal: the same steps as lib/actions/guard.ts (runGuardedOn: who,
 * input, slow work, then precondition + version + audit entry in one transaction; refusals
 * audited, never thrown), with this engine's transaction.
 *
 * Isolation: READ COMMITTED, and the transaction's first statement takes the audit log's advisory
 * lock (`pg_advisory_xact_lock(hashtext('driftwatch.audit_log'))`), the lock the chain trigger and
 * every audit writer take anyway. Every action writes an audit entry, so every console action on a
 * journal, from any number of console processes, runs one at a time, as BEGIN IMMEDIATE makes them
 * on SQLite; and since READ COMMITTED reads the latest committed rows at each statement, the
 * precondition read after the lock sees every action committed before it. The rows a precondition
 * rests on and that the bot also writes (its breaker, an order, a clear request) are read
 * `FOR UPDATE`, so a bot's concurrent update of that row waits for the action or the action for it,
 * and each write still says `WHERE version = <seen>` as on SQLite.
 *
 * Why not SERIALIZABLE: its snapshot is taken at the transaction's first statement, before the
 * audit lock is granted, so the second of two racing clears would read the breaker and the audit
 * chain as they were before the first committed; it then fails with a serialization error (or the
 * chain trigger's) and must be retried to be refused with the stale-version message. Row locks plus
 * the lock we must take anyway give the same outcome the first time, with no retry loop. Only a
 * deadlock with a bot's transaction (40P01) or a serialization failure (40001, should a database
 * default to a stricter isolation) is retried, twice, from the start of the transaction.
 *
 * A row a bot inserts after the precondition read it (a new order) is not locked by anything here;
 * the equivalent serial order is then "the action, then the bot's insert", which is what SQLite's
 * one-writer lock gives too when the bot writes just after the action.
 */
import { type ClientBase, type CustomTypesConfig, type Pool, type PoolClient, type QueryResultRow } from "pg";
import type { z } from "zod";
import { AUDIT_LOCK_SQL, appendAuditPg } from "../audit/pg-log";
import { toPgPlaceholders, type JournalQuery } from "../db/query";
import { JOURNAL_PG_TYPES } from "../db/pg-source";
import { runGuardedOn, type ActingUser, type ActionSpec, type GuardCommon, type GuardEngine } from "./guard";
import type { ActionResult } from "./result";

/** The statements an action runs inside its transaction; bigint columns come back as numbers. */
export interface PgTx {
  one: <R extends QueryResultRow>(sql: string, params?: unknown[]) => Promise<R | undefined>;
  all: <R extends QueryResultRow>(sql: string, params?: unknown[]) => Promise<R[]>;
  /** Returns the number of rows changed. */
  run: (sql: string, params?: unknown[]) => Promise<number>;
  /** The same connection as the screens' engine-neutral handle (lib/db/query.ts): their reads, written once, inside this transaction. */
  q: JournalQuery;
}

// Ids, versions and counts stay far below 2^53; node-postgres would hand them over as strings.
const types = JOURNAL_PG_TYPES as CustomTypesConfig;

/**
 * PostgreSQL text cannot hold a NUL byte, so no stored id has one: a posted id with one becomes an
 * id nothing matches (NUL as U+FFFD) and is refused as unknown, as on SQLite, rather than failing.
 */
const storable = (params: unknown[]) => params.map((p) => (typeof p === "string" && p.includes("\u0000") ? p.replaceAll("\u0000", "\uFFFD") : p));

export function pgTx(client: ClientBase): PgTx {
  const query = (sql: string, params: readonly unknown[], rowMode?: "array") =>
    client.query({ text: sql, values: storable([...params]), types, ...(rowMode ? { rowMode } : {}) });
  return {
    one: async (sql, params = []) => (await query(sql, params)).rows[0],
    all: async (sql, params = []) => (await query(sql, params)).rows,
    run: async (sql, params = []) => (await query(sql, params)).rowCount ?? 0,
    q: {
      dialect: "postgres",
      key: client,
      all: async <T>(sql: string, params: readonly unknown[] = []) => (await query(toPgPlaceholders(sql), params)).rows as T[],
      get: async <T>(sql: string, params: readonly unknown[] = []) => (await query(toPgPlaceholders(sql), params)).rows[0] as T | undefined,
      arrays: async <T extends unknown[]>(sql: string, params: readonly unknown[] = []) => (await query(toPgPlaceholders(sql), params, "array")).rows as T[],
    },
  };
}

export interface PgApplyContext<I, P> {
  tx: PgTx;
  input: I;
  prepared: P;
  actor: string;
  user: ActingUser;
  now: Date;
}

/** An action's spec with its PostgreSQL statements: schema, target, prepare and follow-up are the SQLite spec's own. */
export type PgActionSpec<S extends z.ZodType, P, T> = Omit<ActionSpec<S, P, T>, "apply"> & {
  applyPg: (ctx: PgApplyContext<z.infer<S>, P>) => Promise<{ data: T; detail: Record<string, unknown> }>;
};

/** The SQLite spec with its `apply` replaced by the PostgreSQL one. */
export function onPostgres<S extends z.ZodType, P, T>(spec: ActionSpec<S, P, T>, applyPg: PgActionSpec<S, P, T>["applyPg"]): PgActionSpec<S, P, T> {
  const { apply: _sqlite, ...shared } = spec;
  return { ...shared, applyPg };
}

export interface PgGuardEnv extends GuardCommon {
  /** The journal's database; one connection is taken per transaction. */
  pool: Pool;
  /** Signs the audit entries (lib/audit/key.ts). */
  auditKey: string;
  /** How long an action waits for a row or the audit lock held by someone else before giving up; 5 s by default. */
  lockTimeoutMs?: number;
}

const RETRYABLE = new Set(["40001", "40P01"]);
const ATTEMPTS = 3;

/** Runs `body` in one READ COMMITTED transaction holding the audit lock; retried on a deadlock or serialization failure. */
export async function inAuditedTransaction<R>(pool: Pool, lockTimeoutMs: number, body: (client: PoolClient) => Promise<R>): Promise<R> {
  for (let attempt = 1; ; attempt++) {
    const client = await pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN ISOLATION LEVEL READ COMMITTED");
      await client.query(`SET LOCAL lock_timeout = ${Math.max(1, Math.round(lockTimeoutMs))}`);
      await client.query(AUDIT_LOCK_SQL);
      const result = await body(client);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      try {
        await client.query("ROLLBACK");
      } catch (e) {
        broken = e as Error; // the connection is gone: do not hand it back to the pool
      }
      if (attempt < ATTEMPTS && RETRYABLE.has((error as { code?: string }).code ?? "")) continue;
      throw error;
    } finally {
      client.release(broken);
    }
  }
}

/**
 * When PostgreSQL itself stopped the write: what to tell the operator, and whether the refusal can
 * still be audited there (not when the server is unreachable, refuses us, lacks the schema, or is a
 * read-only standby).
 */
export function pgWriteFault(error: unknown): { message: string; auditable: boolean } | null {
  const e = error as { code?: string; message?: string };
  const code = e.code ?? "";
  const text = e.message ?? String(error);
  if (code === "55P03") {
    return {
      message: "Nothing was changed: the journal's rows stayed locked by another transaction (lock_timeout). Try again once it is free.",
      auditable: false,
    };
  }
  if (RETRYABLE.has(code)) return { message: `Nothing was changed: the action kept colliding with other writers (${code}). Try again.`, auditable: true };
  if (code === "25006")
    return { message: `Nothing was changed: the journal's server is read-only (${text}); point the console at the primary.`, auditable: false };
  if (code === "53100") return { message: `Nothing was changed: the journal's disk is full (${text}). Free space on the database server.`, auditable: true };
  if (
    code.startsWith("08") ||
    code === "57P01" ||
    code === "57P02" ||
    code === "57P03" ||
    /^E(CONNREFUSED|CONNRESET|TIMEDOUT|HOSTUNREACH|NOTFOUND)$/.test(code)
  ) {
    return { message: `Nothing was changed: the journal's PostgreSQL server cannot be reached (${code}: ${text}).`, auditable: false };
  }
  if (code.startsWith("28")) return { message: `Nothing was changed: PostgreSQL refused the console's credentials (${code}: ${text}).`, auditable: false };
  if (code === "42P01" || code === "3F000") {
    return {
      message: `Nothing was changed: the journal's tables are missing on PostgreSQL (${code}: ${text}). Migrate it with npm run journal -- migrate.`,
      auditable: false,
    };
  }
  return null;
}

/**
 * The one door for an operator action on a PostgreSQL journal: what the console's server actions
 * call for a bot whose source is PostgreSQL, with the spec from lib/actions/pg-actions.ts.
 */
export async function runGuardedPg<S extends z.ZodType, P, T>(
  spec: PgActionSpec<S, P, T>,
  env: PgGuardEnv,
  raw: Record<string, unknown>,
): Promise<ActionResult<T>> {
  const clock = env.now ?? (() => new Date());
  const lockTimeoutMs = env.lockTimeoutMs ?? 5_000;
  const engine: GuardEngine<z.infer<S>, P, T> = {
    applyInTransaction: (ctx, entry) =>
      inAuditedTransaction(env.pool, lockTimeoutMs, async (client) => {
        // After the lock: the time of the action is when it could act, as on SQLite.
        const now = clock();
        const { data, detail } = await spec.applyPg({ tx: pgTx(client), input: ctx.input, prepared: ctx.prepared, actor: ctx.actor, user: ctx.user, now });
        const head = await appendAuditPg(client, entry(detail, now), env.auditKey);
        return { data, detail, head };
      }),
    auditAlone: (e) => inAuditedTransaction(env.pool, lockTimeoutMs, (client) => appendAuditPg(client, e, env.auditKey)),
    writeFault: pgWriteFault,
  };
  return runGuardedOn(spec, engine, env, raw);
}
