/**
 * Bots on several hosts, one PostgreSQL journal: two real bot processes (scripts/pg-bot.ts, the
 * PgJournalWriter on the simulator) started at once on one fresh database, both migrating it first
 * (the migrator's advisory lock lets one apply it and the other find it applied), then writing their
 * sends, lost replies and reconciliations side by side. Each bot's rows are whole and its own.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { promisify } from "node:util";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PG_JOURNAL_TYPES } from "@/lib/bot/pg-journal-writer";
import { latestSchemaVersion } from "@/lib/db/journal-file";
import { repoRoot } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";

const run = promisify(execFile);

describe.skipIf(!postgresAvailable)("two bot processes writing one PostgreSQL journal", () => {
  let server: PostgresServer;
  beforeAll(async () => {
    server = await startPostgres({ label: "pg-bot-processes" });
  }, 120_000);
  afterAll(async () => {
    await server?.stop();
  });

  it("both migrate it at once, both write their own bot whole, neither double-buys after its lost reply", async () => {
    const bot = (id: string) =>
      run(process.execPath, ["--import", "tsx", "scripts/pg-bot.ts", "--journal", server.url, "--migrate", "--bot", id, "--cycles", "12"], {
        cwd: repoRoot,
        encoding: "utf8",
      });
    const [a, b] = await Promise.all([bot("alpha"), bot("beta")]);
    const out = [a, b].map((r) => JSON.parse(r.stdout.trim()) as { bot: string; outcomes: Record<string, number>; position: number });
    // Buy 10, sell 10, ...: a double buy after the lost reply in cycle 3 would leave +10.
    expect(out.map((o) => [o.bot, o.position, o.outcomes.placed])).toEqual([
      ["alpha", 0, 12],
      ["beta", 0, 12],
    ]);
    const client = new pg.Client({ connectionString: server.url, types: PG_JOURNAL_TYPES });
    await client.connect();
    try {
      const q = async (sql: string) => (await client.query(sql)).rows;
      // Every file of drizzle/pg applied once, at the contract version of drizzle/ (SQLite).
      const pgFiles = fs.readdirSync(path.join(repoRoot, "drizzle", "pg")).filter((f) => /^\d{4}_.*\.sql$/.test(f)).length;
      expect(await q(`SELECT version, migrations FROM journal_schema`)).toEqual([
        { version: latestSchemaVersion(path.join(repoRoot, "drizzle")), migrations: pgFiles },
      ]);
      expect(await q(`SELECT bot_id, count(*)::int AS n, sum(attempts)::int AS attempts FROM orders GROUP BY bot_id ORDER BY bot_id`)).toEqual([
        { bot_id: "alpha", n: 12, attempts: 12 },
        { bot_id: "beta", n: 12, attempts: 12 },
      ]);
      const kinds = await q(
        `SELECT o.bot_id, array_agg(e.kind ORDER BY e.id) AS kinds FROM order_events e JOIN orders o USING (client_order_id)
         WHERE o.created_at = (SELECT min(created_at) FROM orders o2 WHERE o2.bot_id = o.bot_id AND o2.client_order_id IN
           (SELECT client_order_id FROM order_events WHERE kind = 'timeout'))
         GROUP BY o.bot_id ORDER BY o.bot_id`,
      );
      expect(kinds).toEqual([
        { bot_id: "alpha", kinds: ["intent", "timeout", "lookup_found"] },
        { bot_id: "beta", kinds: ["intent", "timeout", "lookup_found"] },
      ]);
      expect(await q(`SELECT bot_id, count(*)::int AS n FROM reconciliations WHERE outcome = 'clean' GROUP BY bot_id ORDER BY bot_id`)).toEqual([
        { bot_id: "alpha", n: 12 },
        { bot_id: "beta", n: 12 },
      ]);
      expect(await q(`SELECT bot_id, halted FROM breakers ORDER BY bot_id`)).toEqual([
        { bot_id: "alpha", halted: 0 },
        { bot_id: "beta", halted: 0 },
      ]);
    } finally {
      await client.end();
    }
  });
});
