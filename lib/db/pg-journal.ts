/**
 * Creating or upgrading a journal on PostgreSQL: the files of drizzle/pg in order, each in its own
 * transaction, under a session advisory lock taken before the transaction begins, so two migrators
 * never interleave. The version is the one row of `journal_schema` (docs/journal.md,
 * "PostgreSQL"): `migrations` says how many files are applied, `version` which contract version
 * (the SQLite user_version) that is.
 * Nothing in the console reads or writes PostgreSQL yet; this is the schema's foundation.
 */
import fs from "node:fs";
import path from "node:path";
import type { ClientBase } from "pg";

export function defaultPgMigrationsDir(): string {
  return path.join(process.cwd(), "drizzle", "pg");
}

interface PgMigration {
  /** 1-based: the value of journal_schema.migrations once this file is applied. */
  index: number;
  file: string;
  sql: string;
}

function loadPgMigrations(dir: string): PgMigration[] {
  const files = fs
    .readdirSync(/*turbopackIgnore: true*/ dir)
    .filter((f) => /^\d{4}_.*\.sql$/.test(f))
    .sort();
  return files.map((file, i) => {
    if (Number(file.slice(0, 4)) !== i) throw new Error(`migration ${file} is out of sequence: expected number ${String(i).padStart(4, "0")}`);
    return { index: i + 1, file, sql: fs.readFileSync(path.join(/*turbopackIgnore: true*/ dir, file), "utf8") };
  });
}

export interface PgSchemaState {
  /** Contract version; 0 when there is no journal schema (or only part of one). */
  version: number;
  migrations: number;
}

/** The schema version of the database `client` is connected to (its search_path's first schema). */
export async function pgSchemaState(client: ClientBase): Promise<PgSchemaState> {
  const exists = await client.query<{ t: string | null }>("SELECT to_regclass('journal_schema')::text AS t");
  if (!exists.rows[0]?.t) return { version: 0, migrations: 0 };
  const row = await client.query<{ version: string; migrations: string }>("SELECT version, migrations FROM journal_schema WHERE id = 1");
  const r = row.rows[0];
  return r ? { version: Number(r.version), migrations: Number(r.migrations) } : { version: 0, migrations: 0 };
}

/** Applies every file of drizzle/pg not yet applied. Safe to run twice and from two processes. */
export async function migratePgJournal(
  client: ClientBase,
  opts: { migrationsDir?: string } = {},
): Promise<{ from: PgSchemaState; to: PgSchemaState; applied: string[] }> {
  const migrations = loadPgMigrations(opts.migrationsDir ?? defaultPgMigrationsDir());
  const from = await pgSchemaState(client);
  if (from.migrations > migrations.length) {
    throw new Error(
      `the PostgreSQL journal has ${from.migrations} migrations applied, more than the ${migrations.length} this driftwatch knows: upgrade driftwatch`,
    );
  }
  const applied: string[] = [];
  for (const m of migrations) {
    // A session lock taken before BEGIN, not a transaction lock taken after it: a transaction that
    // began before the other migrator committed keeps its stale catalog cache (to_regclass still
    // says "no journal_schema") and would apply the file a second time ("relation already
    // exists"). Beginning after the wait refreshes it. Two bot processes migrating at once meet this
    // (test/integration/pg-bot-processes.test.ts).
    await client.query("SELECT pg_advisory_lock(hashtext('driftwatch.migrate'))");
    try {
      await client.query("BEGIN");
      try {
        // Read again under the lock: another migrator may have applied it meanwhile.
        if ((await pgSchemaState(client)).migrations >= m.index) {
          await client.query("COMMIT");
          continue;
        }
        // The simple query protocol runs a whole file of statements at once.
        await client.query(m.sql);
        const now = await pgSchemaState(client);
        if (now.migrations !== m.index)
          throw new Error(`${m.file} did not record itself in journal_schema (migrations is ${now.migrations}, expected ${m.index})`);
        await client.query("COMMIT");
        applied.push(m.file);
      } catch (error) {
        await client.query("ROLLBACK");
        throw error;
      }
    } finally {
      await client.query("SELECT pg_advisory_unlock(hashtext('driftwatch.migrate'))");
    }
  }
  return { from, to: await pgSchemaState(client), applied };
}
