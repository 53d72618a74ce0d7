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
  one: boolean;
}

/** A read: yields its queries, is handed each one's rows, returns what it read. */
export type Reads<T> = Generator<ReadStep, T, unknown>;

/** Every row of a query, inside a read: `const rows = yield* all<Row>(sql, [a, b])`. */
export function* all<T>(sql: string, params: readonly unknown[] = []): Generator<ReadStep, T[], unknown> {
  return (yield { sql, params, one: false }) as T[];
}

/** The first row of a query, or undefined. */
export function* one<T>(sql: string, params: readonly unknown[] = []): Generator<ReadStep, T | undefined, unknown> {
  return (yield { sql, params, one: true }) as T | undefined;
}

/** A read on a SQLite connection (a page's read handle, or an action's write connection in its transaction), synchronously. */
export function runReadsSync<T>(db: JournalDb | Database.Database, reads: Reads<T>): T {
  let step = reads.next();
  while (!step.done) {
    const s = statement(db, step.value.sql);
    step = reads.next(step.value.one ? s.get(...step.value.params) : s.all(...step.value.params));
  }
  return step.value;
}

/** A read on any engine's handle; on SQLite it runs synchronously on the connection, as runReadsSync. */
export async function runReads<T>(q: JournalQuery, reads: Reads<T>): Promise<T> {
  if (q.dialect === "sqlite") return runReadsSync(q.key as Database.Database, reads);
  let step = reads.next();
  while (!step.done) {
    const { sql, params, one: first } = step.value;
    step = reads.next(first ? await q.get(sql, params) : await q.all(sql, params));
  }
  return step.value;
}
