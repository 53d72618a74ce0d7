/**
 * The journal contract on PostgreSQL (drizzle/pg) against the SQLite one (drizzle/): a real SQLite
 * file and a real PostgreSQL server (Debian's, started here on a free loopback port), both migrated
 * by the project's own migrators, must report the same tables, columns (normalised type,
 * nullability, default, generated id), primary and unique keys, foreign keys, checks and indexes
 * through their own catalogs; and the append-only tables must refuse changes on both.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { latestSchemaVersion } from "@/lib/db/journal-file";
import { migratePgJournal, pgSchemaState } from "@/lib/db/pg-journal";
import { catalogDiff, normExpr, pgCatalog, sqliteCatalog } from "../helpers/catalog";
import { migratedJournal, migrationsDir } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";

describe.skipIf(!postgresAvailable)("the journal on PostgreSQL describes the same contract as on SQLite", () => {
  let server: PostgresServer;
  let client: pg.Client;
  let sqlite: Database.Database;

  beforeAll(async () => {
    server = await startPostgres({ label: "pg-contract" });
    console.log(`PostgreSQL initdb + start: ${server.startMs.toFixed(0)} ms`);
    client = new pg.Client({ connectionString: server.url });
    await client.connect();
    await migratePgJournal(client);
    sqlite = new Database(migratedJournal("pg-contract"));
  });
  afterAll(async () => {
    sqlite?.close();
    await client?.end();
    await server?.stop();
  });

  it("has the same tables, columns, keys, checks and indexes", async () => {
    const lite = sqliteCatalog(sqlite);
    const post = await pgCatalog(client, { exclude: ["journal_schema"] });
    // Guard the comparison itself: it must have seen the tables, checks and the partial index.
    expect(Object.keys(lite)).toContain("position_rollups");
    expect(lite.orders?.checks.orders_state_check).toMatch(/^state in 'created', 'sent'/);
    expect(lite.orders?.indexes.orders_unsettled_idx?.where).toBe("state not in 'filled', 'canceled', 'rejected', 'absent'");
    const diff = catalogDiff(lite, post, ["sqlite", "postgres"]);
    expect(diff, `drizzle/ and drizzle/pg describe different journals:\n${diff.join("\n")}`).toEqual([]);
  });

  it("has a trigger of the same name, on the same table, for every SQLite trigger (and besides them only the TRUNCATE refusals)", async () => {
    const lite = (
      sqlite.prepare("SELECT name, tbl_name AS tbl FROM sqlite_master WHERE type = 'trigger' ORDER BY name").all() as { name: string; tbl: string }[]
    ).map((t) => `${t.tbl}.${t.name}`);
    const post = (
      await client.query<{ name: string }>(
        "SELECT c.relname || '.' || t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal ORDER BY t.tgname",
      )
    ).rows.map((r) => r.name);
    expect(lite.length).toBeGreaterThan(5);
    expect(post.filter((t) => !t.endsWith("_no_truncate")).sort()).toEqual([...lite].sort());
  });

  it("keeps the schema version in journal_schema, equal to the SQLite user_version, and migrating again changes nothing", async () => {
    const sqliteVersion = sqlite.pragma("user_version", { simple: true });
    expect(sqliteVersion).toBe(latestSchemaVersion(migrationsDir));
    expect((await pgSchemaState(client)).version).toBe(sqliteVersion);
    const again = await migratePgJournal(client);
    expect(again.applied).toEqual([]);
    await expect(client.query("INSERT INTO journal_schema (id, version, migrations) VALUES (2, 1, 1)")).rejects.toThrow(/journal_schema_one_row/);
  });

  it("refuses to change the append-only tables, as SQLite does", async () => {
    const correction =
      "INSERT INTO book_corrections (bot_id, symbol, kind, ours, theirs, reconciliation_id, delta, note, corrected_by, corrected_at) VALUES ('b', 'S', 'adopt_exchange', 1, 2, 1, 1, 'n', 'operator:x', '2026-12-01T00:00:00.000Z')";
    const prune =
      "INSERT INTO journal_prunes (started_at, horizon, keep_ms, incident_margin_ms, actor) VALUES ('2026-12-01T00:00:00.000Z', '2026-11-01T00:00:00.000Z', 2592000000, 3600000, 'cli:x')";
    const audit = (prev: string) =>
      `INSERT INTO audit_log (at, actor, action, target, outcome, detail, prev_hash, hash) VALUES ('2026-12-01T00:00:00.000Z', 'operator:x', 'halt', 'b', 'applied', '{}', '${prev}', 'h1')`;
    const refusals: [string, RegExp][] = [
      ["UPDATE book_corrections SET note = 'x'", /book_corrections is append-only/],
      ["DELETE FROM book_corrections", /book_corrections is append-only/],
      ["DELETE FROM journal_prunes", /journal_prunes is kept for good/],
      ["UPDATE audit_log SET actor = 'x'", /audit_log is append-only/],
      ["DELETE FROM audit_log", /audit_log is append-only/],
      [audit("not-the-last-hash"), /does not extend the chain/],
    ];
    for (const sql of [correction, prune, audit("genesis")]) {
      sqlite.exec(sql);
      await client.query(sql);
    }
    for (const [sql, message] of refusals) {
      expect(() => sqlite.exec(sql), `sqlite: ${sql}`).toThrow(message);
      await expect(client.query(sql), `postgres: ${sql}`).rejects.toThrow(message);
    }
    // TRUNCATE skips row triggers on PostgreSQL; the statement triggers refuse it too.
    for (const table of ["book_corrections", "journal_prunes", "audit_log"])
      await expect(client.query(`TRUNCATE ${table}`)).rejects.toThrow(/append-only|kept for good/);
    // A generated id on both: the next insert without one follows the last.
    const pgId = Number((await client.query<{ id: string }>(`${correction} RETURNING id`)).rows[0]?.id);
    const sqliteId = (sqlite.prepare(`${correction} RETURNING id`).get() as { id: number }).id;
    expect([pgId, sqliteId]).toEqual([2, 2]);
  });
});

describe("normExpr", () => {
  it("reads each engine's spelling of a check the same", () => {
    expect(normExpr(`"orders"."side" in ('buy', 'sell')`)).toBe(normExpr("CHECK ((side = ANY (ARRAY['buy'::text, 'sell'::text])))"));
    expect(normExpr(`"orders"."qty" > 0`)).toBe(normExpr("CHECK ((qty > (0)::double precision))"));
    expect(normExpr(`"orders"."state" not in ('filled', 'absent')`)).toBe(normExpr("(state <> ALL (ARRAY['filled'::text, 'absent'::text]))"));
  });
});
