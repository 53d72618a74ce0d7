/**
 * The trigger-maintained tables on PostgreSQL (drizzle/pg/0001) against SQLite's (drizzle/0001,
 * 0003): the same reconciliations and book lines, written cycle by cycle into a real SQLite file
 * and a real PostgreSQL server, must leave latest_positions, position_rollups and cycle_rollups
 * equal row for row and value for value. The rows cover both drift classes, symbols left out of
 * cycles (a broken drift), skipped and errored cycles (with and without book lines), ties at the
 * extremes, times that arrive out of order, bucket edges, and a time with an offset.
 */
import Database from "better-sqlite3";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { migratePgJournal } from "@/lib/db/pg-journal";
import { migratedJournal } from "../helpers/journal";
import { postgresAvailable, startPostgres, type PostgresServer } from "../helpers/postgres";

interface Cycle {
  id: number;
  botId: string;
  at: string;
  outcome: "clean" | "drift" | "skipped" | "error";
  lines: { symbol: string; ours: number; theirs: number; qtyStep: number; markPrice: number | null }[];
}

/** A fixed pseudo-random journal (mulberry32), so a failure replays exactly. */
function scenario(cycles: number, seed = 15): Cycle[] {
  let s = seed;
  const rand = () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const steps: Record<string, number> = { BTCUSDT: 0.001, ETHUSDT: 0.01, SOLUSDT: 1 };
  const out: Cycle[] = [];
  let t = Date.parse("2026-11-30T23:41:30.000Z");
  for (let id = 1; id <= cycles; id++) {
    t += pick([15_000, 15_000, 30_000, 7_500, 60_000]);
    let at = new Date(t).toISOString();
    // Some cycles arrive late (an earlier time than the one before), some sit on a bucket edge.
    if (rand() < 0.05) at = new Date(t - 400_000).toISOString();
    if (rand() < 0.05) at = new Date(Math.floor(t / 300_000) * 300_000).toISOString();
    const outcome = pick(["clean", "clean", "drift", "drift", "skipped", "error"] as const);
    const lines: Cycle["lines"] = [];
    if (outcome !== "error" || rand() < 0.3) {
      for (const [symbol, qtyStep] of Object.entries(steps)) {
        if (rand() < 0.2) continue; // flat on both sides: the bot leaves it out
        const ours = pick([0, 1, 2, 2, 3]) * qtyStep * pick([1, 10]);
        const theirs = pick([ours, ours, ours + qtyStep * 0.4, ours + qtyStep, ours - 2 * qtyStep, 0.1 + 0.2]);
        lines.push({ symbol, ours, theirs, qtyStep, markPrice: rand() < 0.2 ? null : Math.round(rand() * 1e6) / 100 });
      }
    }
    out.push({ id, botId: pick(["bot-a", "bot-b"]), at, outcome, lines });
  }
  // A time with an offset: SQLite's strftime() and PostgreSQL both bucket it in UTC.
  out.push({
    id: cycles + 1,
    botId: "bot-a",
    at: "2026-12-01T03:07:12.500+02:00",
    outcome: "drift",
    lines: [{ symbol: "BTCUSDT", ours: 1, theirs: 2, qtyStep: 0.001, markPrice: 1 }],
  });
  return out;
}

const TABLES = {
  latest_positions: "bot_id, symbol",
  position_rollups: "bot_id, symbol, bucket",
  cycle_rollups: "bot_id, bucket",
} as const;

describe.skipIf(!postgresAvailable)("the journal's triggers write the same rows on PostgreSQL as on SQLite", () => {
  let server: PostgresServer;
  let client: pg.Client;
  let sqlite: Database.Database;
  const cycles = scenario(600);

  beforeAll(async () => {
    server = await startPostgres({ label: "pg-triggers" });
    console.log(`PostgreSQL initdb + start: ${server.startMs.toFixed(0)} ms`);
    // bigint as a number, as better-sqlite3 returns SQLite's integers.
    client = new pg.Client({
      connectionString: server.url,
      types: { getTypeParser: (oid, format) => (oid === 20 ? Number : pg.types.getTypeParser(oid, format)) } as pg.CustomTypesConfig,
    });
    await client.connect();
    await migratePgJournal(client);
    sqlite = new Database(migratedJournal("pg-triggers"));

    const rec = "INSERT INTO reconciliations (id, bot_id, at, outcome, orders_in_flight) VALUES ($1, $2, $3, $4, 0)";
    const pos = "INSERT INTO reconciliation_positions (reconciliation_id, symbol, ours, theirs, qty_step, mark_price) VALUES ($1, $2, $3, $4, $5, $6)";
    const liteRec = sqlite.prepare(rec.replace(/\$\d/g, "?"));
    const litePos = sqlite.prepare(pos.replace(/\$\d/g, "?"));
    // One transaction per cycle, as a bot writes them.
    for (const c of cycles) {
      sqlite.transaction(() => {
        liteRec.run(c.id, c.botId, c.at, c.outcome);
        for (const l of c.lines) litePos.run(c.id, l.symbol, l.ours, l.theirs, l.qtyStep, l.markPrice);
      })();
      await client.query("BEGIN");
      await client.query(rec, [c.id, c.botId, c.at, c.outcome]);
      for (const l of c.lines) await client.query(pos, [c.id, l.symbol, l.ours, l.theirs, l.qtyStep, l.markPrice]);
      await client.query("COMMIT");
    }
  });
  afterAll(async () => {
    sqlite?.close();
    await client?.end();
    await server?.stop();
  });

  it("covers what it claims: both drift classes, broken drifts, skipped cycles with lines, several rows per bucket", () => {
    const lines = cycles.flatMap((c) => c.lines.map((l) => ({ ...l, outcome: c.outcome })));
    expect(lines.some((l) => Math.abs(l.ours) < l.qtyStep / 2 && Math.abs(l.ours - l.theirs) >= l.qtyStep / 2)).toBe(true);
    expect(lines.some((l) => Math.abs(l.ours) >= l.qtyStep / 2 && Math.abs(l.ours - l.theirs) >= l.qtyStep / 2)).toBe(true);
    expect(lines.some((l) => l.outcome === "skipped")).toBe(true);
    const rollups = sqlite.prepare("SELECT max(cycles) AS m, sum(drift_cycles > 0) AS d, count(DISTINCT bucket) AS b FROM position_rollups").get() as {
      m: number;
      d: number;
      b: number;
    };
    expect(rollups.m).toBeGreaterThan(2);
    expect(rollups.d).toBeGreaterThan(10);
    expect(rollups.b).toBeGreaterThan(50);
    const drifting = sqlite.prepare("SELECT count(*) AS n FROM latest_positions WHERE drift_since IS NOT NULL").get() as { n: number };
    expect(drifting.n).toBeGreaterThan(0);
  });

  for (const [table, key] of Object.entries(TABLES)) {
    it(`${table}: the same rows`, async () => {
      const lite = sqlite.prepare(`SELECT * FROM ${table} ORDER BY ${key}`).all();
      const keyC = key
        .split(", ")
        .map((k) => `${k} COLLATE "C"`)
        .join(", ");
      const post = (await client.query(`SELECT * FROM ${table} ORDER BY ${keyC}`)).rows;
      expect(lite.length).toBeGreaterThan(0);
      expect(post).toEqual(lite);
    });
  }
});
