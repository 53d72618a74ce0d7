/**
 * A read written once, run by either engine. Some reads are needed both inside a SQLite action's
 * transaction, which is synchronous (better-sqlite3 cannot await inside one), and on a page or a
 * PostgreSQL action, which awaits. Such a read is a generator that yields its queries
 * (`yield* all(sql, params)`) and returns its result; runReadsSync runs it on a SQLite connection,
 * runReads on any engine's handle (lib/db/query.ts: `?` placeholders and camelCase aliases are
 * translated for PostgreSQL there), so the rule behind the button and behind the action is one text.
 */
import type Database from "better-sqlite3";
import type { JournalDb } from "./console";
import type { JournalQuery } from "./query";
import { statement } from "./statements";

interface ReadStep {
  sql: string;
  params: readonly unknown[];
  /** all: every row, handed back; one: the first; each: every row to `onRow`, as the engine reads it (SQLite streams them). */
  mode: "all" | "one" | "each";
  /** Rows as arrays of their columns in SELECT order (SQLite's raw mode), not objects. */
  raw: boolean;
  onRow?: (row: unknown) => void;
}

/** A read: yields its queries, is handed each one's rows, returns what it read. */
export type Reads<T> = Generator<ReadStep, T, unknown>;

/** Every row of a query, inside a read: `const rows = yield* all<Row>(sql, [a, b])`. */
export function* all<T>(sql: string, params: readonly unknown[] = [], opts: { raw?: boolean } = {}): Generator<ReadStep, T[], unknown> {
  return (yield { sql, params, mode: "all", raw: opts.raw === true }) as T[];
}

/** The first row of a query, or undefined. */
export function* one<T>(sql: string, params: readonly unknown[] = [], opts: { raw?: boolean } = {}): Generator<ReadStep, T | undefined, unknown> {
  return (yield { sql, params, mode: "one", raw: opts.raw === true }) as T | undefined;
}

/**
 * Every row of a query handed to `onRow` in order: SQLite iterates its cursor without holding the
 * rows; PostgreSQL gets them all in one answer (held until handed on). For a long window's cycles.
 */
export function* each<T>(sql: string, params: readonly unknown[], onRow: (row: T) => void, opts: { raw?: boolean } = {}): Generator<ReadStep, void, unknown> {
  yield { sql, params, mode: "each", raw: opts.raw === true, onRow: onRow as (row: unknown) => void };
}

/** A read on a SQLite connection (a page's read handle, or an action's write connection in its transaction), synchronously. */
export function runReadsSync<T>(db: JournalDb | Database.Database, reads: Reads<T>): T {
  let step = reads.next();
  while (!step.done) {
    const { sql, params, mode, raw, onRow } = step.value;
    // The mode is set on every use (pluck cleared too): the statement is the connection's cached one, shared by text.
    const s = statement(db, sql).pluck(false).raw(raw);
    if (mode === "each") {
      for (const row of s.iterate(...params)) onRow!(row);
      step = reads.next(undefined);
    } else step = reads.next(mode === "one" ? s.get(...params) : s.all(...params));
  }
  return step.value;
}

/** A read on any engine's handle; on SQLite it runs synchronously on the connection, as runReadsSync. */
export async function runReads<T>(q: JournalQuery, reads: Reads<T>): Promise<T> {
  if (q.dialect === "sqlite") return runReadsSync(q.key as Database.Database, reads);
  let step = reads.next();
  while (!step.done) {
    const { sql, params, mode, raw, onRow } = step.value;
    // Raw: arrays of the columns in SELECT order, as SQLite's raw mode gives them (node-postgres's rowMode "array").
    const rows: unknown[] = raw ? await q.arrays(sql, params) : await q.all<unknown>(sql, params);
    if (mode === "each") {
      for (const row of rows) onRow!(row);
      step = reads.next(undefined);
    } else step = reads.next(mode === "one" ? rows[0] : rows);
  }
  return step.value;
}
